#include "plan/device_api.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/exit_code.hpp"

namespace linkscope::coll {

namespace {

// NCCL's version codes (major*10000 + minor*100 + patch): the device API arrived in 2.28.0, its structures grew in
// 2.28.7 and 2.29 changed its ABI again (size/magic/version headers in the structures).
constexpr int kDeviceApiFirst = 22800;
constexpr int kDeviceApiGrew = 22807;
constexpr int kDeviceApiAbiChange = 22900;

// 0 none, 1 2.28.0-2.28.6, 2 2.28.7-2.28.x, 3 2.29 and later: libraries of one epoch share the device ABI.
int device_abi_epoch(int code) {
  if (code < kDeviceApiFirst) return 0;
  if (code < kDeviceApiGrew) return 1;
  return code < kDeviceApiAbiChange ? 2 : 3;
}

// nccl-tests' SPECIALIZE_KERNEL: its kernels exist for these types, summed.
bool kernel_type(DataType type) {
  switch (type) {
    case DataType::kInt8:
    case DataType::kUint8:
    case DataType::kInt32:
    case DataType::kUint32:
    case DataType::kInt64:
    case DataType::kUint64:
    case DataType::kHalf:
    case DataType::kFloat:
    case DataType::kDouble: return true;
    default: return false;
  }
}

std::optional<DeviceKernel> kernel_of(CollectiveOp op, int implementation) {
  if (implementation < 1 || implementation > 4) return std::nullopt;
  if (op == CollectiveOp::kAllReduce) return static_cast<DeviceKernel>(implementation - 1);
  if (op == CollectiveOp::kAlltoAll) {
    return static_cast<DeviceKernel>(static_cast<int>(DeviceKernel::kAlltoAllLsa) + implementation - 1);
  }
  return std::nullopt;
}

}  // namespace

int device_cta_count(int requested, std::vector<std::string>& notes) {
  if (requested > 0 && requested <= 128) return requested;
  notes.push_back(fmt::format("device_cta_count (-V) must be positive and less than 128, got {}. Using default value 16.",
                              requested));
  return kDefaultDeviceCtas;
}

std::optional<DeviceApiPlan> plan_device_api(CollectiveOp op, int implementation, int ctas, int local_register,
                                             const std::vector<DataType>& types, const std::vector<RedOp>& redops,
                                             std::vector<std::string>& notes) {
  if (implementation == 0) return std::nullopt;
  if (local_register != 2) {
    // nccl-tests' main returns -1 here: the shell sees 255 (`coll` turns it into its usage code).
    throw Error(ExitCode::kNcclTestsRefused,
                "device implementation (-D > 0) requires enabling symmetric memory registration (-R 2)");
  }
  const auto kernel = kernel_of(op, implementation);
  if (!kernel) throw UsageError(fmt::format("Device implementation {} is not supported by this test", implementation));
  for (DataType type : types) {
    if (!kernel_type(type)) {
      throw UsageError(fmt::format("-D {}: nccl-tests' device kernels exist for int8, uint8, int32, uint32, int64, uint64, "
                                   "half, float and double only, not {}",
                                   implementation, type_name(type)));
    }
  }
  if (op == CollectiveOp::kAllReduce) {
    for (RedOp redop : redops) {
      if (redop != RedOp::kSum) {
        throw UsageError(
            fmt::format("-D {}: nccl-tests' device kernels only sum, not {}", implementation, red_op_name(redop)));
      }
    }
  }
  DeviceApiPlan plan;
  plan.implementation = implementation;
  plan.kernel = *kernel;
  plan.ctas = device_cta_count(ctas, notes);
  // nccl-tests' getDevCommRequirements (2.28 headers): one barrier per CTA, LSA for NVLink kernels, multimem for
  // NVLS, world barriers and GIN signals for the network kernels.
  switch (plan.kernel) {
    case DeviceKernel::kAllReduceLsa:
    case DeviceKernel::kAllReduceLsaVectorized:
    case DeviceKernel::kAlltoAllLsa:
    case DeviceKernel::kAlltoAllLsaVectorized: plan.requirements.lsa_barrier_count = plan.ctas; break;
    case DeviceKernel::kAllReduceMultimem:
    case DeviceKernel::kAllReduceMultimemVectorized:
      plan.requirements.lsa_multimem = true;
      plan.requirements.lsa_barrier_count = plan.ctas;
      break;
    case DeviceKernel::kAlltoAllGin:
    case DeviceKernel::kAlltoAllHybrid:
      plan.requirements.barrier_count = plan.ctas;
      plan.requirements.gin_signal_count = plan.ctas;
      break;
  }
  return plan;
}

std::string_view kernel_name(DeviceKernel kernel) {
  switch (kernel) {
    case DeviceKernel::kAllReduceLsa: return "LSA";
    case DeviceKernel::kAllReduceLsaVectorized: return "LSA vectorized";
    case DeviceKernel::kAllReduceMultimem: return "multimem";
    case DeviceKernel::kAllReduceMultimemVectorized: return "multimem vectorized";
    case DeviceKernel::kAlltoAllLsa: return "NVL";
    case DeviceKernel::kAlltoAllLsaVectorized: return "NVL optimized";
    case DeviceKernel::kAlltoAllGin: return "GIN";
    case DeviceKernel::kAlltoAllHybrid: return "hybrid LSA+GIN";
  }
  return "";
}

bool kernel_implemented(DeviceKernel kernel) {
  return kernel == DeviceKernel::kAllReduceLsa || kernel == DeviceKernel::kAllReduceLsaVectorized ||
         kernel == DeviceKernel::kAlltoAllLsa || kernel == DeviceKernel::kAlltoAllLsaVectorized;
}

std::string device_call_name(CollectiveOp op, const DeviceApiPlan& plan) {
  return fmt::format("device API {} {} kernel (-D {}, {} CTAs x {} threads)", op_name(op), kernel_name(plan.kernel),
                     plan.implementation, plan.ctas, kDeviceApiThreadsPerCta);
}

void check_device_api_library(const DeviceApiLibrary& library) {
  const int built = device_abi_epoch(library.headers_code);
  if (built == 0 || built == 3) {
    throw DeviceError(fmt::format("-D: linkscope was built with NCCL {} headers; its device kernels are written for the "
                                  "NCCL 2.28 device API",
                                  library.headers_version));
  }
  const int loaded = device_abi_epoch(library.library_code);
  if (loaded == 0) {
    throw DeviceError(fmt::format("Option -D (device implementation) requires NCCL >= 2.28.0; the loaded NCCL is {} ({})",
                                  library.version, library.path));
  }
  if (loaded == 3) {
    throw DeviceError(fmt::format("Incompatible NCCL versions. linkscope was compiled with NCCL 2.28, but is running with "
                                  "NCCL {}. The 2.28 Device API is not compatible with later.",
                                  library.library_code));
  }
  if (loaded != built) {
    throw DeviceError(fmt::format("Incompatible NCCL versions. linkscope was compiled with NCCL {}, but is running with "
                                  "NCCL {} ({}): the device API's structures changed in 2.28.7",
                                  library.headers_version, library.version, library.path));
  }
  if (!library.missing_symbol.empty()) {
    throw DeviceError(fmt::format("-D needs {}; the loaded NCCL {} ({}) lacks it", library.missing_symbol,
                                  library.version, library.path));
  }
}

}  // namespace linkscope::coll
