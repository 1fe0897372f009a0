#include "cli/doctor_profile.hpp"

#include <fmt/format.h>

#include "core/error.hpp"

namespace linkscope::cli {

namespace {

constexpr std::uint64_t kKiB = 1024, kMiB = kKiB * 1024, kGiB = kMiB * 1024;

std::string number(std::uint64_t value) { return std::to_string(value); }
std::string seconds(double value) { return fmt::format("{:g}", value); }

}  // namespace

std::vector<std::string> CopyStep::args() const {
  return {"p2p", "-b", number(min_bytes), "-e", number(max_bytes), "-f", number(factor), "--max-time",
          seconds(max_time_s), "--format", "json"};
}

std::vector<std::string> BidirectionalStep::args() const {
  return {"p2p",     "-b",        number(bytes), "-e", number(bytes), "--method",  "ce", "--bidirectional",
          "--measure", "copy", "--max-time", seconds(max_time_s), "--format", "json"};
}

std::vector<std::string> PatternsStep::args() const {
  return {"patterns", "-b", number(bytes), "--max-time", seconds(max_time_s), "--numa-sweep", "--format", "json"};
}

std::vector<std::string> CollectiveStep::args() const {
  return {"coll",       op,         "-b",      number(min_bytes), "-e", number(max_bytes), "-f", number(factor),
          "--max-time", seconds(max_time_s), "--format", "json", "-q"};
}

std::vector<std::string> LadderStep::args(const std::string& system_file) const {
  return {"ladder",   op,          "-b",     number(min_bytes), "-e", number(max_bytes), "--max-time",
          seconds(max_time_s), "--system", system_file, "--format", "json", "-q"};
}

DoctorProfile doctor_profile(const std::string& name) {
  // The collectives DESIGN.md's doctor covers; the ladder uses all_reduce, the op users compare most.
  const std::vector<std::string> ops{"all_reduce", "all_gather", "reduce_scatter", "alltoall", "sendrecv"};
  auto collectives = [](const std::vector<std::string>& names, std::uint64_t min, std::uint64_t max, unsigned factor,
                        double max_time) {
    std::vector<CollectiveStep> steps;
    for (const auto& op : names) steps.push_back({op, min, max, factor, max_time});
    return steps;
  };
  DoctorProfile p;
  p.name = name;
  if (name == "quick") {
    // A few sizes per curve: latency-bound (4K, 64K), mid, bandwidth-bound. Short budgets per point.
    p.p2p = {4 * kKiB, 256 * kMiB, 16, 0.2};
    p.patterns = {256 * kMiB, 0.2};
    p.collectives = collectives(ops, kMiB, kGiB, 32, 0.1);
    p.ladder = {"all_reduce", 64 * kMiB, 64 * kMiB, 0.1};
  } else if (name == "default") {
    p.p2p = {4 * kKiB, kGiB, 8, 0.5};
    p.patterns = {256 * kMiB, 0.5};
    p.collectives = collectives(ops, 8, 4 * kGiB, 4, 0.15);
    p.ladder = {"all_reduce", kMiB, 512 * kMiB, 0.15};
  } else if (name == "full") {
    p.p2p = {kKiB, kGiB, 4, 1};
    p.p2p_bidirectional = BidirectionalStep{512 * kMiB, 1};
    p.patterns = {512 * kMiB, 1};
    p.collectives = collectives({"all_reduce", "all_gather", "reduce_scatter", "broadcast", "reduce", "alltoall",
                                 "sendrecv", "gather", "scatter"},
                                8, 8 * kGiB, 2, 0.3);
    p.ladder = {"all_reduce", kMiB, kGiB, 0.3};
  } else {
    throw UsageError("doctor: unknown profile '" + name + "' (quick, default or full)");
  }
  return p;
}

}  // namespace linkscope::cli
