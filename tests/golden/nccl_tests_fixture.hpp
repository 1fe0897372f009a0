#pragma once
// Real nccl-tests 2.19.6 output (tests/fixtures/h200x2/nccl-tests-2.19.6/) read back into the renderer's inputs with a
// deliberately small, test-only reader: every value the renderer needs comes from the file itself, so comparing the
// rendering with the file checks formatting only.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include "report/nccl_tests_text.hpp"
#include "support/run_command.hpp"

namespace linkscope::test {

using report::NcclTestsCell;
using report::NcclTestsDevice;
using report::NcclTestsFooter;
using report::NcclTestsPreamble;
using report::NcclTestsRow;

struct ParsedFixture {
  NcclTestsPreamble preamble;
  std::vector<NcclTestsRow> rows;
  NcclTestsFooter footer;
  std::string nccl_tests_text;  // the file up to the end of nccl-tests' own output
};

inline NcclTestsCell parse_cell(std::istringstream& in) {
  NcclTestsCell cell;
  std::string wrong;
  in >> cell.time_us >> cell.algbw_gbps >> cell.busbw_gbps >> wrong;
  if (wrong != "N/A") cell.wrong = std::strtod(wrong.c_str(), nullptr);
  return cell;
}

// Reads a fixture with a deliberately small, test-only reader: every value the renderer needs comes from
// the file itself, so the comparison checks formatting only.
// `machine` is the fixtures' folder of the machine it ran on (h200x2: 2 x H200, h200x1: one H200).
inline ParsedFixture parse_fixture(const std::string& name, const std::string& machine = "h200x2") {
  const std::string text = read_text(fixture(machine + "/nccl-tests-2.19.6/" + name));
  EXPECT_FALSE(text.empty()) << name;
  ParsedFixture f;
  std::istringstream lines(text);
  std::string line;
  std::size_t consumed = 0;
  bool concluded = false;
  int lines_after_concluded = 0;
  while (std::getline(lines, line)) {
    consumed += line.size() + 1;
    if (concluded && ++lines_after_concluded == 2) break;  // "#" and the empty line end nccl-tests' output
    char program[128] = {};
    unsigned long long min_bytes = 0, max_bytes = 0, step = 0;
    char step_kind[16] = {};
    int code_h = 0, code_l = 0;
    if (std::sscanf(line.c_str(), "# nccl-tests version 2.19.6 nccl-headers=%d nccl-library=%d", &code_h, &code_l) == 2) {
      f.preamble.nccl_headers_code = code_h;
      f.preamble.nccl_library_code = code_l;
    } else if (std::sscanf(line.c_str(), "# Collective test starting: %127s", program) == 1) {
      f.preamble.program = program;
    } else if (std::sscanf(line.c_str(),
                           "# nThread %d nGpus %d minBytes %llu maxBytes %llu step: %llu(%15[a-z]) warmup iters: %d "
                           "iters: %d agg iters: %d validation: %d graph: %d unalign: %d",
                           &f.preamble.threads, &f.preamble.gpus_per_thread, &min_bytes, &max_bytes, &step, step_kind,
                           &f.preamble.warmup_iters, &f.preamble.iters, &f.preamble.agg_iters, &f.preamble.validation,
                           &f.preamble.graph_launches, &f.preamble.unalign) == 12) {
      f.preamble.min_bytes = min_bytes;
      f.preamble.max_bytes = max_bytes;
      f.preamble.step = step;
      f.preamble.step_is_factor = std::string(step_kind) == "factor";
    } else if (line.rfind("#  Rank", 0) == 0) {
      NcclTestsDevice d;
      char host[128] = {}, name_buf[256] = {};
      unsigned domain = 0, bus = 0, device = 0;
      EXPECT_EQ(std::sscanf(line.c_str(), "#  Rank %d Group %d Pid %d on %127s device %d [%x:%x:%x] %255[^\n]", &d.rank,
                            &d.group, &d.pid, host, &d.cuda_device, &domain, &bus, &device, name_buf),
                9)
          << line;
      d.pci_domain = static_cast<int>(domain);
      d.pci_bus = static_cast<int>(bus);
      d.pci_device = static_cast<int>(device);
      d.host = host;
      d.name = name_buf;
      f.preamble.devices.push_back(d);
    } else if (!line.empty() && line[0] != '#') {
      std::istringstream in(line);
      NcclTestsRow row;
      in >> row.size_bytes >> row.count >> row.type >> row.redop >> row.root;
      row.out_of_place = parse_cell(in);
      row.in_place = parse_cell(in);
      f.rows.push_back(row);
    } else if (std::sscanf(line.c_str(), "# Out of bounds values : %d", &f.footer.out_of_bounds) == 1) {
    } else if (std::sscanf(line.c_str(), "# Avg bus bandwidth    : %lf", &f.footer.average_busbw_gbps) == 1) {
    } else if (std::sscanf(line.c_str(), "# Collective test concluded: %127s", program) == 1) {
      f.footer.program = program;
      concluded = true;
    }
  }
  f.nccl_tests_text = text.substr(0, consumed);
  return f;
}

inline std::string render(const ParsedFixture& f) {
  std::string out = report::render_nccl_tests_preamble(f.preamble);
  out += report::render_nccl_tests_header({});
  for (const auto& row : f.rows) out += report::render_nccl_tests_row(row);
  out += report::render_nccl_tests_footer(f.footer);
  return out;
}

}  // namespace linkscope::test
