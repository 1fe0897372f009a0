#pragma once
// How NCCL reads an integer variable (misc/param.cc ncclLoadParam, behind every NCCL_PARAM): once per
// process; unset or empty -> the default; otherwise strtoll(value, NULL, 0), and out of range -> the default.
#include <cstdint>
#include <optional>
#include <string>

#include "core/environment.hpp"

namespace linkscope::topo {

struct NcclIntParam {
  int64_t value = 0;
  std::optional<std::string> raw;  // the variable as set; nullopt when unset
  bool out_of_range = false;       // strtoll set errno: NCCL keeps the default
  bool is_number = false;          // digits were read ("abc" reads as 0 without any complaint from NCCL)
  // The INFO line NCCL prints at the first read ("NCCL_MAX_NCHANNELS set by environment to 4." or "Invalid value
  // 1e99 for NCCL_X, using default -2."); empty when the variable is unset or empty.
  std::string echo;
};

NcclIntParam read_nccl_int_param(const Environment& env, const char* name, int64_t fallback);

}  // namespace linkscope::topo
