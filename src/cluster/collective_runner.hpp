#pragma once
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "cluster/rank_hello.hpp"
#include "cluster/simulated_fabric.hpp"
#include "measure/collective_process_group.hpp"
#include "measure/collective_run.hpp"

// How the cross-host tests (host pairs, the all_reduce over every rank, `--isolate`'s groups) run one collective over
// some ranks of the job. The real runner is NCCL through measure::run_collectives. The test build of the binary
// (linkscope_with_test_seams, tests/support/fabric_seams.cpp) may install another one, the simulated fabric chosen by
// LINKSCOPE_TEST_FABRIC=FILE; the linkscope binary reads no such variable and always runs NCCL.
namespace linkscope::cluster {

class CollectiveRunner {
 public:
  virtual ~CollectiveRunner() = default;
  // "NCCL", or "simulated fabric FILE" (recorded in the Run and said in the output).
  virtual std::string name() const = 0;
  // The GPU this rank drives (RankHello::cuda_device), or why none.
  virtual void fill_rank_device(RankHello& hello) const = 0;
  // A fresh id for one collective's members: "I" + the id, or "E" + why there is none.
  virtual std::string unique_id_message() const = 0;
  // Runs the request over the members of `group`, every member calling it; `members` are their hosts in group rank
  // order. Throws DeviceError as measure::run_collectives.
  virtual measure::CollectiveRun run(const measure::CollectiveRequest& request, const std::vector<FabricMember>& members,
                                     measure::ProcessGroup& group) const = 0;
};

// The runner of this process: the installed override's when it returns one, else NCCL's. Chosen once.
const CollectiveRunner& collective_runner();

// Test seams only (the linkscope binary never calls it): called once, at the first collective_runner(); nullptr
// keeps NCCL.
using CollectiveRunnerOverride = std::function<std::unique_ptr<CollectiveRunner>()>;
void set_collective_runner_override(CollectiveRunnerOverride make);

// The simulated fabric's runner (cluster/simulated_fabric_runner.cpp), for the seam: every rank drives one simulated
// GPU, collectives take the fabric's time (a hung one: the request's timeout, then every point "timeout").
std::unique_ptr<CollectiveRunner> make_simulated_fabric_runner(const std::string& file);

}  // namespace linkscope::cluster
