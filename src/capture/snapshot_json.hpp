#pragma once
#include <nlohmann/json.hpp>

#include "discover/cuda_source.hpp"
#include "discover/nccl_probe.hpp"
#include "discover/nvml_source.hpp"
#include "model/json_read.hpp"

// What NVML, CUDA and NCCL's topology child said on the captured machine, as JSON both ways: a capture keeps the
// raw snapshots discovery reads (not the Run's joined view), so loading one runs the same joining, synthesis and
// model code as a live run. A Fact is {"value": ..., "reason": ...}; unknown facts keep their reason.
namespace linkscope::capture {

nlohmann::json nvml_snapshot_json(const discover::NvmlSnapshot& snapshot);
discover::NvmlSnapshot nvml_snapshot_from(const model::JsonReader& reader);

nlohmann::json cuda_snapshot_json(const discover::CudaSnapshot& snapshot);
discover::CudaSnapshot cuda_snapshot_from(const model::JsonReader& reader);

nlohmann::json nccl_probe_json(const discover::NcclProbeResult& probe);
discover::NcclProbeResult nccl_probe_from(const model::JsonReader& reader);

}  // namespace linkscope::capture
