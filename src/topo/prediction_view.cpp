#include "topo/prediction_view.hpp"

#include <string>

#include <fmt/format.h>

#include "plan/collective_spec.hpp"
#include "topo/json_number.hpp"

namespace linkscope::topo {

namespace {

model::TopoGraph graph_of(const GraphSearchResult& graph) {
  model::TopoGraph out;
  out.graph = graph.id == 0 ? "ring" : "tree";
  out.pattern = graph.pattern;
  out.n_channels = graph.n_channels;
  out.bw_intra = json_bw(graph.bw_intra);
  out.bw_inter = json_bw(graph.bw_inter);
  out.type_intra = path_type_name(graph.type_intra);
  out.type_inter = path_type_name(graph.type_inter);
  out.cross_nic = graph.cross_nic != 0;
  out.same_channels = graph.same_channels != 0;
  out.fell_back = graph.fell_back;
  out.channels = graph.channels;
  return out;
}

model::TuningChoice choice_of(const AlgoChoice& choice) {
  model::TuningChoice out;
  out.collective = std::string(coll::op_name(collective_op(choice.func)));
  out.size_bytes = choice.size;
  out.tuner_bytes = choice.bytes;
  if (!choice.ok) {
    out.error = nccl_result_text(choice.nccl_result);
    return out;
  }
  out.algorithm = algo_name(choice.algorithm);
  out.protocol = proto_name(choice.protocol);
  out.channels = choice.channels;
  out.time_us = static_cast<double>(choice.time_us);
  out.algbw_gbps = choice.algbw_gbps;
  out.busbw_gbps = choice.busbw_gbps;
  return out;
}

}  // namespace

model::Prediction prediction_view(const CommunicatorModel& comm) {
  model::Prediction out;
  if (!comm.unavailable.empty()) {
    out.unavailable = comm.unavailable;
    return out;
  }
  out.n_ranks = comm.n_ranks;
  out.coll_channels = comm.channels.coll_channels;
  out.graphs = {graph_of(comm.ring), graph_of(comm.tree)};
  if (!comm.tuning.error.empty()) {
    out.unavailable = fmt::format("NCCL refuses {} ({})", comm.tuning.error_variable, comm.tuning.error);
  } else if (comm.n_ranks == 1) {
    out.unavailable = "one rank: NCCL copies the buffer itself, no algorithm or protocol is chosen";
  }
  for (int func : {kFuncAllReduce, kFuncAllGather, kFuncReduceScatter, kFuncBroadcast, kFuncReduce}) {
    for (const AlgoChoice& choice : predict_collective(comm, func)) out.tuning.push_back(choice_of(choice));
  }
  return out;
}

model::Prediction predict_topology(const TopologyModel& model, const Environment& env) {
  if (model.partial) {
    model::Prediction out;
    out.unavailable = "partial model (a skeleton file): NCCL adds the GPUs and NICs it detects at run time";
    return out;
  }
  return prediction_view(model_communicator(model, resolve_comm_params(env)));
}

}  // namespace linkscope::topo
