// NCCL topology model on a synthetic 72-GPU NVSwitch system with 72 NICs: XML parse, graph build, every BFS,
// NCCL's rewrites and all P2P/GDR decisions (load_topology_string), and the nccl-log rendering. Target: the
// model in <= 50 ms on one core. The XML is generated here; see bench/NOTES.md for measured numbers.
#include <benchmark/benchmark.h>

#include <string>

#include <fmt/format.h>

#include "core/environment.hpp"
#include "topo/topology_model.hpp"

namespace {

// Two Intel Emerald Rapids sockets with 36 GPUs each; every B200-class GPU (18 NVLinks to the NVSwitch) shares
// a PCIe Gen5 switch with its own 400G NIC, in NCCL's dump format.
std::string synthetic_72_gpu_xml() {
  std::string xml = "<system version=\"1\">\n";
  for (int socket = 0; socket < 2; ++socket) {
    xml += fmt::format("  <cpu host_hash=\"0x1234\" numaid=\"{}\" affinity=\"ffffffff\" arch=\"x86_64\" "
                       "vendor=\"GenuineIntel\" familyid=\"6\" modelid=\"207\">\n",
                       socket);
    for (int local = 0; local < 36; ++local) {
      const int g = socket * 36 + local;
      xml += fmt::format(
          "    <pci busid=\"{0:04x}:00:00.0\" class=\"0x060400\" vendor=\"0x10b5\" device=\"0xc040\" "
          "subsystem_vendor=\"0x10b5\" subsystem_device=\"0xc040\" link_speed=\"32.0 GT/s PCIe\" link_width=\"16\">\n"
          "      <pci busid=\"{0:04x}:01:00.0\" class=\"0x030200\" vendor=\"0x10de\" device=\"0x2901\" "
          "subsystem_vendor=\"0x10de\" subsystem_device=\"0x1999\" link_speed=\"32.0 GT/s PCIe\" link_width=\"16\">\n"
          "        <gpu dev=\"{1}\" sm=\"100\" rank=\"{1}\" gdr=\"1\">\n"
          "          <nvlink target=\"fffffff:ff:ff.0\" count=\"18\" tclass=\"0x068000\"/>\n"
          "        </gpu>\n"
          "      </pci>\n"
          "      <pci busid=\"{0:04x}:02:00.0\" class=\"0x020700\" vendor=\"0x15b3\" device=\"0x1021\" "
          "subsystem_vendor=\"0x15b3\" subsystem_device=\"0x0023\" link_speed=\"32.0 GT/s PCIe\" link_width=\"16\">\n"
          "        <nic>\n"
          "          <net name=\"mlx5_{1}\" dev=\"{1}\" speed=\"400000\" port=\"1\" latency=\"0.000000\" "
          "guid=\"0x{1:x}\" maxconn=\"131072\" gdr=\"1\"/>\n"
          "        </nic>\n"
          "      </pci>\n"
          "    </pci>\n",
          g, g);
    }
    xml += "  </cpu>\n";
  }
  return xml + "</system>\n";
}

void BM_TopologyModel72Gpus72Nics(benchmark::State& state) {
  const std::string xml = synthetic_72_gpu_xml();
  const auto env = linkscope::Environment::from_map({});
  std::size_t paths = 0;
  for (auto _ : state) {
    const auto model = linkscope::topo::load_topology_string(xml, "synthetic-72gpu.xml", env);
    paths = model.p2p.size() + model.gdr.size();
    benchmark::DoNotOptimize(paths);
  }
  state.counters["xml_bytes"] = static_cast<double>(xml.size());
  state.counters["decisions"] = static_cast<double>(paths);
}
BENCHMARK(BM_TopologyModel72Gpus72Nics)->Unit(benchmark::kMillisecond);

void BM_NcclLogRendering72Gpus72Nics(benchmark::State& state) {
  const auto model =
      linkscope::topo::load_topology_string(synthetic_72_gpu_xml(), "synthetic-72gpu.xml", linkscope::Environment::from_map({}));
  for (auto _ : state) benchmark::DoNotOptimize(linkscope::topo::render_nccl_log(model));
}
BENCHMARK(BM_NcclLogRendering72Gpus72Nics)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
