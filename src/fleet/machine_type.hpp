#pragma once
#include <string>

#include "model/run.hpp"

// The machine type of a saved run: the key a fleet baseline groups hosts by. Hosts of one type should measure the
// same; hosts of different types are never compared.
namespace linkscope::fleet {

// "<count> x <GPU model> | <count> x <link signature> | NCCL <version>", for example
// "8 x NVIDIA H100 80GB HBM3 | 8 x NVLink 18 @ 26.562 GB/s | NCCL 2.28.3". The link signature of a GPU is its
// NVLinks (how many NVML lists, and their fastest speed per direction) or, without NVLinks, its PCIe link's maximum
// generation and width ("PCIe Gen5 x16"); different models or signatures are listed each with its count. It uses what a GPU *can* have (links listed, maximum
// PCIe), not what trained, so a host with a link down or a narrow PCIe link keeps its type and shows up as an
// outlier of it. Facts a run lacks read "?" (a run without hardware facts is refused by the baseline).
std::string machine_type(const model::Run& run);

}  // namespace linkscope::fleet
