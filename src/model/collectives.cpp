#include "model/collectives.hpp"

#include <fmt/format.h>

#include "core/error.hpp"

namespace linkscope::model {

using namespace linkscope::coll;  // the collective vocabulary (ops, types, reductions)

using nlohmann::json;


std::string DeviceRecord::pci_bdf() const { return fmt::format("{:04x}:{:02x}:{:02x}.0", pci_domain, pci_bus, pci_device); }

json to_json(const DeviceRecord& d) {
  json j = {{"rank", d.rank},         {"host", d.host},       {"pid", d.pid},   {"cuda_device", d.cuda_device},
          {"pci_bdf", d.pci_bdf()}, {"pci_domain", d.pci_domain}, {"pci_bus", d.pci_bus},
          {"pci_device", d.pci_device}, {"uuid", d.uuid},  {"name", d.name}};
  if (d.group != 0) j["group"] = d.group;  // only runs split by NCCL_TESTS_SPLIT have more than group 0
  return j;
}

DeviceRecord device_from_json(const JsonReader& j) {
  DeviceRecord d;
  d.rank = j.small_int("rank").value_or(0);
  d.group = j.small_int("group").value_or(0);
  d.host = j.string_or("host");
  d.pid = j.small_int("pid").value_or(0);
  d.cuda_device = j.small_int("cuda_device").value_or(0);
  d.pci_domain = j.small_int("pci_domain").value_or(0);
  d.pci_bus = j.small_int("pci_bus").value_or(0);
  d.pci_device = j.small_int("pci_device").value_or(0);
  d.uuid = j.string_or("uuid");
  d.name = j.string_or("name");
  j.skip({"pci_bdf"});  // derived from domain, bus and device
  return d;
}

json to_json(const IterationTimes& t) {
  return {{"skipped", t.skipped}, {"times_us", t.times_us}, {"per_process_us", t.per_process_us},
          {"min_us", t.min_us},   {"max_us", t.max_us},     {"avg_us", t.avg_us},
          {"p50_us", t.p50_us},   {"p95_us", t.p95_us},     {"p99_us", t.p99_us},
          {"stdev_us", t.stdev_us}, {"cv_pct", t.cv_pct}};
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
  j["clock"] = p.clock;
  if (p.per_iteration) j["per_iteration"] = to_json(*p.per_iteration);
  j["status"] = p.status;
  j["reason"] = optional_json(p.reason);
  return with_extras(std::move(j), p.extra);
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
  return with_extras(std::move(j), s.extra);
}

namespace {

IterationTimes iteration_times_from_json(const JsonReader& j) {
  IterationTimes t;
  t.skipped = j.small_int("skipped").value_or(0);
  t.times_us = j.numbers("times_us");
  const nlohmann::json rows = j.raw("per_process_us");
  if (!rows.is_null() && !rows.is_array()) j.fail("per_process_us", "not a list of lists of numbers");
  for (const auto& row : rows) {
    if (!row.is_array()) j.fail("per_process_us", "not a list of lists of numbers");
    std::vector<double> times;
    for (const auto& value : row) {
      if (!value.is_number()) j.fail("per_process_us", "not a list of lists of numbers");
      times.push_back(value.get<double>());
    }
    t.per_process_us.push_back(std::move(times));
  }
  t.min_us = j.number("min_us").value_or(0);
  t.max_us = j.number("max_us").value_or(0);
  t.avg_us = j.number("avg_us").value_or(0);
  t.p50_us = j.number("p50_us").value_or(0);
  t.p95_us = j.number("p95_us").value_or(0);
  t.p99_us = j.number("p99_us").value_or(0);
  t.stdev_us = j.number("stdev_us").value_or(0);
  t.cv_pct = j.number("cv_pct").value_or(0);
  return t;
}

CollectivePoint point_from_json(const JsonReader& pj) {
  CollectivePoint p;
  p.bytes = pj.count("bytes").value_or(0);
  p.requested_bytes = pj.count("requested_bytes").value_or(p.bytes);
  p.count = pj.count("count").value_or(0);
  p.in_place = pj.boolean("in_place").value_or(false);
  p.samples = pj.count("samples").value_or(0);
  p.iterations = pj.count("iterations").value_or(0);
  const auto cv = pj.number("cv");
  const auto ci_relative = pj.number("ci_relative");
  if (pj.has("time_us")) {
    TimeSummary t;
    const JsonReader time = pj.object("time_us");
    const auto median = time.number("median");
    if (!median) pj.fail("time_us", "a time without a median");
    t.median_us = *median;
    t.min_us = time.number("min").value_or(t.median_us);
    t.max_us = time.number("max").value_or(t.median_us);
    t.mean_us = time.number("mean").value_or(t.median_us);
    t.cv = cv.value_or(0);
    t.ci_relative = ci_relative.value_or(0);
    p.time = t;
  }
  p.stop_reason = pj.string_or("stop_reason");
  p.cputime_us = pj.number("cputime_us");
  p.algbw_gbps = pj.number("algbw_gbps");
  p.busbw_gbps = pj.number("busbw_gbps");
  for (const auto& [key, rate] : {std::pair{"algbw_gbps", p.algbw_gbps}, std::pair{"busbw_gbps", p.busbw_gbps}}) {
    if (rate && *rate < 0) pj.fail(key, "a negative value (a measured rate is never below 0)");
  }
  p.wrong = pj.integer("wrong");
  p.clock = pj.string_or("clock", "events");
  if (p.clock != "events" && p.clock != "host-loop") pj.fail("clock", "unknown clock '" + p.clock + "' (events, host-loop)");
  if (pj.has("per_iteration")) p.per_iteration = iteration_times_from_json(pj.object("per_iteration"));
  p.status = pj.string_or("status", "ok");
  if (p.status != "ok" && p.status != "wrong" && p.status != "timeout" && p.status != "error") {
    pj.fail("status", "unknown status '" + p.status + "' (ok, wrong, timeout, error)");
  }
  p.reason = pj.string("reason");
  p.extra = pj.extras();
  return p;
}

}  // namespace

CollectiveSeries series_from_json(const JsonReader& j) {
  CollectiveSeries s;
  const std::string op_text = j.string_or("op");
  const auto op = parse_op(op_text);
  if (!op) j.fail("op", fmt::format("unknown collective '{}'", op_text));
  s.op = *op;
  const std::string type_text = j.string_or("dtype", "float");
  const auto type = parse_type(type_text);
  if (!type) j.fail("dtype", fmt::format("unknown data type '{}'", type_text));
  s.dtype = *type;
  if (const auto redop = j.string("redop")) {
    const auto parsed = parse_red_op(*redop);
    if (!parsed) j.fail("redop", fmt::format("unknown reduction '{}'", *redop));
    s.redop = *parsed;
  }
  s.root = j.small_int("root").value_or(-1);
  const auto nranks = j.small_int("nranks");
  if (!nranks || *nranks < 1) j.fail("nranks", "a series needs its rank count (>= 1)");
  s.nranks = *nranks;
  s.launch = j.string_or("launch", "single-process");
  s.graph = j.boolean("graph").value_or(false);
  if (const auto reduction = j.string("time_reduction")) {
    const auto parsed = parse_rank_time_reduction(*reduction);
    if (!parsed) j.fail("time_reduction", fmt::format("unknown time reduction '{}'", *reduction));
    s.time_reduction = *parsed;
  }
  s.nccl_call = j.string_or("nccl_call");
  s.env = j.string_map("env");
  for (const auto& d : j.array("devices")) s.devices.push_back(device_from_json(d));
  for (const auto& pj : j.array("points")) s.points.push_back(point_from_json(pj));
  s.extra = j.extras();
  return s;
}

const CollectivePoint* largest_measured_point(const CollectiveSeries& series) {
  const CollectivePoint* best = nullptr;
  for (const auto& p : series.points) {
    if (!p.busbw_gbps) continue;
    if (best == nullptr || p.bytes > best->bytes || (p.bytes == best->bytes && best->in_place && !p.in_place)) best = &p;
  }
  return best;
}

}  // namespace linkscope::model
