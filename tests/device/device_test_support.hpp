#pragma once
#include <gtest/gtest.h>

#include "platform/cuda_resources.hpp"

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
