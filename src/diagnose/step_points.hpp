#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "diagnose/evidence.hpp"

// What one of the doctor's steps measured, found by the step's name ("p2p", "p2p bidirectional", "patterns",
// "coll all_reduce", "ladder all_reduce"), so that a finding about something seen during a step can name the sizes
// it overlaps and say whether those numbers moved.
namespace linkscope::diagnose {

struct StepPoints {
  std::vector<std::uint64_t> sizes;  // ascending, each once
  std::size_t points = 0;            // measured ok
  // The largest coefficient of variation at >= bandwidth_compare_min_bytes (where bandwidth, not latency, is
  // measured), and which point it is.
  std::optional<double> max_cv;
  std::string max_cv_point;
};

StepPoints step_points(const Evidence& evidence, std::string_view step);

// "coll all_reduce (8 B - 64 MiB)", "p2p (4 sizes, 1 MiB - 512 MiB)"; the name alone when the run kept nothing it
// measured.
std::string step_label(const Evidence& evidence, std::string_view step);

// "its numbers did not move (CV at most 0.8% at >= 64 MiB)", "its numbers moved: CV up to 12% (ce GPU0->GPU1 at
// 256 MiB)", or "" when the step has no point at >= 64 MiB to judge.
std::string step_noise_text(const Evidence& evidence, std::string_view step);

}  // namespace linkscope::diagnose
