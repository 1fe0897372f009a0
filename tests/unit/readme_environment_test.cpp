// README's Environment paragraph lists every variable linkscope reads: each name that src/ passes to getenv or
// Environment::get, and every LINKSCOPE_* name it spells, found in the sources at test time. A variable that changes
// what the binary does and is not documented fails here (a test seam left in src/, a new knob).
#include <filesystem>
#include <regex>
#include <set>
#include <string>

#include <gtest/gtest.h>

#include "support/run_command.hpp"

namespace linkscope {
namespace {

namespace fs = std::filesystem;

std::set<std::string> variables_read_in(const std::string& source_dir) {
  const std::regex read(R"re((?:getenv|env\.get)\("([A-Z][A-Z0-9_]*)"\))re");
  const std::regex ours(R"re("(LINKSCOPE_[A-Z0-9_]+)")re");
  std::set<std::string> names;
  for (const auto& entry : fs::recursive_directory_iterator(source_dir)) {
    const auto extension = entry.path().extension().string();
    if (!entry.is_regular_file() || (extension != ".cpp" && extension != ".hpp" && extension != ".cu")) continue;
    const std::string text = test::read_text(entry.path().string());
    for (const std::regex* pattern : {&read, &ours}) {
      for (std::sregex_iterator it(text.begin(), text.end(), *pattern), end; it != end; ++it) names.insert((*it)[1]);
    }
  }
  return names;
}

// The paragraph that starts "Environment:" (up to the blank line after it).
std::string environment_paragraph(const std::string& readme) {
  const auto start = readme.find("\nEnvironment: ");
  if (start == std::string::npos) return "";
  return readme.substr(start, readme.find("\n\n", start) - start);
}

// `NAME`, `NAME=...` or a `PREFIX*` that covers NAME.
bool documents(const std::string& text, const std::string& name) {
  if (text.find("`" + name + "`") != std::string::npos || text.find("`" + name + "=") != std::string::npos) return true;
  for (std::size_t star = text.find("*`"); star != std::string::npos; star = text.find("*`", star + 1)) {
    const auto open = text.rfind('`', star);
    if (open != std::string::npos && name.rfind(text.substr(open + 1, star - open - 1), 0) == 0) return true;
  }
  return false;
}

TEST(ReadmeEnvironment, ListsEveryVariableTheSourcesRead) {
  const std::string paragraph = environment_paragraph(test::read_text(std::string(LINKSCOPE_SOURCE_DIR) + "/README.md"));
  ASSERT_FALSE(paragraph.empty()) << "README has no \"Environment:\" paragraph";
  const auto names = variables_read_in(std::string(LINKSCOPE_SOURCE_DIR) + "/src");
  ASSERT_TRUE(names.count("LINKSCOPE_NCCL_LIBRARY")) << "the scan found the sources";
  for (const auto& name : names) EXPECT_TRUE(documents(paragraph, name)) << name << " is read in src/ but not in README";
}

TEST(ReadmeEnvironment, NoTestSeamIsReadByTheBinarysSources) {
  for (const auto& name : variables_read_in(std::string(LINKSCOPE_SOURCE_DIR) + "/src")) {
    EXPECT_EQ(name.rfind("LINKSCOPE_TEST_", 0), std::string::npos) << name << ": test seams live in tests/support";
  }
}

}  // namespace
}  // namespace linkscope
