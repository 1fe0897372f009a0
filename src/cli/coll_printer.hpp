#pragma once
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "core/environment.hpp"
#include "measure/collective_run.hpp"
#include "model/collectives.hpp"
#include "model/coll_sampling.hpp"
#include "model/run.hpp"
#include "model/runtime.hpp"
#include "plan/collective_options.hpp"
#include "report/nccl_tests_json.hpp"

namespace linkscope::runtime {
class NcclDebugCapture;
}

namespace linkscope::cli {

// What `linkscope coll` prints while it runs, at rank 0 only (`enabled`): the notes before NCCL starts (stderr), then
// linkscope's table, nccl-tests' preamble, rows and footer byte for byte, or progress lines (with --format json),
// as the sizes arrive through measure::CollectiveProgress.
class CollPrinter {
 public:
  CollPrinter(coll::OutputFormat format, bool enabled, const coll::CollOptions& options,
              std::vector<std::string> args = {});
  ~CollPrinter();
  CollPrinter(const CollPrinter&) = delete;
  CollPrinter& operator=(const CollPrinter&) = delete;

  // The plan's notes, why NCCL's log is not recorded, and (except for nccl-tests) the sizes its rounding changes.
  void on_setup(const measure::CollectiveSetup& setup, const runtime::NcclDebugCapture& capture);
  // nccl-tests: the preamble (every rank's GPU) and the column header.
  void on_started(const std::vector<model::DeviceRecord>& devices);
  void on_size(const model::CollectiveSeries& series, const std::vector<model::CollectivePoint>& points);
  // nccl-tests: the footer (average bus bandwidth, the first error). True when that bandwidth is below
  // NCCL_TESTS_MIN_BW of `env` (nccl-tests then fails).
  // With -J, nccl-tests' JSON document is written then too (`args` and the environment are recorded in it);
  // with -M the memory line comes from `memory`.
  bool print_nccl_tests_footer(const std::vector<model::CollectiveSeries>& results, const Environment& env,
                               const std::optional<measure::MemoryUse>& memory);
  // linkscope's table: the summary under it (peak busbw, failures, wall time, NCCL's transports), from the finished
  // run as `linkscope report` prints it.
  void print_text_footer(const model::Run& run);

 private:
  void open_json_file(const std::string& requested);
  void print_nccl_tests_row(const model::CollectiveSeries& series, const std::vector<model::CollectivePoint>& points);

  coll::OutputFormat format_;
  bool enabled_;
  coll::CollOptions options_;
  measure::CollectiveSetup setup_;
  std::string sampling_;
  int series_printed_ = 0;
  int out_of_bounds_ = 0;
  double busbw_sum_ = 0;
  int cells_ = 0;
  std::vector<std::string> args_;
  // -J: the file opened (exclusively, as nccl-tests opens it) when the run started, and what goes into it.
  std::FILE* json_file_ = nullptr;
  report::NcclTestsJsonDocument json_;
};

// How the plan samples each size, in the words of the table's header (model/coll_sampling).
model::CollSampling coll_sampling_of(const coll::CollPlan& plan);

}  // namespace linkscope::cli
