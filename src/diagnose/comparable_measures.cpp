#include "diagnose/comparable_measures.hpp"

#include <fmt/format.h>

#include "core/text.hpp"
#include "diagnose/evidence.hpp"
#include "diagnose/expectations.hpp"
#include "diagnose/measured_summary.hpp"
#include "model/host_copy_kind.hpp"

namespace linkscope::diagnose {

using model::Run;

namespace {

std::string env_text(const std::map<std::string, std::string>& env) {
  std::string text;
  for (const auto& [k, v] : env) text += (text.empty() ? "" : ",") + k + "=" + v;
  return text;
}

// The class of a GPU pair as the topology matrix names it ("NV18", "PIX", "SYS"), "local" inside one GPU, "peer"
// when unknown.
std::string pair_class(const Run& run, int src, int dst) {
  if (src == dst) return "local";  // a copy inside one GPU
  const model::GpuPair* pair = run.system.pair(src, dst);
  if (pair && pair->relation && !pair->relation->empty()) return *pair->relation;
  return "peer";
}

}  // namespace

std::uint64_t latency_bound_bytes() {
  return static_cast<std::uint64_t>(diagnose::threshold(diagnose::Threshold::kLatencyBoundMaxBytes));
}

MeasureMap comparable_measures(const Run& run) {
  const Evidence evidence(run);
  const double assumed = diagnose::threshold(diagnose::Threshold::kCompareLatencyBoundNoise);
  MeasureMap map;
  for (const model::CopyPoint* p : evidence.p2p) {
    if (!copy_ok(*p)) continue;
    const std::string id = fmt::format("{} {} GPU{}->GPU{} at {}", p->method, p->direction, p->src, p->dst,
                                       format_bytes(p->bytes));
    const auto noise = diagnose::relative_noise(*p);
    Measure m;
    m.category = "p2p";
    if (p->bytes <= latency_bound_bytes()) {
      // Latency-bound: compare the time, with an assumed noise when the run recorded none.
      m.value = p->time_us ? p->time_us->median : static_cast<double>(p->bytes) / (copy_gbps(*p) * 1e3);
      m.unit = "us";
      m.higher_is_better = false;
      m.noise = noise ? noise : std::optional<double>(assumed);
      m.what = id + " (time)";
    } else {
      m.value = copy_gbps(*p);
      m.unit = "GB/s";
      m.noise = noise;
      m.what = id;
    }
    m.subject = fmt::format("GPU{}->GPU{}", p->src, p->dst);
    m.kind = fmt::format("{} {} {} at {}{}", p->method, p->direction, pair_class(run, p->src, p->dst),
                         format_bytes(p->bytes), m.unit == "us" ? " (time)" : "");
    map["p2p|" + id] = m;
  }
  for (const auto& l : evidence.latency()) {
    if (l.status != model::PointStatus::kOk || !l.latency_ns) continue;
    const std::string id = fmt::format("{} GPU{}->GPU{}", l.method, l.src, l.dst);
    // A negative index is host memory: its class is the direction to or from the host, not a GPU pair's.
    const std::string kind = fmt::format("{} {}", l.method, l.src < 0   ? "host->GPU"
                                                            : l.dst < 0 ? "GPU->host"
                                                                        : pair_class(run, l.src, l.dst));
    map["latency|" + id] = {l.latency_ns->median, "ns", false, std::nullopt, "latency", id, kind,
                            fmt::format("GPU{}->GPU{}", l.src, l.dst)};
  }
  if (run.measurements.p2p) {
    for (const auto& entry : run.measurements.p2p->host) {
      if (!entry.bandwidth_gbps) continue;
      // CE one way keeps its older id, so runs saved before the other kinds still compare.
      const std::string kind = model::host_copy_kind(entry) == "CE" ? "" : " " + model::host_copy_kind(entry);
      const std::string id = fmt::format("{}{} GPU{} at {}", entry.direction.empty() ? "?" : entry.direction, kind,
                                         entry.gpu, format_bytes(entry.bytes));
      const std::string kind_id = fmt::format("{}{} at {}", entry.direction.empty() ? "?" : entry.direction, kind,
                                              format_bytes(entry.bytes));
      map["host|" + id] = {entry.bandwidth_gbps->median, "GB/s", true, std::nullopt, "host", id, kind_id,
                           fmt::format("GPU{}", entry.gpu)};
    }
  }
  for (const auto& ref : evidence.collectives) {
    const model::CollectivePoint& p = *ref.point;
    if (!ref.ok() || p.bytes == 0) continue;
    const std::string env = env_text(ref.series->env);
    const std::string id = fmt::format("{}{}{} {} ranks at {}{}", ref.op(), ref.series->graph ? " (graph)" : "",
                                       p.in_place ? " in-place" : "", ref.series->nranks, format_bytes(p.bytes),
                                       env.empty() ? "" : " [" + env + "]");
    Measure m;
    m.category = "collective";
    if (p.bytes <= latency_bound_bytes()) {
      if (!p.time) continue;
      m.value = p.time->median_us;
      m.unit = "us";
      m.higher_is_better = false;
      m.noise = ref.relative_noise() ? ref.relative_noise() : std::optional<double>(assumed);
      m.what = id + " (time)";
    } else {
      m.value = ref.busbw();
      m.unit = "GB/s";
      m.noise = ref.relative_noise();
      m.what = id + " busbw";
    }
    m.kind = m.what;
    map["collective|" + id] = m;
  }
  for (const auto& pattern : evidence.patterns()) {
    if (pattern.status != model::PointStatus::kOk || !pattern.aggregate_gbps) continue;
    const std::string id = fmt::format("{} at {}", pattern.name, format_bytes(pattern.bytes));
    map["pattern|" + id] = {pattern.aggregate_gbps->median, "GB/s", true, std::nullopt, "pattern", id + " aggregate",
                           id + " aggregate", ""};
  }
  for (const auto& layer : evidence.ladder()) {
    if (layer.status != "ok" || !layer.busbw_gbps) continue;
    map["ladder|" + layer.name] = {*layer.busbw_gbps, "GB/s", true, std::nullopt, "ladder",
                                  layer.name + " busbw", layer.name + " busbw", ""};
  }
  return map;
}

}  // namespace linkscope::diagnose
