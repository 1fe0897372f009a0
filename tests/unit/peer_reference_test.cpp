// peer_reference: the value most identical peers share. It is binary searches over the sorted values now (counting
// against every value made 256 GPUs take minutes); it must choose exactly what counting every value chose.
#include <algorithm>
#include <cmath>
#include <optional>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "diagnose/rules.hpp"

namespace linkscope::diagnose {
namespace {

// The definition, by counting every value for every candidate.
std::optional<double> by_counting(const std::vector<double>& values, double tolerance) {
  std::optional<double> best;
  std::size_t best_count = 0;
  for (const double candidate : values) {
    const auto count = static_cast<std::size_t>(std::count_if(values.begin(), values.end(), [&](double v) {
      const double scale = std::max(std::fabs(candidate), std::fabs(v));
      return scale == 0 ? true : std::fabs(candidate - v) <= tolerance * scale;
    }));
    if (count > best_count || (count == best_count && best && candidate > *best)) {
      best = candidate;
      best_count = count;
    }
  }
  return best;
}

TEST(PeerReference, ChoosesWhatCountingEveryValueChooses) {
  std::mt19937 random(13);
  const std::vector<double> pool = {-20, -19.5, -1, 0, 0, 1, 17.9, 18, 18, 18.5, 20, 25.78, 26.56, 40.1};
  for (const double tolerance : {0.0, 0.02, 0.05, 0.5, 0.99, 1.0, 1.5, 3.0}) {
    for (int trial = 0; trial < 300; ++trial) {
      std::vector<double> values(1 + random() % 12);
      for (double& v : values) v = pool[random() % pool.size()];
      ASSERT_EQ(peer_reference(values, tolerance), by_counting(values, tolerance)) << "tolerance " << tolerance;
    }
  }
  EXPECT_EQ(peer_reference({}, 0.05), std::nullopt);
}

TEST(PeerReference, TiesGoToTheLargerAndToleranceGroupsNearValues) {
  EXPECT_EQ(peer_reference({12, 18, 12, 18}, 0), 18.0);
  EXPECT_EQ(peer_reference({18, 18, 17, 12}, 0), 18.0);
  // 25.78 and 26.56 are 3% apart: one group within 5%, the larger chosen among equal counts.
  EXPECT_EQ(peer_reference({25.78, 26.56, 40.1}, 0.05), 26.56);
}

TEST(PeerReference, TenThousandValuesPickTheMajority) {
  // 512 GPUs x 18 NVLink versions, as rule nvlink-link-down asks for every GPU: counting took ~85 million steps.
  std::vector<double> values;
  for (int i = 0; i < 512 * 18; ++i) values.push_back(i % 3 == 0 ? 3.0 : 4.0);  // 3072 at 3.0, 6144 at 4.0
  EXPECT_EQ(peer_reference(values, 0.05), 4.0);
  EXPECT_EQ(peer_reference(values, 0.5), 4.0);  // 3.0 is within 50% of 4.0: one group, the larger value
  values.push_back(3.9);
  EXPECT_EQ(peer_reference(values, 0.05), 4.0);
}

}  // namespace
}  // namespace linkscope::diagnose
