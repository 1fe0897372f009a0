#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "plan/collective_options.hpp"

// The decisions of a collective run that depend on the ranks and GPUs but not on NCCL: which series run, which
// types the GPUs can run, which sizes fit their memory and how large the buffers are. Host-only, so every rule is
// unit-tested without a GPU; measure/collective_run.cpp applies them to the GPUs it finds.
namespace linkscope::coll {

// One series of a sweep: an op over one type, reduction and root.
struct SeriesKey {
  CollectiveOp op = CollectiveOp::kAllReduce;
  DataType type = DataType::kFloat;
  RedOp redop = RedOp::kSum;
  int root = 0;
};

// Every (type, reduction, root) of the plan over `nranks` ranks, in the order they run; UsageError for a root that
// is not a rank.
std::vector<SeriesKey> series_keys(const CollPlan& plan, int nranks);

// What the type check needs to know about one GPU.
struct GpuCapability {
  int device = 0;  // CUDA ordinal
  std::string name;
  int major = 0, minor = 0;
};

// fp8 needs compute capability 9.0: an explicit fp8 type on an older GPU is a UsageError naming the GPU; with
// plan.all_types fp8 is dropped (as nccl-tests does).
void keep_types_the_gpus_run(CollPlan& plan, const std::vector<GpuCapability>& gpus);

// The largest buffer any size of the plan needs over `nranks` ranks, for any of its types (at least 1 byte).
std::uint64_t largest_buffer_bytes(const CollPlan& plan, int nranks);

struct SizeFit {
  std::uint64_t buffer_bytes = 1;                  // what the kept sizes need
  std::optional<std::uint64_t> reduced_max_bytes;  // the cap, when sizes were dropped ("Reducing maxBytes")
};
// nccl-tests' memory rule (max_buffer_bytes_for_memory of the smallest GPU): sizes whose buffers do not fit are
// dropped from plan.sizes, with a note; UsageError when none fits.
SizeFit fit_sizes(CollPlan& plan, int nranks, std::uint64_t smallest_gpu_memory_bytes);

// Sizes that nccl-tests' rounding changes (not a multiple of the element size, or of ranks x 16 bytes).
std::vector<std::string> rounding_notes(const CollPlan& plan, int nranks);

}  // namespace linkscope::coll
