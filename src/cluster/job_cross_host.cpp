#include "cluster/job_cross_host.hpp"

#include <algorithm>
#include <cstdio>
#include <functional>

#include <fmt/format.h>

#include "cluster/collective_runner.hpp"
#include "cluster/cross_host.hpp"
#include "cluster/cross_host_assembly.hpp"
#include "cluster/cross_host_plan.hpp"
#include "cluster/job_member_group.hpp"
#include "cluster/nccl_net_log.hpp"
#include "core/environment.hpp"
#include "core/error.hpp"
#include "measure/collective_run.hpp"
#include "plan/collective_options.hpp"
#include "runtime/nccl_log.hpp"

namespace linkscope::cluster {

namespace {

// One op in float over the options' sizes, between this rank's GPU and the other members of its group.
measure::CollectiveRequest sweep_request(coll::CollectiveOp op, const CrossHostOptions& options, int device,
                                         std::string nccl_id, runtime::NcclDebugCapture& capture,
                                         std::string init_timeout_message) {
  measure::CollectiveRequest request;
  coll::CollPlan& plan = request.plan;
  plan.op = op;
  plan.types = {coll::DataType::kFloat};
  plan.redops = {coll::RedOp::kSum};
  plan.sizes = options.sizes;
  plan.target_ci = options.target_ci;
  plan.max_time_s = options.max_time_s;
  plan.timeout_s = options.timeout_s;
  request.devices = {device};
  request.launch = "mpi";
  request.nccl_env = Environment::from_process().nccl_variables();
  request.nccl_id = std::move(nccl_id);
  request.fit_sizes_to_memory = false;  // every host measures the same sizes
  // Both ranks must stop together: a failing size ends the series as an "error" point.
  request.size_errors = measure::SizeErrors::kRecordAndStop;
  request.capture = &capture;
  request.init_timeout_message = std::move(init_timeout_message);
  return request;
}

// Said when NCCL's initialisation does not come back (a peer that never joins); under mpirun the job then ends.
std::string init_timeout_line(const ClusterSession& session, const std::string& with, double timeout_s) {
  return fmt::format("linkscope: error ({}): NCCL initialisation with {} did not finish within {:g} s; ending the MPI job",
                     session.roster().rank_label(session.rank()), with, timeout_s);
}

std::optional<std::string> unique_id_from(const std::string& message, MeasuredSide& out) {
  if (message.size() == 1 + measure::kNcclIdBytes && message[0] == 'I') return message.substr(1);
  out.status = "error";
  out.reason = message.size() > 1 ? message.substr(1) : "no NCCL unique id arrived";
  return std::nullopt;
}

// The host of a collective's member rank, as the runner needs it.
FabricMember member_host(const Roster& roster, int rank) {
  const RosterHost& host = roster.host_of(rank);
  return {host.name, host.ranks};
}

MeasuredSide side_of(int rank, int device) {
  MeasuredSide side;
  side.rank = rank;
  side.cuda_device = device;
  return side;
}

// The run's series with each GPU's host named as the roster names it; its status on this side.
void record_series(MeasuredSide& out, const measure::CollectiveRun& run, bool keep_series,
                   const std::function<std::string(int rank)>& host_of) {
  out.pci_bdf = run.local_devices.front().pci_bdf();
  if (run.series.empty()) return;
  model::CollectiveSeries series = run.series.front();
  for (auto& d : series.devices) d.host = host_of(d.rank);
  const auto [status, reason] = series_status(series);
  out.status = status;
  out.reason = reason;
  if (keep_series) out.series = std::move(series);
}

// What NCCL's log says this rank's connections of one communicator went through (the log from `log_start` on).
void add_nic(MeasuredSide& out, const runtime::NcclDebugCapture& capture, std::size_t log_start) {
  if (!capture.active()) {
    out.nic_reason = "NCCL's log is not recorded: " + capture.reason();
    return;
  }
  const std::string all = capture.collect();
  const std::string mine = all.substr(std::min(log_start, all.size()));
  const runtime::NcclRuntimeInfo info = runtime::parse_nccl_log(mine);
  out.hints = info.hints;  // an IB error's HINTs (NCCL 2.30.7) are printed by the side that saw it
  const auto uses = nics_used(mine, all);
  if (!uses.empty()) {
    out.nic = uses.front().nic;
    out.transport = uses.front().transport;
    return;
  }
  const auto transport = runtime::dominant_transport(info);
  if (transport) out.transport = *transport;
  out.nic_reason = transport ? "NCCL connected through " + *transport + ", not a NIC" : "NCCL's log shows no connection";
}

MeasuredSide measure_pair(ClusterSession& session, runtime::NcclDebugCapture& capture, const CrossHostOptions& options,
                          const CrossHostPlan& plan, int round, HostPair pair, int device) {
  platform::MpiSession& mpi = session.mpi();
  const Roster& roster = session.roster();
  const int low = plan.representatives[static_cast<std::size_t>(pair.first)];
  const int high = plan.representatives[static_cast<std::size_t>(pair.second)];
  const bool first = mpi.rank() == low;
  const int partner = first ? high : low;
  const std::string what = fmt::format("measuring {} <-> {}", roster.hosts[static_cast<std::size_t>(pair.first)].name,
                                       roster.hosts[static_cast<std::size_t>(pair.second)].name);
  MeasuredSide out = side_of(mpi.rank(), device);
  out.round = round;
  out.a = pair.first;
  out.b = pair.second;
  out.side = first ? 0 : 1;

  std::string message;
  if (first) {
    message = collective_runner().unique_id_message();
    mpi.send_text(partner, message, options.timeout_s, what);
  } else {
    message = mpi.receive_text(partner, options.timeout_s, what);
  }
  auto id = unique_id_from(message, out);
  if (!id) return out;
  const std::size_t log_start = capture.active() ? capture.collect().size() : 0;
  try {
    auto group = make_member_group(mpi, {low, high}, options.timeout_s, what);
    const auto request = sweep_request(coll::CollectiveOp::kSendRecv, options, device, std::move(*id), capture,
                                       init_timeout_line(session, roster.rank_label(partner), options.timeout_s));
    const measure::CollectiveRun run =
        collective_runner().run(request, {member_host(roster, low), member_host(roster, high)}, *group);
    record_series(out, run, first, [&](int rank) {
      return roster.hosts[static_cast<std::size_t>(rank == 0 ? pair.first : pair.second)].name;
    });
  } catch (const DeviceError& e) {
    out.status = "error";
    out.reason = e.what();
  }
  add_nic(out, capture, log_start);  // the communicator is gone: NCCL wrote everything about it
  // Both ends say they are done, so a partner that stopped (NCCL's watchdog fired above) is named now rather
  // than at the next step of the whole job.
  mpi.send_text(partner, "done", options.timeout_s, what + " (closing)");
  mpi.receive_text(partner, options.timeout_s, what + " (closing)");
  return out;
}

}  // namespace

MeasuredSide measure_group(ClusterSession& session, runtime::NcclDebugCapture& capture, const CrossHostOptions& options,
                           coll::CollectiveOp op, const std::vector<int>& members, int device, const std::string& what) {
  platform::MpiSession& mpi = session.mpi();
  const Roster& roster = session.roster();
  MeasuredSide out = side_of(mpi.rank(), device);
  const bool lowest = mpi.rank() == members.front();
  std::string message;
  if (lowest) {
    message = collective_runner().unique_id_message();
    for (std::size_t i = 1; i < members.size(); ++i) mpi.send_text(members[i], message, options.timeout_s, what);
  } else {
    message = mpi.receive_text(members.front(), options.timeout_s, what);
  }
  auto id = unique_id_from(message, out);
  if (!id) return out;
  const std::size_t log_start = capture.active() ? capture.collect().size() : 0;
  try {
    auto group = make_member_group(mpi, members, options.timeout_s, what);
    const auto request = sweep_request(op, options, device, std::move(*id), capture,
                                       init_timeout_line(session, "the other members of " + what, options.timeout_s));
    std::vector<FabricMember> hosts;
    for (int rank : members) hosts.push_back(member_host(roster, rank));
    const measure::CollectiveRun run = collective_runner().run(request, hosts, *group);
    record_series(out, run, lowest, [&](int rank) { return hosts.at(static_cast<std::size_t>(rank)).host; });
  } catch (const DeviceError& e) {
    out.status = "error";
    out.reason = e.what();
  }
  add_nic(out, capture, log_start);
  return out;
}

namespace {

MeasuredSide measure_all_reduce(ClusterSession& session, runtime::NcclDebugCapture& capture,
                                const CrossHostOptions& options, int device) {
  platform::MpiSession& mpi = session.mpi();
  const Roster& roster = session.roster();
  MeasuredSide out = side_of(mpi.rank(), device);
  const std::string message =
      session.broadcast(session.is_root() ? collective_runner().unique_id_message() : std::string(),
                        "sharing the all_reduce's NCCL id");
  auto id = unique_id_from(message, out);
  if (!id) return out;
  const std::size_t log_start = capture.active() ? capture.collect().size() : 0;
  try {
    auto group = make_member_group(mpi, session.all_ranks(), options.timeout_s, "running the all_reduce over every rank");
    const auto request = sweep_request(coll::CollectiveOp::kAllReduce, options, device, std::move(*id), capture,
                                       init_timeout_line(session, "every other rank", options.timeout_s));
    std::vector<FabricMember> members;
    for (int rank : session.all_ranks()) members.push_back(member_host(roster, rank));
    const measure::CollectiveRun run = collective_runner().run(request, members, *group);
    record_series(out, run, session.is_root(), [&](int rank) { return roster.host_of(rank).name; });
  } catch (const DeviceError& e) {
    out.status = "error";
    out.reason = e.what();
  }
  add_nic(out, capture, log_start);
  return out;
}

}  // namespace

std::optional<model::CrossHost> measure_cross_host(ClusterSession& session, const HostsComparison* hosts,
                                                   const CrossHostOptions& options, runtime::NcclDebugCapture& capture) {
  const Roster& roster = session.roster();
  std::string plan_text;
  if (session.is_root()) {
    plan_text = cross_host_plan_to_json(make_cross_host_plan(roster, *hosts, options.schedule, options.all_reduce, options.peers,
                                                    options.seed)).dump();
  }
  const CrossHostPlan plan =
      cross_host_plan_from_json(nlohmann::json::parse(session.broadcast(plan_text, "sending the cross-host plan")));
  const int me = session.rank();
  const int device = roster.ranks.at(static_cast<std::size_t>(me)).cuda_device.value_or(-1);
  // How much longer than this rank another rank may be busy between two steps: one pair's sizes, its NCCL
  // set-up, and a peer's watchdog.
  const double pair_work_s = static_cast<double>(options.sizes.size()) * (3 * options.max_time_s + 1) + 15 + options.timeout_s;

  RankCrossHostResults mine;
  for (std::size_t r = 0; r < plan.rounds.size(); ++r) {
    session.barrier(fmt::format("starting round {} of {} of the host pairs", r + 1, plan.rounds.size()), r == 0 ? 0 : pair_work_s);
    if (session.is_root() && !options.quiet) {
      std::string pairs;
      for (const auto& [a, b] : plan.rounds[r]) {
        pairs += fmt::format("{}{} <-> {}", pairs.empty() ? "" : ", ", roster.hosts[static_cast<std::size_t>(a)].name,
                             roster.hosts[static_cast<std::size_t>(b)].name);
      }
      std::fprintf(stderr, "linkscope cluster: round %zu/%zu: sendrecv %s\n", r + 1, plan.rounds.size(), pairs.c_str());
    }
    for (const auto& pair : plan.rounds[r]) {
      if (me == plan.representatives[static_cast<std::size_t>(pair.first)] ||
          me == plan.representatives[static_cast<std::size_t>(pair.second)]) {
        mine.pairs.push_back(measure_pair(session, capture, options, plan, static_cast<int>(r), pair, device));
      }
    }
  }
  double trailing_work_s = plan.rounds.empty() ? 0 : pair_work_s;
  if (plan.all_reduce) {
    session.barrier("starting the all_reduce over every rank", trailing_work_s);
    if (session.is_root() && !options.quiet) {
      std::fprintf(stderr, "linkscope cluster: all_reduce over %d ranks\n", roster.world_size);
    }
    mine.all_reduce = measure_all_reduce(session, capture, options, device);
    trailing_work_s = 0;
  }
  const auto texts =
      session.gather_from_all(rank_results_to_json(mine).dump(), "collecting the cross-host results", trailing_work_s);
  if (!session.is_root()) return std::nullopt;
  std::vector<RankCrossHostResults> ranks;
  for (std::size_t rank = 0; rank < texts.size(); ++rank) {
    const nlohmann::json message = nlohmann::json::parse(texts[rank]);
    ranks.push_back(rank_results_from_json(model::JsonReader::root(message, roster.rank_label(static_cast<int>(rank)) +
                                                                                "'s cross-host results")));
  }
  return assemble_cross_host(roster, hosts, options.schedule, options.sizes, plan, ranks);
}

void fill_rank_device(RankHello& hello) { collective_runner().fill_rank_device(hello); }

}  // namespace linkscope::cluster
