#include "report/p2p_text.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include <fmt/format.h>

#include "core/size.hpp"
#include "core/text.hpp"
#include "model/host_copy_kind.hpp"
#include "report/nvbandwidth_text.hpp"

namespace linkscope::report {

namespace {

using model::CopyPoint;
using model::PointStatus;

// One curve family: the points that share a method, direction mode and SM kernel.
struct Series {
  std::string method, direction, sm_kernel;
  friend bool operator==(const Series& a, const Series& b) {
    return std::tie(a.method, a.direction, a.sm_kernel) == std::tie(b.method, b.direction, b.sm_kernel);
  }
};

Series series_of(const CopyPoint& p) { return {p.method, p.direction, p.sm_kernel}; }

std::string series_title(const Series& s, bool with_kernel) {
  std::string title = s.method;
  if (s.direction == "bidir") title += " bidirectional";
  if (with_kernel && !s.sm_kernel.empty()) title += fmt::format(" [{}]", s.sm_kernel);
  return title;
}

bool has_value(const CopyPoint& p) {
  return (p.status == PointStatus::kOk || p.status == PointStatus::kWrong) && p.bandwidth_gbps.has_value();
}

std::string status_cell(PointStatus status) {
  switch (status) {
    case PointStatus::kNa: return "N/A";
    case PointStatus::kTimeout: return "T/O";
    case PointStatus::kError: return "ERR";
    default: return "?";
  }
}

std::string cell_of(const CopyPoint& p) {
  if (!has_value(p)) return status_cell(p.status);
  return format_number(p.bandwidth_gbps->median) + (p.status == PointStatus::kWrong ? "!" : "");
}

std::vector<int> device_ids(const model::P2pResults& results) {
  std::set<int> ids;
  for (const auto& d : results.devices) ids.insert(d.id);
  for (const auto& p : results.points) ids.insert(p.src), ids.insert(p.dst);
  return {ids.begin(), ids.end()};
}

void header(std::string& out, const model::P2pResults& results) {
  const auto& r = results.request;
  out += fmt::format("linkscope p2p: {} GPU{}\n", results.devices.size(), results.devices.size() == 1 ? "" : "s");
  for (const auto& d : results.devices) {
    out += fmt::format("  GPU {}  {}  {}  {}  cc {}  {} SMs\n", d.id, d.name, d.pci_bdf, d.uuid, d.compute_capability,
                       d.sm_count);
  }
  out += p2p_request_text(r) + "\n";
  out += fmt::format("verification {}; samples until the median's 95% CI is within {} or {} s per point\n",
                     r.verify ? "on" : "OFF", format_percent(r.sampling.target_ci), r.sampling.max_time_s);
  out += "GB = 1e9 bytes; a local copy (src = dst, the diagonal) counts its bytes once\n";
  const bool in_kernel = std::any_of(results.points.begin(), results.points.end(),
                                     [](const CopyPoint& p) { return p.sm_repeat == "kernel"; });
  if (in_kernel) {
    out += fmt::format("SM copies marked 'in one launch' repeat a sample's copies inside one kernel launch (no launch gap "
                       "between copies, as nvbandwidth; auto from {}); the others are one launch each\n",
                       format_size(plan::kRepeatInKernelMinBytes));
  }
  for (const auto& note : results.notes) out += "note: " + note + "\n";
}

// Matrices of one series: rows = source, columns = destination.
void matrices(std::string& out, const model::P2pResults& results, const Series& series, const std::vector<int>& ids) {
  // One pass over the points, by size (a pass per size was quadratic in the sizes).
  std::map<std::uint64_t, std::vector<const CopyPoint*>> by_size;
  for (const auto& p : results.points) {
    if (series_of(p) == series) by_size[p.bytes].push_back(&p);
  }
  for (const auto& [bytes, points] : by_size) {
    std::map<std::pair<int, int>, const CopyPoint*> cells;
    bool latency_bound = false;
    for (const CopyPoint* p : points) {
      cells[{p->src, p->dst}] = p;
      latency_bound = latency_bound || p->latency_dominated;
    }
    out += fmt::format("\n{}, {}{}\n", series_title(series, true), format_size(bytes),
                       latency_bound ? " (latency-bound: mostly the fixed cost of a copy; see latency)" : "");
    out += fmt::format("{:>5}", "");
    for (int dst : ids) out += fmt::format("{:>10}", dst);
    out += "\n";
    for (int src : ids) {
      out += fmt::format("{:>5}", src);
      for (int dst : ids) {
        const auto it = cells.find({src, dst});
        out += fmt::format("{:>10}", it == cells.end() ? "-" : cell_of(*it->second));
      }
      out += "\n";
    }
    if (series.direction == "bidir") {
      for (const auto& [key, p] : cells) {
        if (key.first < key.second && p->total_gbps) {
          out += fmt::format("  total {}<->{}: {} GB/s (both directions over one shared window)", key.first, key.second,
                             format_number(p->total_gbps->median));
          if (p->sum_gbps) {
            out += fmt::format("; sum of the directions {} GB/s (nvbandwidth's total)", format_number(p->sum_gbps->median));
          }
          out += "\n";
        }
      }
    }
  }
}

void curves(std::string& out, const model::P2pResults& results, const Series& series) {
  // The pairs in the order first measured, each with its points: one pass (a pass per pair was quadratic).
  std::vector<std::pair<int, int>> pairs;
  std::map<std::pair<int, int>, std::vector<const CopyPoint*>> by_pair;
  for (const auto& p : results.points) {
    if (!(series_of(p) == series)) continue;
    auto& rows = by_pair[{p.src, p.dst}];
    if (rows.empty()) pairs.push_back({p.src, p.dst});
    rows.push_back(&p);
  }
  const bool bidir = series.direction == "bidir";
  for (const auto& [src, dst] : pairs) {
    std::vector<const CopyPoint*>& rows = by_pair[{src, dst}];
    std::stable_sort(rows.begin(), rows.end(), [](const CopyPoint* a, const CopyPoint* b) { return a->bytes < b->bytes; });
    out += fmt::format("\n{} {}>{}{}\n", series_title(series, true), src, dst, src == dst ? " (local copy)" : "");
    out += fmt::format("{:>8} {:>10} {:>9} {:>9} {:>9} {:>7} {:>7}{}  {}\n", "bytes", "time_us", "GB/s", "min", "max",
                       "CV", "samples", bidir ? fmt::format(" {:>9} {:>9}", "total", "sum") : "", "note");
    for (const CopyPoint* p : rows) {
      if (!has_value(*p)) {
        out += fmt::format("{:>8} {:>10}  {}\n", format_size(p->bytes), status_cell(p->status), p->reason);
        continue;
      }
      std::string note = p->latency_dominated ? "latency-bound" : "";
      if (p->sm_repeat == "kernel") note += (note.empty() ? "" : ", ") + std::string("in one launch");
      if (p->status == PointStatus::kWrong) note += (note.empty() ? "" : ", ") + fmt::format("{} WRONG words", p->wrong);
      out += fmt::format("{:>8} {:>10} {:>9} {:>9} {:>9} {:>7} {:>7}{}  {}\n", format_size(p->bytes),
                         format_number(p->time_us->median), format_number(p->bandwidth_gbps->median),
                         format_number(p->bandwidth_gbps->min), format_number(p->bandwidth_gbps->max), format_percent(p->cv),
                         p->samples,
                         bidir ? fmt::format(" {:>9} {:>9}", p->total_gbps ? format_number(p->total_gbps->median) : "-",
                                             p->sum_gbps ? format_number(p->sum_gbps->median) : "-")
                               : "",
                         note);
    }
  }
}

// A tuning run: per series kind and size, one row per kernel shape and one column per pair.
void tuning_tables(std::string& out, const model::P2pResults& results) {
  // Shapes, pairs and groups in the order first measured, and each cell's point: one pass over the points (a scan
  // per cell grew with the fourth power of the run).
  using Group = std::tuple<std::string, std::string, std::uint64_t>;  // method, direction, bytes
  using CellKey = std::tuple<std::string, Group, std::pair<int, int>>;
  std::vector<std::string> shapes;
  std::vector<std::pair<int, int>> pairs;
  std::vector<Group> groups;
  std::set<std::string> shape_seen;
  std::set<std::pair<int, int>> pair_seen;
  std::set<Group> group_seen;
  std::map<CellKey, const CopyPoint*> cells;  // the last point of a cell, as the table always showed
  for (const auto& p : results.points) {
    if (p.sm_kernel.empty()) continue;
    if (shape_seen.insert(p.sm_kernel).second) shapes.push_back(p.sm_kernel);
    if (pair_seen.insert({p.src, p.dst}).second) pairs.push_back({p.src, p.dst});
    Group group{p.method, p.direction, p.bytes};
    if (group_seen.insert(group).second) groups.push_back(group);
    cells[{p.sm_kernel, std::move(group), {p.src, p.dst}}] = &p;
  }
  std::size_t width = 6;
  for (const auto& s : shapes) width = std::max(width, s.size());
  for (const auto& group : groups) {
    const auto& [method, direction, bytes] = group;
    out += fmt::format("\nSM kernel shapes: {}{}, {} (GB/s median, CV)\n", method, direction == "bidir" ? " bidirectional" : "",
                       format_size(bytes));
    out += fmt::format("{:<{}}", "kernel", width);
    for (const auto& [src, dst] : pairs) out += fmt::format("  {:>16}", fmt::format("{}>{}", src, dst));
    out += "\n";
    for (const auto& shape : shapes) {
      out += fmt::format("{:<{}}", shape, width);
      for (const auto& pair : pairs) {
        const auto it = cells.find({shape, group, pair});
        std::string cell = "-";
        if (it != cells.end()) {
          const CopyPoint& p = *it->second;
          cell = has_value(p) ? fmt::format("{} {}", cell_of(p), format_percent(p.cv)) : status_cell(p.status);
        }
        out += fmt::format("  {:>16}", cell);
      }
      out += "\n";
    }
  }
}

void problems(std::string& out, const model::P2pResults& results) {
  std::vector<std::string> lines;
  std::set<std::string> seen;
  for (const auto& p : results.points) {
    if (p.status == PointStatus::kOk) continue;
    const std::string line = p.status == PointStatus::kWrong
                                 ? fmt::format("  {} {}>{} {}: {}", p.method, p.src, p.dst, format_size(p.bytes), p.reason)
                                 : fmt::format("  {} {} {}>{}: {}", status_cell(p.status), p.method, p.src, p.dst, p.reason);
    if (seen.insert(line).second) lines.push_back(line);
  }
  if (lines.empty()) return;
  out += "\nNot measured or wrong (N/A = cannot be measured here, ERR = failed, T/O = watchdog, ! = wrong data):\n";
  for (const auto& line : lines) out += line + "\n";
}

void asymmetry(std::string& out, const model::P2pResults& results, bool tuning) {
  const auto rows = model::asymmetry_by_size(results.points);
  if (rows.empty()) return;
  std::vector<std::string> labels;
  std::size_t width = 16;
  for (const auto& a : rows) {
    labels.push_back(a.method + (a.direction == "bidir" ? " bidir" : "") +
                     (tuning && !a.sm_kernel.empty() ? " [" + a.sm_kernel + "]" : ""));
    width = std::max(width, labels.back().size());
  }
  out += "\nAsymmetry per size: largest |a>b - b>a| / mean over pairs measured both ways\n";
  out += fmt::format("{:<{}} {:>8} {:>10} {:>7}  {}\n", "method", width, "bytes", "asymmetry", "pair", "note");
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const auto& a = rows[i];
    out += fmt::format("{:<{}} {:>8} {:>10} {:>7}  {}\n", labels[i], width, format_size(a.bytes),
                       format_percent(a.max_relative), fmt::format("{}<->{}", a.a, a.b),
                       a.latency_dominated ? "latency-bound: compare latency instead" : "");
  }
}

std::string latency_cell(const model::LatencyPoint& l) {
  return l.latency_ns ? fmt::format("{:.0f} [{:.0f}-{:.0f}]", l.latency_ns->median, l.latency_ns->min, l.latency_ns->max)
                      : status_cell(l.status);
}

void latency(std::string& out, const model::P2pResults& results) {
  if (results.latency.empty()) return;
  std::vector<std::pair<int, int>> pairs;
  std::vector<std::string> chases;  // pointer-chase variants, in the order measured
  std::map<std::pair<int, int>, std::vector<const model::LatencyPoint*>> by_pair;  // one pass, not one per pair
  std::set<std::string> chase_seen;
  for (const auto& l : results.latency) {
    auto& of_pair = by_pair[{l.src, l.dst}];
    if (of_pair.empty()) pairs.push_back({l.src, l.dst});
    of_pair.push_back(&l);
    if (l.method == "sm_pointer_chase" && chase_seen.insert(l.chase).second) chases.push_back(l.chase);
  }
  const bool one_chase = chases.size() <= 1;
  std::string chain = "variants below";
  for (const auto& l : results.latency) {
    if (one_chase && l.method == "sm_pointer_chase") {
      chain = l.chase.empty() ? "chain of " + format_size(l.bytes) : "chain: " + l.chase;
    }
  }
  out += fmt::format("\nLatency (ns, median [min-max]): sm_pointer_chase = a kernel on dst loading from src's memory, one\n"
                     "dependent 8-byte load at a time, one per 128-byte line ({}), each sample issued from the\n"
                     "next SM in turn (min-max = the spread over SMs; the JSON's mean over SMs is nvbandwidth's\n"
                     "device_to_device_latency_sm); ce_small_copy = back-to-back 16-byte copies\n",
                     chain);
  // With several chase variants they get a table of their own below and this one keeps the small copies.
  const auto row = [&](const std::string& pair, const std::string& chase_cell, const std::string& ce_cell) {
    return one_chase ? fmt::format("{:>6}  {:<28}  {:<28}\n", pair, chase_cell, ce_cell)
                     : fmt::format("{:>6}  {:<28}\n", pair, ce_cell);
  };
  out += row("pair", "sm_pointer_chase", "ce_small_copy");
  for (const auto& [src, dst] : pairs) {
    std::string chase_cell = "-", ce_cell = "-";
    for (const model::LatencyPoint* l : by_pair[{src, dst}]) {
      if (l->method == "ce_small_copy") ce_cell = latency_cell(*l);
      if (l->method == "sm_pointer_chase") chase_cell = latency_cell(*l);
    }
    out += row(fmt::format("{}>{}", src, dst), chase_cell, ce_cell);
  }
  if (!one_chase) {
    std::size_t width = 8;
    for (const auto& c : chases) width = std::max(width, c.size());
    out += "\nPointer-chase variants (ns, median [min-max]; order, load, footprint; see docs/p2p.md)\n";
    out += fmt::format("{:<{}}", "variant", width);
    for (const auto& [src, dst] : pairs) out += fmt::format("  {:<20}", fmt::format("{}>{}", src, dst));
    out += "\n";
    for (const auto& c : chases) {
      out += fmt::format("{:<{}}", c, width);
      for (const auto& pair : pairs) {
        std::string cell = "-";
        for (const model::LatencyPoint* l : by_pair[pair]) {
          if (l->method == "sm_pointer_chase" && l->chase == c) cell = latency_cell(*l);
        }
        out += fmt::format("  {:<20}", cell);
      }
      out += "\n";
    }
  }
  for (const auto& l : results.latency) {
    if (!l.reason.empty()) {
      out += fmt::format("  {}{} {}>{}: {}\n", l.method, l.chase.empty() ? "" : " [" + l.chase + "]", l.src, l.dst,
                         l.reason);
    }
  }
}

void host(std::string& out, const model::P2pResults& results) {
  if (results.host.empty()) return;
  // One row per GPU and kind of copy (CE one way unless SM or both-ways copies were measured too).
  std::vector<std::pair<int, std::string>> rows;
  bool only_ce = true;
  for (const auto& h : results.host) {
    const std::pair<int, std::string> row{h.gpu, model::host_copy_kind(h)};
    if (std::find(rows.begin(), rows.end(), row) == rows.end()) rows.push_back(row);
    only_ce = only_ce && model::host_copy_kind(h) == "CE";
  }
  out += fmt::format("\nHost <-> GPU, pinned memory{}, {} (GB/s median)\n", only_ce ? " by the copy engine" : "",
                     format_size(results.host.front().bytes));
  if (only_ce) {
    out += fmt::format("{:>5} {:>10} {:>10}\n", "GPU", "h2d", "d2h");
  } else {
    out += fmt::format("{:>5} {:<12} {:>10} {:>10}\n", "GPU", "copy", "h2d", "d2h");
  }
  for (const auto& [gpu, kind] : rows) {
    std::string cells[2] = {"-", "-"};
    for (const auto& h : results.host) {
      if (h.gpu != gpu || model::host_copy_kind(h) != kind) continue;
      const int column = h.direction == "h2d" ? 0 : 1;
      cells[column] = h.bandwidth_gbps ? format_number(h.bandwidth_gbps->median) + (h.status == PointStatus::kWrong ? "!" : "")
                                       : status_cell(h.status);
    }
    if (only_ce) {
      out += fmt::format("{:>5} {:>10} {:>10}\n", gpu, cells[0], cells[1]);
    } else {
      out += fmt::format("{:>5} {:<12} {:>10} {:>10}\n", gpu, kind, cells[0], cells[1]);
    }
  }
  for (const auto& h : results.host) {
    if (!h.reason.empty()) out += fmt::format("  {} GPU {}: {}\n", h.direction, h.gpu, h.reason);
  }
}

void verification(std::string& out, const model::P2pResults& results) {
  if (!results.request.verify) {
    out += "\nVerification: OFF (--no-verify)\n";
    return;
  }
  const std::uint64_t wrong = model::total_wrong(results);
  std::size_t points = 0;
  for (const auto& p : results.points) points += p.status == PointStatus::kWrong;
  for (const auto& h : results.host) points += h.status == PointStatus::kWrong;
  out += wrong == 0 ? "\nVerification: every destination matched its source after every sample (#wrong 0)\n"
                    : fmt::format("\nVerification FAILED: #wrong {} words in {} point{}\n", wrong, points, points == 1 ? "" : "s");
}

}  // namespace

std::string p2p_request_text(const plan::P2pRequest& r) {
  std::vector<std::string> methods;
  for (auto m : r.methods) methods.push_back(plan::to_string(m));
  const std::string who = r.initiator == plan::Initiator::kDestination
                              ? "read mode: the destination GPU's copy engine or kernel pulls"
                              : "write mode: the source GPU's copy engine or kernel pushes";
  std::vector<std::string> sizes;
  for (auto s : r.sizes) sizes.push_back(format_size(s));
  return fmt::format("methods {}, {}{}; sizes {}", join(methods, "+"), who,
                     r.bidirectional ? "; bidirectional: both directions at once" : "",
                     sizes.size() > 4 ? fmt::format("{}..{} ({} sizes)", sizes.front(), sizes.back(), sizes.size())
                                      : join(sizes, ","));
}

std::string render_p2p_text(const model::P2pResults& results) {
  // A --testcase run measured nvbandwidth's testcases only: its own layout.
  if (!results.testcases.empty()) return render_testcases_text(results.testcases);
  std::string out;
  header(out, results);
  std::vector<Series> series;
  std::set<std::string> kernels;
  for (const auto& p : results.points) {
    if (std::find(series.begin(), series.end(), series_of(p)) == series.end()) series.push_back(series_of(p));
    if (!p.sm_kernel.empty()) kernels.insert(p.sm_kernel);
  }
  const bool tuning = kernels.size() > 1;
  const auto ids = device_ids(results);
  if (!results.points.empty()) {
    const bool any_matrix =
        std::any_of(series.begin(), series.end(), [&](const Series& s) { return !(tuning && !s.sm_kernel.empty()); });
    if (any_matrix) out += "\nBandwidth matrices (GB/s median; rows = source, columns = destination)\n";
    for (const auto& s : series) {
      if (!(tuning && !s.sm_kernel.empty())) matrices(out, results, s, ids);
    }
    if (tuning) tuning_tables(out, results);
    problems(out, results);
    if (any_matrix) out += "\nCurves per pair (time per copy; GB/s min/max over samples; CV of GB/s)\n";
    for (const auto& s : series) {
      if (!(tuning && !s.sm_kernel.empty())) curves(out, results, s);
    }
    asymmetry(out, results, tuning);
  }
  latency(out, results);
  host(out, results);
  verification(out, results);
  return without_trailing_spaces(out);
}

}  // namespace linkscope::report
