// What `report` and `doctor --from` do with runs far larger than a machine gives (issue 13): read the typed Run,
// diagnose it, render text, Markdown and HTML. Runs: 8 to 512 GPUs in `system` (the 8-GPU fixture's GPU repeated),
// 1,000 to 80,000 p2p sizes (the h200x2 fixture's first pair, both directions). The growth between arguments shows
// the complexity; tests/cli/large_run_cli_test.cpp bounds the wall time. Measured numbers: bench/NOTES.md.
#include <benchmark/benchmark.h>

#include <fstream>
#include <iterator>
#include <string>

#include "diagnose/diagnose.hpp"
#include "model/run_file.hpp"
#include "report/report_render.hpp"
#include "support/large_runs.hpp"

namespace {

using linkscope::report::ReportFormat;

nlohmann::json fixture_run(const std::string& name) {
  std::ifstream in(std::string(LINKSCOPE_FIXTURES_DIR) + "/runs/" + name);
  return nlohmann::json::parse(std::string(std::istreambuf_iterator<char>(in), {}));
}

void read_diagnose_render(benchmark::State& state, const std::string& text, ReportFormat format) {
  for (auto _ : state) {
    linkscope::model::Run run = linkscope::model::parse_run_text(text, "bench.json");
    linkscope::diagnose::diagnose_into(run, true);
    benchmark::DoNotOptimize(linkscope::report::render_report(run, format));
  }
  state.counters["json_bytes"] = static_cast<double>(text.size());
}

void BM_ManyGpus(benchmark::State& state, ReportFormat format) {
  const std::string text =
      linkscope::test::run_with_gpus(fixture_run("hgx-h200-8gpu-synthetic.json"), static_cast<int>(state.range(0)))
          .dump();
  read_diagnose_render(state, text, format);
}

void BM_ManyP2pSizes(benchmark::State& state, ReportFormat format) {
  const std::string text = linkscope::test::run_with_p2p_sizes(fixture_run("h200x2-healthy.json"),
                                                               static_cast<std::uint64_t>(state.range(0)))
                               .dump();
  read_diagnose_render(state, text, format);
}

BENCHMARK_CAPTURE(BM_ManyGpus, text, ReportFormat::kText)
    ->RangeMultiplier(4)
    ->Range(8, 512)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_ManyGpus, md, ReportFormat::kMarkdown)->Arg(512)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_ManyGpus, html, ReportFormat::kHtml)->Arg(512)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_ManyP2pSizes, text, ReportFormat::kText)
    ->RangeMultiplier(4)
    ->Range(1000, 80000)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_ManyP2pSizes, md, ReportFormat::kMarkdown)->Arg(80000)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_ManyP2pSizes, html, ReportFormat::kHtml)->Arg(80000)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
