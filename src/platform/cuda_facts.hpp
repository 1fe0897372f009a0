#pragma once
#include <memory>

#include "discover/cuda_source.hpp"

namespace linkscope::platform {

// CUDA facts from the CUDA runtime: device count, properties, peer access and P2P attributes.
// No kernels run and no memory is allocated.
std::unique_ptr<discover::CudaSource> make_cuda_runtime_source();

}  // namespace linkscope::platform
