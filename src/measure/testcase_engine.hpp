#pragma once
#include <vector>

#include "measure/p2p_engine.hpp"
#include "model/p2p_testcases.hpp"
#include "plan/p2p_plan.hpp"

namespace linkscope::measure {

// `linkscope p2p --testcase`: runs request.testcases (nvbandwidth's, plan/nvbandwidth_testcases.hpp) over
// request.testcase_gpus, each matrix cell's copies started together behind one launch gate and sampled like any
// p2p point (request.sampling), verified on the GPU unless request.verify is false. A testcase that needs more
// GPUs than there are is skipped (status na with the reason); a cell that fails is recorded and the rest goes on.
std::vector<model::TestcaseResult> run_testcases(const plan::P2pRequest& request, const ProgressCallback& progress);

}  // namespace linkscope::measure
