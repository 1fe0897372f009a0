// Which NCCL release the model follows for a version asked for, and which changes it applies.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "support/run_command.hpp"
#include "topo/nccl_versions.hpp"

namespace linkscope::topo {
namespace {

NcclVersion v(int major, int minor, int patch) { return {major, minor, patch}; }

TEST(NcclVersions, ParsesReleaseNamesAndRefusesOthers) {
  EXPECT_EQ(parse_nccl_version("2.29.7"), v(2, 29, 7));
  EXPECT_EQ(parse_nccl_version("2.29.7-1"), v(2, 29, 7));           // a git tag's release suffix
  EXPECT_EQ(parse_nccl_version("2.28.3+cuda13.0"), v(2, 28, 3));    // NCCL's full version string
  EXPECT_FALSE(parse_nccl_version("2.29"));
  EXPECT_FALSE(parse_nccl_version("v2.29.7"));
  EXPECT_FALSE(parse_nccl_version("2.29.7 "));
  EXPECT_FALSE(parse_nccl_version("2.29.99999"));
  EXPECT_FALSE(parse_nccl_version("2.29.7\x1b[31m"));
}

TEST(NcclVersions, AReleaseInAModelledFamilyFollowsItsOwnFamily) {
  const ModelledVersion r2283 = model_version_for(v(2, 28, 3));
  EXPECT_EQ(r2283.modelled, v(2, 28, 9));
  EXPECT_FALSE(r2283.outside_supported);
  EXPECT_TRUE(r2283.note.empty());
  EXPECT_EQ(model_version_for(v(2, 29, 3)).modelled, v(2, 29, 2));  // before 2.29.7's LL128 change
  EXPECT_EQ(model_version_for(v(2, 29, 7)).modelled, v(2, 29, 7));
  EXPECT_EQ(model_version_for(v(2, 29, 9)).modelled, v(2, 29, 7));  // a later patch: the newest known behaviour
  EXPECT_EQ(model_version_for(v(2, 29, 0)).modelled, v(2, 29, 2));  // before the family's first: its first
}

TEST(NcclVersions, AReleaseOutsideTheModelledFamiliesFollowsTheNearestAndSaysSo) {
  const ModelledVersion old = model_version_for(v(2, 22, 3));
  EXPECT_TRUE(old.outside_supported);
  EXPECT_EQ(old.modelled, v(2, 28, 9));
  EXPECT_NE(old.note.find("2.22.3"), std::string::npos);
  EXPECT_NE(old.note.find("predictions may differ"), std::string::npos);

  const ModelledVersion future = model_version_for(v(2, 31, 2));
  EXPECT_TRUE(future.outside_supported);
  EXPECT_EQ(future.modelled, newest_modelled_version());
  EXPECT_NE(future.note.find("2.31.2"), std::string::npos);
  EXPECT_NE(modelled_version_label(future).find("nearest modelled to the asked 2.31.2"), std::string::npos);
}

TEST(NcclVersions, ChangesApplyFromTheirReleaseOn) {
  const ModelledVersion r2289 = model_version_for(v(2, 28, 9));
  const ModelledVersion r2292 = model_version_for(v(2, 29, 2));
  const ModelledVersion r2297 = model_version_for(v(2, 29, 7));
  EXPECT_FALSE(r2289.has(NcclChange::kGdrDefaultLevelP2c));
  EXPECT_TRUE(r2292.has(NcclChange::kGdrDefaultLevelP2c));
  EXPECT_FALSE(r2292.has(NcclChange::kBlackwellRingLl128Bw40));
  EXPECT_TRUE(r2297.has(NcclChange::kBlackwellRingLl128Bw40));
  EXPECT_FALSE(r2297.has(NcclChange::kPxnNeedsGdr));
}

TEST(NcclVersions, EveryReleaseFromAnUnmodelledChangeOnIsNotExact) {
  // A release is the default, and modelled as itself, only when every change up to it is part of the model.
  for (const auto& change : nccl_changes()) {
    if (change.coverage != Coverage::kNotModelled) continue;
    EXPECT_LT(newest_modelled_version(), change.since) << change.what;
    EXPECT_TRUE(model_version_for(change.since).outside_supported) << change.since.text();
  }
}

TEST(NcclVersions, TheTableIsOrderedAndSaysWhereEachChangeComesFrom) {
  for (std::size_t i = 0; i < nccl_changes().size(); ++i) {
    const auto& change = nccl_changes()[i];
    EXPECT_NE(std::string(change.source).find("src/"), std::string::npos) << change.what;
    if (i > 0) {
      EXPECT_LE(nccl_changes()[i - 1].since, change.since) << change.what;
    }
  }
}

TEST(NcclVersions, TheOptionRefusesTextThatIsNoVersion) {
  std::string error;
  EXPECT_FALSE(model_version_from_option("latest", &error));
  EXPECT_NE(error.find("--nccl-version latest"), std::string::npos);
  EXPECT_EQ(model_version_from_option("2.29.7", &error)->modelled, v(2, 29, 7));
}

}  // namespace
}  // namespace linkscope::topo

namespace linkscope::topo {
namespace {

// docs/topology-model.md's Versions table is this table: every change with its release, source and coverage.
TEST(NcclVersions, TheDocsTableListsEveryChange) {
  const std::string docs = test::read_text(std::string(LINKSCOPE_SOURCE_DIR) + "/docs/topology-model.md");
  const char* kCoverage[] = {"yes", "one node", "**not yet**"};
  for (const auto& change : nccl_changes()) {
    const std::string row_end = fmt::format("| {} | {} | {} |", change.since.text(), change.source,
                                            kCoverage[static_cast<int>(change.coverage)]);
    EXPECT_NE(docs.find(row_end), std::string::npos) << "docs/topology-model.md has no row ending " << row_end;
  }
}

}  // namespace
}  // namespace linkscope::topo
