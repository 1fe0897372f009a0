#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace linkscope {

// Linux CPU list syntax as in sysfs `local_cpulist` and `/sys/devices/system/node/nodeN/cpulist`:
// "0-31,64-95", "0,2,4", "" (empty). Throws std::invalid_argument on malformed text.
std::vector<int> parse_cpu_list(std::string_view text);

// The inverse, with ranges collapsed: {0,1,2,3,8} -> "0-3,8". Input need not be sorted or unique.
std::string format_cpu_list(std::vector<int> cpus);

}  // namespace linkscope
