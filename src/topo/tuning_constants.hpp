#pragma once
// NCCL's default tuner constants (graph/tuning.cc ncclTunerConstantsDefaults, tuner_v5.h types: double)
// and the tree correction factors of ncclTopoGetAlgoTime. Indices: [algorithm][protocol] in NCCL's order
// (Tree, Ring, CollNetDirect, CollNetChain, NVLS, NVLSTree, PAT x LL, LL128, Simple); [hardware] NVLINK, PCI, NET;
// [generation] Volta, Ampere, Hopper, Blackwell; [scale] 1 node, 2 nodes, 4+ nodes.
#include "topo/comm_constants.hpp"

namespace linkscope::topo::tuning {

inline constexpr int kHwNvlink = 0;  // nccl_tuner.h NCCL_HW_*
inline constexpr int kHwPci = 1;
inline constexpr int kHwNet = 2;
inline constexpr int kHwCount = 3;

inline constexpr int kVolta = 0;  // nccl_tuner.h NCCL_*_COMPCAP_IDX
inline constexpr int kAmpere = 1;
inline constexpr int kHopper = 2;
inline constexpr int kBlackwell = 3;
inline constexpr int kGenerationCount = 4;
inline constexpr int kScaleCount = 3;

// Latency of one operation before any hop (us).
inline constexpr double kBaseLatencies[kAlgoCount][kProtoCount] = {
    {6.8, 14.0, 8.4}, {6.6, 14.0, 8.4},  // Tree, Ring
    {0, 0, 0},        {0, 0, 0},         // CollNetDirect, CollNetChain
    {0, 0, 0},        {0, 0, 0},         // NVLS, NVLSTree
    {8.0, 8.0, 8.0}};                    // PAT

// Latency per hop (us) by the kind of link the hop crosses.
inline constexpr double kHwLatencies[kHwCount][kAlgoCount][kProtoCount] = {
    // NVLINK
    {{.6, 1.25, 4.0}, {.6, 1.9, 3.4}, {0, 0, 3.7}, {0, 0, 2.8}, {0, 0, 25}, {0, 0, 25}, {0, 0, 4.0}},
    // PCI
    {{1.0, 1.9, 4.0}, {1.0, 2.5, 5.7}, {0, 0, 3.7}, {0, 0, 2.8}, {0, 0, 0}, {0, 0, 0}, {0, 0, 4.0}},
    // NET
    {{5.0, 8.5, 14}, {2.7, 4.0, 14.0}, {0, 0, 31}, {0, 0, 30}, {0, 0, 18}, {0, 0, 20.9}, {0, 0, 14}}};

// Bandwidth caps (GB/s): LL per node pair, LL128 and Simple per channel.
inline constexpr double kLlMaxBws[kGenerationCount][kScaleCount] = {
    {39.0, 39.0, 20.4}, {87.7, 22.5, 19.0}, {141.0, 45.0, 35.0}, {2 * 141.0, 2 * 45.0, 2 * 35.0}};
inline constexpr double kPerChMaxRingLl128Bws[kGenerationCount][kScaleCount] = {
    {20.0, 20.0, 20.0}, {20.0, 20.0, 20.0}, {36.7, 36.7, 36.7}, {2 * 36.7, 34.6, 2 * 36.7}};
// Since 2.29.7 Blackwell's ring LL128 limit is 40.0 at every scale.
inline constexpr double kPerChMaxRingLl128BwBlackwell2_29_7 = 40.0;
inline constexpr double kPerChMaxTreeLl128Bws[kGenerationCount][kScaleCount] = {
    {20.0, 20.0, 20.0}, {20.0, 20.0, 20.0}, {36.7, 36.7, 29.0}, {55.6, 31.67, 20.0}};
inline constexpr double kPerChMaxTreeBws[kGenerationCount][kScaleCount] = {
    {26.5, 18.5, 10.0}, {24.0, 23.6, 17.8}, {38.7, 41.4, 36.0}, {70.0, 42.8, 24.0}};

// "Trees are not perfectly sticking to the model for medium sizes": AllReduce tree bandwidth factors per protocol
// for sizes 64 B << k, k = 0..22 (ncclTopoGetAlgoTime treeCorrectionFactor).
inline constexpr float kTreeCorrectionFactor[kProtoCount][23] = {
    {1.0, 1.0, 1.0, 1.0, .9, .8, .7, .7, .7, .7, .6, .5, .4, .4, .5, .6, .7, .8, .9, 1.0, 1.0, 1.0, 1.0},
    {1.0, 1.0, 1.0, 1.0, 1.0, .9, .8, .8, .8, .7, .6, .6, .6, .6, .6, .6, .8, .9, .9, .9, .9, 1.0, 1.0},
    {.9, .9, .9, .9, .9, .9, .9, .8, .7, .6, .6, .5, .5, .5, .5, .6, .7, .8, .7, .7, .8, .9, .9}};

}  // namespace linkscope::topo::tuning
