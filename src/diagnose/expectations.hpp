#pragma once
#include <array>
#include <cstddef>
#include <string_view>

// Every threshold and expected value the diagnosis uses, in ONE table, each with where the number comes from.
// Rules and hypotheses read values through threshold(); nothing else in src/diagnose hard-codes a limit.
namespace linkscope::diagnose {

enum class Threshold : std::size_t {
  kLatencyBoundMaxBytes,
  kLatencyRegionMaxBytes,
  kLatencyBoundTimeRatio,
  kBandwidthCompareMinBytes,
  kCopyPlateauMinBytes,
  kCollectivePlateauMinBytes,
  kBusbwHypothesisMinBytes,
  kCeShareOfLinkRate,
  kSmShareOfLinkRate,
  kBusbwShareOfLinkRate,
  kHypothesisTolerance,
  kCeWarnShareOfLinkRate,
  kSmWarnShareOfLinkRate,
  kBusbwWarnShareOfLinkRate,
  kNvlinkOverPcieFactor,
  kPairsAgree,
  kAsymmetryWarn,
  kNoiseCvWarn,
  kGpuSlowFraction,
  kLinkSpeedTolerance,
  kNvlinkPairShareForMesh,
  kDisjointScalingMin,
  kContendedScalingMax,
  kNumaNeutral,
  kCompareDefaultThreshold,
  kCompareLatencyBoundNoise,
  kForeignUtilizationMin,
  kUtilizationSettleSeconds,
  kForeignMemoryMinBytes,
  kMemoryHeldShare,
  kSoakMinCycles,
  kSoakDriftShare,
  kSoakDriftFit,
  kSoakStepShare,
  kPredictionCompareMinBytes,
  kBusbwWarnShareOfPrediction,
  kHostCeShareOfLinkRate,
  kHostSmShareOfLinkRate,
  kC2cShareOfLinkRate,
  kHostBidirectionalFactor,
  kHostWarnShareOfLinkRate,
  kHostErrorShareOfLinkRate,
  kHostLatencyWarnNs,
  kLocalCopyShareOfMemoryRate,
  kFleetRelativeDeviation,
  kFleetRobustZ,
  kDmabufMinKernel,
  kNicNearerSteps,
  kVmNumaNodesForPlacement,
  kCount
};

struct ThresholdEntry {
  Threshold key;
  std::string_view name;    // stable spelling, shown in reports and docs
  double value;
  // "bytes", "share", "ratio", "percent", "seconds", "ns", "count", "kernel" (a release as major*100+minor)
  std::string_view unit;
  std::string_view meaning;
  std::string_view source;  // where the number comes from
};

const std::array<ThresholdEntry, static_cast<std::size_t>(Threshold::kCount)>& threshold_table();
double threshold(Threshold key);

}  // namespace linkscope::diagnose
