#include "model/ladder.hpp"

namespace linkscope::model {

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

nlohmann::json to_json(const Ladder& ladder) {
  nlohmann::json layers = nlohmann::json::array();
  for (const auto& l : ladder.layers) {
    layers.push_back(with_extras({{"name", l.name},
                                  {"env", l.env},
                                  {"status", l.status},
                                  {"reason", optional_json(l.reason)},
                                  {"transport", optional_json(l.transport)},
                                  {"transports", l.transports},
                                  {"bytes", optional_json(l.bytes)},
                                  {"busbw_gbps", optional_json(l.busbw_gbps)},
                                  {"wrong", optional_json(l.wrong)},
                                  {"peak_gbps", optional_json(l.peak.peak_gbps)},
                                  {"peak_basis", string_or_null(l.peak.basis)},
                                  {"peak_reason", string_or_null(l.peak.reason)},
                                  {"efficiency", optional_json(l.efficiency)},
                                  {"slowdown", optional_json(l.slowdown)}},
                                 l.extra));
  }
  return with_extras({{"op", ladder.op}, {"dtype", ladder.dtype}, {"nranks", ladder.nranks}, {"layers", layers}},
                     ladder.extra);
}

Ladder ladder_from_json(const JsonReader& reader) {
  Ladder ladder;
  ladder.op = reader.string_or("op");
  ladder.dtype = reader.string_or("dtype");
  ladder.nranks = reader.small_int("nranks").value_or(0);
  for (const auto& item : reader.array("layers")) {
    LadderLayer l;
    l.name = item.string_or("name");
    l.env = item.string_map("env");
    l.status = item.string_or("status", "ok");
    l.reason = item.string("reason");
    l.transport = item.string("transport");
    l.transports = item.string_or("transports");
    l.bytes = item.count("bytes");
    l.busbw_gbps = item.number("busbw_gbps");
    l.wrong = item.integer("wrong");
    l.peak.peak_gbps = item.number("peak_gbps");
    l.peak.basis = item.string_or("peak_basis");
    l.peak.reason = item.string_or("peak_reason");
    l.efficiency = item.number("efficiency");
    l.slowdown = item.number("slowdown");
    l.extra = item.extras();
    ladder.layers.push_back(std::move(l));
  }
  ladder.extra = reader.extras();
  return ladder;
}

}  // namespace linkscope::model
