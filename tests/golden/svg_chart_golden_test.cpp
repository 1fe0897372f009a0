// SVG charts for fixed Run documents, byte for byte: deterministic numbers, no timestamps, and well-formed XML.
#include <pugixml.hpp>

#include <gtest/gtest.h>

#include "report/report_data.hpp"
#include "report/report_svgs.hpp"
#include "report_golden.hpp"

namespace linkscope::report {
namespace {

void expect_svg(const std::string& file, const std::string& svg) {
  ASSERT_FALSE(svg.empty()) << file;
  pugi::xml_document document;
  const auto parsed = document.load_string(svg.c_str());
  EXPECT_TRUE(parsed) << file << ": " << parsed.description() << " at offset " << parsed.offset;
  EXPECT_STREQ(document.first_child().name(), "svg") << file;
  EXPECT_EQ(svg.find("<script"), std::string::npos) << file;
  test::expect_golden(file, svg);
}

TEST(SvgGolden, HealthyTwoGpuCharts) {
  const model::Run run = test::diagnosed_fixture("h200x2-healthy.json");
  const ReportData data = collect_report_data(run);
  const auto svgs = report_svgs(data);
  ASSERT_EQ(svgs.size(), 7u);  // topology, 3 heatmaps, CE sizes, collectives, ladder
  for (const auto& svg : svgs) expect_svg("h200x2-healthy." + svg.file, svg.svg);
}

TEST(SvgGolden, EightGpuHeatmapWithOneSlowGpuAndTopology) {
  const model::Run run = test::diagnosed_fixture("hgx-h200-8gpu-synthetic-gpu5-slow.json");
  const ReportData data = collect_report_data(run);
  for (const auto& svg : report_svgs(data)) expect_svg("hgx8-slow." + svg.file, svg.svg);
}

TEST(SvgGolden, TopologyFromTheModelWithAGpuWithoutNvlink) {
  const model::Run run = test::diagnosed_topology_file("topo-variants/hgx-h200-gpu5-no-nvlink.xml");
  const ReportData data = collect_report_data(run);
  const auto svgs = report_svgs(data);
  ASSERT_EQ(svgs.size(), 1u);
  expect_svg("hgx8-no-nvlink.topology.svg", svgs.front().svg);
}

}  // namespace
}  // namespace linkscope::report
