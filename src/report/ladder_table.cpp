#include "report/ladder_table.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace linkscope::report {

using model::Ladder;
using model::LadderLayer;

namespace {

std::string layer_label(const LadderLayer& layer) {
  if (layer.name == "p2p-level" && layer.env.count("NCCL_P2P_LEVEL") != 0) {
    return "p2p-level=" + layer.env.at("NCCL_P2P_LEVEL");
  }
  return layer.name;
}

std::string optional_number(const std::optional<double>& v, const char* format_spec) {
  return v ? fmt::format(fmt::runtime(format_spec), *v) : std::string("-");
}

}  // namespace

std::string render_ladder_table(const Ladder& ladder) {
  std::optional<std::uint64_t> bytes;
  for (const auto& layer : ladder.layers) {
    if (layer.bytes) bytes = std::max(bytes.value_or(0), *layer.bytes);
  }
  std::string out = fmt::format("# path ladder: {} {}, {} ranks, busbw at the largest size{}\n", ladder.op, ladder.dtype,
                                ladder.nranks, bytes ? fmt::format(" ({} B)", *bytes) : std::string());
  out += fmt::format("# {:<20} {:<24} {:>8} {:>8} {:>6} {:>9}  {}\n", "layer", "transport", "busbw", "peak", "eff.",
                     "slowdown", "path / status");
  out += fmt::format("# {:<20} {:<24} {:>8} {:>8} {:>6} {:>9}\n", "", "(NCCL's, measured)", "(GB/s)", "(GB/s)", "", "");
  for (const auto& layer : ladder.layers) {
    std::string note;
    if (layer.status != "ok") {
      note = fmt::format("{}: {}", layer.status, layer.reason.value_or(""));
    } else if (layer.peak.peak_gbps) {
      note = layer.peak.basis + (layer.peak.reason.empty() ? "" : "; " + layer.peak.reason);
    } else {
      note = "peak: " + layer.peak.reason;
    }
    if (layer.wrong.value_or(0) > 0) note += fmt::format("; {} WRONG elements", *layer.wrong);
    out += fmt::format("  {:<20} {:<24} {:>8} {:>8} {:>6} {:>9}  {}\n", layer_label(layer), layer.transport.value_or("-"),
                       optional_number(layer.busbw_gbps, "{:.2f}"), optional_number(layer.peak.peak_gbps, "{:.1f}"),
                       layer.efficiency ? fmt::format("{:.0f}%", *layer.efficiency * 100) : std::string("-"),
                       optional_number(layer.slowdown, "{:.2f}x"), note);
  }
  return out;
}

std::string render_ladder_text(const model::Run& run) {
  std::string out = run.measurements.ladder ? render_ladder_table(*run.measurements.ladder) : std::string();
  if (!run.system.present) {
    out += "# peaks need hardware facts: pass --system FILE (a Run document with a `system` section)\n";
  }
  return out;
}

}  // namespace linkscope::report
