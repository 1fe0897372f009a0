#include "topo/topology_model.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/file_io.hpp"
#include "topo/graph_edit.hpp"
#include "topo/nccl_format.hpp"
#include "topo/nccl_xml_conformance.hpp"
#include "topo/path_rewrites.hpp"
#include "topo/path_search.hpp"
#include "topo/search_init.hpp"
#include "topo/system_builder.hpp"
#include "topo/xml_reader.hpp"

namespace linkscope::topo {

namespace {

std::string slot_list(const std::vector<std::string>& busids) {
  std::string list;
  for (std::size_t i = 0; i < busids.size() && i < 16; ++i) list += (i == 0 ? "" : ", ") + busids[i];
  if (busids.size() > 16) list += fmt::format(" and {} more", busids.size() - 16);
  return list;
}

void add_partial_notes(TopologyModel& model, const BuiltSystem& built) {
  model.gpu_slots = built.gpu_slots;
  model.nic_slots = built.nic_slots;
  model.partial = built.gpu_slots > 0 || built.nic_slots > 0 || model.system.count(kGpu) == 0;
  if (!model.partial) return;
  if (built.gpu_slots > 0 || built.nic_slots > 0) {
    model.notes.insert(model.notes.begin(),
                       fmt::format("partial model: a skeleton topology file (NCCL_TOPO_FILE): {} GPU and {} NIC "
                                   "positions have no <gpu>/<nic> element (or no rank); at run time NCCL fills them "
                                   "with the GPUs and NICs it detects, so only what the file itself lists is modelled "
                                   "(positions: {})",
                                   built.gpu_slots, built.nic_slots, slot_list(built.slot_busids)));
  } else {
    model.notes.insert(model.notes.begin(),
                       "partial model: the file lists no GPU; at run time NCCL adds the GPUs it detects, so there "
                       "are no GPU paths or decisions here");
  }
}

// NCCL finds a GPU by rank with a linear search: a rank listed twice always means the first GPU.
void add_duplicate_rank_notes(TopologyModel& model) {
  std::map<int, std::vector<int>> gpus_of_rank;
  for (int g = 0; g < model.system.count(kGpu); ++g) gpus_of_rank[model.system.nodes[kGpu][g].rank].push_back(g);
  for (const auto& [rank, gpus] : gpus_of_rank) {
    if (gpus.size() < 2) continue;
    model.notes.push_back(fmt::format("rank {} is given to {} GPUs; NCCL resolves it to the first, {}, so P2P and "
                                      "GDR decisions for that rank are about that GPU",
                                      rank, gpus.size(), nccl_node_id(model.system, {kGpu, gpus[0]})));
  }
}

void add_environment_notes(TopologyModel& model) {
  for (const auto& [name, why] : model.params.ignored) model.notes.push_back(why);
  if (model.params.used.count("NCCL_IGNORE_DISABLED_P2P")) {
    model.notes.push_back("NCCL_IGNORE_DISABLED_P2P only matters with NVML's P2P status, which an offline model "
                          "does not have (every GPU pair counts as P2P-capable to NVML here)");
  }
}

void record_decisions(TopologyModel& model) {
  // Queries after the build are silent: NCCL's own log shows only the phase-5 checks.
  ModelContext context(model.system, model.params, model.version, nullptr);
  context.p2p_level_resolved = true;
  context.gdr_level_resolved = true;
  const TopoSystem& system = model.system;
  const std::vector<int> order = model.gpus_by_rank();
  for (const int a : order) {
    for (const int b : order) {
      P2pDecision decision;
      decision.src_rank = system.nodes[kGpu][a].rank;
      decision.dst_rank = system.nodes[kGpu][b].rank;
      decision.src_gpu = context.gpu_index(decision.src_rank);
      decision.dst_gpu = context.gpu_index(decision.dst_rank);
      decision.path = path_between(system, {kGpu, decision.src_gpu}, {kGpu, decision.dst_gpu});
      decision.check = check_p2p(context, decision.src_rank, decision.dst_rank);
      model.p2p.push_back(std::move(decision));
    }
  }
  for (const int g : order) {
    for (int n = 0; n < system.count(kNet); ++n) {
      GdrDecision decision;
      decision.gpu = g;
      decision.net = n;
      decision.rank = system.nodes[kGpu][g].rank;
      decision.path = path_between(system, {kGpu, g}, {kNet, n});
      decision.read = check_gdr(context, decision.rank, system.nodes[kNet][n].id, 1);
      decision.write = check_gdr(context, decision.rank, system.nodes[kNet][n].id, 0);
      model.gdr.push_back(std::move(decision));
    }
  }
}

void compute_model(TopologyModel& model, const std::string& xml_text, const Environment& env) {
  XmlDocument doc = read_topology_xml(xml_text, model.source_name);
  model.info_lines.push_back("Loading topology file " + model.source_name);
  model.info_lines.insert(model.info_lines.end(), doc.info_lines.begin(), doc.info_lines.end());
  model.notes = std::move(doc.notes);
  if (model.version.outside_supported) model.notes.insert(model.notes.begin(), model.version.note);
  if (const auto refusal = nccl_parser_refusal(xml_text)) {
    model.notes.insert(model.notes.begin(),
                       fmt::format("NCCL {} would refuse this file: line {}: {} (NCCL: {}); linkscope models it "
                                   "anyway",
                                   model.version.modelled.text(), refusal->line, refusal->explanation, refusal->nccl_message));
  }

  BuiltSystem built = build_system(doc.system, model.version);
  model.system = std::move(built.system);
  model.info_lines.insert(model.info_lines.end(), built.info_lines.begin(), built.info_lines.end());
  model.notes.insert(model.notes.end(), built.notes.begin(), built.notes.end());
  add_partial_notes(model, built);
  add_duplicate_rank_notes(model);

  model.params = resolve_nccl_params(env);
  add_environment_notes(model);
  model.p2p_level = model.params.p2p_level.value_or(default_p2p_level(model.system));
  model.gdr_level = model.params.gdr_level.value_or(default_gdr_level(model.params, model.version));

  TopoSystem& system = model.system;
  BfsRules rules;
  rules.nvb_disable = model.params.nvb_disable != 0;
  rules.device_nodes = model.version.has(NcclChange::kDeviceNodes);
  rules.type_first = model.version.has(NcclChange::kBfsTypeFirst);
  rules.nccl_version = model.version.modelled.text();
  rules.nccl_dev_type = model.version.modelled < NcclVersion{2, 30, 7} ? 7 : 8;  // 2.30.7 adds RMA before DEV
  compute_bfs_paths(system, rules);
  for (int g = 0; g < system.count(kGpu); ++g) {
    std::vector<Path> row;
    for (int h = 0; h < system.count(kGpu); ++h) row.push_back(path_between(system, {kGpu, g}, {kGpu, h}));
    model.gpu_paths_before_rewrites.push_back(std::move(row));
  }
  ModelContext context(system, model.params, model.version, &model.info_lines);
  divert_non_p2p_pairs(context);
  relabel_c2c_paths(context);
  apply_pxn_and_gdr(context);
  for (auto& line : model.info_lines) line = cap_nccl_line(std::move(line));

  const SystemBandwidth bandwidth = system_bandwidth(system);
  model.max_bw = bandwidth.max_bw;
  model.total_bw = bandwidth.total_bw;
  record_decisions(model);
}

}  // namespace

std::vector<int> TopologyModel::gpus_by_rank() const {
  std::vector<int> order(static_cast<std::size_t>(system.count(kGpu)));
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int>(i);
  std::stable_sort(order.begin(), order.end(),
                   [this](int a, int b) { return system.nodes[kGpu][a].rank < system.nodes[kGpu][b].rank; });
  return order;
}

TopologyModel load_topology_string(const std::string& xml_text, const std::string& source_name,
                                   const Environment& env, const ModelledVersion& version) {
  TopologyModel model;
  model.source_name = source_name;
  model.version = version;
  try {
    compute_model(model, xml_text, env);
  } catch (const ModelError& error) {
    throw TopologyRefused(source_name, error.line(), error.what());
  }
  return model;
}

TopologyModel load_topology_file(const std::string& path, const Environment& env, const ModelledVersion& version) {
  return load_topology_string(read_input_file(path, kMaxTopologyBytes, "topology XML"), path, env, version);
}

}  // namespace linkscope::topo
