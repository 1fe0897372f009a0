#include "topo/comm_params.hpp"

#include <climits>

#include "topo/comm_constants.hpp"

namespace linkscope::topo {

namespace {

// NCCL_CONFIG_UNDEF_INT (nccl.h): the "not set" value of the communicator config and of its variables.
constexpr int64_t kConfigUndefInt = INT_MIN;

}  // namespace

CommParams resolve_comm_params(const Environment& env) {
  CommParams params;
  params.cross_nic = read_nccl_int_param(env, "NCCL_CROSS_NIC", 2);
  params.min_nrings = read_nccl_int_param(env, "NCCL_MIN_NRINGS", -2);
  params.max_nrings = read_nccl_int_param(env, "NCCL_MAX_NRINGS", -2);
  params.min_nchannels = read_nccl_int_param(env, "NCCL_MIN_NCHANNELS", -2);
  params.max_nchannels = read_nccl_int_param(env, "NCCL_MAX_NCHANNELS", -2);
  params.min_ctas = read_nccl_int_param(env, "NCCL_MIN_CTAS", kConfigUndefInt);
  params.max_ctas = read_nccl_int_param(env, "NCCL_MAX_CTAS", kConfigUndefInt);
  params.ll_buffsize = read_nccl_int_param(env, "NCCL_LL_BUFFSIZE", -2);
  params.ll128_buffsize = read_nccl_int_param(env, "NCCL_LL128_BUFFSIZE", -2);
  params.buffsize = read_nccl_int_param(env, "NCCL_BUFFSIZE", -2);
  params.p2p_nvl_chunksize = read_nccl_int_param(env, "NCCL_P2P_NVL_CHUNKSIZE", 1 << 19);
  params.p2p_pci_chunksize = read_nccl_int_param(env, "NCCL_P2P_PCI_CHUNKSIZE", 1 << 17);
  params.min_p2p_nchannels = read_nccl_int_param(env, "NCCL_MIN_P2P_NCHANNELS", 1);
  params.max_p2p_nchannels = read_nccl_int_param(env, "NCCL_MAX_P2P_NCHANNELS", kMaxChannels);
  params.nthreads = read_nccl_int_param(env, "NCCL_NTHREADS", -2);
  params.ll128_nthreads = read_nccl_int_param(env, "NCCL_LL128_NTHREADS", -2);
  params.ll128_c2c = read_nccl_int_param(env, "NCCL_LL128_C2C", 1);
  params.pat_enable = read_nccl_int_param(env, "NCCL_PAT_ENABLE", 2);
  params.proto = env.get("NCCL_PROTO");
  params.algo = env.get("NCCL_ALGO");
  params.thread_thresholds = env.get("NCCL_THREAD_THRESHOLDS");
  return params;
}

}  // namespace linkscope::topo
