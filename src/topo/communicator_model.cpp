#include "topo/communicator_model.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace linkscope::topo {

namespace {

// NCCL's rank checks: one GPU per rank, ranks 0..n-1.
std::string rank_problem(const TopoSystem& system) {
  const int gpus = system.count(kGpu);
  if (gpus == 0) return "the topology lists no GPU, so there is no communicator to model";
  std::vector<int> seen(static_cast<std::size_t>(gpus), 0);
  for (const Node& gpu : system.nodes[kGpu]) {
    if (gpu.rank < 0 || gpu.rank >= gpus || seen[gpu.rank]++) {
      return fmt::format("GPU ranks must be 0..{} once each (one communicator, every GPU a rank); rank {} is not",
                         gpus - 1, gpu.rank);
    }
  }
  return "";
}

TuningGraph tuning_graph(const GraphSearchResult& graph, int channels) {
  TuningGraph t;
  t.pattern = graph.pattern;
  t.n_channels = channels;
  t.bw_intra = graph.bw_intra;
  t.bw_inter = graph.bw_inter;
  t.type_intra = graph.type_intra;
  t.type_inter = graph.type_inter;
  t.same_channels = graph.same_channels;
  return t;
}

// The graphs NCCL tunes with: the ring and the tree (also PAT's), both with the aligned channel count; the CollNet
// and NVLS graphs are never searched (all zero, as NCCL leaves them).
TuningInputs tuning_inputs(const TopoSystem& system, const CommunicatorModel& comm, const ModelledVersion& version) {
  TuningInputs in;
  in.version = version;
  in.n_ranks = comm.n_ranks;
  in.n_nodes = comm.n_nodes;
  const auto& gpus = system.nodes[kGpu];
  const auto [lowest, highest] = std::minmax_element(gpus.begin(), gpus.end(),
                                                     [](const Node& a, const Node& b) { return a.sm < b.sm; });
  in.min_comp_cap = lowest->sm;
  in.max_comp_cap = highest->sm;
  if (system.count(kCpu) > 0) {
    in.cpu_arch = system.nodes[kCpu][0].arch;
    in.cpu_vendor = system.nodes[kCpu][0].vendor;
  }
  in.nvs_count = system.count(kNvs);
  in.max_tree_pattern = comm.tree.pattern;
  const int channels = comm.channels.search_channels;
  in.graphs[kAlgoTree] = tuning_graph(comm.tree, channels);
  in.graphs[kAlgoRing] = tuning_graph(comm.ring, channels);
  in.graphs[kAlgoPat] = in.graphs[kAlgoTree];
  in.graphs[kAlgoCollnetDirect].pattern = kPatternCollnetDirect;
  in.graphs[kAlgoCollnetChain].pattern = kPatternTree;
  in.graphs[kAlgoNvls].pattern = in.graphs[kAlgoNvlsTree].pattern = kPatternNvls;
  return in;
}

}  // namespace

CommunicatorModel model_communicator(const TopologyModel& model, const CommParams& params) {
  CommunicatorModel comm;
  comm.params = params;
  comm.version = model.version;
  const TopoSystem& system = model.system;
  comm.unavailable = rank_problem(system);
  if (!comm.unavailable.empty()) return comm;
  SearchLinks links(system);
  if (!links.error().empty()) {
    comm.unavailable = links.error();
    return comm;
  }
  comm.n_ranks = system.count(kGpu);
  const SearchSystemFacts facts =
      search_facts(system, model.max_bw, model.total_bw, params.cross_nic.value, model.version);
  comm.cross_nic_read = facts.net_count > 1;

  // init.cc: the ring first, then a balanced tree with exactly the ring's channel count.
  GraphRequest ring;
  ring.id = 0;
  ring.pattern = kPatternRing;
  ring.min_channels = 1;
  ring.max_channels = kMaxChannels / 2;
  comm.ring = compute_graph(links, facts, ring);
  if (!comm.ring.error.empty()) {
    comm.search_failed = true;
    comm.unavailable = fmt::format("NCCL {} stops in its ring search: {}", comm.version.modelled.text(),
                                   comm.ring.error);
    return comm;
  }
  GraphRequest tree;
  tree.id = 1;
  tree.pattern = kPatternBalancedTree;
  tree.min_channels = tree.max_channels = comm.ring.n_channels;
  comm.tree = compute_graph(links, facts, tree);

  comm.channels = setup_channels(comm.ring, comm.tree, links, facts.gpu_ranks, facts.gpu_sm, params, model.version);
  comm.tuning = tune_model(tuning_inputs(system, comm, model.version), params);
  return comm;
}

AlgoChoice predict_call(const CommunicatorModel& comm, int func, uint64_t bytes) {
  ChoiceContext context;
  context.n_ranks = comm.n_ranks;
  context.coll_channels = comm.channels.coll_channels;
  context.algo_or_proto_set = comm.params.algo.has_value() || comm.params.proto.has_value();
  return choose_algorithm(comm.tuning, context, func, bytes);
}

std::vector<uint64_t> prediction_sizes() {
  std::vector<uint64_t> sizes;
  for (int shift = 3; shift <= 33; ++shift) sizes.push_back(uint64_t{1} << shift);
  return sizes;
}

uint64_t tuner_bytes(int func, int n_ranks, uint64_t size) {
  const bool per_rank = func == kFuncAllGather || func == kFuncReduceScatter;  // count is per rank: x ranks
  const uint64_t ranks = per_rank ? static_cast<uint64_t>(n_ranks) : 1;
  const bool reduces = func == kFuncAllReduce || func == kFuncReduce || func == kFuncReduceScatter;
  const uint64_t element = reduces && size % (4 * ranks) == 0 ? 4 : 1;  // float32, else int8
  return element * ranks * (size / (element * ranks));
}

std::vector<AlgoChoice> predict_collective(const CommunicatorModel& comm, int func) {
  std::vector<AlgoChoice> choices;
  // With one rank NCCL copies the buffer itself (enqueue.cc ncclLaunchOneRank) and never asks the tuner.
  if (!comm.unavailable.empty() || !comm.tuning.error.empty() || comm.n_ranks <= 1) return choices;
  for (const uint64_t size : prediction_sizes()) {
    choices.push_back(predict_call(comm, func, tuner_bytes(func, comm.n_ranks, size)));
    choices.back().size = size;
  }
  return choices;
}

}  // namespace linkscope::topo
