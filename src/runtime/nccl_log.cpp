#include "runtime/nccl_log.hpp"

#include <algorithm>
#include <array>
#include <cstdlib>
#include <regex>
#include <set>
#include <tuple>

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

// Splits "P2P/CUMEM/read" into transport "P2P/CUMEM" and detail "read"; "SHM/direct/direct" into "SHM" and
// "direct/direct"; "NET/IB/0(1)/GDRDMA" into "NET/IB" and "0(1)/GDRDMA".
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

int to_int(const std::string& s) { return static_cast<int>(std::strtol(s.c_str(), nullptr, 10)); }

struct Parser {
  NcclRuntimeInfo info;
  std::set<std::tuple<int, int, int, int, std::string>> seen_connections;
  std::set<std::pair<std::string, std::string>> seen_paths;
  std::set<std::tuple<int, int, std::string, std::string>> seen_graphs;
  std::map<std::tuple<std::string, std::uint64_t, std::string, std::string, int, int, std::string>, std::size_t>
      tuning_index;  // identical TUNING lines -> their entry in info.tuning

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

  void handle_info(const std::string& m) {
    std::smatch g;
    if (m.compare(0, 8, "Channel ") == 0) {
      if (!std::regex_match(m, g, connection)) return;
      NcclConnection c;
      c.channel = to_int(g[1]);
      c.conn_index = g[2].matched ? to_int(g[2]) : -1;
      c.rank = to_int(g[3]);
      c.peer = to_int(g[4]);
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
    } else if (std::regex_search(m, g, channels)) {
      info.coll_channels = to_int(g[1]);
      info.collnet_channels = to_int(g[2]);
      info.nvls_channels = to_int(g[3]);
      info.p2p_channels = to_int(g[4]);
      info.p2p_channels_per_peer = to_int(g[5]);
    } else if (std::regex_search(m, g, version)) {
      info.nccl_version = g[1].str();
      info.nccl_version_full = g[1].str() + g[2].str();
    } else if (std::regex_search(m, g, network)) {
      info.network = g[1].str();
    } else if (std::regex_match(m, g, env_line)) {
      std::string value(trim(g[2].str()));
      if (!value.empty() && value.back() == '.') value.pop_back();  // "NCCL_NVLS_ENABLE set by environment to 0."
      info.environment[g[1].str()] = value;
    } else if (std::regex_match(m, g, comm_config_line)) {
      info.comm_config[g[1].str()] = std::string(trim(g[2].str()));
    } else if (std::regex_search(m, g, pattern_line)) {
      NcclGraph graph;
      graph.pattern = to_int(g[1]);
      graph.pattern_name = pattern_name(graph.pattern);
      graph.channels = to_int(g[2]);
      graph.bw_intra = std::strtod(g[3].str().c_str(), nullptr);
      graph.bw_inter = std::strtod(g[4].str().c_str(), nullptr);
      graph.type_intra = g[5].str();
      graph.type_inter = g[6].str();
      if (seen_graphs.emplace(graph.pattern, graph.channels, graph.type_intra, graph.type_inter).second) {
        info.graphs.push_back(std::move(graph));
      }
    } else if (std::regex_search(m, g, comm_line)) {
      info.nranks = to_int(g[1]);
      info.nnodes = to_int(g[2]);
    } else if (std::regex_match(m, g, gpu_path_head)) {
      const std::string from = g[1].str();
      const std::string rest = g[2].str();
      for (std::sregex_iterator it(rest.begin(), rest.end(), path_entry), end; it != end; ++it) {
        const std::string to = (*it)[1].str();
        if (to.compare(0, 4, "GPU/") != 0 || to == from) continue;
        if (!seen_paths.emplace(from, to).second) continue;
        NcclGpuPath path;
        path.from = from;
        path.to = to;
        path.hops = to_int((*it)[2]);
        path.bandwidth = std::strtod((*it)[3].str().c_str(), nullptr);
        path.type = (*it)[4].str();
        info.gpu_paths.push_back(std::move(path));
      }
    } else if (std::regex_search(m, g, connected)) {
      const std::string what = g[1].str();
      const std::string algorithm = what == "all rings" ? "Ring" : what == "all trees" ? "Tree" : what == "NVLS" ? "NVLS" : "CollNet";
      if (std::find(info.algorithms_connected.begin(), info.algorithms_connected.end(), algorithm) ==
          info.algorithms_connected.end()) {
        info.algorithms_connected.push_back(algorithm);
      }
    }
  }

  void handle_line(std::string_view line) {
    static constexpr std::string_view kInfo = " NCCL INFO ";
    static constexpr std::string_view kWarn = " NCCL WARN ";
    if (const auto at = line.find(kInfo); at != std::string_view::npos) {
      ++info.nccl_lines;
      handle_info(std::string(trim(line.substr(at + kInfo.size()))));
    } else if (const auto w = line.find(kWarn); w != std::string_view::npos) {
      ++info.nccl_lines;
      if (info.warnings.size() < 20) info.warnings.emplace_back(trim(line.substr(w + kWarn.size())));
    }
  }
};

}  // namespace

NcclRuntimeInfo parse_nccl_log(std::string_view text) {
  Parser parser;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    // Very long lines are not NCCL's (its lines are < 4 KiB); skip them instead of feeding the regexes.
    if (end - start < 16384) parser.handle_line(text.substr(start, end - start));
    start = end + 1;
  }
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
