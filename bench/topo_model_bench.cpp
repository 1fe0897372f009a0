// NCCL topology model on a synthetic 72-GPU NVSwitch system with 72 NICs: XML parse, graph build, every BFS,
// NCCL's rewrites and all P2P/GDR decisions (load_topology_string), and the nccl-log rendering. Target: the
// model in <= 50 ms on one core. The XML: synthetic_72gpu_xml.hpp; measured numbers: bench/NOTES.md.
#include <benchmark/benchmark.h>

#include <string>

#include "core/environment.hpp"
#include "synthetic_72gpu_xml.hpp"
#include "topo/topology_model.hpp"
#include "topo/nccl_versions.hpp"

namespace {

void BM_TopologyModel72Gpus72Nics(benchmark::State& state) {
  const std::string xml = linkscope::bench::synthetic_72_gpu_xml();
  const auto env = linkscope::Environment::from_map({});
  std::size_t paths = 0;
  for (auto _ : state) {
    const auto model = linkscope::topo::load_topology_string(xml, "synthetic-72gpu.xml", env, linkscope::topo::model_version_for(linkscope::topo::newest_modelled_version()));
    paths = model.p2p.size() + model.gdr.size();
    benchmark::DoNotOptimize(paths);
  }
  state.counters["xml_bytes"] = static_cast<double>(xml.size());
  state.counters["decisions"] = static_cast<double>(paths);
}
BENCHMARK(BM_TopologyModel72Gpus72Nics)->Unit(benchmark::kMillisecond);

void BM_NcclLogRendering72Gpus72Nics(benchmark::State& state) {
  const auto model =
      linkscope::topo::load_topology_string(linkscope::bench::synthetic_72_gpu_xml(), "synthetic-72gpu.xml",
                                            linkscope::Environment::from_map({}), linkscope::topo::model_version_for(linkscope::topo::newest_modelled_version()));
  for (auto _ : state) benchmark::DoNotOptimize(linkscope::topo::render_nccl_log(model));
}
BENCHMARK(BM_NcclLogRendering72Gpus72Nics)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
