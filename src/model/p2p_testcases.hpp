#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/json_read.hpp"

namespace linkscope::model {

enum class PointStatus;

// One matrix of an nvbandwidth testcase as nvbandwidth lays it out (plan/nvbandwidth_testcases.hpp): `rows` x
// `columns` cells, row-major, each the median over samples in the testcase's unit; nullopt where nvbandwidth prints
// N/A (the diagonal of GPU x GPU matrices, pairs without peer access, cells that failed).
struct TestcaseMatrix {
  std::string key;    // nvbandwidth's SUM key
  std::string title;  // nvbandwidth's heading
  int rows = 0, columns = 0;
  std::vector<std::optional<double>> values;
  std::optional<double>& at(int row, int column) { return values.at(static_cast<std::size_t>(row * columns + column)); }
  const std::optional<double>& at(int row, int column) const {
    return values.at(static_cast<std::size_t>(row * columns + column));
  }
  double sum() const;  // nvbandwidth's "SUM" line: N/A cells count 0
};

// How one cell was measured (its copies ran together behind one gate).
struct TestcaseCell {
  int row = 0, column = 0;
  int copies = 0;                 // copies that ran together for the cell
  int ops_per_sample = 0;
  std::size_t samples = 0;
  double cv = 0;                  // of the reported value over samples
  std::uint64_t wrong = 0;        // mismatching 4-byte words over every copy's destination and sample
  PointStatus status{};
  std::string reason;
  nlohmann::json extra;
};

// `linkscope p2p --testcase NAME`: one nvbandwidth testcase. status na = skipped on this machine (the reason, e.g.
// "needs 2 GPUs (1 visible)"); error/timeout/wrong: some cell failed (see cells).
struct TestcaseResult {
  std::string name;
  std::string unit;               // "GB/s" or "ns"
  std::uint64_t bytes = 0;        // per copy; latency: the chain's footprint
  std::vector<int> gpus;          // the GPU of each column (and of each row of GPU x GPU matrices)
  std::vector<TestcaseMatrix> matrices;
  std::vector<TestcaseCell> cells;
  PointStatus status{};
  std::string reason;
  nlohmann::json extra;
};

nlohmann::json to_json(const TestcaseResult& result);
TestcaseResult testcase_result_from_json(const JsonReader& item);

}  // namespace linkscope::model
