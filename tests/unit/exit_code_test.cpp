#include "core/exit_code.hpp"

#include <set>

#include <gtest/gtest.h>

#include "core/error.hpp"

namespace linkscope {
namespace {

TEST(ExitCode, DocumentedValues) {
  EXPECT_EQ(to_int(ExitCode::kOk), 0);
  EXPECT_EQ(to_int(ExitCode::kInternal), 1);
  EXPECT_EQ(to_int(ExitCode::kUsage), 2);
  EXPECT_EQ(to_int(ExitCode::kDevice), 3);
  EXPECT_EQ(to_int(ExitCode::kTimeout), 4);
  EXPECT_EQ(to_int(ExitCode::kWrongResults), 5);
  EXPECT_EQ(to_int(ExitCode::kThreshold), 6);
  EXPECT_EQ(to_int(ExitCode::kProblemFound), 7);
  EXPECT_EQ(to_int(ExitCode::kInterrupted), 130);
  EXPECT_EQ(to_int(ExitCode::kNcclTestsRefused), 255);  // nccl-tests' main returning -1
}

TEST(ExitCode, EveryCodeHasADistinctNameAndMeaning) {
  std::set<std::string_view> names;
  for (int i : {0, 1, 2, 3, 4, 5, 6, 7, 130, 255}) {
    const auto code = static_cast<ExitCode>(i);
    EXPECT_NE(exit_code_name(code), "unknown");
    EXPECT_FALSE(exit_code_meaning(code).empty());
    names.insert(exit_code_name(code));
  }
  EXPECT_EQ(names.size(), 10u);
}

TEST(Errors, CarryTheirExitCode) {
  EXPECT_EQ(UsageError("x").code(), ExitCode::kUsage);
  EXPECT_EQ(DeviceError("x").code(), ExitCode::kDevice);
  EXPECT_EQ(TimeoutError("x").code(), ExitCode::kTimeout);
  const InputError input("topo.xml", 12, "missing attribute sm");
  EXPECT_STREQ(input.what(), "topo.xml:12: missing attribute sm");
  EXPECT_EQ(input.code(), ExitCode::kUsage);
  EXPECT_STREQ(InputError("topo.xml", 0, "cannot open").what(), "topo.xml: cannot open");
}

}  // namespace
}  // namespace linkscope
