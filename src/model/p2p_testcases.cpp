#include "model/p2p_testcases.hpp"

#include "model/p2p.hpp"

namespace linkscope::model {

double TestcaseMatrix::sum() const {
  double total = 0;
  for (const auto& v : values) total += v.value_or(0.0);
  return total;
}

namespace {

nlohmann::json rows_json(const TestcaseMatrix& m) {
  nlohmann::json rows = nlohmann::json::array();
  for (int r = 0; r < m.rows; ++r) {
    nlohmann::json row = nlohmann::json::array();
    for (int c = 0; c < m.columns; ++c) row.push_back(optional_json(m.at(r, c)));
    rows.push_back(row);
  }
  return rows;
}

// "values": [[number|null, ...], ...], every row as long as the first.
void read_rows(const JsonReader& item, TestcaseMatrix& m) {
  const nlohmann::json rows = item.raw("values");
  if (rows.is_null()) return;
  if (!rows.is_array()) item.fail("values", "expected an array of rows");
  m.rows = static_cast<int>(rows.size());
  m.columns = rows.empty() ? 0 : static_cast<int>(rows.front().is_array() ? rows.front().size() : 0);
  for (const auto& row : rows) {
    if (!row.is_array() || static_cast<int>(row.size()) != m.columns) {
      item.fail("values", "expected rows of " + std::to_string(m.columns) + " cells");
    }
    for (const auto& cell : row) {
      if (cell.is_null()) {
        m.values.emplace_back();
      } else if (cell.is_number()) {
        m.values.emplace_back(cell.get<double>());
      } else {
        item.fail("values", "expected numbers or null in every row");
      }
    }
  }
}

}  // namespace

nlohmann::json to_json(const TestcaseResult& t) {
  nlohmann::json matrices = nlohmann::json::array();
  for (const auto& m : t.matrices) {
    matrices.push_back({{"key", m.key}, {"title", m.title}, {"values", rows_json(m)}, {"sum", m.sum()}});
  }
  nlohmann::json cells = nlohmann::json::array();
  for (const auto& c : t.cells) {
    cells.push_back(with_extras({{"row", c.row}, {"column", c.column}, {"copies", c.copies},
                                 {"ops_per_sample", c.ops_per_sample}, {"samples", c.samples}, {"cv", c.cv},
                                 {"wrong", c.wrong}, {"status", to_string(c.status)},
                                 {"reason", string_or_null(c.reason)}},
                                c.extra));
  }
  return with_extras({{"name", t.name}, {"unit", t.unit}, {"bytes", t.bytes}, {"gpus", t.gpus},
                      {"matrices", matrices}, {"cells", cells}, {"status", to_string(t.status)},
                      {"reason", string_or_null(t.reason)}},
                     t.extra);
}

TestcaseResult testcase_result_from_json(const JsonReader& item) {
  TestcaseResult t;
  t.name = item.string_or("name");
  t.unit = item.string_or("unit");
  t.bytes = item.count("bytes").value_or(0);
  for (auto gpu : item.integers("gpus")) t.gpus.push_back(static_cast<int>(gpu));
  for (const auto& m : item.array("matrices")) {
    TestcaseMatrix matrix;
    matrix.key = m.string_or("key");
    matrix.title = m.string_or("title");
    read_rows(m, matrix);
    m.skip({"sum"});  // derived when written
    t.matrices.push_back(std::move(matrix));
  }
  for (const auto& c : item.array("cells")) {
    TestcaseCell cell;
    cell.row = c.small_int("row").value_or(0);
    cell.column = c.small_int("column").value_or(0);
    cell.copies = c.small_int("copies").value_or(0);
    cell.ops_per_sample = c.small_int("ops_per_sample").value_or(0);
    cell.samples = c.count("samples").value_or(0);
    cell.cv = c.number("cv").value_or(0.0);
    cell.wrong = c.count("wrong").value_or(0);
    cell.status = point_status_from_json(c);
    cell.reason = c.string_or("reason");
    cell.extra = c.extras();
    t.cells.push_back(std::move(cell));
  }
  t.status = point_status_from_json(item);
  t.reason = item.string_or("reason");
  t.extra = item.extras();
  return t;
}

}  // namespace linkscope::model
