// The simulated fabric's collective runner (cluster/collective_runner.hpp): installed only by the test build's seam.
#include <chrono>
#include <thread>

#include <fmt/format.h>

#include "cluster/collective_runner.hpp"
#include "core/text.hpp"

namespace linkscope::cluster {

namespace {

class SimulatedFabricRunner final : public CollectiveRunner {
 public:
  explicit SimulatedFabricRunner(const std::string& file) : file_(file), fabric_(SimulatedFabric::load(file)) {}

  std::string name() const override { return "simulated fabric " + file_; }

  void fill_rank_device(RankHello& hello) const override {
    hello.cuda_device = hello.local_rank;  // one simulated GPU per rank
    hello.cuda_device_reason.clear();
  }

  std::string unique_id_message() const override { return "I" + std::string(measure::kNcclIdBytes, 's'); }

  measure::CollectiveRun run(const measure::CollectiveRequest& request, const std::vector<FabricMember>& members,
                             measure::ProcessGroup& group) const override {
    group.barrier();  // every member has arrived, as NCCL's initialisation needs
    // Every member's count of collectives so far, so that all of them see a host turn slow at the same one.
    std::vector<long long> counts(members.size(), 0);
    counts.at(static_cast<std::size_t>(group.rank())) = ++collectives_;
    group.allreduce(counts, measure::ProcessGroup::Op::kMax);
    const coll::CollPlan& plan = request.plan;
    measure::CollectiveRun out;
    out.setup.plan = plan;
    out.setup.nranks = group.size();
    model::CollectiveSeries series;
    series.op = plan.op;
    series.nranks = group.size();
    series.launch = request.launch;
    series.nccl_call = "simulated";  // with extra.simulated_fabric, what marks these series as not measured
    series.extra["simulated_fabric"] = file_;
    series.env = request.nccl_env;
    for (std::size_t i = 0; i < members.size(); ++i) {
      model::DeviceRecord device;
      device.rank = static_cast<int>(i);
      device.host = members[i].host;
      device.cuda_device = request.devices.empty() ? 0 : request.devices.front();
      device.pci_bus = static_cast<int>(i) + 1;
      device.name = "simulated GPU";
      series.devices.push_back(device);
    }
    out.local_devices = {series.devices.at(static_cast<std::size_t>(group.rank()))};
    for (const std::uint64_t size : plan.sizes) {
      const FabricOutcome outcome = fabric_.collective(plan.op, members, size, counts);
      model::CollectivePoint point;
      point.requested_bytes = size;
      point.bytes = size - size % 4;  // float elements
      point.count = point.bytes / 4;
      if (outcome.hung) {
        // A hung member: nothing completes; the watchdog gives up after the timeout, on every member alike.
        std::this_thread::sleep_for(std::chrono::duration<double>(plan.timeout_s));
        point.status = "timeout";
        point.reason = fmt::format("simulated fabric: {} marked hung; no progress within {} s",
                                   join(outcome.hung_hosts, ", "), format_number(plan.timeout_s));
        series.points.push_back(point);
        out.aborted = true;
        break;
      }
      point.samples = 1;
      point.iterations = 1;
      point.time = model::TimeSummary{outcome.time_us, outcome.time_us, outcome.time_us, outcome.time_us, 0, 0};
      point.stop_reason = "fixed-count";  // the clock stays "events", the model's word for a timed point
      point.algbw_gbps = static_cast<double>(point.bytes) / (outcome.time_us * 1e3);
      point.busbw_gbps = *point.algbw_gbps * coll::bus_factor(plan.op, group.size());
      point.wrong = 0;
      series.points.push_back(point);
    }
    out.series = {series};
    if (group.rank() == 0) out.devices = series.devices;
    return out;
  }

 private:
  std::string file_;
  SimulatedFabric fabric_;
  mutable long long collectives_ = 0;  // this rank's collectives so far (the fabric's slow_from counts them)
};

}  // namespace

std::unique_ptr<CollectiveRunner> make_simulated_fabric_runner(const std::string& file) {
  return std::make_unique<SimulatedFabricRunner>(file);
}

}  // namespace linkscope::cluster
