#pragma once
// Reads the expected-output files of tests/fixtures/topo*/expected-nccl-2.28.9/: NCCL INFO lines (prefix
// stripped) split into the part before the system block, the system block and the path lines, plus the
// harness's P2P and GDR decision lines. Shared by the topology golden tests.
#include <map>
#include <string>
#include <vector>

namespace linkscope::test {

struct ExpectedP2p {
  int src_rank = 0;
  int dst_rank = 0;
  std::string path_type;
  int count = 0;
  std::string bw;
  int p2p = 0;
  int read = 0;
  int intermediate_rank = -1;
};

struct ExpectedGdr {
  int rank = 0;
  std::string net;  // "NET/0-0"
  std::string path_type;
  int count = 0;
  std::string bw;
  std::string write_mode;
  std::string read_mode;
};

struct ExpectedOutput {
  std::vector<std::string> before_block;  // INFO lines before "=== System"
  std::vector<std::string> system_block;  // "=== System ..." through the "=====" line
  std::vector<std::string> path_lines;    // "GPU/..." and "NET/..." lines after the block
  std::vector<ExpectedP2p> p2p;
  std::vector<ExpectedGdr> gdr;
};

// One expected file and the XML and environment it belongs to.
struct TopoGoldenCase {
  std::string name;           // file stem, e.g. "leonardo-booster-4xa100-nvlink-mesh-4nic__NCCL_P2P_LEVEL-PIX"
  std::string xml_path;
  std::string xml_name;       // base name as NCCL printed it in "Loading topology file"
  std::string expected_path;
  std::map<std::string, std::string> env;  // from "__NCCL_X-V" parts of the name
};

ExpectedOutput parse_expected_output(const std::string& text);
// Every *.txt in tests/fixtures/{topo,topo-variants}/expected-nccl-2.28.9/, sorted by name. The XML is
// looked up beside the expected directory, then in tests/fixtures/topo/.
std::vector<TopoGoldenCase> discover_topo_golden_cases();

}  // namespace linkscope::test
