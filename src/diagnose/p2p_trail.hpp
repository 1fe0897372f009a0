#pragma once
#include <string>
#include <vector>

#include "diagnose/context.hpp"

// The P2P decision trail of a GPU pair: the gates in the order NCCL and the hardware apply them (user variables,
// path type against the P2P level, NVML's P2P status, ACS/IOMMU on the PCIe path, CUDA peer access), so "why is P2P
// off between GPU 2 and GPU 5" has a one-line answer with its evidence. Renderers print it; rules judge faults.
namespace linkscope::diagnose {

struct P2pGate {
  std::string name;
  std::string status;  // "open", "closed", "detoured" (carried, but through the root complex), "unknown"
  std::string evidence;
};

struct P2pTrail {
  int a = -1, b = -1;  // CUDA ordinals (model ranks for a topology file alone), a < b
  std::vector<P2pGate> gates;
  // The first gate that closed or detoured the pair; nullptr when P2P is on all the way.
  const P2pGate* first_stop() const;
};

// Every GPU pair of the run: the pairs CUDA shows, or the model's pairs for a topology file alone.
std::vector<P2pTrail> p2p_trails(const Context& context);
// "GPU0-GPU1: P2P off at path vs P2P level (path PHB > level PXB (default)); user variables open (none set) > ..."
std::string p2p_trail_line(const P2pTrail& trail);

}  // namespace linkscope::diagnose
