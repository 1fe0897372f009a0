// Golden tests: the nccl-tests renderer, fed the numbers of real nccl-tests 2.19.6 runs, must reproduce
// their text byte for byte; and the size/count columns must follow from collective_counts().
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include "plan/collective_spec.hpp"
#include "report/nccl_tests_text.hpp"
#include "support/run_command.hpp"

namespace linkscope {
namespace {

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

NcclTestsCell parse_cell(std::istringstream& in) {
  NcclTestsCell cell;
  std::string wrong;
  in >> cell.time_us >> cell.algbw_gbps >> cell.busbw_gbps >> wrong;
  if (wrong != "N/A") cell.wrong = std::strtod(wrong.c_str(), nullptr);
  return cell;
}

// Reads a fixture with a deliberately small, test-only reader: every value the renderer needs comes from
// the file itself, so the comparison checks formatting only.
ParsedFixture parse_fixture(const std::string& name) {
  const std::string text = test::read_text(test::fixture("h200x2/nccl-tests-2.19.6/" + name));
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

std::string render(const ParsedFixture& f) {
  std::string out = report::render_nccl_tests_preamble(f.preamble);
  out += report::render_nccl_tests_header({});
  for (const auto& row : f.rows) out += report::render_nccl_tests_row(row);
  out += report::render_nccl_tests_footer(f.footer);
  return out;
}

class NcclTestsGolden : public ::testing::TestWithParam<const char*> {};

TEST_P(NcclTestsGolden, RendersTheFixtureByteForByte) {
  const ParsedFixture f = parse_fixture(GetParam());
  ASSERT_EQ(f.rows.size(), 31u);
  ASSERT_EQ(f.preamble.devices.size(), 2u);
  EXPECT_EQ(render(f), f.nccl_tests_text);
}

TEST_P(NcclTestsGolden, SizeAndCountColumnsFollowNcclTestsRounding) {
  const ParsedFixture f = parse_fixture(GetParam());
  std::string op_text = f.preamble.program;
  const auto op = coll::parse_op(op_text);
  ASSERT_TRUE(op.has_value()) << op_text;
  std::uint64_t requested = f.preamble.min_bytes;
  for (const auto& row : f.rows) {
    const auto counts = coll::collective_counts(*op, requested, 4, 2);
    EXPECT_EQ(counts.size_bytes(), row.size_bytes) << op_text << " requested " << requested;
    EXPECT_EQ(counts.param_count, row.count) << op_text << " requested " << requested;
    requested *= f.preamble.step;
  }
}

TEST_P(NcclTestsGolden, FooterAverageIsTheMeanOfEveryCell) {
  // nccl-tests averages busbw over all sizes and both placements; the printed cells are rounded, so the
  // mean of the printed values matches the footer to about the rounding step.
  const ParsedFixture f = parse_fixture(GetParam());
  double sum = 0;
  for (const auto& row : f.rows) sum += row.out_of_place.busbw_gbps + row.in_place.busbw_gbps;
  EXPECT_NEAR(sum / (2.0 * f.rows.size()), f.footer.average_busbw_gbps, 0.01);
}

INSTANTIATE_TEST_SUITE_P(H200x2, NcclTestsGolden,
                         ::testing::Values("ncclt-all_reduce.txt", "ncclt-all_reduce-default-args.txt",
                                           "ncclt-all_gather.txt", "ncclt-alltoall.txt", "ncclt-broadcast.txt",
                                           "ncclt-reduce_scatter.txt", "ncclt-sendrecv.txt"));

TEST(NcclTestsNumber, WidthLimitedDecimalsAsNcclTests) {
  EXPECT_EQ(report::nccl_tests_number(17.0, 7), "  17.00");
  EXPECT_EQ(report::nccl_tests_number(1714.98, 7), "1714.98");
  EXPECT_EQ(report::nccl_tests_number(12401.7, 7), "12401.7");
  EXPECT_EQ(report::nccl_tests_number(124017.0, 7), " 124017");
  EXPECT_EQ(report::nccl_tests_number(1240170.0, 7), "1240170");
  EXPECT_EQ(report::nccl_tests_number(12401700.0, 7), "1.2e+07");
  EXPECT_EQ(report::nccl_tests_number(0.0, 6), "  0.00");
  EXPECT_EQ(report::nccl_tests_number(346.32, 6), "346.32");
  EXPECT_EQ(report::nccl_tests_number(1000.5, 6), "1000.5");
  EXPECT_EQ(report::nccl_tests_number(123456.0, 6), "123456");
  EXPECT_EQ(report::nccl_tests_number(1234567.0, 6), " 1e+06");
}

TEST(NcclTestsRow, NotCheckedCellsPrintNA) {
  NcclTestsRow row;
  row.size_bytes = 32;
  row.count = 4;
  row.type = "float";
  row.redop = "none";
  row.root = -1;
  row.out_of_place = {20.2, 0.0016, 0.0008, 0.0};
  row.in_place = {23.7, 0.00135, 0.000675, std::nullopt};
  EXPECT_EQ(report::render_nccl_tests_row(row),
            "          32             4     float    none      -1    20.20    0.00    0.00       0    23.70    0.00    "
            "0.00    N/A\n");
}

TEST(NcclTestsFooter, MinimumBandwidthCheckAndError) {
  NcclTestsFooter footer;
  footer.program = "all_reduce_perf";
  footer.average_busbw_gbps = 80;
  footer.minimum_busbw = 100;
  footer.out_of_bounds = 2;
  footer.error = "unhandled cuda error";
  EXPECT_TRUE(report::nccl_tests_bandwidth_failed(footer));
  EXPECT_EQ(report::render_nccl_tests_footer(footer),
            "# Out of bounds values : 2 FAILED\n# Avg bus bandwidth    : 80 FAILED\n#\n"
            "# Collective test concluded: all_reduce_perf\n#\n# error: unhandled cuda error\n");
  footer.average_busbw_gbps = 95;
  EXPECT_FALSE(report::nccl_tests_bandwidth_failed(footer));
}

}  // namespace
}  // namespace linkscope
