#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/adaptive_sampler.hpp"
#include "plan/pair_spec.hpp"

namespace linkscope::plan {

// How the bytes move. CE: the copy engine (cudaMemcpyAsync with peer access). SM: a copy kernel.
enum class CopyMethod { kCe, kSm };
std::string to_string(CopyMethod method);

// Whose hardware does the copy. kDestination ("read", nvbandwidth's *_read_*): the destination GPU's stream
// issues the CE copy / runs the kernel, which pulls from the source. kSource ("write"): the source pushes.
enum class Initiator { kDestination, kSource };
std::string mode_name(Initiator initiator);       // "read" | "write"
std::string initiator_name(Initiator initiator);  // "dst" | "src"

// How a sample's N copies map to kernel launches.
//   kLaunch  one launch per copy: the time of a copy includes its launch, ramp-up and drain, as for a user who
//            launches one copy kernel
//   kKernel  the N copies repeat inside one launch (each CTA starts its next copy as soon as it finished its share
//            of the previous one, without a grid-wide wait), as nvbandwidth's SM copies do; this measures the
//            link's streaming rate without the ~5 us launch gap and drain/ramp at every copy boundary
//   kAuto    kKernel from kRepeatInKernelMinBytes up, kLaunch below (see repeat_in_kernel)
enum class SmRepeat { kAuto, kKernel, kLaunch };
std::string to_string(SmRepeat repeat);          // "auto" | "kernel" | "launch"
SmRepeat sm_repeat_from_string(std::string_view text);  // throws UsageError naming --sm-repeat

// From this size up, auto repeats copies inside one launch. A 64 MiB copy lasts ~170 us on a 478 GB/s link, so
// the launch gap and drain that each launch adds (~5 us on H200, inferred from the first run's SM reads sitting
// 0.35-0.45% below nvbandwidth's at 512 MiB; ~3% of a 64 MiB copy) is an artifact of issuing copies one launch at
// a time, not a property of the link; smaller copies keep one launch each so that their time still says what one
// copy costs (the latency-bound part of the curve).
inline constexpr std::uint64_t kRepeatInKernelMinBytes = 64ull << 20;
// The largest unified L1/shared memory of an SM (sm_90, sm_100: 256 KiB). A variant whose loads allocate in L1
// (plain `vec`) only repeats inside one launch when each SM's share of a copy is at least twice this, so a
// repeated copy cannot find its source lines still in L1 (L1 is invalidated between launches, not within one).
inline constexpr std::uint64_t kLargestL1BytesPerSm = 256ull << 10;

// Whether a sample's copies of `bytes` run inside one launch. kLaunch: never. Otherwise never when the loads
// allocate in L1 and bytes / sm_count < 2 x kLargestL1BytesPerSm (a repeat could hit L1); else kKernel: always,
// kAuto: from kRepeatInKernelMinBytes.
bool repeat_in_kernel(SmRepeat mode, std::uint64_t bytes, bool loads_allocate_in_l1, int sm_count);

// Launch shape of the SM copy kernel. Tunable (hidden CLI options) so one GPU run can compare shapes.
//   vec        16-byte loads/stores (ld.global.v4: loads allocate in L1), `unroll` independent loads per thread
//              before the stores
//   vec_cg     the same with .cg (cache in L2 only) loads and stores
//   vec_nc     loads through the non-coherent path without L1 allocation
//   vec_nc256  vec_nc plus an L2 256-byte prefetch hint on every load (sm_80+)
//   bulk       Hopper bulk copies (cp.async.bulk, TMA): global -> shared -> global in `bulk_chunk_bytes`
//              pieces, `bulk_stages` pieces in flight per CTA (sm_90; other GPUs fall back to the read default)
//
// The initialisers are the read-mode default; default_sm_shape() gives each mode's. First H200 NV18 sweep
// (512 MiB, ~70 shapes, one launch per copy): every shape read 373.5-374.6 GB/s and wrote 368.5-371.3 GB/s,
// so the shape is not what limits SM copies there; the best were vec_nc t1024 c2 u4 for read (374.5) and
// bulk 32Kx4 (one 128 KiB CTA per SM) for write (371.1-371.2). bench/device/p2p_tune2.sh re-measures them with
// the copies repeated inside one launch.
struct SmKernelShape {
  std::string variant = "vec_nc";
  int threads = 1024;           // threads per CTA (vec*)
  int ctas_per_sm = 2;          // resident CTAs per SM; 0 = as many as fit
  int unroll = 4;               // 1, 2, 4, 8, 12 or 16 (vec*)
  std::uint64_t bulk_chunk_bytes = 16384;
  int bulk_stages = 4;
  SmRepeat repeat = SmRepeat::kAuto;
  std::string label() const;    // "vec t512 c2 u8", "bulk 16Kx4 c2", "... launch" when repeat is not auto
  friend bool operator==(const SmKernelShape& a, const SmKernelShape& b) { return a.label() == b.label(); }
};
const std::vector<std::string>& sm_kernel_variants();
const std::vector<int>& sm_unroll_choices();
// Whether the variant's loads allocate lines in L1 (only plain `vec`).
bool loads_allocate_in_l1(const std::string& variant);
// Read mode: the initialisers above. Write mode: bulk 32Kx4 c1 (vec fields t1024 u8, the best vec write shape).
SmKernelShape default_sm_shape(Initiator initiator);

// Lists from the hidden tuning options; each empty list means "the default".
struct SmShapeLists {
  std::vector<std::string> variants;
  std::vector<int> threads;
  std::vector<int> ctas_per_sm;
  std::vector<int> unrolls;
  std::vector<std::uint64_t> bulk_chunks;
  std::vector<int> bulk_stages;
  std::vector<SmRepeat> repeats;
};
// Every combination of the lists (dimensions that do not apply to a variant are not multiplied: bulk ignores
// threads/unroll, vec* ignore the bulk sizes); empty lists take the value of `defaults`. Throws UsageError for a
// value out of range.
std::vector<SmKernelShape> expand_sm_shapes(const SmShapeLists& lists, const SmKernelShape& defaults = SmKernelShape{});

// The pointer chase (src/measure/latency_chase.hpp): one thread on the reader follows a cyclic chain of 8-byte
// pointers, one node per 128-byte line of `footprint_bytes` of the owner's memory.
//   order  random: the nodes in a shuffled cycle; stride: in address order, node i -> i+1 (nvbandwidth's chain:
//          next = (i + 16) mod n over 8-byte slots, i.e. one 128-byte line after the other)
//   load   cg: ld.global.cg (L2 only, never L1); ca: ld.global.ca (allocates in L1); plain: ld.global with no
//          cache operator, the instruction nvbandwidth's `p = p->next` compiles to
// An honest link round trip needs every load to leave the reader: each load reads a 128-byte line that is not in
// the reader's L1 (cg never uses L1; ca/plain need a lap of footprint / 128 lines to evict a line before it comes
// back, hence footprint >= 4 x kLargestL1BytesPerSm), and the reader's L2 does not hold a peer's lines. The owner's
// L2 may serve it (2 MiB fits there, as in nvbandwidth), so it is the link round trip plus a remote L2 hit.
enum class ChaseOrder { kRandom, kStride };
enum class ChaseLoad { kCg, kCa, kPlain };
std::string to_string(ChaseOrder order);
std::string to_string(ChaseLoad load);
inline constexpr std::uint64_t kChaseNodeBytes = 128;
struct ChaseSpec {
  ChaseOrder order = ChaseOrder::kRandom;
  ChaseLoad load = ChaseLoad::kCg;
  std::uint64_t footprint_bytes = 2ull << 20;
  std::string label() const;  // "random cg 2M"
  // cg, or a lap long enough to evict every line from the largest L1 before it is loaded again (see above).
  bool leaves_l1() const;
  friend bool operator==(const ChaseSpec& a, const ChaseSpec& b) { return a.label() == b.label(); }
};
// The default latency variant: ONE constant. Rule for changing it: among the variants whose loads all leave the
// reader (ChaseSpec::leaves_l1, footprint within the owner's L2), the one with the lowest median on the reference
// machine; bench/device/p2p_tune2.sh measures random|stride x cg|ca|plain side by side.
inline constexpr ChaseSpec kDefaultChase{ChaseOrder::kRandom, ChaseLoad::kCg, 2ull << 20};

struct ChaseLists {
  std::vector<std::string> orders;
  std::vector<std::string> loads;
  std::vector<std::uint64_t> footprints;
};
// Every combination; empty lists take kDefaultChase's value. Throws UsageError for an unknown order or load, or a
// footprint that is not a multiple of 128 bytes from 1K to 1G.
std::vector<ChaseSpec> expand_chase_specs(const ChaseLists& lists);

// How the streams of a multi-stream sample (bidirectional, patterns) open and close their shared window.
//   kFlag   the first stream sets a host-mapped flag after the shared start event, every other stream spins on it
//           in a one-thread kernel before its own start; each other stream sets a flag after its stop, and the first
//           stream spins on them before the shared stop event (~1-2 us per hand-over)
//   kEvent  cudaStreamWaitEvent on the other streams' events (the first implementation; across GPUs the waiting
//           GPU's front end polls for the event, which the first H200 run suggests costs ~15 us at each end)
enum class SpanSync { kFlag, kEvent };
std::string to_string(SpanSync sync);
SpanSync span_sync_from_string(std::string_view text);  // throws UsageError naming --span-sync

// Operations per sample: enough that one sample lasts >= kTargetSampleSeconds, so what each sample pays once
// (CUDA event resolution ~0.5 us; the first operation starting after the start event; in multi-stream samples
// the cross-GPU event waits that open and close the shared window, a few us each) stays <= ~0.05% of it. But
// never more than kMaxOpsPerSample: every operation of a sample is enqueued while the launch gate holds the
// stream, and CUDA blocks the host once ~1000 launches are pending (the host would then stall behind its own
// gate until the watchdog fires). `seconds_per_op` comes from a calibration sample of one operation. So a 1 GiB
// copy (~2.7 ms) gets 8 operations, a 1 KiB copy 128 (its time is latency anyway).
inline constexpr double kTargetSampleSeconds = 20e-3;
inline constexpr int kMaxOpsPerSample = 128;
int ops_per_sample(double seconds_per_op);

// Everything `linkscope p2p` was asked to measure.
struct P2pRequest {
  std::vector<std::uint64_t> sizes;
  std::vector<DirectedPair> pairs;
  std::vector<CopyMethod> methods = {CopyMethod::kCe, CopyMethod::kSm};
  Initiator initiator = Initiator::kDestination;
  bool bidirectional = false;
  bool verify = true;
  bool allow_staged = false;
  bool measure_copy = true;
  bool measure_latency = true;
  bool measure_host = true;
  std::uint64_t host_bytes = 0;  // 0: min(largest size, 256 MiB)
  SamplingPolicy sampling;
  int warmup_samples = 1;        // after the calibration sample
  std::uint32_t seed = 0x11C5C0DEu;
  int forced_ops = 0;            // > 0: fixed operations per sample instead of the rule above
  std::vector<SmKernelShape> sm_shapes = {SmKernelShape{}};
  std::vector<ChaseSpec> chase_specs = {kDefaultChase};
  SpanSync span_sync = SpanSync::kFlag;
  std::optional<int> cpu_node;
  std::string cpu_list;          // the CPUs the submitting thread was bound to ("" when not bound)
  // --testcase: nvbandwidth's testcases (plan/nvbandwidth_testcases.hpp) instead of curves, latency and host
  // copies, over `testcase_gpus` (the matrix columns), each copy of `testcase_bytes` (0: nvbandwidth's default).
  std::vector<std::string> testcases;
  std::vector<int> testcase_gpus;
  std::uint64_t testcase_bytes = 0;

  std::uint64_t max_bytes() const;
  std::uint64_t resolved_host_bytes() const;
};
nlohmann::json to_json(const P2pRequest& request);
P2pRequest p2p_request_from_json(const nlohmann::json& config);

// Size of every copy buffer: the largest size rounded up to whole 16-byte vectors (kernels and the pattern
// work on 16-byte units; the copies themselves move exactly the requested bytes).
std::uint64_t buffer_bytes_for(std::uint64_t bytes);

// Device memory each GPU needs for a p2p run: one source and one destination buffer of the largest size on
// every GPU named by a pair (host copies reuse them), plus with latency one chain per order and footprint.
std::map<int, std::uint64_t> p2p_bytes_per_device(const P2pRequest& request);

// "needs 2.0 GiB on GPU 0 (source and destination buffers of 1G), 1.5 GiB free"; empty when it fits.
// `margin_bytes` is kept free for the CUDA context, kernels and the latency chain.
std::string memory_shortfall(int device, std::uint64_t needed, std::uint64_t free_bytes, std::uint64_t margin_bytes,
                             std::string_view what);

// 1.5 GiB style, for messages.
std::string format_gib(std::uint64_t bytes);

}  // namespace linkscope::plan
