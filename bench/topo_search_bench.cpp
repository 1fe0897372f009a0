// NCCL's graph search, channel setup, tuning model and tuner choices (model_communicator and every
// collective x 31 sizes) on the synthetic 72-GPU NVSwitch system with 72 NICs (synthetic_72gpu_xml.hpp). Target:
// <= 1 s on one core for every NCCL release modelled (the argument indexes reference_releases()). The topology model
// is built once per release, outside the timing; bench/NOTES.md has the numbers.
#include <benchmark/benchmark.h>

#include <map>

#include "core/environment.hpp"
#include "synthetic_72gpu_xml.hpp"
#include "topo/communicator_model.hpp"
#include "topo/prediction_view.hpp"
#include "topo/search_log_printer.hpp"
#include "topo/topology_model.hpp"
#include "topo/nccl_versions.hpp"

namespace {

// The model of every reference release, built once.
const linkscope::topo::TopologyModel& model_72_gpus(benchmark::State& state) {
  static std::map<int64_t, linkscope::topo::TopologyModel> models;
  const int64_t index = state.range(0);
  const auto version = linkscope::topo::reference_releases().at(static_cast<std::size_t>(index));
  state.SetLabel("NCCL " + version.text());
  auto it = models.find(index);
  if (it == models.end()) {
    it = models
             .emplace(index, linkscope::topo::load_topology_string(linkscope::bench::synthetic_72_gpu_xml(),
                                                                   "synthetic-72gpu.xml",
                                                                   linkscope::Environment::from_map({}),
                                                                   linkscope::topo::model_version_for(version)))
             .first;
  }
  return it->second;
}

int last_release() { return static_cast<int>(linkscope::topo::reference_releases().size()) - 1; }

void BM_SearchAndTuning72Gpus72Nics(benchmark::State& state) {
  const auto& model = model_72_gpus(state);
  const auto params = linkscope::topo::resolve_comm_params(linkscope::Environment::from_map({}));
  int64_t steps = 0;
  std::size_t choices = 0;
  for (auto _ : state) {
    const auto comm = linkscope::topo::model_communicator(model, params);
    choices = 0;
    for (int func = 0; func < linkscope::topo::kFuncCount; ++func) {
      choices += linkscope::topo::predict_collective(comm, func).size();
    }
    steps = comm.ring.steps + comm.tree.steps;
    benchmark::DoNotOptimize(choices);
  }
  state.counters["search_steps"] = static_cast<double>(steps);
  state.counters["choices"] = static_cast<double>(choices);
}
BENCHMARK(BM_SearchAndTuning72Gpus72Nics)->DenseRange(0, last_release())->Unit(benchmark::kMillisecond);

// What `topo --format json` and the doctor add to the Run: the same search and tuning, as the typed `graphs` and
// `tuning` (every collective x 31 sizes).
void BM_PredictionView72Gpus72Nics(benchmark::State& state) {
  const auto& model = model_72_gpus(state);
  const auto env = linkscope::Environment::from_map({});
  std::size_t choices = 0;
  for (auto _ : state) {
    const auto prediction = linkscope::topo::predict_topology(model, env);
    choices = prediction.tuning.size();
    benchmark::DoNotOptimize(choices);
  }
  state.counters["choices"] = static_cast<double>(choices);
}
BENCHMARK(BM_PredictionView72Gpus72Nics)->DenseRange(0, last_release())->Unit(benchmark::kMillisecond);

void BM_SearchLogRendering72Gpus72Nics(benchmark::State& state) {
  const auto& model = model_72_gpus(state);
  const auto comm = linkscope::topo::model_communicator(
      model, linkscope::topo::resolve_comm_params(linkscope::Environment::from_map({})));
  for (auto _ : state) benchmark::DoNotOptimize(linkscope::topo::render_search_log(model, comm));
}
BENCHMARK(BM_SearchLogRendering72Gpus72Nics)->DenseRange(0, last_release())->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
