#include "plan/pair_spec.hpp"

#include <gtest/gtest.h>

#include "core/error.hpp"

namespace linkscope::plan {
namespace {

TEST(PairSpec, ParsesAListOfDirectedPairs) {
  const auto pairs = parse_pairs("0>1,2>3");
  ASSERT_EQ(pairs.size(), 2u);
  EXPECT_EQ(pairs[0], (DirectedPair{0, 1}));
  EXPECT_EQ(pairs[1], (DirectedPair{2, 3}));
  EXPECT_EQ(parse_pairs(" 1 > 0 , 0>0 ")[0], (DirectedPair{1, 0}));
  EXPECT_TRUE(parse_pairs("0>0")[0].local());
  EXPECT_EQ(to_string(pairs), "0>1,2>3");
}

TEST(PairSpec, RejectsBadPairStringsNamingTheItem) {
  for (const char* bad : {"0>0>1", "a>b", "", "0>", ">1", "0-1", "-1>2", "0>1,", "0>1,,2>3", "1>x", "0>12345"}) {
    try {
      parse_pairs(bad);
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const UsageError& e) {
      EXPECT_NE(std::string(e.what()).find("--pairs"), std::string::npos) << e.what();
      EXPECT_EQ(e.code(), ExitCode::kUsage);
    }
  }
  try {
    parse_pairs("0>1,a>b");
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("'a>b'"), std::string::npos) << e.what();
  }
}

TEST(PairSpec, OutOfRangeIdsSayHowManyGpusExist) {
  check_in_range(parse_pairs("0>1,1>0"), 2);
  try {
    check_in_range(parse_pairs("0>1,0>3"), 2);
    ADD_FAILURE() << "accepted GPU 3 on a 2-GPU machine";
  } catch (const UsageError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("GPU 3"), std::string::npos) << what;
    EXPECT_NE(what.find("2 GPUs present (ids 0-1)"), std::string::npos) << what;
  }
  EXPECT_THROW(check_in_range(std::vector<int>{0, 2}, 2), UsageError);
  EXPECT_THROW(check_in_range(parse_pairs("0>0"), 0), UsageError);
}

TEST(PairSpec, DeviceLists) {
  EXPECT_EQ(parse_device_list("0,1,3"), (std::vector<int>{0, 1, 3}));
  EXPECT_THROW(parse_device_list("0,0"), UsageError);
  EXPECT_THROW(parse_device_list("0,x"), UsageError);
  EXPECT_THROW(parse_device_list(""), UsageError);
}

TEST(PairSpec, AllDirectedPairsExcludeTheDiagonalExceptOnOneGpu) {
  const auto pairs = all_directed_pairs({0, 1, 2});
  EXPECT_EQ(to_string(pairs), "0>1,0>2,1>0,1>2,2>0,2>1");
  EXPECT_EQ(to_string(all_directed_pairs({3})), "3>3");
  EXPECT_EQ(to_string(all_directed_pairs(first_devices(2))), "0>1,1>0");
  EXPECT_EQ(devices_of(parse_pairs("3>1,1>0")), (std::vector<int>{0, 1, 3}));
}

TEST(PairSpec, BidirectionalGroupsMergeBothDirections) {
  EXPECT_EQ(to_string(bidirectional_groups(parse_pairs("1>0,0>1,2>2,0>2"))), "0>1,2>2,0>2");
}

}  // namespace
}  // namespace linkscope::plan
