#pragma once
// Reads the expected-output files of tests/fixtures/topo*/expected-nccl-X.Y.Z/: NCCL INFO lines (prefix
// stripped) split into the part before the system block, the system block and the path lines, plus the
// harness's P2P and GDR decision lines. Shared by the topology golden tests.
#include <map>

#include "topo/nccl_versions.hpp"
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
  std::string nccl_version;                // the release that printed it, from the folder name ("2.29.7")
};

ExpectedOutput parse_expected_output(const std::string& text);
// A log line without its "host:pid:tid [dev] NCCL INFO " prefix (lines without one are returned as they are).
std::string strip_prefix(const std::string& line);
// NCCL's path lines ("GPU/0-1a000 :GPU/0-1a000 (0/5000.0/LOC) ...", "NET/0-0 :...").
bool is_path_line(const std::string& line);
// Each line followed by '\n' (for comparisons that print whole blocks on failure).
std::string joined_lines(const std::vector<std::string>& lines);
// The releases with expected output: every X.Y.Z of a tests/fixtures/topo/expected-nccl-X.Y.Z/ folder, oldest first.
std::vector<std::string> golden_nccl_versions();
// Every *.txt in tests/fixtures/{topo,topo-variants,topo-search-variants}/expected-nccl-X.Y.Z/ of every golden release, sorted by release
// and name. The XML is looked up beside the expected directory, then in tests/fixtures/topo/.
std::vector<TopoGoldenCase> discover_topo_golden_cases();
// The same for tests/fixtures/DIR/`expected_name`/ for each DIR in `dirs`; a name "D-REST" whose XML is not found
// there means tests/fixtures/D/REST.xml (h200x2-nccl-topo-dump: h200x2/nccl-topo-dump.xml).
std::vector<TopoGoldenCase> discover_golden_cases(const std::string& expected_name,
                                                  const std::vector<std::string>& dirs);
// The model of the release that printed the file (outside_supported: not modelled exactly yet, the test skips).
topo::ModelledVersion golden_model_version(const TopoGoldenCase& golden);
// A GoogleTest parameter name for a case: "v2_29_7_" and its file stem, every non-alphanumeric character as '_'.
std::string golden_case_name(const TopoGoldenCase& golden);

}  // namespace linkscope::test
