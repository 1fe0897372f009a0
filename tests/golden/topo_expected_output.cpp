#include "topo_expected_output.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <filesystem>
#include <regex>
#include <sstream>
#include <stdexcept>

#include "support/run_command.hpp"

namespace linkscope::test {

std::string strip_prefix(const std::string& line) {
  static const std::string kMarker = " NCCL INFO ";
  const auto at = line.find(kMarker);
  return at == std::string::npos ? line : line.substr(at + kMarker.size());
}

bool is_path_line(const std::string& line) {
  static const std::regex kPathLine(R"(^(GPU|NET)/[0-9a-f]+-[0-9a-f]+ :.*)");
  return std::regex_match(line, kPathLine);
}

std::string joined_lines(const std::vector<std::string>& lines) {
  std::string text;
  for (const auto& line : lines) text += line + "\n";
  return text;
}

ExpectedOutput parse_expected_output(const std::string& text) {
  static const std::regex kP2p(
      R"(HARNESS: P2P rank (\d+) -> rank (\d+) : path (\w+) count (\d+) bw ([0-9.]+) : p2p (\d) read (\d) )"
      R"(intermediateRank (-?\d+).*)");
  static const std::regex kGdr(
      R"(HARNESS: GDR rank (\d+) -> (\S+) \(dev \d+\) : path (\w+) count (\d+) bw ([0-9.]+) : )"
      R"(gdr\(write\) (\w+) gdr\(read\) (\w+))");
  ExpectedOutput out;
  enum { kBefore, kBlock, kPaths, kAfter } state = kBefore;
  std::istringstream in(text);
  std::string raw;
  while (std::getline(in, raw)) {
    std::smatch m;
    if (raw.rfind("HARNESS:", 0) == 0) {
      if (std::regex_match(raw, m, kP2p)) {
        out.p2p.push_back({std::stoi(m[1]), std::stoi(m[2]), m[3], std::stoi(m[4]), m[5], std::stoi(m[6]),
                           std::stoi(m[7]), std::stoi(m[8])});
      } else if (std::regex_match(raw, m, kGdr)) {
        out.gdr.push_back({std::stoi(m[1]), m[2], m[3], std::stoi(m[4]), m[5], m[6], m[7]});
      }
      if (state == kPaths) state = kAfter;
      continue;
    }
    const std::string line = strip_prefix(raw);
    switch (state) {
      case kBefore:
        if (line.rfind("=== System", 0) == 0) {
          state = kBlock;
          out.system_block.push_back(line);
        } else {
          out.before_block.push_back(line);
        }
        break;
      case kBlock:
        out.system_block.push_back(line);
        if (line == std::string(42, '=')) state = kPaths;
        break;
      case kPaths:
        if (is_path_line(line)) {
          out.path_lines.push_back(line);
        } else {
          state = kAfter;
        }
        break;
      case kAfter: break;
    }
  }
  return out;
}

std::vector<std::string> golden_nccl_versions() {
  namespace fs = std::filesystem;
  static const std::regex kFolder(R"(expected-nccl-(\d+)\.(\d+)\.(\d+))");
  std::vector<std::array<int, 3>> found;
  for (const auto& entry : fs::directory_iterator(fixture("topo"))) {
    std::smatch m;
    const std::string name = entry.path().filename().string();
    if (entry.is_directory() && std::regex_match(name, m, kFolder)) {
      found.push_back({std::stoi(m[1]), std::stoi(m[2]), std::stoi(m[3])});
    }
  }
  std::sort(found.begin(), found.end());
  std::vector<std::string> versions;
  for (const auto& v : found) versions.push_back(std::to_string(v[0]) + "." + std::to_string(v[1]) + "." + std::to_string(v[2]));
  return versions;
}

std::vector<TopoGoldenCase> discover_topo_golden_cases() {
  std::vector<TopoGoldenCase> cases;
  for (const std::string& version : golden_nccl_versions()) {
    for (auto& golden : discover_golden_cases("expected-nccl-" + version, {"topo", "topo-variants", "topo-search-variants"})) {
      cases.push_back(std::move(golden));
    }
  }
  return cases;
}

std::vector<TopoGoldenCase> discover_golden_cases(const std::string& expected_name,
                                                  const std::vector<std::string>& dirs) {
  namespace fs = std::filesystem;
  std::vector<TopoGoldenCase> cases;
  for (const std::string& dir : dirs) {
    const fs::path expected_dir = fixture(dir + "/" + expected_name);
    if (!fs::is_directory(expected_dir)) continue;
    for (const auto& entry : fs::directory_iterator(expected_dir)) {
      if (entry.path().extension() != ".txt") continue;
      TopoGoldenCase golden;
      golden.name = entry.path().stem().string();
      golden.nccl_version = expected_name.substr(std::string("expected-nccl-").size());
      golden.nccl_version = golden.nccl_version.substr(0, golden.nccl_version.find("-search"));
      golden.expected_path = entry.path().string();
      std::string base = golden.name;
      const auto split = base.find("__");
      if (split != std::string::npos) {
        std::string rest = base.substr(split + 2);
        base = base.substr(0, split);
        while (!rest.empty()) {
          const auto next = rest.find("__");
          const std::string part = rest.substr(0, next);
          const auto dash = part.find('-');
          golden.env[part.substr(0, dash)] = dash == std::string::npos ? "" : part.substr(dash + 1);
          rest = next == std::string::npos ? "" : rest.substr(next + 2);
        }
      }
      golden.xml_name = base + ".xml";
      for (const std::string& xml_dir : {dir, std::string("topo")}) {
        const std::string candidate = fixture(xml_dir + "/" + golden.xml_name);
        if (fs::exists(candidate)) {
          golden.xml_path = candidate;
          break;
        }
      }
      // "h200x2-nccl-topo-dump" names tests/fixtures/h200x2/nccl-topo-dump.xml.
      const auto dash = base.find('-');
      if (golden.xml_path.empty() && dash != std::string::npos &&
          fs::exists(fixture(base.substr(0, dash) + "/" + base.substr(dash + 1) + ".xml"))) {
        golden.xml_name = base.substr(dash + 1) + ".xml";
        golden.xml_path = fixture(base.substr(0, dash) + "/" + golden.xml_name);
      }
      cases.push_back(std::move(golden));
    }
  }
  std::sort(cases.begin(), cases.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
  return cases;
}

topo::ModelledVersion golden_model_version(const TopoGoldenCase& golden) {
  const auto version = topo::parse_nccl_version(golden.nccl_version);
  if (!version) throw std::runtime_error("expected-output folder of no NCCL version: " + golden.expected_path);
  return topo::model_version_for(*version, "the expected output's folder");
}

std::string golden_case_name(const TopoGoldenCase& golden) {
  std::string name;
  for (const char c : "v" + golden.nccl_version + "_" + golden.name) {
    name += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  }
  return name;
}

}  // namespace linkscope::test
