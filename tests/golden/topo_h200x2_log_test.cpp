// The h200x2 dump against the real NCCL 2.28.3 log of the same machine. NCCL 2.19-2.28.3 removed all NET
// nodes when every rank of the communicator was local (2.28.7+ keep them, spec §14): the log lacks the NET leaf
// under the NIC, the NET entries of the GPU lines and the NET line. Everything else is identical.
#include <gtest/gtest.h>

#include <regex>
#include <sstream>

#include "support/run_command.hpp"
#include "topo/nccl_log_printer.hpp"
#include "topo/topology_model.hpp"
#include "support/model_versions.hpp"

namespace linkscope {
namespace {

// The system block and path lines rank 0 printed ("[0] NCCL INFO"), prefix removed.
std::vector<std::string> log_block_of_rank0(const std::string& log) {
  std::vector<std::string> lines;
  std::istringstream in(log);
  std::string line;
  bool inside = false;
  while (std::getline(in, line)) {
    const auto at = line.find(" [0] NCCL INFO ");
    if (at == std::string::npos) continue;
    const std::string message = line.substr(at + 15);
    if (message.rfind("=== System", 0) == 0) inside = true;
    if (!inside) continue;
    if (!lines.empty() && lines.back() == std::string(42, '=') && message.rfind("GPU/", 0) != 0) break;
    if (lines.size() > 1 && lines.back().rfind("GPU/", 0) == 0 && message.rfind("GPU/", 0) != 0) break;
    lines.push_back(message);
  }
  return lines;
}

TEST(TopoH200x2Log, IdenticalToNccl2283ExceptTheTrimmedNetNodes) {
  const auto model = topo::load_topology_string(test::read_text(test::fixture("h200x2/nccl-topo-dump.xml")),
                                                "nccl-topo-dump.xml", Environment::from_map({}), test::nccl_2_28_9());
  std::vector<std::string> ours = topo::nccl_system_block_lines(model);
  for (const auto& line : topo::nccl_path_lines(model)) ours.push_back(line);

  const std::regex net_entry(R"(NET/[0-9a-f]+-[0-9a-f]+ \(\d+/[0-9.]+/[A-Z0-9]+\) )");
  std::vector<std::string> trimmed;
  int net_leaves = 0;
  int net_lines = 0;
  int net_entries = 0;
  for (const auto& line : ours) {
    if (line.find("+ NET[") != std::string::npos) {
      ++net_leaves;
      continue;
    }
    if (line.rfind("NET/", 0) == 0) {
      ++net_lines;
      continue;
    }
    net_entries += static_cast<int>(std::distance(std::sregex_iterator(line.begin(), line.end(), net_entry),
                                                  std::sregex_iterator()));
    trimmed.push_back(std::regex_replace(line, net_entry, ""));
  }
  // What 2.28.9 adds is exactly the NET node: one leaf, one line, one entry per GPU line.
  EXPECT_EQ(net_leaves, 1);
  EXPECT_EQ(net_lines, 1);
  EXPECT_EQ(net_entries, 2);

  const auto log = log_block_of_rank0(test::read_text(test::fixture("h200x2/nccl-2.28.3-info.log")));
  ASSERT_EQ(log.size(), 10u);
  EXPECT_EQ(trimmed, log);
}

}  // namespace
}  // namespace linkscope
