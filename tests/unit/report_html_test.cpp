// report.html: one self-contained page (no script, no external resource), every section present, missing sections
// saying so, every inline SVG well-formed XML, user text escaped.
#include <pugixml.hpp>

#include <regex>

#include <gtest/gtest.h>

#include "diagnose/diagnose.hpp"
#include "model/run_file.hpp"
#include "report/html_report.hpp"
#include "support/run_command.hpp"

namespace linkscope::report {
namespace {

std::string html_of(const std::string& fixture_name) {
  model::Run run = model::read_run_file(test::fixture("runs/" + fixture_name));
  diagnose::diagnose_into(run);
  return render_html(run);
}

TEST(ReportHtml, SelfContainedWithEverySection) {
  const std::string html = html_of("h200x2-healthy.json");
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_EQ(html.find("<link"), std::string::npos);
  EXPECT_EQ(html.find("@import"), std::string::npos);
  EXPECT_EQ(html.find("url(http"), std::string::npos);
  // The only absolute URL is the SVG namespace name.
  const std::regex url("(https?:)?//[a-zA-Z0-9.-]+");
  for (auto it = std::sregex_iterator(html.begin(), html.end(), url); it != std::sregex_iterator(); ++it) {
    EXPECT_EQ(it->str(), "http://www.w3.org") << "external reference: " << it->str();
  }
  for (const char* id : {"summary", "findings", "hypotheses", "four-numbers", "topology", "p2p", "patterns",
                         "collectives", "ladder", "environment", "errors", "config"}) {
    EXPECT_NE(html.find(std::string("<section id=\"") + id + "\">"), std::string::npos) << id;
  }
  EXPECT_NE(html.find("393.8 GB/s (82% of link)"), std::string::npos);
}

TEST(ReportHtml, InlineSvgsAreWellFormedWithUniqueIds) {
  const std::string html = html_of("hgx-h200-8gpu-synthetic-gpu5-slow.json");
  std::size_t count = 0, pos = 0;
  std::set<std::string> ids;
  while ((pos = html.find("<svg", pos)) != std::string::npos) {
    const std::size_t end = html.find("</svg>", pos);
    ASSERT_NE(end, std::string::npos);
    const std::string svg = html.substr(pos, end + 6 - pos);
    pugi::xml_document document;
    EXPECT_TRUE(document.load_string(svg.c_str())) << svg.substr(0, 200);
    for (const auto& node : document.select_nodes("//*[@id]")) {
      EXPECT_TRUE(ids.insert(node.node().attribute("id").value()).second) << "duplicate id "
                                                                           << node.node().attribute("id").value();
    }
    ++count;
    pos = end;
  }
  EXPECT_GE(count, 2u);  // topology and the heatmap
}

TEST(ReportHtml, MissingSectionsSaySoInsteadOfVanishing) {
  const std::string html = html_of("hgx-h200-8gpu-model.json");
  for (const char* what : {"P2P copies: not measured in this run.", "NCCL collectives: not measured in this run.",
                           "The path ladder: not measured in this run.",
                           "Concurrent copy patterns: not measured in this run.",
                           "GPU facts (system): not measured in this run."}) {
    EXPECT_NE(html.find(what), std::string::npos) << what;
  }
}

TEST(ReportHtml, UserTextIsEscaped) {
  model::Run run = model::read_run_file(test::fixture("runs/h200x2-healthy.json"));
  run.config.host = "<script>alert(1)</script>";
  run.environment.variables["NCCL_SOCKET_IFNAME"] = "eth0\"><img src=x>";
  const std::string html = render_html(run);
  EXPECT_EQ(html.find("<script>"), std::string::npos);
  EXPECT_EQ(html.find("<img"), std::string::npos);
  EXPECT_NE(html.find("&lt;script&gt;"), std::string::npos);
}

}  // namespace
}  // namespace linkscope::report
