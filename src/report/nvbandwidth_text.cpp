#include "report/nvbandwidth_text.hpp"

#include <fmt/format.h>

#include "model/p2p.hpp"

namespace linkscope::report {

std::string render_testcase_matrix(const model::TestcaseMatrix& m, const std::vector<int>& gpus) {
  // nvbandwidth: a 2-wide corner, 10-wide columns, 2 decimals, rows and columns labelled by device.
  const auto label = [&](int index) {
    return index < static_cast<int>(gpus.size()) ? gpus[static_cast<std::size_t>(index)] : index;
  };
  std::string out = m.title + "\n  ";
  for (int c = 0; c < m.columns; ++c) out += fmt::format("{:>10}", label(c));
  out += "\n";
  for (int r = 0; r < m.rows; ++r) {
    out += fmt::format("{:>2}", m.rows == 1 ? 0 : label(r));
    for (int c = 0; c < m.columns; ++c) {
      const auto& v = m.at(r, c);
      out += v ? fmt::format("{:>10.2f}", *v) : fmt::format("{:>10}", "N/A");
    }
    out += "\n";
  }
  out += fmt::format("\nSUM {} {:.2f}\n\n", m.key, m.sum());
  return out;
}

std::string render_testcases_text(const std::vector<model::TestcaseResult>& testcases) {
  std::string out;
  for (const auto& t : testcases) {
    if (t.status == model::PointStatus::kNa) {
      out += fmt::format("Waived: {} {}\n\n", t.name, t.reason);
      continue;
    }
    out += fmt::format("Running {}.\n", t.name);
    for (const auto& m : t.matrices) out += render_testcase_matrix(m, t.gpus);
    for (const auto& c : t.cells) {
      if (c.status == model::PointStatus::kOk) continue;
      out += fmt::format("note: cell [{},{}] {}: {}\n", c.row, c.column, model::to_string(c.status), c.reason);
    }
  }
  return out;
}

}  // namespace linkscope::report
