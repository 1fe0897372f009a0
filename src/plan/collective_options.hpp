#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/environment.hpp"
#include "plan/alltoallv_traffic.hpp"
#include "plan/collective_spec.hpp"
#include "plan/device_api.hpp"
#include "plan/nccl_tests_split.hpp"
#include "plan/nccl_tests_timing.hpp"

// `linkscope coll` options as the user typed them (nccl-tests' flags plus linkscope's own) and their
// translation into what to run. Host-only so that every rule and message is unit-tested without a GPU.
namespace linkscope::coll {

enum class OutputFormat { kText, kJson, kNcclTests };

struct CollOptions {
  std::string op = "all_reduce";
  // Sizes and sweep (-b -e -i -f); linkscope's defaults sweep 8 B .. 1 GiB by 2x, the nccl-tests
  // personality uses nccl-tests' 32M .. 32M.
  std::string min_bytes = "8";
  std::string max_bytes = "1G";
  std::string step_bytes = "1M";
  double step_factor = 2;
  int threads = 1;                    // -t
  int gpus = 1;                       // -g
  int warmup_iters = 1;               // -w
  std::optional<int> iters;           // -n: fixed count; otherwise adaptive
  int agg_iters = 1;                  // -m
  int cycles = 1;                     // -N
  int check = 1;                      // -c: 0 disables verification
  std::string datatype = "float";     // -d (or "all")
  std::string redop = "sum";          // -o (or "all")
  std::string root = "0";             // -r (-1 or "all": every rank)
  int graph_launches = 0;             // -G
  bool report_cputime = false;        // -C
  std::optional<int> average;         // -a: 0 rank 0, 1 avg, 2 min, 3 max (default: max)
  double timeout_s = 300;             // -T / --timeout
  // nccl-tests 2.19.6's other flags, with its meanings (docs/collectives.md).
  int parallel_init = 0;              // -p
  int blocking = 0;                   // -z 0..3 (coll::BlockingMode)
  int stream_null = 0;                // -y: the legacy default stream instead of one stream per GPU
  int local_register = 0;             // -R 0 off, 1 ncclCommRegister, 2 symmetric windows
  int cta_policy = -1;                // -x: ncclConfig_t.CTAPolicy (-1: not set)
  int device_impl = 0;                // -D: device-API kernels
  int device_ctas = 16;               // -V
  int timestamps = 0;                 // -S
  int memory_report = 0;              // -M
  int unalign = 0;                    // -u: first element of both buffers, in elements
  int per_iter_timing = 0;            // -I
  int per_iter_skip = 0;              // -K
  std::string json_file;              // -J
  bool personality = false;           // run as an nccl-tests binary (all_reduce_perf ...): nccl-tests' host timer
  bool linkscope_stats = false;       // --linkscope-stats: the personality keeps linkscope's event statistics
  AlltoallvTraffic alltoallv;         // alltoallv: NCCL_TESTS_ALLTOALLV_* (plan/alltoallv_traffic.hpp)
  SplitRule split;                    // under MPI: NCCL_TESTS_SPLIT_MASK / NCCL_TESTS_SPLIT
  // linkscope's own.
  OutputFormat format = OutputFormat::kText;
  std::optional<double> target_ci;    // --target-ci
  std::optional<double> max_time_s;   // --max-time (per point)
  bool in_place = false;              // --in-place: also measure in place (always with --format nccl-tests)
  bool quiet = false;
};

struct CollPlan {
  CollectiveOp op = CollectiveOp::kAllReduce;
  std::vector<DataType> types;
  std::vector<RedOp> redops;          // one entry ({kSum}) for ops without reduction
  bool all_roots = false;
  int root = 0;
  std::vector<std::uint64_t> sizes;
  std::uint64_t min_bytes = 0, max_bytes = 0;  // -b and -e as given (alltoallv's matrix rules use them)
  AlltoallvTraffic alltoallv;         // alltoallv only
  SplitRule split;                    // one NCCL communicator per colour of MPI processes
  int gpus_per_process = 1;
  bool out_of_place = true;
  bool in_place = false;
  bool verify = true;
  std::optional<int> fixed_iters;
  double target_ci = 0.01;
  double max_time_s = 0.15;
  RankTimeReduction reduction = RankTimeReduction::kMaximum;
  int warmup_iters = 1;               // untimed operations before each point
  int agg_iters = 1;                  // operations per iteration, in one NCCL group
  int graph_launches = 0;             // > 0: iterations captured into CUDA graphs
  int cycles = 1;                     // repeats of the whole sweep; 0: until a signal (personalities)
  double timeout_s = 0;               // NCCL initialisation and progress watchdog; 0 = none
  bool all_types = false;             // -d all: a type the GPUs cannot run is dropped, not refused
  // How `time` is taken: linkscope's gated events (coll) or nccl-tests' host timer (the personalities).
  TimingClock clock = TimingClock::kEvents;
  BlockingMode blocking = BlockingMode::kOff;  // -z (host timer only)
  bool per_iteration_timing = false;  // -I: CUDA events around every iteration as well
  int per_iteration_skip = 0;         // -K
  bool null_stream = false;           // -y
  int unalign_elements = 0;           // -u
  int local_register = 0;             // -R: 0, 1 local, 2 symmetric
  std::optional<int> cta_policy;      // -x
  std::optional<DeviceApiPlan> device_api;  // -D/-V: device-API kernels instead of NCCL calls
  bool parallel_init = false;         // -p
  bool timestamps = false;            // -S
  bool memory_report = false;         // -M
  bool report_cputime = false;        // -C
  std::string json_file;              // -J: nccl-tests' JSON document
  std::vector<std::string> notes;     // things the user should know (ignored flags, rounding, mappings)
};

// Validates and translates; throws UsageError with a one-line reason.
CollPlan make_coll_plan(const CollOptions& options);

// The roots to run for `op` over `nranks` ranks (-r -1 / all: every rank; unrooted ops: {0}); throws
// UsageError for a root outside 0..nranks-1.
std::vector<int> roots_for(const CollPlan& plan, int nranks);

// nccl-tests' memory rule: buffers must leave min(ceil(memory / 16 GiB) GiB, 4 GiB) + 1 GiB of the smallest
// GPU free; linkscope needs two buffers (send and receive; results are checked without a third).
std::uint64_t max_buffer_bytes_for_memory(std::uint64_t gpu_memory_bytes);

std::string_view format_name(OutputFormat format);

}  // namespace linkscope::coll

namespace linkscope::coll {

// CUDA devices of this process's ranks: `gpus` consecutive devices starting at NCCL_TESTS_DEVICE when set,
// else at local_rank x gpus (nccl-tests' rule); when the process sees exactly `gpus` devices (a launcher
// bound GPUs per task, e.g. srun --gpus-per-task) they are 0..gpus-1. Throws UsageError when the
// devices are not visible.
std::vector<int> select_local_devices(int visible_devices, int gpus, int local_rank, std::optional<int> first_device);

// NCCL_TESTS_DEVICE (nccl-tests' variable): the first GPU of a process, when set.
std::optional<int> nccl_tests_device(const Environment& env);

}  // namespace linkscope::coll
