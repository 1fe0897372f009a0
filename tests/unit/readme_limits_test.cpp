// README "Limits" names each limit's constant beside its number; this keeps the two the same.
#include <cstdint>
#include <string>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "core/directory_lock.hpp"
#include "core/file_set.hpp"
#include "core/sweep.hpp"
#include "discover/sysfs_root.hpp"
#include "model/run_file.hpp"
#include "runtime/log_lines.hpp"
#include "support/run_command.hpp"
#include "topo/topo_types.hpp"
#include "topo/xml_reader.hpp"

namespace linkscope {
namespace {

std::string bytes_text(std::uint64_t bytes) {
  if (bytes % (1u << 20) == 0) return fmt::format("{} MiB", bytes >> 20);
  return fmt::format("{} KiB", bytes >> 10);
}

// The README row that names `constant`, or "" when none does.
std::string row_of(const std::string& readme, const std::string& constant) {
  const auto at = readme.find("`" + constant + "`");
  if (at == std::string::npos) return "";
  const auto start = readme.rfind('\n', at) + 1;
  return readme.substr(start, readme.find('\n', at) - start);
}

TEST(ReadmeLimits, EveryNumberIsTheConstantItNames) {
  const std::string readme = test::read_text(std::string(LINKSCOPE_SOURCE_DIR) + "/README.md");
  ASSERT_NE(readme.find("## Limits"), std::string::npos);
  const std::pair<std::string, std::string> limits[] = {
      {"model::kMaxRunFileBytes", bytes_text(model::kMaxRunFileBytes)},
      {"topo::kMaxTopologyBytes", bytes_text(topo::kMaxTopologyBytes)},
      {"topo::kMaxXmlElements", std::to_string(topo::kMaxXmlElements)},
      {"topo::kMaxNestingDepth", std::to_string(topo::kMaxNestingDepth)},
      {"topo::kMaxNodesPerType", std::to_string(topo::kMaxNodesPerType)},
      {"topo::kMaxCpuNodes", std::to_string(topo::kMaxCpuNodes)},
      {"kMaxSweepPoints", std::to_string(kMaxSweepPoints)},
      {"discover::kMaxSysfsAttributeBytes", bytes_text(discover::kMaxSysfsAttributeBytes)},
      {"discover::kMaxSysfsFileBytes", bytes_text(discover::kMaxSysfsFileBytes)},
      {"runtime::kMaxLogLineBytes", bytes_text(runtime::kMaxLogLineBytes)},
      {"runtime::kMaxLogBytes", bytes_text(runtime::kMaxLogBytes)},
      {"kMaxFileSetListBytes", bytes_text(kMaxFileSetListBytes)},
      {"kDirectoryLockWait", fmt::format("{} s", kDirectoryLockWait.count() / 1000)},
  };
  for (const auto& [constant, value] : limits) {
    const std::string row = row_of(readme, constant);
    ASSERT_FALSE(row.empty()) << constant << " is not in README's Limits";
    EXPECT_NE(row.find("| " + value + " |"), std::string::npos) << constant << " is " << value << ": " << row;
  }
}

}  // namespace
}  // namespace linkscope
