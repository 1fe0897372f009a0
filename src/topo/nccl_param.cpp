#include "topo/nccl_param.hpp"

#include <fmt/format.h>

#include "topo/nccl_numbers.hpp"

namespace linkscope::topo {

NcclIntParam read_nccl_int_param(const Environment& env, const char* name, int64_t fallback) {
  NcclIntParam param;
  param.value = fallback;
  param.raw = env.get(name);
  if (!param.raw || param.raw->empty()) return param;
  const CInteger parsed = c_strtol(*param.raw);
  param.is_number = parsed.parsed_digits;
  if (parsed.overflow) {
    param.out_of_range = true;
    param.echo = fmt::format("Invalid value {} for {}, using default {}.", *param.raw, name, fallback);
    return param;
  }
  param.value = parsed.value;
  param.echo = fmt::format("{} set by environment to {}.", name, parsed.value);
  return param;
}

}  // namespace linkscope::topo
