#include "plan/ladder_plan.hpp"

namespace linkscope::plan {

std::vector<model::LadderLayer> ladder_layers(const std::optional<std::string>& p2p_level) {
  std::vector<model::LadderLayer> layers(6);
  layers[0].name = "default";
  layers[1].name = "p2p-level";
  if (p2p_level) {
    layers[1].env = {{"NCCL_P2P_LEVEL", *p2p_level}};
  } else {
    layers[1].status = "skipped";
    layers[1].reason = "the default run did not show NCCL's GPU-to-GPU path type (runtime layer not recorded)";
  }
  layers[2].name = "p2p-disabled";
  layers[2].env = {{"NCCL_P2P_DISABLE", "1"}};
  layers[3].name = "network";
  layers[3].env = {{"NCCL_P2P_DISABLE", "1"}, {"NCCL_SHM_DISABLE", "1"}};
  layers[4].name = "ring";
  layers[4].env = {{"NCCL_ALGO", "Ring"}};
  layers[5].name = "tree";
  layers[5].env = {{"NCCL_ALGO", "Tree"}};
  return layers;
}

}  // namespace linkscope::plan
