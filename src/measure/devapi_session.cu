#include "measure/devapi_session.hpp"

#include <nccl_device.h>

#include <cstdio>

#include <fmt/format.h>

#include "core/error.hpp"
#include "measure/devapi_kernels.hpp"
#include "measure/nccl_communicators.hpp"
#include "measure/nccl_error.hpp"
#include "platform/cuda_check.hpp"
#include "platform/cuda_resources.hpp"
#include "platform/nccl_library.hpp"

namespace linkscope::measure {

namespace {

coll::DeviceApiLibrary loaded_library() {
  const auto& nccl = platform::nccl_library();
  coll::DeviceApiLibrary library;
  library.headers_code = NCCL_VERSION_CODE;
  library.headers_version = platform::nccl_version_string(NCCL_VERSION_CODE);
  library.library_code = nccl.version_code;
  library.version = nccl.version_string();
  library.path = nccl.path;
  if (nccl.DevCommCreate == nullptr) {
    library.missing_symbol = "ncclDevCommCreate";
  } else if (nccl.DevCommDestroy == nullptr) {
    library.missing_symbol = "ncclDevCommDestroy";
  } else if (nccl.CommWindowRegister == nullptr) {
    library.missing_symbol = "ncclCommWindowRegister";
  } else if (nccl.CommWindowDeregister == nullptr) {
    library.missing_symbol = "ncclCommWindowDeregister";
  }
  return library;
}

ncclDevCommRequirements requirements_of(const coll::DeviceApiPlan& plan) {
  ncclDevCommRequirements reqs{};  // nccl-tests' 2.28 path: everything zero but what the implementation needs
  reqs.lsaMultimem = plan.requirements.lsa_multimem;
  reqs.lsaBarrierCount = plan.requirements.lsa_barrier_count;
  reqs.barrierCount = plan.requirements.barrier_count;
  reqs.ginSignalCount = plan.requirements.gin_signal_count;
  return reqs;
}

}  // namespace

void check_device_api_available() { coll::check_device_api_library(loaded_library()); }

struct DevapiSession::Impl {
  NcclCommunicators& comms;
  std::vector<ncclWindow_t> send, recv;
  std::vector<ncclDevComm> dev;  // one per local rank, valid once `created`
  bool created = false;

  ~Impl() {
    if (!created || comms.aborted()) return;
    const auto& nccl = platform::nccl_library();
    for (std::size_t i = 0; i < dev.size(); ++i) {
      const ncclResult_t result = nccl.DevCommDestroy(comms.comm(i), &dev[i]);
      if (result != ncclSuccess) {
        std::fprintf(stderr, "linkscope: warning: ncclDevCommDestroy failed: %s\n", nccl.GetErrorString(result));
      }
    }
  }
};

DevapiSession::DevapiSession(NcclCommunicators& comms, const coll::DeviceApiPlan& plan,
                             std::vector<ncclWindow_t> send_windows, std::vector<ncclWindow_t> recv_windows)
    : comms_(comms),
      plan_(plan),
      impl_(std::make_unique<Impl>(Impl{comms, std::move(send_windows), std::move(recv_windows), {}, false})) {
  check_device_api_available();
  if (impl_->send.size() != comms.local_count() || impl_->recv.size() != comms.local_count()) {
    throw Error(ExitCode::kInternal, "-D without a symmetric window per local rank (-R 2)");
  }
  const auto& nccl = platform::nccl_library();
  const ncclDevCommRequirements reqs = requirements_of(plan);
  impl_->dev.assign(comms.local_count(), ncclDevComm{});
  nccl_check(nccl.GroupStart(), "ncclGroupStart");
  ncclResult_t result = ncclSuccess;
  for (std::size_t i = 0; i < comms.local_count() && result == ncclSuccess; ++i) {
    result = nccl.DevCommCreate(comms.comm(i), &reqs, &impl_->dev[i]);
  }
  const ncclResult_t end = nccl.GroupEnd();
  nccl_check(result != ncclSuccess ? result : end, "ncclDevCommCreate");
  impl_->created = true;
  for (std::size_t i = 0; i < comms.local_count(); ++i) {
    // NCCL answers ncclCommWindowRegister with success and no window where the communicator has no symmetric memory.
    if (impl_->send[i] == nullptr || impl_->recv[i] == nullptr) {
      throw DeviceError("-D: NCCL made no symmetric window of the buffers (ncclCommWindowRegister gave none): the "
                        "communicator has no symmetric memory support");
    }
  }
  for (const ncclDevComm& dev : impl_->dev) {
    if (dev.lsaSize != dev.nRanks) {
      throw UsageError("DeviceImplementation > 1 requires CUDA P2P connectivity across all ranks. Not all ranks of "
                       "this communicator have P2P connectivity.");
    }
  }
  if (!coll::kernel_implemented(plan.kernel)) {
    throw UsageError(fmt::format("-D {}: NCCL created the {} device communicator, but linkscope has no {} kernel (it "
                                 "has the LSA ones, -D 1 and -D 2)",
                                 plan.implementation, coll::kernel_name(plan.kernel), coll::kernel_name(plan.kernel)));
  }
}

DevapiSession::~DevapiSession() = default;

void DevapiSession::forget() { impl_->created = false; }

void DevapiSession::launch(const DevapiCall& call) const {
  DevapiLaunch launch;
  launch.send = call.input_in_recv ? impl_->recv[call.local] : impl_->send[call.local];
  launch.send_offset = call.send_offset;
  launch.recv = impl_->recv[call.local];
  launch.recv_offset = call.recv_offset;
  launch.count = call.count;
  launch.type = call.type;
  launch.ctas = plan_.ctas;
  launch.stream = comms_.stream(call.local);
  const ncclDevComm& dev = impl_->dev[call.local];
  platform::ScopedDevice scope(comms_.local(call.local).device);
  cudaError_t status = cudaErrorInvalidValue;
  switch (plan_.kernel) {
    case coll::DeviceKernel::kAllReduceLsa: status = launch_allreduce_lsa(launch, dev, false); break;
    case coll::DeviceKernel::kAllReduceLsaVectorized: status = launch_allreduce_lsa(launch, dev, true); break;
    case coll::DeviceKernel::kAlltoAllLsa: status = launch_alltoall_lsa(launch, dev, false); break;
    case coll::DeviceKernel::kAlltoAllLsaVectorized: status = launch_alltoall_lsa(launch, dev, true); break;
    default: break;  // refused when the session was created
  }
  LINKSCOPE_CUDA_CHECK(status);
}

}  // namespace linkscope::measure
