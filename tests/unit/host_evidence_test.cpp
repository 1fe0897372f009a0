// Host evidence (ACS/ATS, IOMMU, GPUDirect RDMA plumbing, virtualization, NICs) read from planted copies of the real
// h200x2 sysfs snapshot, and the rules judging it: each planted fault gives its finding, the healthy trees none.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include "diagnose/diagnose.hpp"
#include "discover/live_model_check.hpp"
#include "discover/live_system.hpp"
#include "discover/pcie_config.hpp"
#include "discover/xml_synthesis.hpp"
#include "report/topo_live_text.hpp"
#include "discover_recorded_h200x2.hpp"
#include "support/model_versions.hpp"
#include "support/planted_sysfs.hpp"

namespace linkscope::discover {
namespace {

using test::PlantedSysfs;

struct PlantedMachine {
  // The planted GPUs' new bus ids (NVML and CUDA follow them), NVLinks kept or dropped, the user's environment.
  std::map<std::string, std::string> moved_gpus;
  bool nvlinks = true;
  std::map<std::string, std::string> env;
};

model::Run planted_run(const PlantedSysfs& planted, const PlantedMachine& machine = {}) {
  NvmlSnapshot nvml = test::h200x2_nvml_snapshot();
  for (auto& gpu : nvml.gpus) {
    const auto moved = machine.moved_gpus.find(gpu.pci_bus_id);
    if (moved != machine.moved_gpus.end()) gpu.pci_bus_id = moved->second;
    if (!machine.nvlinks) gpu.nvlinks.clear();
  }
  const Environment env = Environment::from_map(machine.env);
  LiveDiscovery live;
  live.facts = assemble_system_facts(read_host_facts(SysfsRoot(planted.root())), nvml,
                                     test::h200x2_cuda_snapshot(nvml, {0, 1}), env);
  live.synthesized = synthesize_topology_xml(live.facts, env);
  const LiveModelCheck check = check_live_model(live, env, test::nccl_2_28_9());
  return topo_live_run(live, check, env, {"linkscope", "topo"});
}

const PlantedMachine kSwitchedGpus{{{"0000:00:06.0", "0000:03:00.0"}, {"0000:00:07.0", "0000:04:00.0"}}, true, {}};

const model::Finding* find(const std::vector<model::Finding>& findings, const std::string& id) {
  const auto it = std::find_if(findings.begin(), findings.end(), [&](const model::Finding& f) { return f.id == id; });
  return it == findings.end() ? nullptr : &*it;
}

std::string all_evidence(const model::Finding& finding) {
  std::string text;
  for (const auto& line : finding.evidence) text += line + "\n";
  return text;
}

void expect_no_warning(const std::vector<model::Finding>& findings) {
  for (const auto& f : findings)
    EXPECT_EQ(f.severity, model::Severity::kInfo) << f.id << ": " << f.title << "\n" << all_evidence(f);
}

// ---- the capability walker ----------------------------------------------------------------------------------

TEST(PcieConfig, FindsAcsAndAtsInTheExtendedList) {
  const std::string config =
      test::pcie_config_space(0x10b5, 0xc010, test::kAcsRequestRedirect | test::kAcsCompletionRedirect, true);
  const auto caps = extended_capabilities(config);
  ASSERT_EQ(caps.size(), 2u);
  EXPECT_EQ(caps[0].id, kExtCapAcs);
  EXPECT_EQ(caps[1].offset, 0x110u);
  const auto acs = acs_registers(config);
  ASSERT_TRUE(acs.has_value());
  EXPECT_EQ(acs->offset, 0x100u);
  EXPECT_EQ(acs_bit_names(acs->control), (std::vector<std::string>{"ReqRedir", "CmpltRedir"}));
  EXPECT_EQ(acs_bit_names(acs->capability).size(), 7u);
  const auto ats = ats_registers(config);
  ASSERT_TRUE(ats.has_value());
  EXPECT_TRUE(ats->enabled);
}

TEST(PcieConfig, WalkIsBoundedOnCyclesAndBadPointers) {
  std::string config(4096, '\0');
  // ACS at 0x100 pointing to itself: one entry, then the cycle ends the walk.
  config[0x100] = 0x0d;
  config[0x102] = 0x01;
  config[0x103] = 0x10;  // next = 0x100
  EXPECT_EQ(extended_capabilities(config).size(), 1u);
  config[0x103] = 0x0c;  // next = 0x0c0: below the extended space
  EXPECT_EQ(extended_capabilities(config).size(), 1u);
  config[0x102] = 0x21;
  config[0x103] = 0x10;  // next = 0x102: not dword-aligned
  EXPECT_EQ(extended_capabilities(config).size(), 1u);
  const std::string truncated = config.substr(0, 0x102);  // the header itself cut short
  EXPECT_TRUE(extended_capabilities(truncated).empty());
  EXPECT_TRUE(extended_capabilities(std::string(4096, '\xff')).empty());
  EXPECT_FALSE(has_extended_config(config.substr(0, 64)));  // what a non-root reader gets
  EXPECT_FALSE(acs_registers(config.substr(0, 64)).has_value());
}

// ---- discovery -------------------------------------------------------------------------------------------------

TEST(HostEvidence, SnapshotOfTheH200x2Vm) {
  PlantedSysfs planted;
  ASSERT_TRUE(planted.ok()) << planted.error();
  const model::Run run = planted_run(planted);
  ASSERT_TRUE(run.system.host_evidence.has_value());
  const model::HostEvidence& e = *run.system.host_evidence;
  EXPECT_EQ(e.iommu.mode, "off");
  EXPECT_TRUE(e.iommu.units.empty());
  EXPECT_FALSE(e.peer_memory.registered);
  EXPECT_TRUE(e.virtualization.hypervisor_flag);
  EXPECT_EQ(e.virtualization.gpus_without_numa, (std::vector<std::string>{"0000:00:06.0", "0000:00:07.0"}));
  EXPECT_EQ(e.virtualization.hidden_nvlink_remotes,
            (std::vector<std::string>{"0000:00:06.0: 18 active link(s) to fffffff:ff:ff.0",
                                      "0000:00:07.0: 18 active link(s) to fffffff:ff:ff.0"}));
  ASSERT_EQ(e.pci_paths.size(), 1u);  // the GPU pair; the virtio NIC is no RDMA device
  EXPECT_TRUE(e.pci_paths[0].ports.empty());
  ASSERT_EQ(e.pci_functions.size(), 2u);
  EXPECT_FALSE(e.pci_functions[0].extended_config);
  EXPECT_EQ(e.pci_functions[0].extended_config_reason, "no config file");
}

TEST(HostEvidence, PlantedSwitchPathsPortsAndJsonRoundTrip) {
  PlantedSysfs planted;
  ASSERT_TRUE(planted.ok()) << planted.error();
  planted.plant_pcie_switch_with_gpus_and_nic();
  planted.set_config("0000:02:00.0", test::pcie_config_space(0x10b5, 0xc010, test::kAcsSourceValidation, std::nullopt));
  planted.add_iommu_unit("dmar0");
  planted.set_iommu_group("0000:03:00.0", 12, "identity");
  planted.write("/proc/cmdline", "BOOT_IMAGE=/vmlinuz root=/dev/sda1 intel_iommu=on iommu=pt quiet\n");
  planted.append_line("/proc/modules", "nvidia_peermem 16384 0 - Live 0x0000000000000000 (OE)");
  planted.write("/sys/module/nvidia_peermem/version", "570.86.15\n");
  planted.write("/proc/sys/kernel/osrelease", "6.8.0-49-generic\n");
  const model::Run run = planted_run(planted, kSwitchedGpus);
  ASSERT_TRUE(run.system.host_evidence.has_value());
  const model::HostEvidence& e = *run.system.host_evidence;
  ASSERT_EQ(e.pci_paths.size(), 3u);  // GPU0-GPU1, GPU0-mlx5_0, GPU1-mlx5_0
  EXPECT_EQ(e.pci_paths[0].relation, "PIX");
  EXPECT_EQ(e.pci_paths[0].ports, (std::vector<std::string>{"0000:02:00.0", "0000:02:01.0"}));
  EXPECT_EQ(e.pci_paths[1].nic, "mlx5_0");
  const model::PciFunctionEvidence* port = e.function("0000:02:00.0");
  ASSERT_NE(port, nullptr);
  EXPECT_EQ(port->role, "switch-port");
  ASSERT_TRUE(port->acs.has_value());
  EXPECT_EQ(port->acs->control, (std::vector<std::string>{"SrcValid"}));
  EXPECT_FALSE(port->acs->redirects());
  ASSERT_NE(e.function("0000:03:00.0"), nullptr);
  EXPECT_TRUE(e.function("0000:03:00.0")->ats.has_value());
  EXPECT_EQ(e.iommu.mode, "passthrough");
  EXPECT_EQ(e.iommu.cmdline_options, (std::vector<std::string>{"intel_iommu=on", "iommu=pt"}));
  EXPECT_EQ(e.peer_memory.modules, (std::vector<std::string>{"nvidia_peermem"}));
  EXPECT_TRUE(e.peer_memory.registered);
  EXPECT_EQ(e.peer_memory.kernel_release, "6.8.0-49-generic");

  const nlohmann::json written = model::to_json(run.system);
  const model::System read = model::system_from_json(model::JsonReader::root(written, "test"));
  EXPECT_EQ(model::to_json(read), written);
}

TEST(HostEvidence, EmulatedBridgesAndHcaPortsSharingAGuid) {
  PlantedSysfs planted;
  ASSERT_TRUE(planted.ok()) << planted.error();
  planted.add_pci_function("", "0000:00:08.0", {"0x060400", "0x104c", "0x8232", -1});  // QEMU's XIO3130 upstream port
  planted.add_pci_function("0000:00:08.0", "0000:01:00.0", {"0x020700", "0x15b3", "0x1021", -1});
  planted.add_pci_function("0000:00:08.0", "0000:01:00.1", {"0x020700", "0x15b3", "0x1021", -1});
  planted.add_rdma_device("mlx5_0", "0000:01:00.0", "0c42:a103:0012:3456");
  planted.add_rdma_device("mlx5_1", "0000:01:00.1", "0c42:a103:0012:3456");
  const model::Run run = planted_run(planted);
  const model::HostEvidence& e = *run.system.host_evidence;
  EXPECT_EQ(e.virtualization.virtual_bridges, (std::vector<std::string>{"0000:00:08.0 (104c:8232)"}));
  ASSERT_EQ(e.shared_node_guids.size(), 1u);
  EXPECT_EQ(e.shared_node_guids[0].nics, (std::vector<std::string>{"mlx5_0", "mlx5_1"}));
  const model::PciFunctionEvidence* bridge = e.function("0000:00:08.0");
  ASSERT_NE(bridge, nullptr);
  EXPECT_EQ(bridge->role, "root-port");
}

// ---- healthy machines: no warning -------------------------------------------------------------------------------

TEST(HostEvidenceRules, HealthyH200x2VmGetsNoWarning) {
  PlantedSysfs planted;
  ASSERT_TRUE(planted.ok()) << planted.error();
  const auto findings = diagnose::find_problems(planted_run(planted));
  expect_no_warning(findings);
  const model::Finding* vm = find(findings, "vm-topology-hidden");
  ASSERT_NE(vm, nullptr);  // the VM is named, as information: its GPUs are NVLinked
  EXPECT_NE(all_evidence(*vm).find("NVLink remote not in the PCI tree"), std::string::npos);
  for (const char* id : {"acs-redirects-p2p", "iommu-translates-p2p", "gdr-unavailable", "nic-not-nearest"}) {
    EXPECT_EQ(find(findings, id), nullptr) << id;
  }
}

TEST(HostEvidenceRules, HealthySwitchWithNicPassthroughAndPeermemGetsNoWarning) {
  PlantedSysfs planted;
  ASSERT_TRUE(planted.ok()) << planted.error();
  planted.plant_pcie_switch_with_gpus_and_nic();
  planted.add_iommu_unit("dmar0");
  for (const char* bdf : {"0000:03:00.0", "0000:04:00.0", "0000:05:00.0"}) planted.set_iommu_group(bdf, 20, "identity");
  planted.write("/sys/module/nvidia_peermem/version", "570.86.15\n");
  planted.write("/proc/sys/kernel/osrelease", "6.8.0-49-generic\n");
  planted.remove_hypervisor_flag();
  expect_no_warning(diagnose::find_problems(planted_run(planted, kSwitchedGpus)));
}

// ---- one planted fault per rule -----------------------------------------------------------------------------------

TEST(HostEvidenceRules, AcsRedirectOnASwitchPortOfAGpuNicPath) {
  PlantedSysfs planted;
  ASSERT_TRUE(planted.ok()) << planted.error();
  planted.plant_pcie_switch_with_gpus_and_nic();
  planted.write("/sys/module/nvidia_peermem/version", "570.86.15\n");
  planted.set_config("0000:02:02.0",
                     test::pcie_config_space(0x10b5, 0xc010,
                                             test::kAcsSourceValidation | test::kAcsRequestRedirect |
                                                 test::kAcsCompletionRedirect | test::kAcsUpstreamForwarding,
                                             std::nullopt));
  const auto findings = diagnose::find_problems(planted_run(planted, kSwitchedGpus));
  const model::Finding* acs = find(findings, "acs-redirects-p2p");
  ASSERT_NE(acs, nullptr);
  EXPECT_EQ(acs->severity, model::Severity::kWarning);
  EXPECT_NE(all_evidence(*acs).find("GPU0 (0000:03:00.0) - mlx5_0 (0000:05:00.0), PIX: switch port 0000:02:02.0 ACSCtl "
                                    "SrcValid+ ReqRedir+ CmpltRedir+ UpstreamFwd+"),
            std::string::npos)
      << all_evidence(*acs);
  EXPECT_NE(acs->next_command.find("sudo setpci -s 0000:02:02.0 ECAP_ACS+6.w"), std::string::npos);
  EXPECT_NE(acs->next_command.find("pci=disable_acs_redir=0000:02:02.0"), std::string::npos);
  EXPECT_EQ(acs->gpus, (std::vector<int>{0, 1}));
  // The same redirect closes GPUDirect RDMA, named there as its cause.
  const model::Finding* gdr = find(findings, "gdr-unavailable");
  ASSERT_NE(gdr, nullptr);
  EXPECT_NE(gdr->cause.find("ACS redirect"), std::string::npos) << gdr->cause;
}

TEST(HostEvidenceRules, AcsRedirectBetweenGpusWithoutNvlinkButNotWithIt) {
  PlantedSysfs planted;
  ASSERT_TRUE(planted.ok()) << planted.error();
  planted.plant_pcie_switch_with_gpus_and_nic();
  planted.set_config("0000:02:00.0", test::pcie_config_space(0x10b5, 0xc010, test::kAcsRequestRedirect, std::nullopt));
  PlantedMachine pcie_only = kSwitchedGpus;
  pcie_only.nvlinks = false;
  const auto pcie_findings = diagnose::find_problems(planted_run(planted, pcie_only));
  const model::Finding* acs = find(pcie_findings, "acs-redirects-p2p");
  ASSERT_NE(acs, nullptr);
  EXPECT_NE(all_evidence(*acs).find("GPU0 (0000:03:00.0) - GPU1 (0000:04:00.0), PIX: switch port 0000:02:00.0"),
            std::string::npos)
      << all_evidence(*acs);
  // NVLinked, the pair's peer traffic never crosses the switch: only the GPU-NIC path through that port remains.
  const auto nvlink_findings = diagnose::find_problems(planted_run(planted, kSwitchedGpus));
  const model::Finding* nvlinked = find(nvlink_findings, "acs-redirects-p2p");
  ASSERT_NE(nvlinked, nullptr);
  EXPECT_EQ(all_evidence(*nvlinked).find("GPU1 (0000:04:00.0), PIX"), std::string::npos) << all_evidence(*nvlinked);
}

TEST(HostEvidenceRules, AcsNotReadableWithoutRootIsSaidNotGuessed) {
  PlantedSysfs planted;
  ASSERT_TRUE(planted.ok()) << planted.error();
  planted.plant_pcie_switch_with_gpus_and_nic();
  planted.write("/sys/module/nvidia_peermem/version", "570.86.15\n");
  planted.set_config("0000:02:02.0",
                     test::pcie_config_space(0x10b5, 0xc010, test::kAcsRequestRedirect, std::nullopt).substr(0, 64));
  const auto findings = diagnose::find_problems(planted_run(planted, kSwitchedGpus));
  const model::Finding* acs = find(findings, "acs-redirects-p2p");
  ASSERT_NE(acs, nullptr);
  EXPECT_EQ(acs->severity, model::Severity::kInfo);
  EXPECT_NE(all_evidence(*acs).find("0000:02:02.0: extended config space not readable (not root)"), std::string::npos)
      << all_evidence(*acs);
}

TEST(HostEvidenceRules, TranslatedIommuOnGpuDirectRdmaPaths) {
  PlantedSysfs planted;
  ASSERT_TRUE(planted.ok()) << planted.error();
  planted.plant_pcie_switch_with_gpus_and_nic();
  planted.write("/sys/module/nvidia_peermem/version", "570.86.15\n");
  planted.add_iommu_unit("dmar0");
  planted.set_iommu_group("0000:03:00.0", 30, "DMA-FQ");
  planted.set_iommu_group("0000:04:00.0", 31, "DMA-FQ");
  planted.set_iommu_group("0000:05:00.0", 32, "DMA-FQ");
  planted.write("/proc/cmdline", "BOOT_IMAGE=/vmlinuz intel_iommu=on\n");
  const auto findings = diagnose::find_problems(planted_run(planted, kSwitchedGpus));
  const model::Finding* iommu = find(findings, "iommu-translates-p2p");
  ASSERT_NE(iommu, nullptr);
  EXPECT_EQ(iommu->severity, model::Severity::kWarning);
  EXPECT_NE(all_evidence(*iommu).find("IOMMU mode translated (0000:03:00.0: iommu group 30 type DMA-FQ); units: dmar0; "
                                      "kernel command line: intel_iommu=on"),
            std::string::npos)
      << all_evidence(*iommu);
  EXPECT_NE(iommu->next_command.find("iommu=pt"), std::string::npos);
}

TEST(HostEvidenceRules, TranslatedIommuWithNvlinkedGpusAndNoNicIsFine) {
  PlantedSysfs planted;
  ASSERT_TRUE(planted.ok()) << planted.error();
  planted.add_iommu_unit("dmar0");
  planted.set_iommu_group("0000:00:06.0", 30, "DMA");
  planted.set_iommu_group("0000:00:07.0", 31, "DMA");
  const model::Run run = planted_run(planted);
  EXPECT_EQ(run.system.host_evidence->iommu.mode, "translated");
  EXPECT_EQ(find(diagnose::find_problems(run), "iommu-translates-p2p"), nullptr);
}

TEST(HostEvidenceRules, NoPeermemAndNoDmabufClosesGpuDirectRdma) {
  PlantedSysfs planted;
  ASSERT_TRUE(planted.ok()) << planted.error();
  planted.plant_pcie_switch_with_gpus_and_nic();
  planted.write("/proc/sys/kernel/osrelease", "5.4.0-150-generic\n");
  const auto findings = diagnose::find_problems(planted_run(planted, kSwitchedGpus));
  const model::Finding* gdr = find(findings, "gdr-unavailable");
  ASSERT_NE(gdr, nullptr);
  EXPECT_EQ(gdr->severity, model::Severity::kWarning);
  EXPECT_EQ(gdr->cause, "neither nvidia_peermem nor dma-buf");
  EXPECT_NE(all_evidence(*gdr).find("no dma-buf (kernel 5.4.0-150-generic is older than 5.12)"), std::string::npos)
      << all_evidence(*gdr);
  EXPECT_EQ(gdr->gpus, (std::vector<int>{0, 1}));
  EXPECT_NE(gdr->next_command.find("modprobe nvidia_peermem"), std::string::npos);

  // dma-buf switched off by the user closes it too on a new kernel; a new kernel alone opens it.
  planted.write("/proc/sys/kernel/osrelease", "6.8.0-49-generic\n");
  PlantedMachine no_dmabuf = kSwitchedGpus;
  no_dmabuf.env = {{"NCCL_DMABUF_ENABLE", "0"}};
  EXPECT_NE(find(diagnose::find_problems(planted_run(planted, no_dmabuf)), "gdr-unavailable"), nullptr);
  EXPECT_EQ(find(diagnose::find_problems(planted_run(planted, kSwitchedGpus)), "gdr-unavailable"), nullptr);
}

TEST(HostEvidenceRules, NoNicMeansNoGpuDirectRdmaFinding) {
  PlantedSysfs planted;
  ASSERT_TRUE(planted.ok()) << planted.error();
  planted.write("/proc/sys/kernel/osrelease", "5.4.0-150-generic\n");  // neither peermem nor dma-buf, but no RDMA NIC
  EXPECT_EQ(find(diagnose::find_problems(planted_run(planted)), "gdr-unavailable"), nullptr);
}

TEST(HostEvidenceRules, NcclIbHcaLeavesOutTheNearestNic) {
  PlantedSysfs planted;
  ASSERT_TRUE(planted.ok()) << planted.error();
  planted.plant_pcie_switch_with_gpus_and_nic();
  planted.write("/sys/module/nvidia_peermem/version", "570.86.15\n");
  planted.add_pci_function("", "0000:00:09.0", {"0x020700", "0x15b3", "0x1021", -1});
  planted.add_rdma_device("mlx5_1", "0000:00:09.0", "0c42:a103:0012:9999");
  PlantedMachine machine = kSwitchedGpus;
  machine.env = {{"NCCL_IB_HCA", "mlx5_1"}};
  const auto findings = diagnose::find_problems(planted_run(planted, machine));
  const model::Finding* nic = find(findings, "nic-not-nearest");
  ASSERT_NE(nic, nullptr);
  EXPECT_EQ(nic->severity, model::Severity::kWarning);
  EXPECT_NE(all_evidence(*nic).find("GPU0: NCCL's NIC mlx5_1 is PHB, but mlx5_0 is PIX (not one of NCCL's NET devices; "
                                    "port 1 ACTIVE)"),
            std::string::npos)
      << all_evidence(*nic);
  // Without the variable NCCL uses the nearest one.
  EXPECT_EQ(find(diagnose::find_problems(planted_run(planted, kSwitchedGpus)), "nic-not-nearest"), nullptr);
}

TEST(HostEvidenceRules, VmHidingNumaPlacementOnAGuestWithTwoNodes) {
  PlantedSysfs planted;
  ASSERT_TRUE(planted.ok()) << planted.error();
  planted.write("/sys/devices/system/node/node1/cpulist", "32-63\n");
  planted.write("/sys/devices/system/node/node1/distance", "20 10\n");
  planted.write("/sys/devices/system/node/node0/distance", "10 20\n");
  const auto findings = diagnose::find_problems(planted_run(planted));
  const model::Finding* vm = find(findings, "vm-topology-hidden");
  ASSERT_NE(vm, nullptr);
  EXPECT_EQ(vm->severity, model::Severity::kWarning);
  EXPECT_NE(all_evidence(*vm).find("GPUs with numa_node -1: 0000:00:06.0 0000:00:07.0 (the guest has 2 NUMA node(s))"),
            std::string::npos)
      << all_evidence(*vm);
  EXPECT_NE(vm->next_command.find("topo --dump-xml"), std::string::npos);
  EXPECT_NE(vm->next_command.find("NCCL_TOPO_FILE"), std::string::npos);
}

TEST(HostEvidenceRules, BareMetalIsNoVm) {
  PlantedSysfs planted;
  ASSERT_TRUE(planted.ok()) << planted.error();
  planted.remove_hypervisor_flag();
  EXPECT_EQ(find(diagnose::find_problems(planted_run(planted)), "vm-topology-hidden"), nullptr);
}

// ---- the P2P decision trail in the topo text ----------------------------------------------------------------------

TEST(HostEvidenceTrail, PcieGpusOnTheRootBusStopAtTheLevelGate) {
  PlantedSysfs planted;
  ASSERT_TRUE(planted.ok()) << planted.error();
  PlantedMachine pcie_only;
  pcie_only.nvlinks = false;
  const std::string text = report::render_topo_live_text(planted_run(planted, pcie_only));
  EXPECT_NE(
      text.find("\n  GPU0-GPU1: P2P off at path vs P2P level (path PHB > level PXB (default)); user variables open "
                "(none set) > path vs P2P level closed (path PHB > level PXB (default)) > NVML P2P status open "
                "(read OK) > ACS/IOMMU open (no redirect, IOMMU off) > CUDA peer access open "
                "(cudaDeviceCanAccessPeer = 1)\n"),
      std::string::npos)
      << text;
  // The healthy VM's NVLinked pair passes every gate: no section.
  EXPECT_EQ(report::render_topo_live_text(planted_run(planted)).find("Why P2P is off"), std::string::npos);
}

TEST(HostEvidenceTrail, AcsRedirectDetoursSwitchedGpusWithoutNvlink) {
  PlantedSysfs planted;
  ASSERT_TRUE(planted.ok()) << planted.error();
  planted.plant_pcie_switch_with_gpus_and_nic();
  planted.set_config("0000:02:01.0", test::pcie_config_space(0x10b5, 0xc010, test::kAcsRequestRedirect, std::nullopt));
  PlantedMachine pcie_only = kSwitchedGpus;
  pcie_only.nvlinks = false;
  const std::string text = report::render_topo_live_text(planted_run(planted, pcie_only));
  EXPECT_NE(text.find("GPU0-GPU1: P2P detoured at ACS/IOMMU (ACS redirect at 0000:02:01.0); user variables open"),
            std::string::npos)
      << text;
}

}  // namespace
}  // namespace linkscope::discover
