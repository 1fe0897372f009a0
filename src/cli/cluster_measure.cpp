#include "cli/cluster_measure.hpp"

#include <nccl.h>

#include <algorithm>
#include <array>
#include <cstdlib>
#include <cstdio>
#include <cstring>
#include <map>

#include <fmt/format.h>

#include "cli/cluster_process_group.hpp"
#include "cluster/nccl_net_log.hpp"
#include "cluster/pair_schedule.hpp"
#include "cluster/representatives.hpp"
#include "core/environment.hpp"
#include "core/error.hpp"
#include "core/text.hpp"
#include "measure/collective_benchmark.hpp"
#include "measure/collective_devices.hpp"
#include "measure/collective_enqueue.hpp"
#include "measure/collective_sweep.hpp"
#include "measure/collective_watchdog.hpp"
#include "measure/nccl_communicators.hpp"
#include "plan/collective_options.hpp"
#include "platform/cuda_resources.hpp"
#include "runtime/nccl_log.hpp"

namespace linkscope::cli {

namespace {

using nlohmann::json;

// Which rank measures for each host, the rounds of host pairs, and whether the all_reduce can run: decided at
// rank 0 and sent to every rank.
struct Plan {
  std::vector<int> representatives;  // per host: a rank, or -1
  std::vector<std::vector<cluster::HostPair>> rounds;
  bool all_reduce = false;
  std::string all_reduce_reason;
  std::vector<std::string> notes;
};

json plan_to_json(const Plan& plan) {
  json rounds = json::array();
  for (const auto& round : plan.rounds) {
    json pairs = json::array();
    for (const auto& [a, b] : round) pairs.push_back({a, b});
    rounds.push_back(pairs);
  }
  return {{"representatives", plan.representatives}, {"rounds", rounds}, {"all_reduce", plan.all_reduce},
          {"all_reduce_reason", plan.all_reduce_reason}, {"notes", plan.notes}};
}

Plan plan_from_json(const json& j) {
  Plan plan;
  plan.representatives = j.at("representatives").get<std::vector<int>>();
  for (const auto& round : j.at("rounds")) {
    std::vector<cluster::HostPair> pairs;
    for (const auto& pair : round) pairs.push_back({pair.at(0).get<int>(), pair.at(1).get<int>()});
    plan.rounds.push_back(pairs);
  }
  plan.all_reduce = j.at("all_reduce").get<bool>();
  plan.all_reduce_reason = j.at("all_reduce_reason").get<std::string>();
  plan.notes = j.at("notes").get<std::vector<std::string>>();
  return plan;
}

Plan make_plan(const cluster::Roster& roster, const cluster::HostsComparison& hosts, const CrossHostOptions& options) {
  Plan plan;
  const auto chosen = cluster::choose_representatives(roster, hosts);
  std::vector<int> measured;  // host indices with a GPU
  for (std::size_t h = 0; h < chosen.size(); ++h) {
    plan.representatives.push_back(chosen[h].rank);
    if (chosen[h].rank >= 0) {
      measured.push_back(static_cast<int>(h));
      plan.notes.push_back(fmt::format("{} measured by {}", roster.hosts[h].name, chosen[h].reason));
    } else {
      plan.notes.push_back(fmt::format("{} is left out of the pairs: {}", roster.hosts[h].name, chosen[h].reason));
    }
  }
  const int count = static_cast<int>(measured.size());
  for (const auto& round : options.schedule == "serial" ? cluster::serial_rounds(count) : cluster::pair_rounds(count)) {
    std::vector<cluster::HostPair> pairs;
    for (const auto& [a, b] : round) pairs.push_back({measured[static_cast<std::size_t>(a)], measured[static_cast<std::size_t>(b)]});
    plan.rounds.push_back(pairs);
  }
  plan.all_reduce = options.all_reduce && roster.world_size > 1;
  if (!options.all_reduce) plan.all_reduce_reason = "not asked (--no-all-reduce)";
  if (roster.world_size < 2) plan.all_reduce_reason = "one rank: nothing to reduce across";
  for (const auto& hello : roster.ranks) {
    if (!plan.all_reduce || hello.cuda_device) continue;
    plan.all_reduce = false;
    plan.all_reduce_reason = fmt::format("{} drives no GPU: {}", roster.rank_label(hello.rank), hello.cuda_device_reason);
  }
  return plan;
}

std::map<std::string, std::string> nccl_variables(const Environment& env) {
  std::map<std::string, std::string> kept;
  for (const auto& [name, value] : env.relevant()) {
    if (name.rfind("NCCL_", 0) == 0) kept.emplace(name, value);
  }
  return kept;
}

// One op over `options.sizes`; a size that fails in CUDA or NCCL ends the series as an "error" point and keeps
// the sizes measured before it.
model::CollectiveSeries run_series(measure::CollectiveBenchmark& bench, coll::CollectiveOp op, const CrossHostOptions& options,
                                  model::CollectiveSeries prototype) {
  measure::SweepPlan sweep;
  sweep.series = {{op, coll::DataType::kFloat, coll::RedOp::kSum, 0}};
  sweep.sizes = options.sizes;
  sweep.options.sampling.target_ci = options.target_ci;
  sweep.options.sampling.max_time_s = options.max_time_s;
  sweep.options.timeout_s = options.timeout_s;
  // Both ranks must stop together; the failing size is recorded below.
  sweep.continue_after_errors = false;
  model::CollectiveSeries so_far = prototype;
  so_far.op = op;
  so_far.dtype = coll::DataType::kFloat;
  so_far.redop = coll::RedOp::kSum;
  so_far.root = -1;
  so_far.nccl_call = measure::nccl_call_name(op);
  try {
    auto results = measure::run_sweep(bench, sweep, prototype,
                                      [&](const model::CollectiveSeries& series, const std::vector<model::CollectivePoint>&) {
                                        so_far = series;
                                      });
    return results.empty() ? so_far : results.front();
  } catch (const DeviceError& e) {
    model::CollectivePoint failed;
    failed.requested_bytes = so_far.points.size() < options.sizes.size() ? options.sizes[so_far.points.size()] : 0;
    failed.status = "error";
    failed.reason = e.what();
    so_far.points.push_back(failed);
    return so_far;
  }
}

std::uint64_t buffer_bytes(coll::CollectiveOp op, const CrossHostOptions& options, int nranks) {
  const std::uint64_t largest = *std::max_element(options.sizes.begin(), options.sizes.end());
  return std::max<std::uint64_t>(1, coll::collective_counts(op, largest, coll::type_size(coll::DataType::kFloat), nranks).size_bytes());
}

// What NCCL's log says this rank's connections of one communicator went through (the log from `log_start` on).
void add_nic(json& out, const runtime::NcclDebugCapture& capture, std::size_t log_start) {
  if (!capture.active()) {
    out["nic_reason"] = "NCCL's log is not recorded: " + capture.reason();
    return;
  }
  const std::string all = capture.collect();
  const std::string mine = all.substr(std::min(log_start, all.size()));
  const auto uses = cluster::nics_used(mine, all);
  if (!uses.empty()) {
    out["nic"] = uses.front().nic;
    out["transport"] = uses.front().transport;
    return;
  }
  const auto transport = runtime::dominant_transport(runtime::parse_nccl_log(mine));
  if (transport) out["transport"] = *transport;
  out["nic_reason"] = transport ? "NCCL connected through " + *transport + ", not a NIC" : "NCCL's log shows no connection";
}

// Ends the process when NCCL's initialisation does not come back (a peer that never joins): nothing else
// could interrupt it. Under mpirun the job then ends too.
measure::Watchdog init_watchdog(const ClusterSession& session, runtime::NcclDebugCapture& capture, const std::string& with,
                                double timeout_s) {
  const std::string me = session.roster().rank_label(session.rank());
  return measure::Watchdog(timeout_s, [&capture, me, with, timeout_s] {
    capture.remove_files();
    std::fprintf(stderr, "linkscope: error (%s): NCCL initialisation with %s did not finish within %g s; ending the MPI job\n",
                 me.c_str(), with.c_str(), timeout_s);
    std::fflush(stderr);
    std::_Exit(to_int(ExitCode::kTimeout));
  });
}

// "I" + the id, or "E" + why there is none.
std::string unique_id_message() {
  try {
    const ncclUniqueId id = measure::new_nccl_unique_id();
    return "I" + std::string(reinterpret_cast<const char*>(&id), sizeof id);
  } catch (const Error& e) {
    return std::string("E") + e.what();
  }
}

std::optional<ncclUniqueId> unique_id_from(const std::string& message, json& out) {
  if (message.size() == 1 + sizeof(ncclUniqueId) && message[0] == 'I') {
    ncclUniqueId id{};
    std::memcpy(&id, message.data() + 1, sizeof id);
    return id;
  }
  out["status"] = "error";
  out["reason"] = message.size() > 1 ? message.substr(1) : "no NCCL unique id arrived";
  return std::nullopt;
}

json side_record(int rank, int device) {
  return {{"rank", rank},       {"cuda_device", device}, {"pci_bdf", ""},     {"nic", nullptr},
          {"nic_reason", ""},   {"transport", nullptr},  {"status", "ok"},    {"reason", nullptr},
          {"series", nullptr}};
}

json measure_pair(ClusterSession& session, runtime::NcclDebugCapture& capture, const CrossHostOptions& options,
                  const Plan& plan, int round, cluster::HostPair pair, int device) {
  platform::MpiSession& mpi = session.mpi();
  const cluster::Roster& roster = session.roster();
  const int low = plan.representatives[static_cast<std::size_t>(pair.first)];
  const int high = plan.representatives[static_cast<std::size_t>(pair.second)];
  const bool first = mpi.rank() == low;
  const int partner = first ? high : low;
  const std::string what = fmt::format("measuring {} <-> {}", roster.hosts[static_cast<std::size_t>(pair.first)].name,
                                       roster.hosts[static_cast<std::size_t>(pair.second)].name);
  json out = side_record(mpi.rank(), device);
  out["round"] = round;
  out["a"] = pair.first;
  out["b"] = pair.second;
  out["side"] = first ? 0 : 1;

  std::string message;
  if (first) {
    message = unique_id_message();
    mpi.send_text(partner, message, options.timeout_s, what);
  } else {
    message = mpi.receive_text(partner, options.timeout_s, what);
  }
  const auto id = unique_id_from(message, out);
  if (!id) return out;
  const std::size_t log_start = capture.active() ? capture.collect().size() : 0;
  try {
    auto watchdog = init_watchdog(session, capture, roster.rank_label(partner), options.timeout_s);
    measure::NcclCommunicators comms(*id, 2, {{first ? 0 : 1, device}}, measure::CommunicatorOptions{});
    watchdog.disarm();
    out["pci_bdf"] = measure::local_device_records(comms).front().pci_bdf();
    auto group = make_member_group(mpi, {low, high}, options.timeout_s, what);
    measure::CollectiveBenchmark bench(comms, *group, buffer_bytes(coll::CollectiveOp::kSendRecv, options, 2));
    model::CollectiveSeries prototype;
    prototype.nranks = 2;
    prototype.launch = "mpi";
    prototype.env = nccl_variables(Environment::from_process());
    prototype.devices = measure::gather_device_records(comms, *group);
    for (auto& d : prototype.devices) d.host = roster.hosts[static_cast<std::size_t>(d.rank == 0 ? pair.first : pair.second)].name;
    const model::CollectiveSeries series = run_series(bench, coll::CollectiveOp::kSendRecv, options, prototype);
    if (first) out["series"] = coll::to_json(series);
    const auto [status, reason] = cluster::series_status(series);
    out["status"] = status;
    out["reason"] = reason ? json(*reason) : json(nullptr);
  } catch (const DeviceError& e) {
    out["status"] = "error";
    out["reason"] = e.what();
  }
  add_nic(out, capture, log_start);  // the communicator is gone: NCCL wrote everything about it
  // Both ends say they are done, so a partner that stopped (NCCL's watchdog fired above) is named now rather
  // than at the next step of the whole job.
  mpi.send_text(partner, "done", options.timeout_s, what + " (closing)");
  mpi.receive_text(partner, options.timeout_s, what + " (closing)");
  return out;
}

json measure_all_reduce(ClusterSession& session, runtime::NcclDebugCapture& capture, const CrossHostOptions& options,
                        int device) {
  platform::MpiSession& mpi = session.mpi();
  const cluster::Roster& roster = session.roster();
  json out = side_record(mpi.rank(), device);
  const std::string message =
      session.broadcast(session.is_root() ? unique_id_message() : std::string(), "sharing the all_reduce's NCCL id");
  const auto id = unique_id_from(message, out);
  if (!id) return out;
  const std::size_t log_start = capture.active() ? capture.collect().size() : 0;
  try {
    auto watchdog = init_watchdog(session, capture, "every other rank", options.timeout_s);
    measure::NcclCommunicators comms(*id, roster.world_size, {{mpi.rank(), device}}, measure::CommunicatorOptions{});
    watchdog.disarm();
    auto group = make_member_group(mpi, session.all_ranks(), options.timeout_s, "running the all_reduce over every rank");
    measure::CollectiveBenchmark bench(comms, *group, buffer_bytes(coll::CollectiveOp::kAllReduce, options, roster.world_size));
    model::CollectiveSeries prototype;
    prototype.nranks = roster.world_size;
    prototype.launch = "mpi";
    prototype.env = nccl_variables(Environment::from_process());
    prototype.devices = measure::gather_device_records(comms, *group);
    for (auto& d : prototype.devices) d.host = roster.host_of(d.rank).name;
    const model::CollectiveSeries series = run_series(bench, coll::CollectiveOp::kAllReduce, options, prototype);
    if (session.is_root()) out["series"] = coll::to_json(series);
    const auto [status, reason] = cluster::series_status(series);
    out["status"] = status;
    out["reason"] = reason ? json(*reason) : json(nullptr);
  } catch (const DeviceError& e) {
    out["status"] = "error";
    out["reason"] = e.what();
  }
  add_nic(out, capture, log_start);
  return out;
}

cluster::CrossHostEndpoint endpoint_from(const json& side, int host) {
  cluster::CrossHostEndpoint e;
  e.host = host;
  e.rank = side.value("rank", -1);
  if (side.contains("cuda_device") && side["cuda_device"].is_number()) e.cuda_device = side["cuda_device"].get<int>();
  e.gpu_bdf = side.value("pci_bdf", "");
  e.nic = side["nic"].is_string() ? side["nic"].get<std::string>() : "";
  e.nic_reason = side.value("nic_reason", "");
  e.transport = side["transport"].is_string() ? side["transport"].get<std::string>() : "";
  return e;
}

int severity(const std::string& status) {
  return status == "ok" ? 0 : status == "wrong" ? 1 : status == "timeout" ? 3 : 2;
}

CrossHostOutcome assemble(const ClusterSession& session, const cluster::HostsComparison* hosts, const CrossHostOptions& options,
                          const Plan& plan, const std::vector<std::string>& texts) {
  const cluster::Roster& roster = session.roster();
  CrossHostOutcome outcome;
  cluster::CrossHostResult& result = outcome.result;
  for (const auto& host : roster.hosts) result.hosts.push_back(host.name);
  result.schedule = options.schedule;
  result.sizes_bytes = options.sizes;
  result.notes = plan.notes;

  std::map<std::pair<int, int>, std::array<json, 2>> sides;
  std::vector<json> all_reduce(texts.size());
  for (std::size_t rank = 0; rank < texts.size(); ++rank) {
    const json mine = json::parse(texts[rank]);
    for (const auto& side : mine["pairs"]) sides[{side["a"].get<int>(), side["b"].get<int>()}][side["side"].get<std::size_t>()] = side;
    all_reduce[rank] = mine["all_reduce"];
  }
  for (std::size_t r = 0; r < plan.rounds.size(); ++r) {
    for (const auto& [a, b] : plan.rounds[r]) {
      cluster::CrossHostPair pair;
      pair.round = static_cast<int>(r);
      const auto& both = sides[{a, b}];
      for (int side = 0; side < 2; ++side) {
        const json& record = both[static_cast<std::size_t>(side)];
        const int host = side == 0 ? a : b;
        if (record.is_null()) {
          pair.status = "error";
          pair.reason = fmt::format("no result from {}", roster.rank_label(plan.representatives[static_cast<std::size_t>(host)]));
          (side == 0 ? pair.a : pair.b).host = host;
          continue;
        }
        (side == 0 ? pair.a : pair.b) = endpoint_from(record, host);
        const std::string status = record.value("status", "error");
        if (severity(status) > severity(pair.status)) {
          pair.status = status;
          pair.reason = record["reason"].is_string() ? record["reason"].get<std::string>() : status;
        }
        if (record["series"].is_object()) pair.series = model::series_from_json(record["series"], "the pair's series");
      }
      cluster::summarize_pair(pair);
      result.pairs.push_back(pair);
    }
  }

  if (!plan.all_reduce) {
    result.all_reduce_status = "not run";
    result.all_reduce_reason = plan.all_reduce_reason;
  } else {
    result.all_reduce_status = "ok";
    std::vector<std::string> seen_hosts;
    for (std::size_t rank = 0; rank < all_reduce.size(); ++rank) {
      const json& record = all_reduce[rank];
      if (!record.is_object()) continue;
      const std::string status = record.value("status", "error");
      if (severity(status) > severity(result.all_reduce_status)) {
        result.all_reduce_status = status;
        result.all_reduce_reason = fmt::format("{}: {}", roster.rank_label(static_cast<int>(rank)),
                                               record["reason"].is_string() ? record["reason"].get<std::string>() : status);
      }
      if (record["series"].is_object()) result.all_reduce = model::series_from_json(record["series"], "the all_reduce series");
      const std::string host = roster.host_of(static_cast<int>(rank)).name;
      if (std::find(seen_hosts.begin(), seen_hosts.end(), host) != seen_hosts.end()) continue;
      seen_hosts.push_back(host);
      const std::string transport = record["transport"].is_string() ? record["transport"].get<std::string>() : "?";
      result.all_reduce_transports.push_back(record["nic"].is_string()
                                                 ? fmt::format("{}: {} via {}", host, transport, record["nic"].get<std::string>())
                                                 : fmt::format("{}: {} ({})", host, transport, record.value("nic_reason", "")));
    }
  }
  outcome.slow = cluster::find_slow(result, hosts);

  // Put the all_reduce next to the slowest pair: a ring cannot run faster than its slowest hop.
  const cluster::CrossHostPair* slowest = nullptr;
  for (const auto& pair : result.pairs) {
    if (pair.bandwidth_gbps && (slowest == nullptr || *pair.bandwidth_gbps < *slowest->bandwidth_gbps)) slowest = &pair;
  }
  const model::CollectivePoint* point = result.all_reduce ? model::largest_measured_point(*result.all_reduce) : nullptr;
  if (point != nullptr && point->busbw_gbps && slowest != nullptr) {
    result.notes.push_back(fmt::format("all_reduce busbw {} at {} over {} ranks; the slowest host pair, {} <-> {}, moved {} "
                                       "per direction",
                                       format_gbps(*point->busbw_gbps), format_bytes(point->bytes),
                                       result.all_reduce->nranks, result.hosts[static_cast<std::size_t>(slowest->a.host)],
                                       result.hosts[static_cast<std::size_t>(slowest->b.host)],
                                       format_gbps(*slowest->bandwidth_gbps)));
  }
  return outcome;
}

}  // namespace

std::optional<CrossHostOutcome> measure_cross_host(ClusterSession& session, const cluster::HostsComparison* hosts,
                                                   const CrossHostOptions& options, runtime::NcclDebugCapture& capture) {
  std::string plan_text;
  if (session.is_root()) plan_text = plan_to_json(make_plan(session.roster(), *hosts, options)).dump();
  const Plan plan = plan_from_json(json::parse(session.broadcast(plan_text, "sending the cross-host plan")));
  const int me = session.rank();
  const int device = session.roster().ranks.at(static_cast<std::size_t>(me)).cuda_device.value_or(-1);
  // How much longer than this rank another rank may be busy between two steps: one pair's sizes, its NCCL
  // set-up, and a peer's watchdog.
  const double pair_work_s = static_cast<double>(options.sizes.size()) * (3 * options.max_time_s + 1) + 15 + options.timeout_s;

  json mine = {{"pairs", json::array()}, {"all_reduce", nullptr}};
  for (std::size_t r = 0; r < plan.rounds.size(); ++r) {
    session.barrier(fmt::format("starting round {} of {} of the host pairs", r + 1, plan.rounds.size()), r == 0 ? 0 : pair_work_s);
    if (session.is_root() && !options.quiet) {
      std::string pairs;
      for (const auto& [a, b] : plan.rounds[r]) {
        pairs += fmt::format("{}{} <-> {}", pairs.empty() ? "" : ", ", session.roster().hosts[static_cast<std::size_t>(a)].name,
                             session.roster().hosts[static_cast<std::size_t>(b)].name);
      }
      std::fprintf(stderr, "linkscope cluster: round %zu/%zu: sendrecv %s\n", r + 1, plan.rounds.size(), pairs.c_str());
    }
    for (const auto& pair : plan.rounds[r]) {
      if (me == plan.representatives[static_cast<std::size_t>(pair.first)] ||
          me == plan.representatives[static_cast<std::size_t>(pair.second)]) {
        mine["pairs"].push_back(measure_pair(session, capture, options, plan, static_cast<int>(r), pair, device));
      }
    }
  }
  double trailing_work_s = plan.rounds.empty() ? 0 : pair_work_s;
  if (plan.all_reduce) {
    session.barrier("starting the all_reduce over every rank", trailing_work_s);
    if (session.is_root() && !options.quiet) {
      std::fprintf(stderr, "linkscope cluster: all_reduce over %d ranks\n", session.roster().world_size);
    }
    mine["all_reduce"] = measure_all_reduce(session, capture, options, device);
    trailing_work_s = 0;
  }
  const auto texts = session.gather_from_all(mine.dump(), "collecting the cross-host results", trailing_work_s);
  if (!session.is_root()) return std::nullopt;
  return assemble(session, hosts, options, plan, texts);
}

// The GPU a rank drives under MPI: one per rank, chosen by its node-local rank (or NCCL_TESTS_DEVICE), as
// `linkscope coll` does; the reason when there is none.
void fill_rank_device(cluster::RankHello& hello) {
  const char* why = nullptr;
  const int visible = platform::cuda_device_count_or_zero(&why);
  if (visible == 0) {
    hello.cuda_device_reason = why != nullptr ? why : "no GPU visible";
    return;
  }
  try {
    std::optional<int> first_device;
    if (const char* text = std::getenv("NCCL_TESTS_DEVICE")) first_device = std::atoi(text);
    hello.cuda_device = coll::select_local_devices(visible, 1, hello.local_rank, first_device).front();
  } catch (const UsageError& e) {
    hello.cuda_device_reason = e.what();
  }
}

// The errors a cross-host result carries into the Run, one per failed pair and for the all_reduce.
void record_cross_host_errors(RunDocument& run, const cluster::CrossHostResult& result) {
  for (const auto& pair : result.pairs) {
    if (pair.status == "ok") continue;
    record_error(run, fmt::format("cross_host {} <-> {}", result.hosts[static_cast<std::size_t>(pair.a.host)],
                                  result.hosts[static_cast<std::size_t>(pair.b.host)]),
                 pair.status + ": " + pair.reason.value_or(""));
  }
  if (result.all_reduce_status != "ok" && result.all_reduce_status != "not run") {
    record_error(run, "cross_host all_reduce", result.all_reduce_status + ": " + result.all_reduce_reason.value_or(""));
  }
}

int cross_host_exit_code(const cluster::CrossHostResult& result) {
  int worst = 0;
  for (const auto& pair : result.pairs) worst = std::max(worst, severity(pair.status));
  if (result.all_reduce_status != "not run") worst = std::max(worst, severity(result.all_reduce_status));
  switch (worst) {
    case 3: return to_int(ExitCode::kTimeout);
    case 2: return to_int(ExitCode::kDevice);
    case 1: return to_int(ExitCode::kWrongResults);
    default: return 0;
  }
}

}  // namespace linkscope::cli
