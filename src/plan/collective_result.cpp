#include "plan/collective_result.hpp"

#include <fmt/format.h>

#include "core/error.hpp"

namespace linkscope::coll {

using nlohmann::json;

namespace {

template <typename T>
json optional_json(const std::optional<T>& value) {
  return value ? json(*value) : json(nullptr);
}

template <typename T>
std::optional<T> optional_from(const json& j, const char* key) {
  const auto it = j.find(key);
  if (it == j.end() || it->is_null()) return std::nullopt;
  return it->get<T>();
}

}  // namespace

std::string DeviceRecord::pci_bdf() const { return fmt::format("{:04x}:{:02x}:{:02x}.0", pci_domain, pci_bus, pci_device); }

json to_json(const DeviceRecord& d) {
  return {{"rank", d.rank},         {"host", d.host},       {"pid", d.pid},   {"cuda_device", d.cuda_device},
          {"pci_bdf", d.pci_bdf()}, {"pci_domain", d.pci_domain}, {"pci_bus", d.pci_bus},
          {"pci_device", d.pci_device}, {"uuid", d.uuid},  {"name", d.name}};
}

DeviceRecord device_from_json(const json& j) {
  DeviceRecord d;
  d.rank = j.value("rank", 0);
  d.host = j.value("host", std::string());
  d.pid = j.value("pid", 0);
  d.cuda_device = j.value("cuda_device", 0);
  d.pci_domain = j.value("pci_domain", 0);
  d.pci_bus = j.value("pci_bus", 0);
  d.pci_device = j.value("pci_device", 0);
  d.uuid = j.value("uuid", std::string());
  d.name = j.value("name", std::string());
  return d;
}

json to_json(const CollectivePoint& p) {
  json j;
  j["requested_bytes"] = p.requested_bytes;
  j["bytes"] = p.bytes;
  j["count"] = p.count;
  j["in_place"] = p.in_place;
  j["samples"] = p.samples;
  j["iterations"] = p.iterations;
  if (p.time) {
    j["time_us"] = {{"median", p.time->median_us}, {"min", p.time->min_us}, {"max", p.time->max_us},
                    {"mean", p.time->mean_us}};
    j["cv"] = p.time->cv;
    j["ci_relative"] = p.time->ci_relative;
  } else {
    j["time_us"] = nullptr;
    j["cv"] = nullptr;
    j["ci_relative"] = nullptr;
  }
  j["stop_reason"] = p.stop_reason.empty() ? json(nullptr) : json(p.stop_reason);
  j["cputime_us"] = optional_json(p.cputime_us);
  j["algbw_gbps"] = optional_json(p.algbw_gbps);
  j["busbw_gbps"] = optional_json(p.busbw_gbps);
  j["wrong"] = optional_json(p.wrong);
  j["status"] = p.status;
  j["reason"] = optional_json(p.reason);
  return j;
}

json to_json(const CollectiveSeries& s) {
  json j;
  j["op"] = std::string(op_name(s.op));
  j["dtype"] = std::string(type_name(s.dtype));
  j["redop"] = op_prints_redop(s.op) && op_reduces(s.op) ? json(std::string(red_op_name(s.redop))) : json(nullptr);
  j["root"] = s.root;
  j["nranks"] = s.nranks;
  j["launch"] = s.launch;
  j["graph"] = s.graph;
  j["time_reduction"] = std::string(rank_time_reduction_name(s.time_reduction));
  j["nccl_call"] = s.nccl_call;
  j["env"] = s.env;
  json devices = json::array();
  for (const auto& d : s.devices) devices.push_back(to_json(d));
  j["devices"] = devices;
  json points = json::array();
  for (const auto& p : s.points) points.push_back(to_json(p));
  j["points"] = points;
  return j;
}

CollectiveSeries series_from_json(const json& j, const std::string& source) {
  try {
    CollectiveSeries s;
    const auto op = parse_op(j.at("op").get<std::string>());
    const auto type = parse_type(j.at("dtype").get<std::string>());
    if (!op || !type) throw InputError(source, 0, "unknown op or dtype in a collective series");
    s.op = *op;
    s.dtype = *type;
    if (const auto redop = optional_from<std::string>(j, "redop")) {
      const auto parsed = parse_red_op(*redop);
      if (!parsed) throw InputError(source, 0, fmt::format("unknown redop '{}'", *redop));
      s.redop = *parsed;
    }
    s.root = j.value("root", -1);
    s.nranks = j.at("nranks").get<int>();
    s.launch = j.value("launch", std::string("single-process"));
    s.graph = j.value("graph", false);
    s.nccl_call = j.value("nccl_call", std::string());
    if (j.contains("env") && j.at("env").is_object()) s.env = j.at("env").get<std::map<std::string, std::string>>();
    if (j.contains("devices") && j.at("devices").is_array()) {
      for (const auto& d : j.at("devices")) s.devices.push_back(device_from_json(d));
    }
    for (const auto& pj : j.at("points")) {
      CollectivePoint p;
      p.requested_bytes = pj.value("requested_bytes", std::uint64_t{0});
      p.bytes = pj.at("bytes").get<std::uint64_t>();
      p.count = pj.value("count", std::uint64_t{0});
      p.in_place = pj.value("in_place", false);
      p.samples = pj.value("samples", std::size_t{0});
      p.iterations = pj.value("iterations", std::size_t{0});
      if (pj.contains("time_us") && pj.at("time_us").is_object()) {
        TimeSummary t;
        const auto& tj = pj.at("time_us");
        t.median_us = tj.at("median").get<double>();
        t.min_us = tj.value("min", t.median_us);
        t.max_us = tj.value("max", t.median_us);
        t.mean_us = tj.value("mean", t.median_us);
        t.cv = optional_from<double>(pj, "cv").value_or(0);
        t.ci_relative = optional_from<double>(pj, "ci_relative").value_or(0);
        p.time = t;
      }
      p.stop_reason = optional_from<std::string>(pj, "stop_reason").value_or("");
      p.cputime_us = optional_from<double>(pj, "cputime_us");
      p.algbw_gbps = optional_from<double>(pj, "algbw_gbps");
      p.busbw_gbps = optional_from<double>(pj, "busbw_gbps");
      p.wrong = optional_from<std::int64_t>(pj, "wrong");
      p.status = pj.value("status", std::string("ok"));
      p.reason = optional_from<std::string>(pj, "reason");
      s.points.push_back(std::move(p));
    }
    return s;
  } catch (const json::exception& e) {
    throw InputError(source, 0, fmt::format("malformed collective series: {}", e.what()));
  }
}

const CollectivePoint* largest_measured_point(const CollectiveSeries& series) {
  const CollectivePoint* best = nullptr;
  for (const auto& p : series.points) {
    if (!p.busbw_gbps) continue;
    if (best == nullptr || p.bytes > best->bytes || (p.bytes == best->bytes && best->in_place && !p.in_place)) best = &p;
  }
  return best;
}

}  // namespace linkscope::coll
