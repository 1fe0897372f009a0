// Reading topology XML: what NCCL keeps, what is refused with FILE:LINE, and what NCCL's own reader would refuse.
#include <gtest/gtest.h>

#include "core/error.hpp"
#include "support/run_command.hpp"
#include "topo/nccl_xml_conformance.hpp"
#include "topo/xml_reader.hpp"

namespace linkscope::topo {
namespace {

std::string error_of(const std::string& text) {
  try {
    read_topology_xml(text, "t.xml");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(TopoXmlReader, KeepsWhatNcclKeepsAndLogsTheRest) {
  const std::string text =
      "<system version=\"1\" name=\"demo\">\n"
      "  <cpu numaid=\"0\" arch=\"x86_64\" vendor=\"GenuineIntel\" familyid=\"6\" modelid=\"85\">\n"
      "    <foo a=\"1\"><pci busid=\"0000:01:00.0\"/></foo>\n"
      "    <pci busid=\"0000:02:00.0\" class=\"0x060400\" link_speed=\"\" link_width=\"16\">\n"
      "      <gpu dev=\"0\" sm=\"80\" rank=\"0\" gdr=\"1\"><bar/><nvlink target=\"x\" count=\"1\" tclass=\"0x03\"/></gpu>\n"
      "    </pci>\n"
      "  </cpu>\n"
      "</system>\n"
      "<trailer/>\n";
  const XmlDocument doc = read_topology_xml(text, "t.xml");
  ASSERT_EQ(doc.system.children.size(), 1u);
  const XmlElement& cpu = doc.system.children[0];
  EXPECT_EQ(cpu.line, 2);
  ASSERT_EQ(cpu.children.size(), 1u);  // <foo> dropped with its subtree
  const XmlElement& gpu = cpu.children[0].children[0];
  EXPECT_EQ(gpu.name, "gpu");
  ASSERT_EQ(gpu.children.size(), 1u);  // <bar> dropped
  EXPECT_EQ(gpu.children[0].name, "nvlink");
  EXPECT_EQ(*gpu.children[0].attribute("count"), "1");
  EXPECT_EQ(gpu.children[0].attribute("missing"), nullptr);
  const std::vector<std::string> expected{"Loading topology demo", "Ignoring element foo", "Ignoring element bar",
                                          "Ignoring element trailer"};
  EXPECT_EQ(doc.info_lines, expected);
}

TEST(TopoXmlReader, KeepsTheFirstSixteenAttributes) {
  std::string attributes;
  for (int i = 0; i < 18; ++i) attributes += " a" + std::to_string(i) + "=\"" + std::to_string(i) + "\"";
  const XmlDocument doc = read_topology_xml("<system version=\"1\"><cpu" + attributes + "/></system>", "t.xml");
  EXPECT_EQ(doc.system.children[0].attributes.size(), 16u);
  EXPECT_EQ(doc.info_lines.size(), 3u);  // "Loading unnamed topology" and one line per extra attribute
  EXPECT_EQ(doc.info_lines[1], "XML Parse : Ignoring extra attributes (max 16)");
}

TEST(TopoXmlReader, ValuesStayRaw) {
  const XmlDocument doc = read_topology_xml("<system version=\"1\"><cpu numaid=\"&amp;\"/></system>", "t.xml");
  EXPECT_EQ(*doc.system.children[0].attribute("numaid"), "&amp;");  // NCCL does not decode entities either
}

TEST(TopoXmlReader, RefusesBrokenInputWithFileAndLine) {
  EXPECT_EQ(error_of(""), "t.xml:1: no XML element found (empty file?)");
  EXPECT_EQ(error_of("<system version=\"1\">\n  <cpu numaid=\"0\">\n</system>\n").rfind("t.xml:3: malformed XML", 0), 0u)
      << error_of("<system version=\"1\">\n  <cpu numaid=\"0\">\n</system>\n");
  const std::string truncated = error_of("<system version=\"1\">\n  <cpu numaid=\"0\" arch=\"x8");
  EXPECT_EQ(truncated.rfind("t.xml:2: malformed XML", 0), 0u) << truncated;
  EXPECT_NE(truncated.find("truncated"), std::string::npos) << truncated;
  EXPECT_EQ(error_of("<topology>\n</topology>"),
            "t.xml:1: root element is <topology>; an NCCL topology file starts with <system version=\"1\">");
  EXPECT_EQ(error_of("\n<system>\n</system>"),
            "t.xml:2: <system> has no version attribute (NCCL: Attribute version of node system not found)");
  EXPECT_NE(error_of("<system version=\"2\"/>").find("wrong version 2, 1 needed"), std::string::npos);
  const char binary[] = "<system version=\"1\">\n\n<cpu/>\0\n</system>";
  EXPECT_EQ(error_of(std::string(binary, sizeof binary - 1)), "t.xml:3: binary data (a NUL byte): not an XML text file");
}

TEST(TopoXmlReader, RefusesDtdsAndEntities) {
  const std::string xxe =
      "<?xml version=\"1.0\"?>\n<!DOCTYPE system [<!ENTITY xxe SYSTEM \"file:///etc/passwd\">]>\n"
      "<system version=\"1\"><cpu numaid=\"&xxe;\"/></system>\n";
  EXPECT_EQ(error_of(xxe), "t.xml:2: DOCTYPE declarations (DTDs, entities) are not allowed in a topology file");
  const std::string billion_laughs =
      "<!DOCTYPE lolz [<!ENTITY lol \"lol\"><!ENTITY lol2 \"&lol;&lol;&lol;&lol;\">]>\n<system version=\"1\"/>";
  EXPECT_NE(error_of(billion_laughs).find("DOCTYPE"), std::string::npos);
}

TEST(TopoXmlReader, BoundsNestingAndSize) {
  std::string deep = "<system version=\"1\">\n";
  for (int i = 0; i < 100; ++i) deep += "<pci>\n";
  for (int i = 0; i < 100; ++i) deep += "</pci>\n";
  deep += "</system>\n";
  EXPECT_EQ(error_of(deep), "t.xml:65: elements nested deeper than 64 levels");
  // A million levels: pugixml parses iteratively; the bound stops everything else.
  std::string very_deep;
  for (int i = 0; i < 1000000; ++i) very_deep += "<a>";
  EXPECT_NE(error_of(very_deep).find("malformed XML"), std::string::npos);
  for (int i = 0; i < 1000000; ++i) very_deep += "</a>";
  EXPECT_EQ(error_of(very_deep), "t.xml:1: elements nested deeper than 64 levels");
  EXPECT_NE(error_of(std::string(kMaxTopologyBytes + 1, ' ')).find("too large for a topology file"),
            std::string::npos);
}

TEST(TopoXmlConformance, PublicFixturesLoadInNccl) {
  for (const char* name : {"topo/a100x2-nvlink-bcm-gen5-spr.xml", "topo/azure-ncv4-topo.xml",
                           "topo/azure-ndv4-topo.xml", "topo/hgx-h200-8gpu-nvswitch-vm-socketnic.xml",
                           "topo/leonardo-booster-4xa100-nvlink-mesh-4nic.xml", "h200x2/nccl-topo-dump.xml"}) {
    const auto refusal = nccl_parser_refusal(test::read_text(test::fixture(name)));
    EXPECT_FALSE(refusal.has_value()) << name << ": " << refusal->nccl_message;
  }
}

TEST(TopoXmlConformance, WhatNcclsReaderRefuses) {
  const auto refusal = [](const std::string& text) { return nccl_parser_refusal(text); };
  auto r = refusal("<system version=\"1\">\n\t<cpu numaid=\"0\"/>\n</system>\n");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->line, 2);
  EXPECT_EQ(r->nccl_message, "XML Parse error : expecting '<', got '\\t'");
  r = refusal("<?xml version=\"1.0\"?>\n<system version=\"1\"/>\n");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->nccl_message, "XML Parse : expected >, got '?'");
  r = refusal("<system version=\"1\">\n  <cpu numaid=\"0\"\n       arch=\"x86_64\"/>\n</system>\n");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->line, 2);
  EXPECT_EQ(r->explanation, "a tag split over several lines");
  r = refusal("<system version=\"1\">text</system>");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->explanation, "text between tags");
  r = refusal("<system version=\"1\"><cpu numaid = \"0\"/></system>");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->nccl_message, "XML Parse : Expected (double) quote.");
  r = refusal("<system version=\"1\"><cpu numaid=\"0\"/></system >");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->nccl_message, "XML Parse error : unexpected trailing   in closing tag system");
  r = refusal("<system version=\"1\"><cpu numaid=\"" + std::string(254, '1') + "\"/></system>");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->explanation, "an attribute value of 254 characters or more");
  EXPECT_FALSE(refusal("<system version=\"1\"><cpu numaid=\"" + std::string(253, '1') + "\"/></system>"));
}

TEST(TopoXmlConformance, AcceptsWhatNcclAccepts) {
  EXPECT_FALSE(nccl_parser_refusal("<!-- dump -->\n<system version='1'>\r\n  <cpu numaid=\"0\" />  <!--x-->\n"
                                   "<!---->\n</system>\n"));
  EXPECT_FALSE(nccl_parser_refusal("<system version=\"1\">\n  <cpu  numaid=\"0\"/>\n</system>"));  // empty attribute
}

TEST(TopoXmlConformance, NcclsElementLimits) {
  std::string many = "<system version=\"1\">\n<cpu numaid=\"0\">\n";
  for (int i = 0; i < 129; ++i) many += "<nic/>\n";
  many += "</cpu>\n</system>\n";
  auto r = nccl_parser_refusal(many);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->nccl_message, "Error : XML parser is limited to 128 subnodes");
  EXPECT_EQ(r->line, 131);

  std::string large = "<system version=\"1\">\n";
  for (int c = 0; c < 3; ++c) {
    large += "<cpu numaid=\"" + std::to_string(c) + "\">\n";
    for (int i = 0; i < 100; ++i) large += "<nic/>\n";
    large += "</cpu>\n";
  }
  large += "</system>\n";
  r = nccl_parser_refusal(large);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->nccl_message, "Error : XML parser is limited to 256 nodes");
  // Ignored elements do not count.
  std::string ignored = "<system version=\"1\">\n<cpu numaid=\"0\">\n";
  for (int i = 0; i < 300; ++i) ignored += "<foo/>\n";
  ignored += "</cpu>\n</system>\n";
  EXPECT_FALSE(nccl_parser_refusal(ignored));
}

}  // namespace
}  // namespace linkscope::topo
