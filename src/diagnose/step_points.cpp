#include "diagnose/step_points.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "core/text.hpp"
#include "diagnose/expectations.hpp"
#include "diagnose/measured_summary.hpp"

namespace linkscope::diagnose {

namespace {

class Collector {
 public:
  explicit Collector(std::uint64_t cv_min_bytes) : cv_min_bytes_(cv_min_bytes) {}

  void add(std::uint64_t bytes, std::optional<double> cv, const std::string& what) {
    out.sizes.push_back(bytes);
    ++out.points;
    if (bytes >= cv_min_bytes_ && cv && (!out.max_cv || *cv > *out.max_cv)) {
      out.max_cv = cv;
      out.max_cv_point = what;
    }
  }
  StepPoints finish() {
    std::sort(out.sizes.begin(), out.sizes.end());
    out.sizes.erase(std::unique(out.sizes.begin(), out.sizes.end()), out.sizes.end());
    return std::move(out);
  }

 private:
  std::uint64_t cv_min_bytes_;
  StepPoints out;
};

void add_copies(const Evidence& evidence, bool bidirectional, Collector& collector) {
  for (const auto* p : evidence.p2p) {
    if (!copy_ok(*p) || (p->direction == "bidir") != bidirectional) continue;
    collector.add(p->bytes, p->cv,
                  fmt::format("{} GPU{}->GPU{} at {}", p->method, p->src, p->dst, format_bytes(p->bytes)));
  }
  if (bidirectional || !evidence.run.measurements.p2p) return;
  for (const auto& h : evidence.run.measurements.p2p->host) {
    if (h.status != model::PointStatus::kOk || !h.bandwidth_gbps) continue;
    collector.add(h.bytes, h.cv, fmt::format("{} GPU{} at {}", h.direction, h.gpu, format_bytes(h.bytes)));
  }
}

void add_collectives(const Evidence& evidence, std::string_view op, bool what_if, Collector& collector) {
  for (const auto& ref : evidence.collectives) {
    if (!ref.ok() || ref.op() != op || ref.what_if != what_if) continue;
    collector.add(ref.point->bytes, ref.cv(),
                  fmt::format("{} at {}{}", ref.op(), format_bytes(ref.point->bytes),
                              what_if ? " under its own NCCL variables" : ""));
  }
}

}  // namespace

StepPoints step_points(const Evidence& evidence, std::string_view step) {
  Collector collector(static_cast<std::uint64_t>(threshold(Threshold::kBandwidthCompareMinBytes)));
  const auto after = [&](std::string_view prefix) { return step.substr(prefix.size()); };
  if (step == "p2p") {
    add_copies(evidence, false, collector);
  } else if (step == "p2p bidirectional") {
    add_copies(evidence, true, collector);
  } else if (step == "patterns") {
    for (const auto& p : evidence.patterns()) {
      if (p.status == model::PointStatus::kOk) collector.add(p.bytes, p.cv, p.name + " at " + format_bytes(p.bytes));
    }
  } else if (step.rfind("coll ", 0) == 0) {
    add_collectives(evidence, after("coll "), false, collector);
  } else if (step.rfind("ladder ", 0) == 0) {
    add_collectives(evidence, after("ladder "), true, collector);
  }
  return collector.finish();
}

std::string step_label(const Evidence& evidence, std::string_view step) {
  const StepPoints points = step_points(evidence, step);
  if (points.sizes.empty()) return std::string(step);
  const std::string range = points.sizes.size() == 1 ? format_bytes(points.sizes.front())
                                                     : format_bytes(points.sizes.front()) + " - " +
                                                           format_bytes(points.sizes.back());
  return fmt::format("{} ({})", step, range);
}

std::string step_noise_text(const Evidence& evidence, std::string_view step) {
  const StepPoints points = step_points(evidence, step);
  if (!points.max_cv) return "";
  const double limit = threshold(Threshold::kNoiseCvWarn);
  const std::string min_size = format_bytes(static_cast<std::uint64_t>(threshold(Threshold::kBandwidthCompareMinBytes)));
  if (*points.max_cv <= limit) {
    return fmt::format("its numbers did not move (CV at most {} at >= {})", format_percent(*points.max_cv), min_size);
  }
  return fmt::format("its numbers moved: CV up to {} ({})", format_percent(*points.max_cv), points.max_cv_point);
}

}  // namespace linkscope::diagnose
