#include "topo/search_log_printer.hpp"

#include <cstdarg>
#include <cstdio>
#include <cstring>

#include <fmt/format.h>

#include "topo/nccl_format.hpp"

namespace linkscope::topo {

namespace {

// printf into a std::string: NCCL's numbers go through the C library so that "%f" and "%8.1f" round as NCCL's do.
std::string c_format(const char* format, ...) __attribute__((format(printf, 1, 2)));
std::string c_format(const char* format, ...) {
  char buffer[1024];
  va_list args;
  va_start(args, format);
  std::vsnprintf(buffer, sizeof buffer, format, args);
  va_end(args);
  return buffer;
}

void echo(const NcclIntParam& param, std::vector<std::string>& out) {
  if (!param.echo.empty()) out.push_back(param.echo);
}

void append(const std::vector<std::string>& lines, std::vector<std::string>& out) {
  out.insert(out.end(), lines.begin(), lines.end());
}

int gpu_index_of_rank(const TopoSystem& system, int rank) {
  for (int g = 0; g < system.count(kGpu); ++g) {
    if (system.nodes[kGpu][g].rank == rank) return g;
  }
  return -1;
}

// ncclTopoPrintGraph (one node: no NET at either end of a channel).
void graph_lines(const TopoSystem& system, const GraphSearchResult& graph, std::vector<std::string>& out) {
  if (graph.fell_back) {
    out.push_back(fmt::format("Could not find a path for pattern {}, falling back to simple order", graph.pattern));
  }
  if (!graph.error.empty()) return;  // NCCL stopped before printing the graph
  out.push_back(c_format("Pattern %d, crossNic %d, nChannels %d, bw %f/%f, type %s/%s, sameChannels %d",
                         graph.pattern, graph.cross_nic, graph.n_channels, static_cast<double>(graph.bw_intra),
                         static_cast<double>(graph.bw_inter), path_type_name(graph.type_intra),
                         path_type_name(graph.type_inter), graph.same_channels));
  for (std::size_t c = 0; c < graph.channels.size(); ++c) {
    std::string line = c_format("%2d :", static_cast<int>(c));
    for (const int rank : graph.channels[c]) {
      line += " " + nccl_node_id(system, {kGpu, gpu_index_of_rank(system, rank)});
    }
    out.push_back(cap_nccl_line(std::move(line)));
  }
}

std::string tree_line(int channel, const TreeNeighbours& tree) {
  return fmt::format("Tree {} : {} -> 0 -> {}/{}/{}", channel, tree.up, tree.down[0], tree.down[1], tree.down[2]);
}

// connectTrees: a rank that heads the node's tree in a channel logs that channel and its copy.
void tree_lines(const ChannelSetup& setup, std::vector<std::string>& out) {
  for (int c = 0; c < setup.search_channels; ++c) {
    const TreeHeads& heads = setup.tree_heads[c];
    if (heads.parent != 0 && heads.child0 != 0 && heads.child1 != 0) continue;
    const TreeNeighbours& mine = setup.search_trees[c][0];
    out.push_back(tree_line(c, mine));
    out.push_back(tree_line(c + setup.search_channels, mine));
  }
}

// ncclBuildRings' dumpLine: ranks padded to the width of the largest, in a 128-byte buffer ("..." when cut).
std::string ring_order_line(int channel, int channels, const std::vector<int>& ring, int nranks) {
  constexpr int kLength = 128;
  char line[kLength];
  char prefix[40];
  std::snprintf(prefix, sizeof prefix, "Channel %02d/%02d :", channel, channels);
  const int width = std::snprintf(nullptr, 0, "%d", nranks - 1);
  int n = std::snprintf(line, kLength, "%s", prefix);
  for (std::size_t i = 0; i < ring.size() && n < kLength - 1; ++i) {
    n += std::snprintf(line + n, static_cast<std::size_t>(kLength - n), " %*d", width, ring[i]);
  }
  if (n >= kLength) std::snprintf(line + kLength - 4, 4, "...");
  return line;
}

// init.cc: " [c] down0/down1/down2->rank->up" for every channel, in NCCL's 1024-byte buffer.
std::string trees_line(const ChannelSetup& setup) {
  char line[1024];
  line[0] = '\0';
  for (int c = 0; c < setup.coll_channels; ++c) {
    const TreeNeighbours& tree = setup.trees[c][0];
    const std::size_t used = std::strlen(line);
    std::snprintf(line + used, 1023 - used, " [%d] %d/%d/%d->%d->%d", c, tree.down[0], tree.down[1], tree.down[2], 0,
                  tree.up);
  }
  line[1023] = '\0';
  return cap_nccl_line(std::string("Trees") + line);
}

void channel_lines(const CommunicatorModel& comm, std::vector<std::string>& out) {
  const ChannelSetup& setup = comm.channels;
  const CommParams& p = comm.params;
  tree_lines(setup, out);
  echo(p.max_nrings, out);
  echo(p.max_nchannels, out);
  if (!setup.max_nchannels_message.empty()) out.push_back(setup.max_nchannels_message);
  echo(p.min_nrings, out);
  echo(p.min_nchannels, out);
  if (!setup.min_nchannels_message.empty()) out.push_back(setup.min_nchannels_message);
  for (int c = 0; c < setup.coll_channels; ++c) {
    out.push_back(ring_order_line(c, setup.coll_channels, setup.rings[c], comm.n_ranks));
  }
  for (int c = 0; c < setup.coll_channels; ++c) {
    out.push_back(c_format("Ring %02d : %d -> %d -> %d", c, setup.ring_prev[c][0], 0,
                           setup.ring_next[c][0]));
  }
  out.push_back(trees_line(setup));
  echo(p.ll_buffsize, out);
  echo(p.ll128_buffsize, out);
  echo(p.buffsize, out);
  echo(setup.all_nvlink ? p.p2p_nvl_chunksize : p.p2p_pci_chunksize, out);
  out.push_back(fmt::format("P2P Chunksize set to {}", setup.p2p_chunk_size));
  echo(p.max_p2p_nchannels, out);
  echo(p.min_p2p_nchannels, out);
}

// "Enabled NCCL Func/Proto/Algo Matrix:" and its rows: one INFO message with newlines in it, so the rows carry no
// prefix and an empty line ends it.
void enable_matrix_lines(const TuningModel& tuning, std::vector<std::string>& out) {
  std::string text = "Enabled NCCL Func/Proto/Algo Matrix:\n     Function | ";
  for (int p = 0; p < kProtoCount; ++p) text += c_format("%8s  ", proto_name(p));
  text += " | ";
  for (int a = 0; a < kAlgoCount; ++a) text += c_format("%13s  ", algo_name(a));
  text += "\n";
  for (int f = 0; f < kFuncCount; ++f) {
    text += c_format("%13s | ", func_name(f));
    for (int p = 0; p < kProtoCount; ++p) {
      text += c_format("%8d  ", tuning.proto_enable[f][p]);
    }
    text += " | ";
    for (int a = 0; a < kAlgoCount; ++a) {
      text += c_format("%13d  ", tuning.algo_enable[f][a]);
    }
    text += "\n";
  }
  text = cap_nccl_line(std::move(text));
  std::size_t start = 0;
  for (std::size_t end; (end = text.find('\n', start)) != std::string::npos; start = end + 1) {
    out.push_back(text.substr(start, end - start));
  }
  out.push_back(text.substr(start));
}

// The TUNING table: three algorithms per block; latency (us) / bandwidth (GB/s) per collective and protocol.
void tuning_table_lines(const TuningModel& tuning, std::vector<std::string>& out) {
  for (int block = 0; block < static_cast<int>(div_up(kAlgoCount, 3)); ++block) {
    std::string line = "  Algorithm   |";
    for (int ba = 0; ba < 3; ++ba) {
      const int a = block * 3 + ba;
      if (a < kAlgoCount) line += c_format(" %14s   %14s   %14s |", "", algo_name(a), "");
    }
    out.push_back(line);
    line = "  Protocol    |";
    for (int ba = 0; ba < 3; ++ba) {
      for (int p = 0; p < kProtoCount; ++p) line += c_format(" %14s |", proto_name(p));
    }
    out.push_back(line);
    line = " Max NThreads |";
    for (int ba = 0; ba < 3; ++ba) {
      const int a = block * 3 + ba;
      if (a >= kAlgoCount) continue;
      for (int p = 0; p < kProtoCount; ++p) {
        line += c_format(" %14d |", tuning.max_threads[a][p]);
      }
    }
    out.push_back(line);
    for (int c = 0; c < kFuncCount; ++c) {
      line = c_format("%13s |", func_name(c));
      for (int ba = 0; ba < 3; ++ba) {
        const auto a = static_cast<std::size_t>(block * 3 + ba);
        if (a >= static_cast<std::size_t>(kAlgoCount)) continue;
        for (std::size_t p = 0; p < static_cast<std::size_t>(kProtoCount); ++p) {
          line += c_format("%8.1f/%6.1f |", static_cast<double>(tuning.latency_us[c][a][p]),
                           static_cast<double>(tuning.bandwidth_gbps[c][a][p]));
        }
      }
      out.push_back(line);
    }
  }
}

// ncclTopoTuneModel's lines, in its order. Returns false when NCCL stops the communicator (bad NCCL_ALGO/PROTO).
bool tuning_lines(const CommunicatorModel& comm, std::vector<std::string>& out) {
  const TuningModel& tuning = comm.tuning;
  const CommParams& p = comm.params;
  echo(p.nthreads, out);
  append(tuning.nthreads_messages, out);
  echo(p.ll128_nthreads, out);
  append(tuning.ll128_nthreads_messages, out);
  if (comm.n_ranks <= 1) return true;
  if (tuning.pat_enable_read) echo(p.pat_enable, out);
  if (p.proto) out.push_back("NCCL_PROTO set by environment to " + *p.proto);
  if (tuning.error_variable == "NCCL_PROTO") {
    out.push_back("NCCL WARN " + tuning.error);
    return false;
  }
  if (p.algo) out.push_back("NCCL_ALGO set by environment to " + *p.algo);
  if (!tuning.error.empty()) {
    out.push_back("NCCL WARN " + tuning.error);
    return false;
  }
  if (tuning.show_enable_matrix) enable_matrix_lines(tuning, out);
  if (tuning.ll128_c2c_read) echo(p.ll128_c2c, out);
  append(tuning.ll128_messages, out);
  tuning_table_lines(tuning, out);
  if (p.thread_thresholds) out.push_back("NCCL_THREAD_THRESHOLDS set by environment to " + *p.thread_thresholds);
  const auto& t = tuning.thread_thresholds;
  out.push_back(fmt::format("threadThresholds {}/{}/{} | {}/{}/{} | {} | {}", t[kAlgoTree][kProtoLl],
                            t[kAlgoTree][kProtoLl128], t[kAlgoTree][kProtoSimple], t[kAlgoRing][kProtoLl],
                            t[kAlgoRing][kProtoLl128], t[kAlgoRing][kProtoSimple],
                            t[kAlgoCollnetDirect][kProtoSimple], t[kAlgoCollnetChain][kProtoSimple]));
  return true;
}

// The harness's order: AllReduce, AllGather, ReduceScatter, Broadcast, Reduce.
constexpr int kReportOrder[] = {kFuncAllReduce, kFuncAllGather, kFuncReduceScatter, kFuncBroadcast, kFuncReduce};

}  // namespace

std::vector<std::string> nccl_search_log_lines(const TopologyModel& model, const CommunicatorModel& comm) {
  std::vector<std::string> out;
  if (comm.search_failed) {
    graph_lines(model.system, comm.ring, out);
    out.push_back("NCCL WARN " + comm.ring.error);
    return out;
  }
  if (!comm.unavailable.empty()) return out;
  if (comm.cross_nic_read) echo(comm.params.cross_nic, out);
  graph_lines(model.system, comm.ring, out);
  graph_lines(model.system, comm.tree, out);
  channel_lines(comm, out);
  if (!tuning_lines(comm, out)) return out;
  const ChannelSetup& setup = comm.channels;
  out.push_back(fmt::format("{} coll channels, {} collnet channels, {} nvls channels, {} p2p channels, {} p2p "
                            "channels per peer",
                            setup.coll_channels, setup.coll_channels, setup.nvls_channels, setup.p2p_channels,
                            setup.p2p_channels_per_peer));
  return out;
}

std::vector<std::string> nccl_algo_lines(const CommunicatorModel& comm) {
  std::vector<std::string> out;
  for (const int func : kReportOrder) {
    for (const AlgoChoice& choice : predict_collective(comm, func)) {
      if (choice.ok) {
        out.push_back(c_format("ALGO %s %llu : algo %s proto %s nchannels %d time_us %f", func_name(func),
                               static_cast<unsigned long long>(choice.bytes), algo_name(choice.algorithm),
                               proto_name(choice.protocol), choice.channels, static_cast<double>(choice.time_us)));
      } else {
        out.push_back(fmt::format("ALGO {} {} : error {} ({})", func_name(func), choice.bytes,
                                  nccl_result_text(choice.nccl_result), choice.nccl_result));
      }
    }
  }
  return out;
}

std::string render_search_log(const TopologyModel& model, const CommunicatorModel& comm) {
  std::string text;
  for (const auto& lines : {nccl_search_log_lines(model, comm), nccl_algo_lines(comm)}) {
    for (const auto& line : lines) text += line + "\n";
  }
  return text;
}

}  // namespace linkscope::topo
