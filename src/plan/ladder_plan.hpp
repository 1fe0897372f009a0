#pragma once
#include <optional>
#include <string>
#include <vector>

#include "model/ladder.hpp"

namespace linkscope::plan {

// The path ladder's layers and their environment: default, the best P2P level, P2P disabled, P2P and SHM disabled,
// Ring, Tree. `p2p_level` is the NCCL_P2P_LEVEL that still allows P2P between the GPUs (NCCL's worst GPU-to-GPU
// path type from the default run); without it that layer is skipped.
std::vector<model::LadderLayer> ladder_layers(const std::optional<std::string>& p2p_level);

}  // namespace linkscope::plan
