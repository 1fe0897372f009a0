#pragma once
// How NCCL's float bandwidths go into the Run's `model` section: to 4 decimals, so 18 x 20.6f (370.80002 as a
// float) shows 370.8 and PCIe x1 Gen1 keeps its exact 0.1875 (NCCL's log rounds it to 0.2).
#include <cmath>

namespace linkscope::topo {

inline double json_bw(float value) { return std::round(static_cast<double>(value) * 10000.0) / 10000.0; }

}  // namespace linkscope::topo
