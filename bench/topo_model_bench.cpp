// NCCL topology model on a synthetic 72-GPU NVSwitch system with 72 NICs: XML parse, graph build, every BFS,
// NCCL's rewrites and all P2P/GDR decisions (load_topology_string), and the nccl-log rendering. Target: the
// model in <= 50 ms on one core, for every NCCL release modelled (the argument indexes reference_releases()). The
// XML: synthetic_72gpu_xml.hpp; measured numbers: bench/NOTES.md.
#include <benchmark/benchmark.h>

#include <string>

#include "core/environment.hpp"
#include "synthetic_72gpu_xml.hpp"
#include "topo/topology_model.hpp"
#include "topo/nccl_versions.hpp"

namespace {

linkscope::topo::ModelledVersion release(benchmark::State& state) {
  const auto version = linkscope::topo::reference_releases().at(static_cast<std::size_t>(state.range(0)));
  state.SetLabel("NCCL " + version.text());
  return linkscope::topo::model_version_for(version);
}

int last_release() { return static_cast<int>(linkscope::topo::reference_releases().size()) - 1; }

void BM_TopologyModel72Gpus72Nics(benchmark::State& state) {
  const std::string xml = linkscope::bench::synthetic_72_gpu_xml();
  const auto env = linkscope::Environment::from_map({});
  const auto version = release(state);
  std::size_t paths = 0;
  for (auto _ : state) {
    const auto model = linkscope::topo::load_topology_string(xml, "synthetic-72gpu.xml", env, version);
    paths = model.p2p.size() + model.gdr.size();
    benchmark::DoNotOptimize(paths);
  }
  state.counters["xml_bytes"] = static_cast<double>(xml.size());
  state.counters["decisions"] = static_cast<double>(paths);
}
BENCHMARK(BM_TopologyModel72Gpus72Nics)->DenseRange(0, last_release())->Unit(benchmark::kMillisecond);

void BM_NcclLogRendering72Gpus72Nics(benchmark::State& state) {
  const auto model = linkscope::topo::load_topology_string(linkscope::bench::synthetic_72_gpu_xml(),
                                                           "synthetic-72gpu.xml", linkscope::Environment::from_map({}),
                                                           release(state));
  for (auto _ : state) benchmark::DoNotOptimize(linkscope::topo::render_nccl_log(model));
}
BENCHMARK(BM_NcclLogRendering72Gpus72Nics)->DenseRange(0, last_release())->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
