#include "model/fleet.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "core/text.hpp"

namespace linkscope::model {

using nlohmann::json;

int FleetComparison::outside_count() const {
  return static_cast<int>(std::count_if(metrics.begin(), metrics.end(), [](const FleetMetric& m) { return m.outside; }));
}

std::string fleet_metric_text(const FleetComparison& fleet, const FleetMetric& m) {
  const std::string where = m.subject.empty() ? fleet.host : fleet.host + " " + m.subject;
  return fmt::format("{}: {} {} = {} {}; fleet median {} (MAD {}, p5-p95 {}-{}, {} values): {:+.1f}%{}", where,
                     m.category, m.metric, format_number(m.value), m.unit, format_number(m.fleet.median),
                     format_number(m.fleet.mad), format_number(m.fleet.p5), format_number(m.fleet.p95), m.fleet.count,
                     m.relative * 100.0, m.robust_z ? fmt::format(", robust z {:.1f}", *m.robust_z) : "");
}

json to_json(const FleetSpread& spread) {
  return {{"median", spread.median}, {"mad", spread.mad}, {"p5", spread.p5}, {"p95", spread.p95},
          {"count", spread.count}};
}

FleetSpread fleet_spread_from_json(const JsonReader& r) {
  const auto median = r.number("median");
  if (!median) r.fail("median", "expected a number");
  return {*median, r.number("mad").value_or(0), r.number("p5").value_or(*median), r.number("p95").value_or(*median),
          r.small_int("count").value_or(0)};
}

json to_json(const FleetComparison& fleet) {
  json metrics = json::array();
  for (const auto& m : fleet.metrics) {
    metrics.push_back({{"category", m.category},
                       {"metric", m.metric},
                       {"subject", m.subject},
                       {"unit", m.unit},
                       {"higher_is_better", m.higher_is_better},
                       {"value", m.value},
                       {"fleet", to_json(m.fleet)},
                       {"relative", m.relative},
                       {"robust_z", optional_json(m.robust_z)},
                       {"outside", m.outside}});
  }
  return {{"baseline", fleet.baseline},
          {"host", fleet.host},
          {"machine_type", fleet.machine_type},
          {"type_in_baseline", fleet.type_in_baseline},
          {"baseline_hosts", fleet.baseline_hosts},
          {"relative_threshold", fleet.relative_threshold},
          {"z_threshold", fleet.z_threshold},
          {"not_in_baseline", fleet.not_in_baseline},
          {"metrics", metrics}};
}

FleetComparison fleet_from_json(const JsonReader& r) {
  FleetComparison fleet;
  fleet.baseline = r.string_or("baseline");
  fleet.host = r.string_or("host");
  fleet.machine_type = r.string_or("machine_type");
  fleet.type_in_baseline = r.boolean("type_in_baseline").value_or(false);
  fleet.baseline_hosts = r.small_int("baseline_hosts").value_or(0);
  fleet.relative_threshold = r.number("relative_threshold").value_or(0);
  fleet.z_threshold = r.number("z_threshold").value_or(0);
  fleet.not_in_baseline = r.small_int("not_in_baseline").value_or(0);
  for (const auto& m : r.array("metrics")) {
    FleetMetric metric;
    metric.category = m.string_or("category");
    metric.metric = m.string_or("metric");
    metric.subject = m.string_or("subject");
    metric.unit = m.string_or("unit");
    metric.higher_is_better = m.boolean("higher_is_better").value_or(true);
    metric.value = m.number("value").value_or(0);
    metric.fleet = fleet_spread_from_json(m.object("fleet"));
    metric.relative = m.number("relative").value_or(0);
    metric.robust_z = m.number("robust_z");
    metric.outside = m.boolean("outside").value_or(false);
    fleet.metrics.push_back(metric);
  }
  return fleet;
}

}  // namespace linkscope::model
