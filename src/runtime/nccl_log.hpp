#pragma once
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/runtime.hpp"

// What NCCL says it chose, read from its NCCL_DEBUG=INFO log (subsystems INIT, GRAPH, ENV): the transport
// of every peer connection and channel, channel counts, the graphs it searched, the GPU-to-GPU path types
// of its topology model and the variables it took from the environment. Host-only text parsing; lines it
// does not know are skipped, so logs of other NCCL versions degrade to fewer facts, never to an error.
namespace linkscope::runtime {

using model::NcclConnection;
using model::NcclGpuPath;
using model::NcclGraph;
using model::NcclRuntimeInfo;
using model::TransportCount;
using model::dominant_transport;
using model::transport_label;
using model::transport_summary;

// Parses one or more NCCL logs (concatenated; lines of several processes may interleave).
NcclRuntimeInfo parse_nccl_log(std::string_view text);

// The worst GPU-to-GPU path type of NCCL's model between any two GPUs (NVL < PIX < PXB < PHB < SYS ...),
// i.e. the NCCL_P2P_LEVEL that still allows P2P between all of them; nothing when the log has no GPU paths.
std::optional<std::string> widest_gpu_path_type(const NcclRuntimeInfo& info);

// The worst of NCCL path types (LOC < NVL < NVB < C2C < PIX < PXB < P2C < PXN < PHB < SYS < NET < DIS);
// unknown names are ignored; nothing when none is known.
std::optional<std::string> worst_path_type(const std::vector<std::string>& types);

}  // namespace linkscope::runtime
