#pragma once
#include "discover/cuda_source.hpp"
#include "discover/nvml_source.hpp"

// NVML's and CUDA's snapshots as a capture recorded them, handed to discovery as the live libraries' would be.
namespace linkscope::capture {

class RecordedNvmlSource final : public discover::NvmlSource {
 public:
  explicit RecordedNvmlSource(discover::NvmlSnapshot snapshot) : snapshot_(std::move(snapshot)) {}
  discover::NvmlSnapshot read() override { return snapshot_; }

 private:
  discover::NvmlSnapshot snapshot_;
};

class RecordedCudaSource final : public discover::CudaSource {
 public:
  explicit RecordedCudaSource(discover::CudaSnapshot snapshot) : snapshot_(std::move(snapshot)) {}
  discover::CudaSnapshot read() override { return snapshot_; }

 private:
  discover::CudaSnapshot snapshot_;
};

}  // namespace linkscope::capture
