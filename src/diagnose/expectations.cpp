#include "diagnose/expectations.hpp"

#include <stdexcept>

namespace linkscope::diagnose {

namespace {
constexpr double kMiB = 1024.0 * 1024.0;
constexpr double kKiB = 1024.0;

// Anchors: /work/shared/research/anchors-h200x2.md (2 x H200 NV18, 18 x 26.562 = 478.1 GB/s per direction) and
// p2p-anchors.md §7 (published H100/H200 numbers). "share" = measured / link status rate.
constexpr std::array<ThresholdEntry, static_cast<std::size_t>(Threshold::kCount)> kTable{{
    {Threshold::kLatencyBoundMaxBytes, "latency_bound_max_bytes", 1 * kMiB, "bytes",
     "up to this size a copy or collective is latency-bound: no rule judges its bandwidth",
     "anchors-h200x2: all_reduce takes 15-24 us from 8 B to 1 MiB (17.6 us at 1 MiB); copy 1 MiB is 61 GB/s vs 394 "
     "at 512 MiB"},
    {Threshold::kLatencyRegionMaxBytes, "latency_region_max_bytes", 64 * kKiB, "bytes",
     "sizes up to this are used to test that small messages are latency-bound",
     "nccl-tests all_reduce -g 2: 17.0 us at 8 B, 22.1 us at 64 KiB (time nearly flat)"},
    {Threshold::kLatencyBoundTimeRatio, "latency_bound_time_ratio", 2.0, "ratio",
     "latency-bound: time grows by less than this across at least 16x in size",
     "nccl-tests all_reduce: 22.1 / 17.0 = 1.3 over 8192x in size"},
    {Threshold::kBandwidthCompareMinBytes, "bandwidth_compare_min_bytes", 64 * kMiB, "bytes",
     "relative comparisons (pair vs reverse pair, GPU vs peers, noise) use sizes from here up",
     "seed copy 0->1 vs 1->0 agree within 1% from 16 MiB; all_reduce at 64 MiB is 77% of its 4 GiB value"},
    {Threshold::kCopyPlateauMinBytes, "copy_plateau_min_bytes", 256 * kMiB, "bytes",
     "copies are compared with the link rate only from this size up (bandwidth plateau)",
     "seed CE copy 386.2 GB/s at 256 MiB = 98% of nvbandwidth's 393.8 at 512 MiB"},
    {Threshold::kCollectivePlateauMinBytes, "collective_plateau_min_bytes", 256 * kMiB, "bytes",
     "collective busbw is compared with the link rate only from this size up",
     "nccl-tests -g 2: every op reaches >= 0.49 of 478 GB/s from 256 MiB (reduce_scatter 236.7)"},
    {Threshold::kBusbwHypothesisMinBytes, "busbw_hypothesis_min_bytes", 1024 * kMiB, "bytes",
     "the busbw-share hypothesis is judged at the largest size measured, if at least this large",
     "all_reduce busbw 326.4 GB/s at 1 GiB, 346.3 at 4 GiB (near plateau)"},
    {Threshold::kCeShareOfLinkRate, "ce_share_of_link_rate", 0.80, "share",
     "expected CE (copy engine) peer copy at plateau, as a share of the link status rate",
     "nvbandwidth CE 393.8 / 478.1 = 0.82 (2 x H200); HGX H100 371-377 / 450 = 0.83 (nccl#1264)"},
    {Threshold::kSmShareOfLinkRate, "sm_share_of_link_rate", 0.75, "share",
     "expected SM (kernel) peer copy at plateau, as a share of the link status rate",
     "nvbandwidth SM read 376.2, write 370.0 of 478.1 = 0.79 / 0.77; SMs use 128 B NVLink payloads (nccl-tests#149)"},
    {Threshold::kBusbwShareOfLinkRate, "busbw_share_of_link_rate", 0.70, "share",
     "expected NCCL busbw at >= 1 GiB as a share of the slowest GPU's link status rate",
     "all_reduce 346.3 / 478.1 = 0.72 at 4 GiB, 0.68 at 1 GiB; sendrecv 366.6 = 0.77 (nccl-tests 2.19.6)"},
    {Threshold::kHypothesisTolerance, "hypothesis_tolerance", 0.05, "share",
     "a predicted bandwidth holds when the measurement reaches prediction x (1 - this)",
     "run-to-run spread of nccl-tests all_reduce at 1 GiB: 326.4 vs 328.0 GB/s (0.5%), with margin"},
    {Threshold::kCeWarnShareOfLinkRate, "ce_warn_share_of_link_rate", 0.65, "share",
     "bandwidth-below-expected fires for a CE copy at plateau below this share of its link rate",
     "healthy 0.81-0.83; busy peer GPU still 0.77 (365.9 GB/s); PCIe-staged copies ~0.08 of NVLink"},
    {Threshold::kSmWarnShareOfLinkRate, "sm_warn_share_of_link_rate", 0.60, "share",
     "bandwidth-below-expected fires for an SM copy at plateau below this share of its link rate",
     "healthy 0.77-0.79; busy peer GPU 170.9 GB/s = 0.36 (anchors-h200x2 'A busy GPU')"},
    {Threshold::kBusbwWarnShareOfLinkRate, "busbw_warn_share_of_link_rate", 0.42, "share",
     "bandwidth-below-expected fires for busbw at >= 256 MiB below this share of the link rate",
     "healthy minimum over six ops at 256 MiB: 236.7 GB/s = 0.495; busy GPU 149.1 = 0.31; P2P disabled 27.4 = 0.06"},
    {Threshold::kNvlinkOverPcieFactor, "nvlink_over_pcie_factor", 2.0, "ratio",
     "a copy faster than this many times the PCIe rate must have used NVLink",
     "PCIe Gen5 x16 63 GB/s vs NVLink copy 393.8 GB/s (6x); host-staged P2P 36-38 GB/s (nccl#1264)"},
    {Threshold::kPairsAgree, "pairs_agree", 0.02, "share",
     "hypothesis: directed pairs of one link type agree within this relative spread",
     "nvbandwidth CE 393.80 vs 393.74 (0.02%), SM 376.12 vs 376.30; seed copy <1% from 16 MiB"},
    {Threshold::kAsymmetryWarn, "asymmetry_warn", 0.05, "share",
     "pair-asymmetric fires when one direction is slower than the other by more than this",
     "healthy < 0.1%; a busy GPU makes SM 1->0 45% of 0->1 and CE 93% (anchors-h200x2)"},
    {Threshold::kNoiseCvWarn, "noise_cv_warn", 0.05, "share",
     "noisy-measurement notes a point at >= 64 MiB with a CV above this; a warning when >= 3 points or one above 2x",
     "large-size repeats agree within ~1% on an idle machine (nccl-tests all_reduce 1 GiB: 326.4 / 328.0)"},
    {Threshold::kGpuSlowFraction, "gpu_slow_fraction", 0.10, "share",
     "gpu-slow fires when the median of a GPU's pairs is this much below the median of the other pairs",
     "outlier GPUs reported in the wild are far slower (nvbandwidth#6: 14.2 vs 57 GB/s); healthy pairs within 1%"},
    {Threshold::kLinkSpeedTolerance, "link_speed_tolerance", 0.01, "share",
     "per-link NVLink speeds or NCCL link weights within this share count as equal",
     "all 18 links of each H200 report 26.562 GB/s (nvidia-smi nvlink -s); weights are float (370.8)"},
    {Threshold::kNvlinkPairShareForMesh, "nvlink_pair_share_for_mesh", 0.75, "share",
     "a pair without NVLink is flagged only where at least this share of pairs have NVLink",
     "NVSwitch and full-mesh boards: 100% of pairs; DGX-1 hybrid cube mesh: 16 of 28 (57%) by design"},
    {Threshold::kDisjointScalingMin, "disjoint_scaling_min", 0.90, "ratio",
     "hypothesis: copies on disjoint link directions keep at least this share of their sum alone",
     "nvbandwidth bidirectional CE total 778.9 vs 2 x 393.8 = 0.99"},
    {Threshold::kContendedScalingMax, "contended_scaling_max", 0.90, "ratio",
     "hypothesis: copies sharing a source or destination GPU reach at most this share of their sum",
     "a GPU's NVLink ports bound its total egress/ingress (18 links = 478 GB/s); one CE copy alone uses 0.82"},
    {Threshold::kNumaNeutral, "numa_neutral", 0.02, "share",
     "hypothesis: GPU-to-GPU copies differ by at most this across the CPU NUMA node that drives them",
     "peer copies do not touch host memory; 2% is the pair-agreement tolerance"},
    {Threshold::kCompareDefaultThreshold, "compare_default_threshold", 0.05, "share",
     "compare: default relative change that counts as a regression",
     "SuperBench NDmv4 rules fail copy/busbw metrics at < -5% (p2p-anchors.md §4.3)"},
    {Threshold::kCompareLatencyBoundNoise, "compare_latency_bound_noise", 0.25, "share",
     "compare: assumed relative noise of a latency-bound point (<= 1 MiB) that carries no CV or CI",
     "two nccl-tests all_reduce runs on one idle machine differ by up to 31% up to 1 MiB (256 KiB: 24.4 vs 18.7 us), "
     "by at most 2% from 2 MiB; "
     "two points at 25% each combine to 35%"},
    {Threshold::kForeignUtilizationMin, "foreign_utilization_min_percent", 10, "percent",
     "noisy-measurement: GPU utilization at least this high while no linkscope step runs is another job's load",
     "NVML utilization is the share of time a kernel ran in its last sample period: 0 on an idle GPU, 100 under a "
     "training job; 10 leaves room for a monitoring agent's short kernels"},
    {Threshold::kUtilizationSettleSeconds, "utilization_settle_s", 1.0, "seconds",
     "readings this soon after linkscope's own work (a step's end, the start of sampling) are not judged as foreign",
     "nvml.h nvmlUtilization_t: the sample period is between 1/6 s and 1 s, so a reading may still include the step "
     "that just ended; the doctor watches 1.5 s before its first step"},
    {Threshold::kForeignMemoryMinBytes, "foreign_memory_min_bytes", 1024 * kMiB, "bytes",
     "noisy-measurement: GPU memory in use at least this large while no linkscope process holds the GPU",
     "nvmlDeviceGetMemoryInfo_v2 'used' excludes the driver's reserve (0 allocated on an idle GPU); older drivers "
     "count the reserve, which stays below this"},
    {Threshold::kMemoryHeldShare, "memory_held_share", 0.50, "share",
     "gpu-memory-held: another process held at least this share of a GPU's memory while it used no SMs",
     "seen live on 1 x H200: an idle holder of 137.8 GiB of 140 GiB (0% utilization) left the numbers steady"},
    {Threshold::kSoakMinCycles, "soak_min_cycles", 3, "cycles",
     "doctor --soak: a metric is judged for drift and steps once this many cycles measured it",
     "two points make any line; three tell a trend from one odd cycle"},
    {Threshold::kSoakDriftShare, "soak_drift_share", 0.05, "share",
     "soak-metric-changed (drift): the fitted line moves this much from the first cycle to the last",
     "large-size repeats of an idle machine agree within ~1% (noise_cv_warn's source); 5x that is not noise"},
    {Threshold::kSoakDriftFit, "soak_drift_fit", 0.60, "r squared",
     "soak-metric-changed (drift): the line explains at least this share of the cycles' variation",
     "a trend, not scatter: random cycles around a level fit a line poorly"},
    {Threshold::kSoakStepShare, "soak_step_share", 0.10, "share",
     "soak-metric-changed (step): the medians before and after a cycle differ this much, and every later cycle "
     "stays on the new level",
     "a link retraining to a narrower width or a throttling GPU moves bandwidth by 25% or more; 10% is above noise"},
    {Threshold::kPredictionCompareMinBytes, "prediction_compare_min_bytes", 16 * kMiB, "bytes",
     "busbw-below-prediction and nccl-model-busbw compare measured busbw with NCCL's model from this size up",
     "h200x2 nccl-tests 2.19.6 vs NCCL 2.28.9's model: measured / predicted busbw >= 0.628 for every op from 16 MiB "
     "(all_gather 32 MiB 180.5 / 287.3); 0.21-0.53 below 2 MiB, where the model's 7.2-7.8 us latency meets 14-31 us"},
    {Threshold::kBusbwWarnShareOfPrediction, "busbw_warn_share_of_prediction", 0.50, "share",
     "busbw-below-prediction fires for a size measured below this share of the busbw NCCL's model predicts",
     "h200x2: healthy minimum 0.628 from 16 MiB (0.68 from 256 MiB); busy GPU 149.1 GB/s at 256 MiB = 0.42 of the "
     "349-353 predicted there; P2P disabled 27.4 = 0.08 of 359"},

    // Host links (PCIe Gen5 x16 = 63.02 GB/s; nvbandwidth 0.8 on the 2 x H200, tests/fixtures/h200x2).
    {Threshold::kHostCeShareOfLinkRate, "host_ce_share_of_link_rate", 0.85, "share",
     "expected pinned host<->GPU CE copy at plateau, one direction, as a share of the GPU's PCIe link rate",
     "nvbandwidth H2D CE 55.16-55.40, D2H 55.32-55.33 of 63.02 = 0.875-0.879; H100 PCIe Gen5 H2D 56.7-57.1 = 0.90 "
     "(nvbandwidth#6)"},
    {Threshold::kHostSmShareOfLinkRate, "host_sm_share_of_link_rate", 0.80, "share",
     "expected pinned host<->GPU SM (kernel) copy at plateau, one direction, as a share of the PCIe link rate",
     "nvbandwidth H2D SM 51.29-51.33 = 0.814, D2H SM 52.44-52.54 = 0.832 of 63.02"},
    {Threshold::kC2cShareOfLinkRate, "c2c_share_of_link_rate", 0.65, "share",
     "expected host<->GPU copy (CE or SM) at plateau over C2C, one direction, as a share of the C2C rate",
     "GH200 (10 x 45 GB/s): H2D CE 346 = 0.77, SM 342 = 0.76, D2H about 15% below H2D = 0.67 (nvbandwidth#23)"},
    {Threshold::kHostBidirectionalFactor, "host_bidirectional_factor", 0.80, "ratio",
     "host copies in both directions at once: each direction's expectation and limits are this share of one way",
     "nvbandwidth bidirectional CE 50.44-51.21 vs 55.2-55.4 one way = 0.91-0.93; SM 42.00-42.38 vs 51.3-52.5 = 0.81-0.82"},
    {Threshold::kHostWarnShareOfLinkRate, "host_warn_share_of_link_rate", 0.50, "share",
     "host-link-below-expected warns for a host copy at plateau below this share of its host link rate",
     "healthy minimum one way: SM H2D 35.0 of 63.02 = 0.56 on an H100 cluster (nvbandwidth#24), C2C D2H 0.67; a "
     "link one generation down under load carries 0.5 of the rate"},
    {Threshold::kHostErrorShareOfLinkRate, "host_error_share_of_link_rate", 0.25, "share",
     "host-link-below-expected is an error below this share: less than a link of half the lanes or rate would carry",
     "outlier GPU H2D 14.2 vs 56.7-57.1 GB/s on its peers = 0.23 of 63.02 (nvbandwidth#6); 0.5 x the 0.50 warning"},
    {Threshold::kHostLatencyWarnNs, "host_latency_warn_ns", 2380, "ns",
     "host-link-below-expected warns for a pointer chase into pinned host memory slower than this over PCIe",
     "nvbandwidth host_device_latency_sm 1189.84 / 1191.65 ns on H200 PCIe Gen5 (2 x H200); twice that is an "
     "extra hop or a loaded link, not jitter"},
    {Threshold::kLocalCopyShareOfMemoryRate, "local_copy_share_of_memory_rate", 0.80, "share",
     "hypothesis: a copy inside one GPU moves read + write traffic of at least this share of its memory bandwidth",
     "nvbandwidth device_local_copy 2077.9-2081.4 GB/s x 2 (read + write) = 4156-4163 of H200's 4917 (NVML 3201 MHz "
     "x 6144 bit) = 0.85; linkscope 1978.8 GB/s at 1 GiB on 1 x H200 = 0.80"},
    {Threshold::kFleetRelativeDeviation, "fleet_relative_deviation", 0.10, "share",
     "outside-fleet-baseline: a number this much worse than the median of its machine type's hosts (and beyond "
     "fleet_robust_z); latency-bound points use compare_latency_bound_noise instead",
     "two runs on one idle 2 x H200 differ by at most 2% from 2 MiB (compare_latency_bound_noise's source); 10% is "
     "twice compare's 5% gate, so one host's noise and the fleet median's own error cannot reach it"},
    {Threshold::kFleetRobustZ, "fleet_robust_z", 3.5, "ratio",
     "outside-fleet-baseline: |x - median| / (1.4826 x MAD) beyond this (and beyond fleet_relative_deviation); "
     "with a MAD of 0 the relative deviation decides alone",
     "Iglewicz and Hoaglin (1993), How to Detect and Handle Outliers: modified z-scores above 3.5 are potential "
     "outliers; 1.4826 x MAD is the standard deviation of normal data"},
    {Threshold::kDmabufMinKernel, "dmabuf_min_kernel", 512, "kernel",
     "gdr-unavailable: dma-buf can carry GPUDirect RDMA from this kernel release on (NCCL_DMABUF_ENABLE not 0)",
     "Linux 5.12 added dma-buf import to RDMA memory registration (ib_umem_dmabuf); NCCL checks it at run time"},
    {Threshold::kNicNearerSteps, "nic_nearer_steps", 1, "count",
     "nic-not-nearest: an RDMA NIC this many relation steps (PIX, PXB, PHB, NODE, SYS) nearer to a GPU than the NIC "
     "NCCL would use for it",
     "NCCL picks the NICs nearest each GPU among its NET devices; a nearer NIC outside them is excluded or down"},
    {Threshold::kVmNumaNodesForPlacement, "vm_numa_nodes_for_placement", 2, "count",
     "vm-topology-hidden: a guest with at least this many NUMA nodes and a GPU whose numa_node is -1 (NCCL cannot "
     "place the GPU on a CPU)",
     "h200x2 VM: 1 NUMA node, GPUs numa_node -1, NVLinked: healthy; with 2 nodes NCCL attaches every GPU to one CPU"},
}};

constexpr bool table_is_in_enum_order() {
  for (std::size_t i = 0; i < kTable.size(); ++i) {
    if (static_cast<std::size_t>(kTable[i].key) != i) return false;
  }
  return true;
}
static_assert(table_is_in_enum_order(), "threshold table rows must follow the Threshold enum order");
}  // namespace

const std::array<ThresholdEntry, static_cast<std::size_t>(Threshold::kCount)>& threshold_table() { return kTable; }

double threshold(Threshold key) {
  const auto index = static_cast<std::size_t>(key);
  if (index >= kTable.size()) throw std::out_of_range("unknown threshold");
  return kTable[index].value;
}

}  // namespace linkscope::diagnose
