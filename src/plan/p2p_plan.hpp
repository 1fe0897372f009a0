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

// Launch shape of the SM copy kernel. Tunable (hidden CLI options) so one GPU run can compare shapes.
//   vec        16-byte loads/stores (ld.global.v4), `unroll` independent loads per thread before the stores
//   vec_cg     the same with .cg (cache in L2 only) loads and stores
//   vec_nc     loads through the non-coherent path without L1 allocation
//   vec_nc256  vec_nc plus an L2 256-byte prefetch hint on every load (sm_80+)
//   bulk       Hopper bulk copies (cp.async.bulk, TMA): global -> shared -> global in `bulk_chunk_bytes`
//              pieces, `bulk_stages` pieces in flight per CTA (sm_90; other GPUs fall back to vec)
//
// Default vec_nc256: nvbandwidth's SM copy (plain 16-byte loads, one 512-thread CTA per SM, unroll 12) reads
// 376 GB/s on H200 NVLink against 394 for the copy engine, which moves 256-byte payloads; the 256-byte L2
// prefetch hint is the plain-load variant that can ask the memory system for 256 bytes at a time, and the
// non-coherent, no-L1-allocate path keeps streaming data out of L1. Two CTAs of 512 threads with 8 loads each
// keep 128 KiB in flight per SM (~17 MB GPU-wide; ~0.4 MB covers NVLink's ~0.8 us round trip at 478 GB/s).
// p2p_tune.sh measures the alternatives; change these initialisers to adopt a better shape.
struct SmKernelShape {
  std::string variant = "vec_nc256";
  int threads = 512;            // threads per CTA (vec*)
  int ctas_per_sm = 2;          // resident CTAs per SM; 0 = as many as fit
  int unroll = 8;               // 1, 2, 4, 8, 12 or 16 (vec*)
  std::uint64_t bulk_chunk_bytes = 16384;
  int bulk_stages = 4;
  std::string label() const;    // "vec t512 c2 u8", "bulk 16K x4 c2"
  friend bool operator==(const SmKernelShape& a, const SmKernelShape& b) { return a.label() == b.label(); }
};
const std::vector<std::string>& sm_kernel_variants();
const std::vector<int>& sm_unroll_choices();

// Lists from the hidden tuning options; each empty list means "the default".
struct SmShapeLists {
  std::vector<std::string> variants;
  std::vector<int> threads;
  std::vector<int> ctas_per_sm;
  std::vector<int> unrolls;
  std::vector<std::uint64_t> bulk_chunks;
  std::vector<int> bulk_stages;
};
// Every combination of the lists (dimensions that do not apply to a variant are not multiplied: bulk ignores
// threads/unroll, vec* ignore the bulk sizes). Throws UsageError for a value out of range.
std::vector<SmKernelShape> expand_sm_shapes(const SmShapeLists& lists);

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
  std::optional<int> cpu_node;
  std::string cpu_list;          // the CPUs the submitting thread was bound to ("" when not bound)

  std::uint64_t max_bytes() const;
  std::uint64_t resolved_host_bytes() const;
};
nlohmann::json to_json(const P2pRequest& request);
P2pRequest p2p_request_from_json(const nlohmann::json& config);

// Size of every copy buffer: the largest size rounded up to whole 16-byte vectors (kernels and the pattern
// work on 16-byte units; the copies themselves move exactly the requested bytes).
std::uint64_t buffer_bytes_for(std::uint64_t bytes);

// Device memory each GPU needs for a p2p run: one source and one destination buffer of the largest size on
// every GPU named by a pair (host copies reuse them).
std::map<int, std::uint64_t> p2p_bytes_per_device(const P2pRequest& request);

// "needs 2.0 GiB on GPU 0 (source and destination buffers of 1G), 1.5 GiB free"; empty when it fits.
// `margin_bytes` is kept free for the CUDA context, kernels and the latency chain.
std::string memory_shortfall(int device, std::uint64_t needed, std::uint64_t free_bytes, std::uint64_t margin_bytes,
                             std::string_view what);

// 1.5 GiB style, for messages.
std::string format_gib(std::uint64_t bytes);

}  // namespace linkscope::plan
