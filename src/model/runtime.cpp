#include "model/runtime.hpp"

#include <algorithm>

namespace linkscope::model {

using nlohmann::json;

std::string transport_label(const NcclConnection& c) {
  if (c.transport.compare(0, 4, "P2P/") == 0) {
    // Keep the read/CE suffixes: they change the data path (reads over NVLink, copy engines).
    return c.detail.empty() ? c.transport : c.transport + "/" + c.detail;
  }
  if (c.transport == "SHM") return c.detail.find("CE") != std::string::npos ? "SHM/CE" : "SHM";
  if (c.transport.compare(0, 4, "NET/") == 0) {
    return c.detail.find("GDRDMA") != std::string::npos ? c.transport + "/GDRDMA" : c.transport;
  }
  return c.transport;
}

std::vector<TransportCount> transport_summary(const NcclRuntimeInfo& info) {
  std::vector<TransportCount> counts;
  for (const auto& c : info.connections) {
    const std::string label = transport_label(c);
    auto it = std::find_if(counts.begin(), counts.end(), [&](const TransportCount& t) { return t.label == label; });
    if (it == counts.end()) {
      counts.push_back({label, 1});
    } else {
      ++it->connections;
    }
  }
  std::stable_sort(counts.begin(), counts.end(),
                   [](const TransportCount& a, const TransportCount& b) { return a.connections > b.connections; });
  return counts;
}

std::optional<std::string> dominant_transport(const NcclRuntimeInfo& info) {
  const auto summary = transport_summary(info);
  if (!summary.empty()) return summary.front().label;
  if (info.nranks && *info.nranks == 1) return std::string("none");
  return std::nullopt;
}

RuntimeRun RuntimeRun::not_recorded(std::string context, std::string why) {
  RuntimeRun run;
  run.context = std::move(context);
  run.recorded = false;
  run.reason = std::move(why);
  return run;
}

json to_json(const NcclHint& h) {
  return {{"kind", h.kind}, {"text", h.text}, {"advice", h.advice}, {"primary", h.primary}, {"count", h.count}};
}

NcclHint hint_from_json(const JsonReader& h) {
  return {h.string_or("kind", "other"), h.string_or("text"), h.strings("advice"), h.boolean("primary").value_or(true),
          h.small_int("count").value_or(1)};
}

json to_json(const RuntimeRun& run) {
  if (!run.recorded) {
    return with_extras({{"context", run.context}, {"status", "not recorded"}, {"reason", run.reason}}, run.extra);
  }
  const NcclRuntimeInfo& info = run.info;
  json out;
  out["context"] = run.context;
  out["env"] = run.env;
  out["status"] = "recorded";
  out["reason"] = nullptr;
  out["nccl_version"] = optional_json(info.nccl_version);
  out["nccl_version_full"] = optional_json(info.nccl_version_full);
  out["network"] = optional_json(info.network);
  out["nranks"] = optional_json(info.nranks);
  out["nnodes"] = optional_json(info.nnodes);
  out["transport"] = optional_json(dominant_transport(info));
  json transports = json::array();
  for (const auto& t : transport_summary(info)) transports.push_back({{"transport", t.label}, {"connections", t.connections}});
  out["transports"] = transports;
  json connections = json::array();
  for (const auto& c : info.connections) {
    connections.push_back({{"rank", c.rank},
                           {"peer", c.peer},
                           {"channel", c.channel},
                           {"conn_index", c.conn_index < 0 ? json(nullptr) : json(c.conn_index)},
                           {"side", string_or_null(c.side)},
                           {"transport", c.transport},
                           {"detail", string_or_null(c.detail)},
                           {"via", c.via}});
  }
  out["connections"] = connections;
  out["channels"] = {{"coll", optional_json(info.coll_channels)},
                     {"collnet", optional_json(info.collnet_channels)},
                     {"nvls", optional_json(info.nvls_channels)},
                     {"p2p", optional_json(info.p2p_channels)},
                     {"p2p_per_peer", optional_json(info.p2p_channels_per_peer)}};
  out["algorithms_connected"] = info.algorithms_connected;
  // Algorithm and protocol per call are printed only with NCCL_DEBUG_SUBSYS=TUNING; what the environment
  // forces is recorded here.
  const auto algo = info.environment.find("NCCL_ALGO");
  const auto proto = info.environment.find("NCCL_PROTO");
  out["algorithm_env"] = algo != info.environment.end() ? json(algo->second) : json(nullptr);
  out["protocol_env"] = proto != info.environment.end() ? json(proto->second) : json(nullptr);
  json graphs = json::array();
  for (const auto& g : info.graphs) {
    graphs.push_back({{"pattern", g.pattern},
                      {"name", g.pattern_name},
                      {"channels", g.channels},
                      {"bw_intra", g.bw_intra},
                      {"bw_inter", g.bw_inter},
                      {"type_intra", g.type_intra},
                      {"type_inter", g.type_inter}});
  }
  out["graphs"] = graphs;
  json paths = json::array();
  for (const auto& p : info.gpu_paths) {
    paths.push_back({{"from", p.from}, {"to", p.to}, {"type", p.type}, {"bw", p.bandwidth}, {"hops", p.hops}});
  }
  out["gpu_paths"] = paths;
  out["nccl_environment"] = info.environment;
  out["comm_config"] = info.comm_config;
  json tuning = json::array();
  for (const auto& t : info.tuning) {
    tuning.push_back({{"collective", t.collective}, {"bytes", t.bytes}, {"size_bytes", t.size_bytes},
                      {"algorithm", t.algorithm}, {"protocol", string_or_null(t.protocol)},
                      {"channel_lo", t.channel_lo}, {"channel_hi", t.channel_hi}, {"channels", t.channels()},
                      {"kernel", string_or_null(t.kernel)}, {"calls", t.calls}});
  }
  out["tuning"] = std::move(tuning);
  out["warnings"] = info.warnings;
  json rank_devices = json::array();
  for (const auto& d : info.rank_devices) {
    rank_devices.push_back({{"rank", d.rank}, {"cuda_dev", d.cuda_dev}, {"nvml_dev", d.nvml_dev}, {"bus_id", d.bus_id}});
  }
  out["rank_devices"] = std::move(rank_devices);
  json gpu_direct = json::array();
  for (const auto& g : info.gpu_direct) {
    gpu_direct.push_back({{"rank", g.rank}, {"net", g.net}, {"enabled", g.enabled}, {"source", g.source}});
  }
  out["gpu_direct"] = std::move(gpu_direct);
  out["nvls"] = {{"supported", optional_json(info.nvls.supported)},
                 {"channels", optional_json(info.nvls.channels)},
                 {"chunk_size", optional_json(info.nvls.chunk_size)},
                 {"tree_max_chunk_size", optional_json(info.nvls.tree_max_chunk_size)}};
  out["mnnvl"] = info.mnnvl ? json{{"enabled", info.mnnvl->enabled},
                                   {"clique_id", info.mnnvl->clique_id},
                                   {"clique_size", info.mnnvl->clique_size},
                                   {"clique_rank", info.mnnvl->clique_rank},
                                   {"nvl_domain_size", optional_json(info.mnnvl->nvl_domain_size)}}
                            : json(nullptr);
  json hints = json::array();
  for (const auto& h : info.hints) hints.push_back(to_json(h));
  out["hints"] = std::move(hints);
  return with_extras(std::move(out), run.extra);
}

RuntimeRun runtime_run_from_json(const JsonReader& r) {
  RuntimeRun run;
  run.context = r.string_or("context");
  run.env = r.string_map("env");
  const std::string status = r.string_or("status", "recorded");
  run.recorded = status == "recorded";
  run.reason = r.string_or("reason");
  NcclRuntimeInfo& info = run.info;
  info.nccl_version = r.string("nccl_version");
  info.nccl_version_full = r.string("nccl_version_full");
  info.network = r.string("network");
  info.nranks = r.small_int("nranks");
  info.nnodes = r.small_int("nnodes");
  for (const auto& c : r.array("connections")) {
    NcclConnection connection;
    connection.rank = c.small_int("rank").value_or(-1);
    connection.peer = c.small_int("peer").value_or(-1);
    connection.channel = c.small_int("channel").value_or(-1);
    connection.conn_index = c.small_int("conn_index").value_or(-1);
    connection.side = c.string_or("side");
    connection.transport = c.string_or("transport");
    connection.detail = c.string_or("detail");
    connection.via = c.string_or("via");
    info.connections.push_back(std::move(connection));
  }
  const JsonReader channels = r.object("channels");
  info.coll_channels = channels.small_int("coll");
  info.collnet_channels = channels.small_int("collnet");
  info.nvls_channels = channels.small_int("nvls");
  info.p2p_channels = channels.small_int("p2p");
  info.p2p_channels_per_peer = channels.small_int("p2p_per_peer");
  info.algorithms_connected = r.strings("algorithms_connected");
  for (const auto& g : r.array("graphs")) {
    info.graphs.push_back({g.small_int("pattern").value_or(0), g.string_or("name"), g.small_int("channels").value_or(0),
                           g.number("bw_intra").value_or(0), g.number("bw_inter").value_or(0),
                           g.string_or("type_intra"), g.string_or("type_inter")});
  }
  for (const auto& p : r.array("gpu_paths")) {
    info.gpu_paths.push_back({p.string_or("from"), p.string_or("to"), p.string_or("type"), p.number("bw").value_or(0),
                              p.small_int("hops").value_or(0)});
  }
  info.environment = r.string_map("nccl_environment");
  info.comm_config = r.string_map("comm_config");
  for (const auto& t : r.array("tuning")) {
    NcclTuningCall call;
    call.collective = t.string_or("collective");
    call.bytes = t.count("bytes").value_or(0);
    call.size_bytes = t.count("size_bytes").value_or(call.bytes);
    call.algorithm = t.string_or("algorithm");
    call.protocol = t.string_or("protocol");
    call.channel_lo = t.small_int("channel_lo").value_or(0);
    call.channel_hi = t.small_int("channel_hi").value_or(-1);
    call.kernel = t.string_or("kernel");
    call.calls = t.small_int("calls").value_or(0);
    t.skip({"channels"});  // channel_hi - channel_lo + 1
    info.tuning.push_back(std::move(call));
  }
  info.warnings = r.strings("warnings");
  for (const auto& d : r.array("rank_devices")) {
    info.rank_devices.push_back({d.small_int("rank").value_or(-1), d.small_int("cuda_dev").value_or(-1),
                                 d.small_int("nvml_dev").value_or(-1), d.string_or("bus_id")});
  }
  for (const auto& g : r.array("gpu_direct")) {
    info.gpu_direct.push_back({g.small_int("rank").value_or(-1), g.string_or("net"), g.boolean("enabled").value_or(false),
                               g.string_or("source")});
  }
  const JsonReader nvls = r.object("nvls");
  info.nvls.supported = nvls.boolean("supported");
  info.nvls.channels = nvls.small_int("channels");
  info.nvls.chunk_size = nvls.small_int("chunk_size");
  info.nvls.tree_max_chunk_size = nvls.small_int("tree_max_chunk_size");
  if (const JsonReader mnnvl = r.object("mnnvl"); mnnvl.has("clique_id")) {
    info.mnnvl = NcclMnnvl{mnnvl.small_int("enabled").value_or(0), mnnvl.string_or("clique_id"),
                           mnnvl.small_int("clique_size").value_or(0), mnnvl.small_int("clique_rank").value_or(0),
                           mnnvl.small_int("nvl_domain_size")};
  }
  for (const auto& h : r.array("hints")) info.hints.push_back(hint_from_json(h));
  // Derived from the connections and the environment when written.
  r.skip({"transport", "transports", "algorithm_env", "protocol_env"});
  run.extra = r.extras();
  return run;
}

std::vector<const NcclTuningCall*> tuning_calls(const NcclRuntimeInfo& info, const std::string& collective,
                                                std::uint64_t size_bytes) {
  std::vector<const NcclTuningCall*> calls;
  for (const auto& call : info.tuning) {
    if (call.collective == collective && call.size_bytes == size_bytes) calls.push_back(&call);
  }
  return calls;
}

json to_json(const Runtime& runtime) {
  json runs = json::array();
  for (const auto& run : runtime.runs) runs.push_back(to_json(run));
  return with_extras({{"nccl_version", optional_json(runtime.nccl_version)}, {"runs", runs}}, runtime.extra);
}

Runtime runtime_from_json(const JsonReader& r) {
  Runtime runtime;
  runtime.nccl_version = r.string("nccl_version");
  for (const auto& run : r.array("runs")) runtime.runs.push_back(runtime_run_from_json(run));
  runtime.extra = r.extras();
  return runtime;
}

}  // namespace linkscope::model
