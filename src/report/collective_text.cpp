#include "report/collective_text.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "core/text.hpp"

namespace linkscope::report {

namespace {

std::string reduction_text(coll::RankTimeReduction r) {
  switch (r) {
    case coll::RankTimeReduction::kMaximum: return "the slowest rank";
    case coll::RankTimeReduction::kMinimum: return "the fastest rank";
    case coll::RankTimeReduction::kAverage: return "the average over ranks";
    case coll::RankTimeReduction::kRank0: return "rank 0";
  }
  return "the slowest rank";
}

}  // namespace

std::string render_sampling_text(const model::CollSampling& sampling) {
  if (sampling.fixed_iters) {
    return sampling.graph_launches > 0
               ? fmt::format("{} CUDA graph launches of {} operations each", sampling.graph_launches, *sampling.fixed_iters)
               : fmt::format("{} timed iterations per size", *sampling.fixed_iters);
  }
  return fmt::format("adaptive: until the median's 95% CI is within {:g}% or {:g} s per size{}", sampling.target_ci * 100,
                     sampling.max_time_s, sampling.graph_launches > 0 ? " (one sample per CUDA graph launch)" : "");
}

std::string render_collective_header(const model::CollectiveSeries& s, const std::string& sampling) {
  std::string out;
  std::string what = fmt::format("{} {}", coll::op_name(s.op), coll::type_name(s.dtype));
  if (coll::op_reduces(s.op)) what += fmt::format(" {}", coll::red_op_name(s.redop));
  if (coll::op_is_rooted(s.op)) what += fmt::format(" root {}", s.root);
  out += fmt::format("# {}: {} ranks ({}), {}{}\n", what, s.nranks, s.launch, s.nccl_call, s.graph ? ", CUDA graphs" : "");
  out += fmt::format("# time per operation: CUDA events around each gated batch on every rank's stream (a sample = the "
                     "batch's mean), per batch {}; {}\n",
                     reduction_text(s.time_reduction), sampling);
  out += fmt::format("# {:>12}  {:>12}  {:>5}  {:>9}  {:>9}  {:>9}  {:>6}  {:>7}  {:>7}  {:>6}  {:>7}\n", "size", "count",
                     "place", "median", "min", "max", "cv", "algbw", "busbw", "#wrong", "samples");
  out += fmt::format("# {:>12}  {:>12}  {:>5}  {:>9}  {:>9}  {:>9}  {:>6}  {:>7}  {:>7}  {:>6}  {:>7}\n", "(B)",
                     "(elements)", "", "(us)", "(us)", "(us)", "(%)", "(GB/s)", "(GB/s)", "", "");
  return out;
}

std::string render_collective_row(const model::CollectivePoint& p) {
  const std::string place = p.in_place ? "in" : "out";
  std::string out = fmt::format("  {:>12}  {:>12}  {:>5}", p.bytes, p.count, place);
  if (!p.time) {
    return out + fmt::format("  {}: {}\n", p.status, p.reason.value_or("not measured"));
  }
  const auto& t = *p.time;
  out += fmt::format("  {:>9.2f}  {:>9.2f}  {:>9.2f}  {:>6.2f}  {:>7.2f}  {:>7.2f}", t.median_us, t.min_us, t.max_us,
                     100.0 * t.cv, p.algbw_gbps.value_or(0), p.busbw_gbps.value_or(0));
  out += p.wrong ? fmt::format("  {:>6}", *p.wrong) : fmt::format("  {:>6}", "-");
  out += fmt::format("  {:>7}", p.samples);
  if (p.status != "ok") out += fmt::format("  {}: {}", p.status, p.reason.value_or(""));
  return out + "\n";
}

std::string render_collective_footer(const std::vector<model::CollectiveSeries>& series, const CollectiveSummary& summary) {
  const model::CollectivePoint* peak = nullptr;
  std::int64_t wrong = 0;
  int checked = 0, failed = 0, points = 0;
  for (const auto& s : series) {
    for (const auto& p : s.points) {
      ++points;
      if (p.wrong) {
        ++checked;
        wrong += *p.wrong;
      }
      if (p.status == "timeout" || p.status == "error") ++failed;
      if (p.busbw_gbps && (peak == nullptr || *p.busbw_gbps > *peak->busbw_gbps)) peak = &p;
    }
  }
  std::string out;
  const bool one_rank = !series.empty() && std::all_of(series.begin(), series.end(), [](const auto& s) { return s.nranks == 1; });
  if (one_rank) {
    // On one rank NCCL runs a local copy: busbw is 0 where its factor has (n-1) in it and the HBM copy rate where
    // the factor is 1 (sendrecv, broadcast, reduce); neither is a link's bandwidth, so no peak is printed.
    out += "# one rank: no data crosses a link (NCCL runs a local copy); busbw is not a link's bandwidth here\n";
  } else if (peak != nullptr) {
    out += fmt::format("# peak busbw {:.2f} GB/s at {} B ({}), median time {:.2f} us\n", *peak->busbw_gbps, peak->bytes,
                       peak->in_place ? "in place" : "out of place", peak->time->median_us);
  }
  out += fmt::format("# {} wrong element(s) in {} checked measurement(s); {} of {} measurement(s) failed\n", wrong, checked,
                     failed, points);
  if (!summary.transport.empty()) out += fmt::format("# NCCL transport: {}\n", summary.transport);
  out += fmt::format("# wall time {:.2f} s\n", summary.wall_s);
  return out;
}

std::string transport_summary_text(const model::NcclRuntimeInfo& info) {
  std::vector<std::string> parts;
  for (const auto& t : model::transport_summary(info)) parts.push_back(fmt::format("{} ({} connections)", t.label, t.connections));
  if (parts.empty() && info.nranks == 1) return "none (one rank)";
  return join(parts, ", ");
}

CollectiveSummary collective_summary(const model::Run& run) {
  CollectiveSummary summary;
  summary.wall_s = run.config.measured_seconds.value_or(0);
  for (const auto& runtime_run : run.runtime.runs) {
    if (runtime_run.context.rfind("coll ", 0) != 0) continue;
    if (runtime_run.recorded) summary.transport = transport_summary_text(runtime_run.info);
    break;
  }
  return summary;
}

std::string render_coll_text(const model::Run& run) {
  static const std::vector<model::CollectiveSeries> kNone;
  const auto& series = run.measurements.collectives ? *run.measurements.collectives : kNone;
  const std::string sampling = render_sampling_text(model::coll_sampling(run.config));
  std::string out;
  bool first = true;
  for (const auto& s : series) {
    if (s.points.empty()) continue;  // the live table prints a series' header with its first size
    if (!first) out += kCollectiveSeriesSeparator;
    first = false;
    out += render_collective_header(s, sampling);
    for (const auto& point : s.points) out += render_collective_row(point);
  }
  return out + render_collective_footer(series, collective_summary(run));
}

}  // namespace linkscope::report
