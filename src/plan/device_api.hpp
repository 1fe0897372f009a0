#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "plan/collective_spec.hpp"

// nccl-tests 2.19.6's -D/-V: the collective done by a kernel written against NCCL's device API (symmetric windows
// from -R 2, a device communicator from ncclDevCommCreate) instead of by an NCCL call. What each implementation
// needs and which flags it accepts, host-only so that every rule and message is unit-tested without a GPU.
namespace linkscope::coll {

// nccl-tests' implementations: all_reduce 1..4, alltoall 1..4.
enum class DeviceKernel {
  kAllReduceLsa,                 // -D 1: every rank sums a slice from all peers and stores it to all peers
  kAllReduceLsaVectorized,       // -D 2: the same with 16-byte loads and stores
  kAllReduceMultimem,            // -D 3: NVLS multimem load-reduce / store
  kAllReduceMultimemVectorized,  // -D 4
  kAlltoAllLsa,                  // -D 1: every rank stores block p of its input into peer p's output
  kAlltoAllLsaVectorized,        // -D 2: the same with 16-byte stores
  kAlltoAllGin,                  // -D 3: GPU-initiated networking puts
  kAlltoAllHybrid,               // -D 4: LSA stores within the node, GIN puts beyond it
};

// ncclDevCommRequirements' fields that nccl-tests sets (the rest stay zero).
struct DeviceApiRequirements {
  bool lsa_multimem = false;
  int lsa_barrier_count = 0;
  int barrier_count = 0;
  int gin_signal_count = 0;
};

struct DeviceApiPlan {
  int implementation = 0;  // -D
  int ctas = 16;           // -V: thread blocks of every launch
  DeviceKernel kernel = DeviceKernel::kAllReduceLsa;
  DeviceApiRequirements requirements;
};

// nccl-tests' launch shape: -V blocks of this many threads (common.h, testLaunchDeviceKernel).
inline constexpr int kDeviceApiThreadsPerCta = 512;
inline constexpr int kDefaultDeviceCtas = 16;

// -V as nccl-tests reads it (with or without -D): a count outside 1..128 is its warning in `notes` and 16.
int device_cta_count(int requested, std::vector<std::string>& notes);

// The device-API plan of `implementation` (-D) for `op`; nothing when -D is 0. -D without -R 2 is nccl-tests'
// message with its exit code (Error ExitCode::kNcclTestsRefused, 255); an implementation the test lacks is a UsageError with
// nccl-tests' message, a type or reduction its kernels are not instantiated for one with linkscope's. The CTAs are
// device_cta_count(ctas).
std::optional<DeviceApiPlan> plan_device_api(CollectiveOp op, int implementation, int ctas, int local_register,
                                             const std::vector<DataType>& types, const std::vector<RedOp>& redops,
                                             std::vector<std::string>& notes);

// "LSA", "LSA vectorized", "multimem", ... as nccl-tests' sources call them.
std::string_view kernel_name(DeviceKernel kernel);
// Whether linkscope has this kernel: the LSA ones. The multimem and GIN kernels need NVLS or a GIN network plugin,
// which the one-GPU machine available (NCCL_NVLS_ENABLE=0, no network) cannot exercise, so they are left out.
bool kernel_implemented(DeviceKernel kernel);
// What the Run records as the series' call, e.g. "device API all_reduce LSA kernel (-D 1, 16 CTAs x 512 threads)".
std::string device_call_name(CollectiveOp op, const DeviceApiPlan& plan);

// The loaded NCCL as far as -D depends on it.
struct DeviceApiLibrary {
  int headers_code = 0;        // NCCL_VERSION_CODE linkscope was built with
  std::string headers_version; // "2.28.9"
  int library_code = 0;        // ncclGetVersion()
  std::string version;         // "2.28.3"
  std::string path;            // the libnccl.so.2 that was opened
  std::string missing_symbol;  // the first of ncclDevCommCreate/Destroy, ncclCommWindowRegister/Deregister it lacks
};

// The version gate: the library must have the device ABI of the headers the kernels were built with. nccl-tests
// refuses a 2.28 build on 2.29 and later (2.29 changed the ABI); within 2.28 the ABI changed too: 2.28.7 grew
// ncclDevCommRequirements (barrierCount before lsaBarrierCount) and ncclWindow_vidmem, which ncclDevComm holds
// inline, so a 2.28.9 build would misread a 2.28.3 library's device communicator (NCCL's git tags v2.28.3-1 and
// v2.28.7-1, src/include/nccl_device). Throws DeviceError naming what does not fit or is missing.
void check_device_api_library(const DeviceApiLibrary& library);

}  // namespace linkscope::coll
