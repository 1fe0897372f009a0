// Issue 23: a control character in a GPU, host, NIC or process name, a version, a sysfs value or an echoed value
// (ESC sequences, NUL, C1 controls, DEL) reaches no terminal or text file raw: every text output, report.md and
// stderr shows it as "\x1b" instead, and a value never adds a line of its own.
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/run_command.hpp"
#include "support/temp_dir.hpp"
#include "unit/discover_snapshot.hpp"

namespace linkscope {
namespace {

using test::CommandResult;
using test::fixture;
using test::read_text;
using test::run_command;

// ESC sequences (clear screen, window title ended by BEL), NUL, DEL, C1 CSI as UTF-8 and as a lone byte.
const std::string kHostile = std::string("\x1b[2J\x1b]0;owned\x07") + '\0' + "\x7f\xc2\x9b" "31m\x9b" "1m";

// The first raw control byte of `text` and where it is ("" when none): C0 but tab and newline, DEL, U+0080..U+009F
// and a lone C1 byte.
std::string raw_control(const std::string& text) {
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    const bool c0 = (c < 0x20 && c != '\n' && c != '\t') || c == 0x7f;
    const bool c1_utf8 = c == 0xc2 && i + 1 < text.size() && static_cast<unsigned char>(text[i + 1]) <= 0x9f &&
                         static_cast<unsigned char>(text[i + 1]) >= 0x80;
    const bool lone_c1 = c >= 0x80 && c <= 0x9f && (i == 0 || static_cast<unsigned char>(text[i - 1]) < 0x80);
    if (c0 || c1_utf8 || lone_c1) {
      return "byte 0x" + std::to_string(c) + " at " + std::to_string(i) + " in: " + text.substr(i > 40 ? i - 40 : 0, 80);
    }
  }
  return "";
}

void expect_clean(const CommandResult& result, const std::string& what) {
  EXPECT_EQ(raw_control(result.out), "") << what << " (stdout)";
  EXPECT_EQ(raw_control(result.err), "") << what << " (stderr)";
}

// The 2 x H200 run with hostile text in every name and version a renderer prints.
std::string hostile_run(const test::TempDir& dir) {
  nlohmann::json run = nlohmann::json::parse(read_text(fixture("runs/h200x2-healthy.json")));
  run["config"]["host"] = "node" + kHostile;
  run["system"]["driver"]["version"] = "580" + kHostile;
  run["environment"]["nccl_version"] = "2.28" + kHostile;
  for (auto& gpu : run["system"]["gpus"]) {
    gpu["name"] = "NVIDIA H200" + kHostile + "\nGPU 9: injected line";
    gpu["pcie"]["current_speed"] = "32.0 GT/s" + kHostile;
    gpu["processes"] = nlohmann::json::array({{{"pid", 4242}, {"name", "python" + kHostile}}});
  }
  run["system"]["nics"][0]["name"] = "eth0" + kHostile;
  return dir.write("hostile.json", run.dump(1, ' ', false, nlohmann::json::error_handler_t::replace));
}

TEST(ControlCharsCli, SavedRunRendersNoControlCharacter) {
  test::TempDir dir;
  const std::string run = hostile_run(dir);
  for (const char* format : {"text", "md"}) {
    const auto result = run_command(LINKSCOPE_BINARY, {"report", run, "--format", format});
    EXPECT_EQ(result.exit_code, 0) << result.err;
    expect_clean(result, std::string("report --format ") + format);
    EXPECT_NE(result.out.find("\\x1b[2J"), std::string::npos) << result.out;
    EXPECT_EQ(result.out.find("\nGPU 9: injected line"), std::string::npos) << result.out;
  }
  const auto written = run_command(LINKSCOPE_BINARY, {"report", run, "-o", dir.path() + "/out/"});
  EXPECT_EQ(written.exit_code, 0) << written.err;
  expect_clean(written, "report -o DIR/");
  const std::string markdown = read_text(dir.path() + "/out/report.md");
  ASSERT_FALSE(markdown.empty());
  EXPECT_EQ(raw_control(markdown), "") << "report.md";
  EXPECT_NE(markdown.find("\\x1b[2J"), std::string::npos);
  EXPECT_NE(markdown.find("\\x00"), std::string::npos);  // NUL is shown, not kept

  const auto doctor = run_command(LINKSCOPE_BINARY, {"doctor", "--from", run, "-o", dir.path() + "/doctor"});
  expect_clean(doctor, "doctor --from");
  EXPECT_NE(doctor.out.find("\\x1b"), std::string::npos) << doctor.out;
  EXPECT_EQ(raw_control(read_text(dir.path() + "/doctor/report.md")), "") << "doctor's report.md";
}

TEST(ControlCharsCli, CompareShowsHostileNamesAndVersions) {
  test::TempDir dir;
  const std::string run = hostile_run(dir);
  const std::string healthy = fixture("runs/h200x2-healthy.json");
  for (const auto& args : std::vector<std::vector<std::string>>{{"compare", healthy, run}, {"compare", run, healthy}}) {
    const auto result = run_command(LINKSCOPE_BINARY, args);
    expect_clean(result, "compare");
    EXPECT_NE(result.out.find("GPU0 name"), std::string::npos) << result.out;
    EXPECT_NE(result.out.find("\\x1b[2J"), std::string::npos) << result.out;
  }
}

TEST(ControlCharsCli, AnEchoedValueInAnErrorIsOneVisibleLine) {
  test::TempDir dir;
  nlohmann::json run = nlohmann::json::parse(read_text(fixture("runs/h200x2-healthy.json")));
  run["findings"] = nlohmann::json::array({{{"id", "x"}, {"severity", "fatal" + kHostile + "\nlinkscope: all fine"}}});
  const std::string path = dir.write("bad.json", run.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
  const auto result = run_command(LINKSCOPE_BINARY, {"report", path});
  EXPECT_EQ(result.exit_code, 2) << result.err;
  expect_clean(result, "report of a bad run");
  EXPECT_EQ(result.err.find('\n'), result.err.size() - 1) << result.err;
  // An unknown option's name comes back in CLI11's message.
  const auto option = run_command(LINKSCOPE_BINARY, {"report", "--\x1b[2J"});
  EXPECT_EQ(option.exit_code, 2);
  expect_clean(option, "unknown option");
}

// NCCL's topology dump of the 2 x H200 machine with hostile NIC name, CPU vendor and PCI link speed.
std::string hostile_topology(const test::TempDir& dir) {
  std::string xml = read_text(fixture("h200x2/nccl-topo-dump.xml"));
  const auto replace = [&](const std::string& from, const std::string& to) {
    const auto at = xml.find(from);
    ASSERT_NE(at, std::string::npos) << from;
    xml.replace(at, from.size(), to);
  };
  const std::string visible = "\x1b[2J\x1b]0;owned\x07\x7f\xc2\x9b" "31m";  // NUL ends a C string: not in XML
  replace("name=\"eth0\"", "name=\"eth0" + visible + "\"");
  replace("vendor=\"GenuineIntel\"", "vendor=\"GenuineIntel" + visible + "\"");
  replace("link_speed=\"32.0 GT/s PCIe\"", "link_speed=\"32.0 GT/s PCIe" + visible + "\"");
  return dir.write("hostile.xml", xml);
}

TEST(ControlCharsCli, TopologyFileRendersNoControlCharacter) {
  test::TempDir dir;
  const std::string xml = hostile_topology(dir);
  for (const char* format : {"text", "nccl-log"}) {
    const auto result = run_command(LINKSCOPE_BINARY, {"topo", "--xml", xml, "--format", format});
    expect_clean(result, std::string("topo --xml --format ") + format);
  }
  // The text view names the NIC: the hostile name reaches it, shown visibly (NCCL's own lines never name it).
  const auto text = run_command(LINKSCOPE_BINARY, {"topo", "--xml", xml});
  EXPECT_NE(text.out.find("eth0\\x1b[2J"), std::string::npos) << text.out;
  const auto doctor = run_command(LINKSCOPE_BINARY, {"doctor", "--xml", xml, "-o", dir.path() + "/doctor"});
  expect_clean(doctor, "doctor --xml");
  EXPECT_EQ(raw_control(read_text(dir.path() + "/doctor/report.md")), "") << "doctor --xml report.md";
}

TEST(ControlCharsCli, SysfsValuesRenderNoControlCharacter) {
  test::H200x2Snapshot snapshot;
  ASSERT_TRUE(snapshot.ok()) << snapshot.error();
  for (const char* device : {"0000:00:06.0", "0000:00:07.0"}) {
    std::ofstream(snapshot.root() + "/bus/pci/devices/" + device + "/current_link_speed")
        << "32.0 GT/s PCIe" << kHostile << "\n";
  }
  const auto result = run_command(LINKSCOPE_BINARY, {"topo", "--sysfs-root", snapshot.root()},
                                  {"LINKSCOPE_NVML_LIBRARY=/nonexistent/libnvidia-ml.so.1"});
  EXPECT_EQ(result.exit_code, 3) << result.err;
  expect_clean(result, "topo --sysfs-root");
}

}  // namespace
}  // namespace linkscope
