#pragma once
// The NCCL releases tests model explicitly: a test of NCCL 2.28.9's output says so instead of depending on the
// default (the newest release modelled), which moves as versions are added.
#include "topo/nccl_versions.hpp"

namespace linkscope::test {

inline const topo::ModelledVersion& nccl_2_28_9() {
  static const topo::ModelledVersion version = topo::model_version_for({2, 28, 9});
  return version;
}

}  // namespace linkscope::test
