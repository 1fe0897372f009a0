#include "plan/collective_run_plan.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "core/error.hpp"

namespace linkscope::coll {

std::vector<SeriesKey> series_keys(const CollPlan& plan, int nranks) {
  if (op_needs_power_of_two_ranks(plan.op) && (nranks <= 0 || (nranks & (nranks - 1)) != 0)) {
    throw UsageError(fmt::format("{} needs a power-of-two number of ranks, not {} (nccl-tests prints \"nRanks {} is "
                                 "not a power of 2, skipping\")",
                                 op_name(plan.op), nranks, nranks));
  }
  if (plan.op == CollectiveOp::kAlltoAllv) check_alltoallv_run(plan.alltoallv, nranks, plan.min_bytes, plan.max_bytes);
  std::vector<SeriesKey> keys;
  for (auto type : plan.types) {
    for (auto redop : plan.redops) {
      for (int root : roots_for(plan, nranks)) keys.push_back({plan.op, type, redop, root});
    }
  }
  return keys;
}

void keep_types_the_gpus_run(CollPlan& plan, const std::vector<GpuCapability>& gpus) {
  for (const auto& gpu : gpus) {
    if (gpu.major >= 9) continue;
    std::vector<DataType> kept;
    for (auto type : plan.types) {
      if (!type_needs_sm90(type)) {
        kept.push_back(type);
      } else if (!plan.all_types) {
        throw UsageError(fmt::format("-d {} needs compute capability 9.0; GPU {} ({}) is {}.{}", type_name(type),
                                     gpu.device, gpu.name, gpu.major, gpu.minor));
      }
    }
    plan.types = kept;
  }
}

namespace {

// The buffer one size needs for the plan's widest type.
std::uint64_t buffer_need(const CollPlan& plan, int nranks, std::uint64_t bytes) {
  std::uint64_t most = 0;
  for (auto type : plan.types) {
    most = std::max(most, collective_counts(plan.op, bytes, type_size(type), nranks, &plan.alltoallv).size_bytes());
  }
  return most;
}

}  // namespace

std::uint64_t largest_buffer_bytes(const CollPlan& plan, int nranks) {
  std::uint64_t buffer = 1;
  for (std::uint64_t bytes : plan.sizes) buffer = std::max(buffer, buffer_need(plan, nranks, bytes));
  return buffer;
}

SizeFit fit_sizes(CollPlan& plan, int nranks, std::uint64_t smallest_gpu_memory_bytes) {
  const std::uint64_t cap = max_buffer_bytes_for_memory(smallest_gpu_memory_bytes);
  std::vector<std::uint64_t> kept;
  for (std::uint64_t bytes : plan.sizes) {
    if (buffer_need(plan, nranks, bytes) <= cap) kept.push_back(bytes);
  }
  if (kept.empty()) {
    throw UsageError(fmt::format("no size fits: the smallest GPU has {} bytes, so buffers are limited to {} bytes",
                                 smallest_gpu_memory_bytes, cap));
  }
  SizeFit fit;
  if (kept.size() < plan.sizes.size()) {
    fit.reduced_max_bytes = cap;
    plan.notes.push_back(fmt::format("sizes above {} bytes do not fit the GPUs' memory and are skipped", cap));
  }
  plan.sizes = kept;
  fit.buffer_bytes = largest_buffer_bytes(plan, nranks);
  return fit;
}

std::vector<std::string> rounding_notes(const CollPlan& plan, int nranks) {
  std::vector<std::string> notes;
  for (std::uint64_t bytes : plan.sizes) {
    for (auto type : plan.types) {
      const auto counts = collective_counts(plan.op, bytes, type_size(type), nranks, &plan.alltoallv);
      if (auto note = rounding_note(plan.op, bytes, counts, nranks)) notes.push_back(std::move(*note));
    }
  }
  return notes;
}

}  // namespace linkscope::coll
