// Linked into linkscope_with_test_seams alone: LINKSCOPE_TEST_FABRIC=FILE replaces NCCL in the cross-host tests by the
// simulated fabric of FILE (cluster/simulated_fabric.hpp, docs/multi-node.md), so MPI jobs of many ranks on a CPU
// machine measure through the same protocol as a real job. The linkscope binary reads no such variable.
#include <cstdlib>

#include "cluster/collective_runner.hpp"

namespace linkscope {
namespace {

// Installed before main() runs; read at the first collective_runner().
const bool kInstalled = [] {
  cluster::set_collective_runner_override([]() -> std::unique_ptr<cluster::CollectiveRunner> {
    const char* file = std::getenv("LINKSCOPE_TEST_FABRIC");
    if (file == nullptr || *file == '\0') return nullptr;
    return cluster::make_simulated_fabric_runner(file);
  });
  return true;
}();

}  // namespace
}  // namespace linkscope
