#include "report/ladder_table.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace linkscope::report {

using nlohmann::json;

std::vector<LadderLayer> ladder_layers(const std::optional<std::string>& p2p_level) {
  std::vector<LadderLayer> layers(6);
  layers[0].name = "default";
  layers[1].name = "p2p-level";
  if (p2p_level) {
    layers[1].env = {{"NCCL_P2P_LEVEL", *p2p_level}};
  } else {
    layers[1].status = "skipped";
    layers[1].reason = "the default run did not show NCCL's GPU-to-GPU path type (runtime layer not recorded)";
  }
  layers[2].name = "p2p-disabled";
  layers[2].env = {{"NCCL_P2P_DISABLE", "1"}};
  layers[3].name = "network";
  layers[3].env = {{"NCCL_P2P_DISABLE", "1"}, {"NCCL_SHM_DISABLE", "1"}};
  layers[4].name = "ring";
  layers[4].env = {{"NCCL_ALGO", "Ring"}};
  layers[5].name = "tree";
  layers[5].env = {{"NCCL_ALGO", "Tree"}};
  return layers;
}

void finish_ladder(Ladder& ladder) {
  std::optional<double> best;
  for (const auto& layer : ladder.layers) {
    if (layer.busbw_gbps && (!best || *layer.busbw_gbps > *best)) best = layer.busbw_gbps;
  }
  for (auto& layer : ladder.layers) {
    layer.efficiency.reset();
    layer.slowdown.reset();
    if (!layer.busbw_gbps) continue;
    if (layer.peak.peak_gbps && *layer.peak.peak_gbps > 0) layer.efficiency = *layer.busbw_gbps / *layer.peak.peak_gbps;
    if (best && *layer.busbw_gbps > 0) layer.slowdown = *best / *layer.busbw_gbps;
  }
}

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

json to_json(const Ladder& ladder) {
  json layers = json::array();
  for (const auto& l : ladder.layers) {
    auto opt = [](const auto& v) { return v ? json(*v) : json(nullptr); };
    layers.push_back({{"name", l.name},
                      {"env", l.env},
                      {"status", l.status},
                      {"reason", opt(l.reason)},
                      {"transport", opt(l.transport)},
                      {"transports", l.transports},
                      {"bytes", opt(l.bytes)},
                      {"busbw_gbps", opt(l.busbw_gbps)},
                      {"wrong", opt(l.wrong)},
                      {"peak_gbps", opt(l.peak.peak_gbps)},
                      {"peak_basis", l.peak.basis.empty() ? json(nullptr) : json(l.peak.basis)},
                      {"peak_reason", l.peak.reason.empty() ? json(nullptr) : json(l.peak.reason)},
                      {"efficiency", opt(l.efficiency)},
                      {"slowdown", opt(l.slowdown)}});
  }
  return {{"op", ladder.op}, {"dtype", ladder.dtype}, {"nranks", ladder.nranks}, {"layers", layers}};
}

}  // namespace linkscope::report
