#pragma once
// The NCCL variables that change the graph search, the channel setup and the tuning model of one
// communicator, read the way NCCL reads them (NCCL_PARAM integers, ncclGetEnv strings) from a linkscope
// Environment (process environment plus --env overrides). The topology variables are in env_params.hpp.
#include <optional>
#include <string>

#include "core/environment.hpp"
#include "topo/nccl_param.hpp"

namespace linkscope::topo {

struct CommParams {
  // Search (graph/search.cc)
  NcclIntParam cross_nic;           // NCCL_CROSS_NIC, default 2: 0 never, 1 always, 2 try rings across NICs
  // Channels (graph/connect.cc ncclMinNchannels/ncclMaxNchannels; init.cc envConfigOverride)
  NcclIntParam min_nrings;          // NCCL_MIN_NRINGS (legacy name), default -2 = unset
  NcclIntParam max_nrings;          // NCCL_MAX_NRINGS (legacy name)
  NcclIntParam min_nchannels;       // NCCL_MIN_NCHANNELS, default -2; wins over NCCL_MIN_NRINGS
  NcclIntParam max_nchannels;       // NCCL_MAX_NCHANNELS, default -2; wins over NCCL_MAX_NRINGS
  NcclIntParam min_ctas;            // NCCL_MIN_CTAS: the communicator's config.minCTAs (default 1)
  NcclIntParam max_ctas;            // NCCL_MAX_CTAS: config.maxCTAs (default 64)
  // Buffers and P2P (init.cc computeBuffSizes, graph/paths.cc ncclTopoComputeP2pChannels)
  NcclIntParam ll_buffsize;         // NCCL_LL_BUFFSIZE, default -2 = NCCL's default
  NcclIntParam ll128_buffsize;      // NCCL_LL128_BUFFSIZE
  NcclIntParam buffsize;            // NCCL_BUFFSIZE (Simple)
  NcclIntParam p2p_nvl_chunksize;   // NCCL_P2P_NVL_CHUNKSIZE, default 512 KiB (all GPU pairs over NVLink)
  NcclIntParam p2p_pci_chunksize;   // NCCL_P2P_PCI_CHUNKSIZE, default 128 KiB
  NcclIntParam min_p2p_nchannels;   // NCCL_MIN_P2P_NCHANNELS, default 1
  NcclIntParam max_p2p_nchannels;   // NCCL_MAX_P2P_NCHANNELS, default 64
  // Tuning (graph/tuning.cc)
  NcclIntParam nthreads;            // NCCL_NTHREADS, default -2 = per algorithm and protocol
  NcclIntParam ll128_nthreads;      // NCCL_LL128_NTHREADS
  NcclIntParam ll128_c2c;           // NCCL_LL128_C2C, default 1: LL128 up to P2C/PXN paths on sm90+
  NcclIntParam pat_enable;          // NCCL_PAT_ENABLE, default 2 = only with one GPU per node
  std::optional<std::string> proto;              // NCCL_PROTO, e.g. "LL128" or "^LL;allreduce:LL"
  std::optional<std::string> algo;               // NCCL_ALGO, e.g. "Tree" or "ring;allreduce:tree"
  std::optional<std::string> thread_thresholds;  // NCCL_THREAD_THRESHOLDS "treeLL treeLL128 treeSimple ringLL ..."
};

CommParams resolve_comm_params(const Environment& env);

}  // namespace linkscope::topo
