#include "fleet/baseline.hpp"

#include <set>

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/file_io.hpp"
#include "core/statistics.hpp"
#include "core/text.hpp"
#include "core/stamp.hpp"
#include "diagnose/comparable_measures.hpp"
#include "fleet/machine_type.hpp"
#include "model/json_read.hpp"

namespace linkscope::fleet {

using nlohmann::json;

namespace {

// A baseline of a fleet of thousands of hosts stays well below this.
constexpr std::uint64_t kMaxBaselineFileBytes = 64ull << 20;

std::string host_name(const model::CrossHost& cross, int host) {
  return cross.host_name(host, fmt::format("host{}", host));
}

std::string endpoint_text(const model::CrossHost& cross, const model::CrossHostEndpoint& end) {
  const std::string host = host_name(cross, end.host);
  return end.nic.empty() ? host : fmt::format("{} ({})", host, end.nic);
}

std::string group_text(const model::CrossHost& cross, const model::IsolationGroup& group) {
  std::vector<std::string> names;
  for (int host : group.hosts) names.push_back(host_name(cross, host));
  if (names.size() <= 3) return join(names, ", ");
  return fmt::format("{} .. {} ({} hosts)", names.front(), names.back(), names.size());
}

}  // namespace

std::string host_pair_metric(std::uint64_t bytes) { return fmt::format("sendrecv host pair at {}", format_bytes(bytes)); }

std::string host_group_all_reduce_metric(std::uint64_t bytes) {
  return fmt::format("all_reduce one GPU per host at {}", format_bytes(bytes));
}

std::vector<Sample> fleet_samples(const model::Run& run) {
  std::vector<Sample> samples;
  for (const auto& [key, m] : diagnose::comparable_measures(run)) {
    samples.push_back({m.category, m.kind, m.subject, m.unit, m.higher_is_better, m.value});
  }
  if (run.measurements.cross_host) {
    const model::CrossHost& cross = *run.measurements.cross_host;
    for (const auto& pair : cross.pairs) {
      if (pair.status != "ok" || !pair.bandwidth_gbps) continue;
      samples.push_back({kCrossHostCategory, host_pair_metric(pair.bytes),
                         endpoint_text(cross, pair.a) + " <-> " + endpoint_text(cross, pair.b), "GB/s", true,
                         *pair.bandwidth_gbps});
    }
    // Each group's busbw at the largest size, whatever its outcome: a slow group is what the fleet must show.
    if (cross.isolation && !cross.sizes_bytes.empty()) {
      const std::string metric = host_group_all_reduce_metric(cross.sizes_bytes.back());
      for (const auto& isolation_run : cross.isolation->runs) {
        for (const auto& group : isolation_run.groups) {
          if (!group.busbw_gbps) continue;
          samples.push_back({kCrossHostCategory, metric, group_text(cross, group), "GB/s", true, *group.busbw_gbps});
        }
      }
    }
  }
  return samples;
}

Baseline build_baseline(const std::vector<std::pair<std::string, model::Run>>& runs) {
  if (runs.empty()) throw UsageError("baseline: no runs given (RUN.json...)");
  Baseline baseline;
  baseline.created_at = utc_timestamp();
  struct Pool {
    BaselineMetric metric;
    std::vector<double> values;
  };
  std::map<std::string, std::map<std::string, Pool>> pools;  // type -> metric key -> values
  std::map<std::string, std::set<std::string>> hosts;
  for (const auto& [source, run] : runs) {
    // A cluster's run keeps its numbers between hosts even when rank 0 saw no GPU: its type then says "no GPU".
    const bool between_hosts = run.measurements.cross_host.has_value();
    if (!between_hosts && (!run.system.present || run.system.gpus.empty())) {
      throw InputError(source, 0, "no GPU facts (system.gpus): its machine type is unknown, so no fleet can hold it");
    }
    const std::string type = machine_type(run);
    TypeBaseline& entry = baseline.types[type];
    ++entry.runs;
    hosts[type].insert(run.config.host.empty() ? source : run.config.host);
    for (const Sample& s : fleet_samples(run)) {
      Pool& pool = pools[type][s.key()];
      pool.metric.category = s.category;
      pool.metric.metric = s.metric;
      pool.metric.unit = s.unit;
      pool.metric.higher_is_better = s.higher_is_better;
      pool.values.push_back(s.value);
    }
  }
  for (auto& [type, entry] : baseline.types) {
    entry.hosts.assign(hosts[type].begin(), hosts[type].end());
    for (auto& [key, pool] : pools[type]) {
      const RobustSummary r = robust_summarize(pool.values);
      pool.metric.spread = {r.median, r.mad, r.p05, r.p95, static_cast<int>(r.count)};
      entry.metrics[key] = pool.metric;
    }
  }
  return baseline;
}

json baseline_to_json(const Baseline& baseline) {
  json types = json::array();
  for (const auto& [type, entry] : baseline.types) {
    json metrics = json::array();
    for (const auto& [key, m] : entry.metrics) {
      json metric = model::to_json(m.spread);
      metric.update(json{{"category", m.category}, {"metric", m.metric}, {"unit", m.unit},
                          {"higher_is_better", m.higher_is_better}});
      metrics.push_back(metric);
    }
    types.push_back({{"machine_type", type}, {"hosts", entry.hosts}, {"runs", entry.runs}, {"metrics", metrics}});
  }
  return {{"format", kBaselineFormat},
          {"version", kBaselineVersion},
          {"created_at", baseline.created_at},
          {"tool_version", baseline.tool_version},
          {"types", types}};
}

Baseline baseline_from_json(const json& document, const std::string& source) {
  if (!document.is_object() || document.value("format", json()) != kBaselineFormat) {
    throw InputError(source, 0,
                     fmt::format("not a linkscope baseline (expected \"format\": \"{}\"; write one with `linkscope "
                                 "baseline RUN.json... -o FILE`)", kBaselineFormat));
  }
  const model::JsonReader r = model::JsonReader::root(document, source);
  const auto version = r.integer("version");
  if (version != kBaselineVersion) {
    throw InputError(source, 0, fmt::format("baseline version {} is not supported (this linkscope reads {})",
                                            version ? std::to_string(*version) : "?", kBaselineVersion));
  }
  Baseline baseline;
  baseline.created_at = r.string_or("created_at");
  baseline.tool_version = r.string_or("tool_version");
  for (const auto& t : r.array("types")) {
    TypeBaseline entry;
    entry.hosts = t.strings("hosts");
    entry.runs = t.small_int("runs").value_or(0);
    for (const auto& m : t.array("metrics")) {
      BaselineMetric metric;
      metric.category = m.string_or("category");
      metric.metric = m.string_or("metric");
      metric.unit = m.string_or("unit");
      metric.higher_is_better = m.boolean("higher_is_better").value_or(true);
      metric.spread = model::fleet_spread_from_json(m);
      entry.metrics[metric_key(metric.category, metric.metric)] = metric;
    }
    baseline.types[t.string_or("machine_type")] = entry;
  }
  return baseline;
}

Baseline read_baseline_file(const std::string& path) {
  const std::string text = read_input_file(path, kMaxBaselineFileBytes, "baseline");
  json document;
  try {
    document = json::parse(text);
  } catch (const json::exception&) {
    throw InputError(path, 0, "malformed JSON (expected a linkscope baseline)");
  }
  try {
    return baseline_from_json(document, path);
  } catch (const json::exception& e) {
    throw InputError(path, 0, std::string("not a valid baseline: ") + e.what());
  }
}

}  // namespace linkscope::fleet
