#pragma once
#include <gtest/gtest.h>

#include "core/error.hpp"
#include "platform/cuda_resources.hpp"
#include "platform/nccl_version.hpp"

// Skips the current test (with the reason) unless at least `n` CUDA devices are usable.
#define LINKSCOPE_REQUIRE_GPUS(n)                                                                  \
  do {                                                                                             \
    const char* linkscope_reason_ = nullptr;                                                       \
    const int linkscope_count_ = ::linkscope::platform::cuda_device_count_or_zero(&linkscope_reason_); \
    if (linkscope_count_ < (n)) {                                                                  \
      GTEST_SKIP() << "needs " << (n) << " GPU(s), found " << linkscope_count_                     \
                   << (linkscope_reason_ != nullptr ? std::string(": ") + linkscope_reason_ : std::string()); \
    }                                                                                              \
  } while (0)

// Skips the current test (with the reason) unless NCCL's library can be opened.
#define LINKSCOPE_REQUIRE_NCCL()                                  \
  do {                                                            \
    try {                                                         \
      ::linkscope::platform::nccl_library_info();                 \
    } catch (const ::linkscope::Error& linkscope_error_) {        \
      GTEST_SKIP() << "needs NCCL: " << linkscope_error_.what();  \
    }                                                             \
  } while (0)
