#include "cluster/collective_runner.hpp"

#include "core/environment.hpp"
#include "core/error.hpp"
#include "plan/collective_options.hpp"
#include "platform/cuda_device_info.hpp"

namespace linkscope::cluster {

namespace {

class NcclRunner final : public CollectiveRunner {
 public:
  std::string name() const override { return "NCCL"; }

  void fill_rank_device(RankHello& hello) const override {
    const char* why = nullptr;
    const int visible = platform::cuda_device_count_or_zero(&why);
    if (visible == 0) {
      hello.cuda_device_reason = why != nullptr ? why : "no GPU visible";
      return;
    }
    try {
      const auto first_device = coll::nccl_tests_device(Environment::from_process());
      hello.cuda_device = coll::select_local_devices(visible, 1, hello.local_rank, first_device).front();
    } catch (const UsageError& e) {
      hello.cuda_device_reason = e.what();
    }
  }

  std::string unique_id_message() const override {
    try {
      return "I" + measure::new_nccl_id();
    } catch (const Error& e) {
      return std::string("E") + e.what();
    }
  }

  measure::CollectiveRun run(const measure::CollectiveRequest& request, const std::vector<FabricMember>&,
                             measure::ProcessGroup& group) const override {
    return measure::run_collectives(request, group);
  }
};

CollectiveRunnerOverride& override_slot() {
  static CollectiveRunnerOverride make;
  return make;
}

}  // namespace

void set_collective_runner_override(CollectiveRunnerOverride make) { override_slot() = std::move(make); }

const CollectiveRunner& collective_runner() {
  static const std::unique_ptr<CollectiveRunner> runner = []() -> std::unique_ptr<CollectiveRunner> {
    if (override_slot()) {
      if (auto chosen = override_slot()()) return chosen;
    }
    return std::make_unique<NcclRunner>();
  }();
  return *runner;
}

}  // namespace linkscope::cluster
