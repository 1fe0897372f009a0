// GPU <-> NIC relations for the cross-host tests (src/discover/gpu_nic_relations): the synthetic two-socket
// machine of discover_fake_sysfs.hpp, where nvidia-smi would print GPU0-NIC0 PIX and GPU2-NIC0 SYS.
#include <gtest/gtest.h>

#include "discover/gpu_nic_relations.hpp"
#include "discover/live_model_check.hpp"
#include "discover/xml_synthesis.hpp"
#include "discover_fake_sysfs.hpp"
#include "support/model_versions.hpp"

namespace linkscope::discover {
namespace {

class ClusterGpuNics : public ::testing::Test {
 protected:
  void SetUp() override {
    test::build_two_socket_machine(fs_);
    NvmlSnapshot nvml;
    nvml.available = true;
    CudaSnapshot cuda;
    cuda.available = true;
    const std::vector<std::string> bdfs = {"0000:03:00.0", "0000:04:00.0", "0000:83:00.0"};
    for (unsigned i = 0; i < bdfs.size(); ++i) {
      NvmlGpuRecord gpu;
      gpu.index = i;
      gpu.uuid = "GPU-synthetic-" + std::to_string(i);
      gpu.name = "NVIDIA H100";
      gpu.pci_bus_id = bdfs[i];
      gpu.sm = Fact<int>::known(90);
      nvml.gpus.push_back(gpu);
      CudaDeviceRecord device;
      device.ordinal = static_cast<int>(i);
      device.pci_bus_id = bdfs[i];
      device.sm = 90;
      device.gpu_direct_rdma = Fact<bool>::known(true);
      cuda.devices.push_back(device);
    }
    facts_ = assemble_system_facts(read_host_facts(SysfsRoot(dir_.path())), nvml, cuda, env_);
  }

  test::TempDir dir_;
  test::FakeSysfs fs_{dir_};
  Environment env_ = Environment::from_map({});
  SystemFacts facts_;
};

TEST_F(ClusterGpuNics, RelationsAsNvidiaSmiNamesThemClosestFirst) {
  const SynthesizedTopology topology = synthesize_topology_xml(facts_, env_);
  const auto gpu0 = gpu_nic_relations(facts_, facts_.gpus[0], topology.nets);
  ASSERT_EQ(gpu0.size(), 2u);
  EXPECT_EQ(gpu0[0].nic, "mlx5_0");
  EXPECT_EQ(gpu0[0].relation, "PIX");
  EXPECT_TRUE(gpu0[0].nccl_net);  // an ACTIVE IB port: NCCL's IB transport uses it
  EXPECT_EQ(gpu0[1].nic, "ens5");
  EXPECT_EQ(gpu0[1].relation, "SYS");
  EXPECT_FALSE(gpu0[1].nccl_net);  // with IB available NCCL does not use the socket transport
  const auto gpu2 = gpu_nic_relations(facts_, facts_.gpus[2], topology.nets);
  ASSERT_EQ(gpu2.size(), 2u);
  EXPECT_EQ(gpu2[0].nic, "ens5");
  EXPECT_EQ(gpu2[0].relation, "PIX");
  EXPECT_EQ(gpu2[1].relation, "SYS");
  // The closest NIC NCCL would use, not merely the closest NIC.
  EXPECT_EQ(closest_nic(gpu2, facts_)->nic, "mlx5_0");
  EXPECT_EQ(closest_nic(gpu0, facts_)->nic, "mlx5_0");
  EXPECT_EQ(relation_distance("PIX"), 0);
  EXPECT_LT(relation_distance("NODE"), relation_distance("SYS"));
  EXPECT_EQ(relation_distance("NV18"), 5);
}

TEST_F(ClusterGpuNics, GpuNicsCarryNcclsGpuDirectDecision) {
  const SynthesizedTopology topology = synthesize_topology_xml(facts_, env_);
  const ModelSummary model = model_topology_xml(topology.xml, "synthesized", env_, test::nccl_2_28_9());
  const std::vector<model::GpuNics> gpus = gpu_nics(facts_, topology.nets, &model.view);
  ASSERT_EQ(gpus.size(), 3u);
  EXPECT_EQ(gpus[0].cuda_ordinal, 0);
  EXPECT_EQ(gpus[0].closest, "mlx5_0");
  EXPECT_EQ(gpus[0].closest_relation, "PIX");
  ASSERT_EQ(gpus[0].nics.size(), 2u);
  const auto& hca = gpus[0].nics[0];
  EXPECT_EQ(hca.name, "mlx5_0");
  EXPECT_TRUE(hca.nccl_net);
  // No peer-memory module in the fake sysfs: NCCL marks the NIC gdr=0, so GPUDirect RDMA is off.
  EXPECT_EQ(hca.gdr_read, "Disabled");
  EXPECT_EQ(hca.gdr_write, "Disabled");
  EXPECT_TRUE(hca.gdr_reason.has_value());
  const auto& eth = gpus[0].nics[1];
  EXPECT_FALSE(eth.gdr_write.has_value());
  EXPECT_EQ(eth.gdr_reason, "not one of NCCL's NET devices");
  EXPECT_EQ(gpus[2].closest, "mlx5_0");
  EXPECT_EQ(gpus[2].closest_relation, "SYS");
  // Without a model the relations stay, the GPUDirect modes say why they are unknown.
  const std::vector<model::GpuNics> bare = gpu_nics(facts_, topology.nets, nullptr);
  ASSERT_FALSE(bare.empty());
  ASSERT_FALSE(bare[0].nics.empty());
  EXPECT_EQ(bare[0].nics[0].gdr_reason, "no model of this machine");
}

}  // namespace
}  // namespace linkscope::discover
