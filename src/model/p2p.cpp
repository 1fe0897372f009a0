#include "model/p2p.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>
#include <vector>

#include "core/error.hpp"

namespace linkscope::model {

namespace {

using CurveKey = std::tuple<int, int, std::string, std::string, std::string, std::string>;

CurveKey curve_of(const CopyPoint& p) { return {p.src, p.dst, p.method, p.initiator, p.direction, p.sm_kernel}; }

bool measured(const CopyPoint& p) {
  return (p.status == PointStatus::kOk || p.status == PointStatus::kWrong) && p.time_us && p.bandwidth_gbps;
}

nlohmann::json reason_json(const std::string& reason) { return reason.empty() ? nlohmann::json(nullptr) : nlohmann::json(reason); }

}  // namespace

Stat3 stat3_of(const Summary& summary) { return {summary.median, summary.min, summary.max, summary.mean}; }

std::string to_string(PointStatus status) {
  switch (status) {
    case PointStatus::kOk: return "ok";
    case PointStatus::kNa: return "na";
    case PointStatus::kWrong: return "wrong";
    case PointStatus::kError: return "error";
    case PointStatus::kTimeout: return "timeout";
  }
  return "error";
}

PointStatus point_status_from_string(const std::string& text) {
  if (text == "ok") return PointStatus::kOk;
  if (text == "na") return PointStatus::kNa;
  if (text == "wrong") return PointStatus::kWrong;
  if (text == "timeout") return PointStatus::kTimeout;
  return PointStatus::kError;
}

void mark_latency_dominated(std::vector<CopyPoint>& points, const std::vector<LatencyPoint>& latency) {
  std::map<CurveKey, double> fixed_cost_us;
  for (const auto& p : points) {
    if (!measured(p) || p.bytes > kFixedCostProbeMaxBytes) continue;
    const auto key = curve_of(p);
    const auto it = fixed_cost_us.find(key);
    if (it == fixed_cost_us.end() || p.time_us->median < it->second) fixed_cost_us[key] = p.time_us->median;
  }
  for (auto& p : points) {
    p.latency_dominated = false;
    if (!measured(p)) continue;
    double fixed = 0;
    const auto it = fixed_cost_us.find(curve_of(p));
    if (it != fixed_cost_us.end()) {
      fixed = it->second;
    } else if (p.method == "ce") {
      for (const auto& l : latency) {
        if (l.method == "ce_small_copy" && l.src == p.src && l.dst == p.dst && l.latency_ns) fixed = l.latency_ns->median / 1e3;
      }
    }
    p.latency_dominated = fixed > 0 && p.time_us->median > 0 && fixed / p.time_us->median >= 0.5;
  }
}

std::vector<AsymmetryRow> asymmetry_by_size(const std::vector<CopyPoint>& points) {
  // (method, direction, sm_kernel, bytes) -> rows; the pair with the largest relative difference wins.
  std::map<std::tuple<std::string, std::string, std::string, std::uint64_t>, AsymmetryRow> rows;
  // The measured points by everything but the direction of the pair, so each a>b finds its b>a points in one
  // lookup (a search through every point per point was quadratic: 80,000 sizes took minutes).
  using Key = std::tuple<int, int, std::string, std::uint64_t, std::string, std::string, std::string>;
  const auto key_of = [](const CopyPoint& p, int src, int dst) {
    return Key{src, dst, p.method, p.bytes, p.direction, p.sm_kernel, p.initiator};
  };
  std::map<Key, std::vector<const CopyPoint*>> by_key;
  for (const auto& p : points) {
    if (measured(p)) by_key[key_of(p, p.src, p.dst)].push_back(&p);
  }
  for (const auto& ab : points) {
    if (!measured(ab) || ab.src >= ab.dst) continue;
    const auto reverse = by_key.find(key_of(ab, ab.dst, ab.src));
    if (reverse == by_key.end()) continue;
    for (const CopyPoint* reverse_point : reverse->second) {
      const CopyPoint& ba = *reverse_point;
      const double x = ab.bandwidth_gbps->median, y = ba.bandwidth_gbps->median;
      const double mean = (x + y) / 2;
      if (mean <= 0) continue;
      const double relative = std::fabs(x - y) / mean;
      const auto key = std::make_tuple(ab.method, ab.direction, ab.sm_kernel, ab.bytes);
      auto it = rows.find(key);
      if (it == rows.end() || relative > it->second.max_relative) {
        rows[key] = {ab.method,   ab.direction, ab.sm_kernel, ab.bytes, relative, ab.src,
                     ab.dst,      ab.latency_dominated || ba.latency_dominated};
      }
    }
  }
  std::vector<AsymmetryRow> out;
  for (const auto& [key, row] : rows) out.push_back(row);
  std::stable_sort(out.begin(), out.end(), [](const AsymmetryRow& a, const AsymmetryRow& b) {
    return std::tie(a.method, a.direction, a.sm_kernel, a.bytes) < std::tie(b.method, b.direction, b.sm_kernel, b.bytes);
  });
  return out;
}

std::uint64_t total_wrong(const P2pResults& results) {
  std::uint64_t wrong = 0;
  for (const auto& p : results.points) wrong += p.wrong;
  for (const auto& h : results.host) wrong += h.wrong;
  for (const auto& t : results.testcases) {
    for (const auto& c : t.cells) wrong += c.wrong;
  }
  return wrong;
}

bool any_status(const P2pResults& results, PointStatus status) {
  for (const auto& p : results.points) if (p.status == status) return true;
  for (const auto& l : results.latency) if (l.status == status) return true;
  for (const auto& h : results.host) if (h.status == status) return true;
  for (const auto& t : results.testcases) if (t.status == status) return true;
  return false;
}

nlohmann::json stat3_json(const std::optional<Stat3>& stat) {
  if (!stat) return nullptr;
  return {{"median", stat->median}, {"min", stat->min}, {"max", stat->max}, {"mean", stat->mean}};
}

std::optional<Stat3> stat3_from_json(const JsonReader& item, std::string_view key) {
  if (!item.has(key)) return std::nullopt;
  const JsonReader stat = item.object(key);
  const auto median = stat.number("median");
  if (!median) item.fail(key, "a statistic without a median");
  const Stat3 value{*median, stat.number("min").value_or(*median), stat.number("max").value_or(*median),
                    stat.number("mean").value_or(*median)};
  // Every statistic is a measured rate, time or latency: below zero it is damage, not a measurement to judge.
  if (value.median < 0 || value.min < 0 || value.max < 0 || value.mean < 0) {
    item.fail(key, "a negative value (a measured rate or time is never below 0)");
  }
  return value;
}

nlohmann::json to_json(const DeviceInfo& d) {
  return {{"id", d.id},           {"name", d.name},         {"pci_bdf", d.pci_bdf},
          {"uuid", d.uuid},       {"sm_count", d.sm_count}, {"compute_capability", d.compute_capability}};
}

DeviceInfo device_info_from_json(const JsonReader& d) {
  return {d.small_int("id").value_or(0), d.string_or("name"),           d.string_or("pci_bdf"),
          d.string_or("uuid"),           d.small_int("sm_count").value_or(0), d.string_or("compute_capability")};
}

PointStatus point_status_from_json(const JsonReader& item) {
  const std::string text = item.string_or("status", "error");
  const auto status = point_status_from_string(text);
  if (to_string(status) != text) item.fail("status", "unknown status '" + text + "' (ok, na, wrong, error, timeout)");
  return status;
}

nlohmann::json to_json(const P2pResults& results) {
  nlohmann::json devices = nlohmann::json::array();
  for (const auto& d : results.devices) devices.push_back(to_json(d));
  nlohmann::json points = nlohmann::json::array();
  for (const auto& p : results.points) {
    nlohmann::json item = {{"src", p.src}, {"dst", p.dst}, {"method", p.method}, {"initiator", p.initiator},
                           {"direction", p.direction}, {"bytes", p.bytes},
                           {"sm_kernel", p.sm_kernel.empty() ? nlohmann::json(nullptr) : nlohmann::json(p.sm_kernel)},
                           {"sm_repeat", p.sm_repeat.empty() ? nlohmann::json(nullptr) : nlohmann::json(p.sm_repeat)},
                           {"ops_per_sample", p.ops_per_sample}, {"samples", p.samples},
                           {"stop_reason", p.stop_reason}, {"time_us", stat3_json(p.time_us)},
                           {"bandwidth_gbps", stat3_json(p.bandwidth_gbps)}, {"cv", p.cv},
                           {"ci_relative", p.ci_relative}, {"wrong", p.wrong}, {"status", to_string(p.status)},
                           {"reason", reason_json(p.reason)}, {"latency_dominated", p.latency_dominated}};
    if (p.direction == "bidir") {
      item["total_gbps"] = stat3_json(p.total_gbps);
      item["sum_gbps"] = stat3_json(p.sum_gbps);
    }
    points.push_back(with_extras(std::move(item), p.extra));
  }
  nlohmann::json latency = nlohmann::json::array();
  for (const auto& l : results.latency) {
    latency.push_back(with_extras({{"src", l.src}, {"dst", l.dst}, {"method", l.method}, {"bytes", l.bytes},
                                   {"chase", l.chase.empty() ? nlohmann::json(nullptr) : nlohmann::json(l.chase)},
                                   {"latency_ns", stat3_json(l.latency_ns)}, {"samples", l.samples}, {"cv", l.cv},
                                   {"status", to_string(l.status)}, {"reason", reason_json(l.reason)}},
                                  l.extra));
  }
  nlohmann::json host = nlohmann::json::array();
  for (const auto& h : results.host) {
    host.push_back(with_extras({{"gpu", h.gpu}, {"direction", h.direction}, {"bytes", h.bytes},
                                {"ops_per_sample", h.ops_per_sample}, {"samples", h.samples},
                                {"time_us", stat3_json(h.time_us)}, {"bandwidth_gbps", stat3_json(h.bandwidth_gbps)},
                                {"cv", h.cv}, {"wrong", h.wrong}, {"status", to_string(h.status)},
                                {"reason", reason_json(h.reason)}},
                               h.extra));
  }
  nlohmann::json asymmetry = nlohmann::json::array();
  for (const auto& a : asymmetry_by_size(results.points)) {
    asymmetry.push_back({{"method", a.method}, {"direction", a.direction},
                         {"sm_kernel", a.sm_kernel.empty() ? nlohmann::json(nullptr) : nlohmann::json(a.sm_kernel)},
                         {"bytes", a.bytes},
                         {"max_relative", a.max_relative}, {"pair", {a.a, a.b}},
                         {"latency_dominated", a.latency_dominated}});
  }
  nlohmann::json out = nlohmann::json::object();
  out["config"] = plan::to_json(results.request);
  out["devices"] = devices;
  out["points"] = points;
  out["latency"] = latency;
  out["host"] = host;
  out["asymmetry"] = asymmetry;
  out["wrong"] = total_wrong(results);
  out["notes"] = results.notes;
  if (!results.testcases.empty()) {
    nlohmann::json testcases = nlohmann::json::array();
    for (const auto& t : results.testcases) testcases.push_back(to_json(t));
    out["testcases"] = testcases;
  }
  return with_extras(std::move(out), results.extra);
}

namespace {

CopyPoint copy_point_from(const JsonReader& item) {
  CopyPoint p;
  p.src = item.small_int("src").value_or(0);
  p.dst = item.small_int("dst").value_or(0);
  p.method = item.string_or("method");
  p.initiator = item.string_or("initiator");
  p.direction = item.string_or("direction", "uni");
  p.bytes = item.count("bytes").value_or(0);
  p.sm_kernel = item.string_or("sm_kernel");
  p.sm_repeat = item.string_or("sm_repeat");
  p.ops_per_sample = item.small_int("ops_per_sample").value_or(0);
  p.samples = item.count("samples").value_or(0);
  p.stop_reason = item.string_or("stop_reason");
  p.time_us = stat3_from_json(item, "time_us");
  p.bandwidth_gbps = stat3_from_json(item, "bandwidth_gbps");
  p.total_gbps = stat3_from_json(item, "total_gbps");
  p.sum_gbps = stat3_from_json(item, "sum_gbps");
  p.cv = item.number("cv").value_or(0.0);
  p.ci_relative = item.number("ci_relative").value_or(0.0);
  p.wrong = item.count("wrong").value_or(0);
  p.status = point_status_from_json(item);
  p.reason = item.string_or("reason");
  p.latency_dominated = item.boolean("latency_dominated").value_or(false);
  p.extra = item.extras();
  return p;
}

}  // namespace

P2pResults p2p_results_from_json(const JsonReader& section) {
  P2pResults results;
  if (section.has("config")) {
    try {
      results.request = plan::p2p_request_from_json(section.raw("config"));
    } catch (const nlohmann::json::exception& e) {
      section.fail("config", e.what());
    }
  }
  for (const auto& d : section.array("devices")) results.devices.push_back(device_info_from_json(d));
  for (const auto& item : section.array("points")) results.points.push_back(copy_point_from(item));
  for (const auto& item : section.array("latency")) {
    LatencyPoint l;
    l.src = item.small_int("src").value_or(0);
    l.dst = item.small_int("dst").value_or(0);
    l.method = item.string_or("method");
    l.bytes = item.count("bytes").value_or(0);
    l.chase = item.string_or("chase");
    l.latency_ns = stat3_from_json(item, "latency_ns");
    l.samples = item.count("samples").value_or(0);
    l.cv = item.number("cv").value_or(0.0);
    l.status = point_status_from_json(item);
    l.reason = item.string_or("reason");
    l.extra = item.extras();
    results.latency.push_back(l);
  }
  for (const auto& item : section.array("host")) {
    HostPoint h;
    h.gpu = item.small_int("gpu").value_or(0);
    h.direction = item.string_or("direction");
    h.bytes = item.count("bytes").value_or(0);
    h.ops_per_sample = item.small_int("ops_per_sample").value_or(0);
    h.samples = item.count("samples").value_or(0);
    h.time_us = stat3_from_json(item, "time_us");
    h.bandwidth_gbps = stat3_from_json(item, "bandwidth_gbps");
    h.cv = item.number("cv").value_or(0.0);
    h.wrong = item.count("wrong").value_or(0);
    h.status = point_status_from_json(item);
    h.reason = item.string_or("reason");
    h.extra = item.extras();
    results.host.push_back(h);
  }
  // Derived when written: asymmetry and the wrong total.
  section.skip({"asymmetry", "wrong"});
  results.notes = section.strings("notes");
  for (const auto& item : section.array("testcases")) results.testcases.push_back(testcase_result_from_json(item));
  results.extra = section.extras();
  return results;
}

}  // namespace linkscope::model
