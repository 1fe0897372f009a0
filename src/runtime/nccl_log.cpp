#include "runtime/nccl_log.hpp"

#include <algorithm>
#include <array>
#include <regex>
#include <set>
#include <tuple>

#include "runtime/log_lines.hpp"
#include "runtime/nccl_hints.hpp"
#include "runtime/nccl_tuning_log.hpp"

namespace linkscope::runtime {

using model::NcclConnection;
using model::NcclGpuPath;
using model::NcclGraph;
using model::NcclRuntimeInfo;

namespace {

// NCCL's path types, best to worst (2.27.5+ order); older names sort by the same table.
constexpr std::array<std::string_view, 12> kPathOrder{"LOC", "NVL", "NVB", "C2C", "PIX", "PXB",
                                                      "P2C", "PXN", "PHB", "SYS", "NET", "DIS"};

int path_rank(std::string_view type) {
  for (std::size_t i = 0; i < kPathOrder.size(); ++i) {
    if (kPathOrder[i] == type) return static_cast<int>(i);
  }
  return -1;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

std::string pattern_name(int pattern) {
  // NCCL_TOPO_PATTERN_* (graph.h): 1 balanced tree, 2 split tree, 3 tree, 4 ring, 5 NVLS, 6 CollNet direct.
  switch (pattern) {
    case 1: return "BalancedTree";
    case 2: return "SplitTree";
    case 3: return "Tree";
    case 4: return "Ring";
    case 5: return "NVLS";
    case 6: return "CollNetDirect";
    default: return "Pattern" + std::to_string(pattern);
  }
}

// Splits "P2P/CUMEM/read" into transport "P2P/CUMEM" and detail "read"; "SHM/direct/direct" (up to 2.30.6) and
// "SHM/direct" (2.30.7) into "SHM" and "direct/direct" or "direct"; "NET/IB/0(1)/GDRDMA" into "NET/IB" and "0(1)/GDRDMA".
void split_via(const std::string& via, NcclConnection& c) {
  const auto first = via.find('/');
  const std::string head = via.substr(0, first);
  if (head == "SHM" || first == std::string::npos) {
    c.transport = head;
    c.detail = first == std::string::npos ? "" : via.substr(first + 1);
    return;
  }
  const auto second = via.find('/', first + 1);
  c.transport = via.substr(0, second);
  c.detail = second == std::string::npos ? "" : via.substr(second + 1);
}

// A group that did not match is an empty string: no number.
std::optional<int> to_int(const std::ssub_match& m) { return parse_log_int(m.str()); }
std::optional<double> to_double(const std::ssub_match& m) { return parse_log_double(m.str()); }

// Cheap tests before each regex: most lines match none, and a regex search tries every position of the line.
bool starts_with(std::string_view text, std::string_view head) { return text.compare(0, head.size(), head) == 0; }

bool ends_with(std::string_view text, std::string_view tail) {
  return text.size() >= tail.size() && text.compare(text.size() - tail.size(), tail.size(), tail) == 0;
}

// "[Rank 3] " before a message (NCCL 2.29.2 added it to the Init START line).
std::string_view without_rank_prefix(std::string_view m) {
  constexpr std::string_view kRank = "[Rank ";
  if (!starts_with(m, kRank)) return m;
  const auto close = m.find("] ", kRank.size());
  if (close == std::string_view::npos || close == kRank.size()) return m;
  for (std::size_t i = kRank.size(); i < close; ++i) {
    if (m[i] < '0' || m[i] > '9') return m;
  }
  return m.substr(close + 2);
}

// "0(1)/GDRDMA" -> device "0" and proxy rank 1 (PXN), "2/GDRDMA/Shared" -> "2".
struct NetDetail {
  std::string device;
  std::optional<int> proxy;
};
NetDetail net_detail(std::string_view detail) {
  NetDetail out;
  const auto end = detail.find_first_not_of("0123456789");
  out.device = std::string(detail.substr(0, end));
  if (end != std::string_view::npos && detail[end] == '(') {
    const auto close = detail.find(')', end);
    if (close != std::string_view::npos) out.proxy = parse_log_int(detail.substr(end + 1, close - end - 1));
  }
  return out;
}

// NCCL's line formats, compiled once: building these regexes costs more than parsing a whole log.
struct Patterns {
  const std::regex connection{R"(^Channel (\d+)(?:/(\d+))? : (\d+)\[[0-9a-fA-F]+\] -> (\d+)\[[0-9a-fA-F]+\](?: \[(send|receive)\])? via (.+)$)"};
  const std::regex channels{R"(^(\d+) coll channels, (\d+) collnet channels, (\d+) nvls channels, (\d+) p2p channels, (\d+) p2p channels per peer)"};
  const std::regex version{R"(^NCCL version (\d+\.\d+\.\d+)(\S*))"};
  const std::regex network{R"(^Using network (\S+))"};
  const std::regex env_line{R"(^(NCCL_[A-Z0-9_]+) set by environment to (.*)$)"};
  const std::regex comm_config_line{R"(^Comm config (\w+) set to (.*)$)"};
  const std::regex pattern_line{R"(^Pattern (\d+), crossNic \d+, nChannels (\d+), bw ([0-9.]+)/([0-9.]+), type (\w+)/(\w+))"};
  const std::regex comm_line{R"(^comm 0x[0-9a-f]+ rank \d+ nRanks (\d+) nNodes (\d+))"};
  const std::regex gpu_path_head{R"(^(GPU/[0-9a-fA-F-]+) :(.*)$)"};
  const std::regex path_entry{R"((\S+) \((\d+)/([0-9.]+)/([A-Z0-9]+)\))"};
  const std::regex connected{R"(^Connected (all rings|all trees|NVLS|CollNet|all CollNet))"};
  // init.cc: "%s comm %p rank %d nranks %d cudaDev %d nvmlDev %d busId %lx commId 0x%llx - Init START" (and the split
  // form with "parent %p ..."); the same with "- Init COMPLETE".
  const std::regex init_line{R"(^\S+ comm \S+ rank (\d+) nranks (\d+) cudaDev (-?\d+) nvmlDev (-?\d+) busId ([0-9a-fA-F]+) )"};
  // paths.cc ncclTopoCheckGdr at INFO: 2.28 "GPU Direct RDMA Enabled for GPU %d / HCA %lx (distance ...";
  // 2.29 to 2.30.2 "GPU Direct RDMA Enabled for GPU/%ld-%ld (rank %d) - NET/%ld-%ld (...". TRACE only since 2.30.3.
  const std::regex gdr_228{R"(^GPU Direct RDMA (Enabled|Disabled) for GPU (\d+) / HCA ([0-9a-fA-F]+) )"};
  const std::regex gdr_229{R"(^GPU Direct RDMA (Enabled|Disabled) for GPU/[0-9a-fA-F]+-[0-9a-fA-F]+ \(rank (\d+)\) - (NET/[0-9a-fA-F]+-[0-9a-fA-F]+) )"};
  // transport/nvls.cc: up to 2.30.2 "NVLS multicast support is %savailable on dev %d (NVLS_NCHANNELS %d)", since
  // 2.30.3 without the parenthesis, and "NVLS tuning: nChannels %d chunkSize %d treeMaxChunkSize %d".
  const std::regex nvls_support{R"(^NVLS multicast support is (not )?available on dev -?\d+(?: \(NVLS_NCHANNELS (\d+)\))?$)"};
  const std::regex nvls_tuning{R"(^NVLS tuning: nChannels (\d+) chunkSize (\d+) treeMaxChunkSize (\d+)$)"};
  // mnnvl.cc: "MNNVL %d cliqueId %x cliqueSize %d cliqueRank %d" (+ " nvlDomainSize %d" since 2.30.3).
  const std::regex mnnvl_line{R"(^MNNVL (\d+) cliqueId ([0-9a-fA-F]+) cliqueSize (\d+) cliqueRank (\d+)(?: nvlDomainSize (\d+))?$)"};
};

const Patterns& patterns() {
  static const Patterns compiled;
  return compiled;
}

struct Parser {
  NcclRuntimeInfo info;
  std::set<std::tuple<int, int, int, int, std::string>> seen_connections;
  std::set<std::pair<std::string, std::string>> seen_paths;
  std::set<std::tuple<int, int, std::string, std::string>> seen_graphs;
  std::map<std::tuple<std::string, std::uint64_t, std::string, std::string, int, int, std::string>, std::size_t>
      tuning_index;  // identical TUNING lines -> their entry in info.tuning

  const Patterns& re = patterns();
  HintCollector hints;
  std::set<std::pair<int, std::string>> seen_gdr;
  std::set<int> seen_rank_devices;

  void handle_info(const std::string& m) {
    std::smatch g;
    if (starts_with(m, "Channel ")) {
      if (!std::regex_match(m, g, re.connection)) return;
      const auto channel = to_int(g[1]), rank = to_int(g[3]), peer = to_int(g[4]);
      const auto conn_index = g[2].matched ? to_int(g[2]) : std::optional<int>(-1);
      if (!channel || !rank || !peer || !conn_index) return;
      NcclConnection c;
      c.channel = *channel;
      c.conn_index = *conn_index;
      c.rank = *rank;
      c.peer = *peer;
      c.side = g[5].matched ? g[5].str() : "";
      c.via = std::string(trim(g[6].str()));
      split_via(c.via, c);
      if (seen_connections.emplace(c.rank, c.peer, c.channel, c.conn_index, c.side).second) {
        info.connections.push_back(std::move(c));
      }
    } else if (auto call = parse_tuning_line(m, info.nranks)) {
      const auto key = std::make_tuple(call->collective, call->bytes, call->algorithm, call->protocol, call->channel_lo,
                                       call->channel_hi, call->kernel);
      const auto [at, added] = tuning_index.emplace(key, info.tuning.size());
      if (added) {
        info.tuning.push_back(std::move(*call));
      } else {
        ++info.tuning[at->second].calls;
      }
    } else if (m.find(" coll channels, ") != std::string::npos && std::regex_search(m, g, re.channels)) {
      info.coll_channels = to_int(g[1]);
      info.collnet_channels = to_int(g[2]);
      info.nvls_channels = to_int(g[3]);
      info.p2p_channels = to_int(g[4]);
      info.p2p_channels_per_peer = to_int(g[5]);
    } else if (starts_with(m, "NVLS ")) {
      handle_nvls(m);
    } else if (starts_with(m, "GPU Direct RDMA ")) {
      handle_gdr(m);
    } else if (ends_with(m, "- Init START") || ends_with(m, "- Init COMPLETE")) {
      handle_init(m);
    } else if (starts_with(m, "MNNVL ") && std::regex_match(m, g, re.mnnvl_line)) {
      const auto enabled = to_int(g[1]), size = to_int(g[3]), rank = to_int(g[4]);
      if (enabled && size && rank) info.mnnvl = model::NcclMnnvl{*enabled, g[2].str(), *size, *rank, to_int(g[5])};
    } else if (starts_with(m, "NCCL version ") && std::regex_search(m, g, re.version)) {
      info.nccl_version = g[1].str();
      info.nccl_version_full = g[1].str() + g[2].str();
    } else if (starts_with(m, "Using network ") && std::regex_search(m, g, re.network)) {
      info.network = g[1].str();
    } else if (m.find(" set by environment to ") != std::string::npos && std::regex_match(m, g, re.env_line)) {
      std::string value(trim(g[2].str()));
      if (!value.empty() && value.back() == '.') value.pop_back();  // "NCCL_NVLS_ENABLE set by environment to 0."
      info.environment[g[1].str()] = value;
    } else if (starts_with(m, "Comm config ") && std::regex_match(m, g, re.comm_config_line)) {
      info.comm_config[g[1].str()] = std::string(trim(g[2].str()));
    } else if (starts_with(m, "Pattern ") && std::regex_search(m, g, re.pattern_line)) {
      const auto pattern = to_int(g[1]), nchannels = to_int(g[2]);
      const auto bw_intra = to_double(g[3]), bw_inter = to_double(g[4]);
      if (!pattern || !nchannels || !bw_intra || !bw_inter) return;
      NcclGraph graph;
      graph.pattern = *pattern;
      graph.pattern_name = pattern_name(graph.pattern);
      graph.channels = *nchannels;
      graph.bw_intra = *bw_intra;
      graph.bw_inter = *bw_inter;
      graph.type_intra = g[5].str();
      graph.type_inter = g[6].str();
      if (seen_graphs.emplace(graph.pattern, graph.channels, graph.type_intra, graph.type_inter).second) {
        info.graphs.push_back(std::move(graph));
      }
    } else if (starts_with(m, "comm 0x") && std::regex_search(m, g, re.comm_line)) {
      info.nranks = to_int(g[1]);
      info.nnodes = to_int(g[2]);
    } else if (starts_with(m, "GPU/") && std::regex_match(m, g, re.gpu_path_head)) {
      const std::string from = g[1].str();
      const std::string rest = g[2].str();
      for (std::sregex_iterator it(rest.begin(), rest.end(), re.path_entry), end; it != end; ++it) {
        const std::string to = (*it)[1].str();
        if (!starts_with(to, "GPU/") || to == from) continue;
        const auto hops = to_int((*it)[2]);
        const auto bandwidth = to_double((*it)[3]);
        if (!hops || !bandwidth || !seen_paths.emplace(from, to).second) continue;
        NcclGpuPath path;
        path.from = from;
        path.to = to;
        path.hops = *hops;
        path.bandwidth = *bandwidth;
        path.type = (*it)[4].str();
        info.gpu_paths.push_back(std::move(path));
      }
    } else if (starts_with(m, "Connected ") && std::regex_search(m, g, re.connected)) {
      const std::string what = g[1].str();
      const std::string algorithm = what == "all rings" ? "Ring" : what == "all trees" ? "Tree" : what == "NVLS" ? "NVLS" : "CollNet";
      if (std::find(info.algorithms_connected.begin(), info.algorithms_connected.end(), algorithm) ==
          info.algorithms_connected.end()) {
        info.algorithms_connected.push_back(algorithm);
      }
    }
  }

  void handle_nvls(const std::string& m) {
    std::smatch g;
    if (std::regex_match(m, g, re.nvls_support)) {
      info.nvls.supported = !g[1].matched;
      if (const auto n = to_int(g[2])) info.nvls.channels = n;
    } else if (std::regex_match(m, g, re.nvls_tuning)) {
      info.nvls.channels = to_int(g[1]);
      info.nvls.chunk_size = to_int(g[2]);
      info.nvls.tree_max_chunk_size = to_int(g[3]);
    }
  }

  void add_gpu_direct(int rank, std::string net, bool enabled, const char* source) {
    if (!seen_gdr.emplace(rank, net).second) return;
    info.gpu_direct.push_back({rank, std::move(net), enabled, source});
  }

  void handle_gdr(const std::string& m) {
    std::smatch g;
    if (std::regex_search(m, g, re.gdr_228)) {
      if (const auto rank = to_int(g[2])) add_gpu_direct(*rank, "HCA " + g[3].str(), g[1] == "Enabled", "gdr-line");
    } else if (std::regex_search(m, g, re.gdr_229)) {
      if (const auto rank = to_int(g[2])) add_gpu_direct(*rank, g[3].str(), g[1] == "Enabled", "gdr-line");
    }
  }

  void handle_init(const std::string& m) {
    std::smatch g;
    if (!std::regex_search(m, g, re.init_line)) return;
    const auto rank = to_int(g[1]), nranks = to_int(g[2]), cuda_dev = to_int(g[3]), nvml_dev = to_int(g[4]);
    if (!rank || !nranks || !cuda_dev || !nvml_dev) return;
    if (!info.nranks) info.nranks = nranks;
    if (seen_rank_devices.insert(*rank).second) info.rank_devices.push_back({*rank, *cuda_dev, *nvml_dev, g[5].str()});
  }

  // Without NCCL's per-GPU GDR lines (TRACE only since 2.30.3), its NET connections say it: "[send] via
  // NET/IB/1/GDRDMA" is the sending rank's GPU using NET device 1 with GPUDirect RDMA; "[receive]" lines name the
  // receiving rank second; "1(3)" is a PXN proxy: rank 3's GPU reaches the NIC.
  void gpu_direct_from_connections() {
    if (!info.gpu_direct.empty()) return;
    for (const auto& c : info.connections) {
      if (!starts_with(c.transport, "NET/")) continue;
      const NetDetail detail = net_detail(c.detail);
      if (detail.device.empty()) continue;
      const int rank = detail.proxy ? *detail.proxy : (c.side == "receive" ? c.peer : c.rank);
      add_gpu_direct(rank, c.transport + "/" + detail.device, c.detail.find("/GDRDMA") != std::string::npos,
                     "connection");
    }
  }

  void handle_line(std::string_view line) {
    static constexpr std::string_view kInfo = " NCCL INFO ";
    static constexpr std::string_view kWarn = " NCCL WARN ";
    if (const auto at = line.find(kInfo); at != std::string_view::npos) {
      ++info.nccl_lines;
      const std::string_view message = without_rank_prefix(trim(line.substr(at + kInfo.size())));
      if (hints.add(line.substr(0, line.find(' ')), message)) return;
      handle_info(std::string(message));
    } else if (const auto w = line.find(kWarn); w != std::string_view::npos) {
      ++info.nccl_lines;
      hints.end_burst(line.substr(0, line.find(' ')));
      if (info.warnings.size() < 20) info.warnings.emplace_back(trim(line.substr(w + kWarn.size())));
    }
  }
};

}  // namespace

NcclRuntimeInfo parse_nccl_log(std::string_view text) {
  Parser parser;
  for_each_log_line(text, [&](std::string_view line) { parser.handle_line(line); });
  parser.gpu_direct_from_connections();
  parser.info.hints = parser.hints.take();
  return std::move(parser.info);
}

std::optional<std::string> worst_path_type(const std::vector<std::string>& types) {
  std::optional<std::string> worst;
  for (const auto& type : types) {
    if (path_rank(type) < 0) continue;
    if (!worst || path_rank(type) > path_rank(*worst)) worst = type;
  }
  return worst;
}

std::optional<std::string> widest_gpu_path_type(const NcclRuntimeInfo& info) {
  std::vector<std::string> types;
  for (const auto& path : info.gpu_paths) types.push_back(path.type);
  return worst_path_type(types);
}


}  // namespace linkscope::runtime
