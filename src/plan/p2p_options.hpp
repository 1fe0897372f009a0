#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/adaptive_sampler.hpp"
#include "plan/p2p_plan.hpp"

namespace linkscope::plan {

// Options that `linkscope p2p` and `linkscope patterns` share, as the user typed them.
struct CopyCommandOptions {
  double target_ci = 0.01;
  double max_time_s = 1.0;
  int warmup_samples = 1;
  bool no_verify = false;
  std::uint32_t seed = 0x11C5C0DEu;
  std::optional<int> cpu_node;   // unset: leave the CPU binding alone (so -1 is a bad node, as -5)
  std::string mode = "read";
  std::string format = "text";
  std::string output;
  int forced_ops = 0;
  // Hidden tuning options; comma lists give a tuning run over every combination.
  std::string sm_kernel, sm_threads, sm_ctas_per_sm, sm_unroll, sm_bulk_chunk, sm_bulk_stages, sm_repeat;
};

// Hidden options of `linkscope p2p` only: pointer-chase variants (comma lists, every combination is measured per
// pair) and how a bidirectional sample opens and closes its shared window.
struct P2pTuningOptions {
  std::string chase_orders, chase_loads, chase_footprints;
  std::string span_sync = "flag";
};

// Adds the shared options to a CLI11 app (a template so this host-only header needs no CLI11 include).
template <typename App>
void add_copy_command_options(App& app, CopyCommandOptions& o) {
  app.add_option("--target-ci", o.target_ci,
                 "Add samples until the 95% CI of the median is within this fraction of it (default 0.01)");
  app.add_option("--max-time", o.max_time_s, "Sampling time budget per point in seconds (default 1)");
  app.add_option("-w,--warmup", o.warmup_samples, "Warm-up samples after the calibration sample (default 1)");
  app.add_flag("--no-verify", o.no_verify, "Skip the check of every destination after every sample");
  app.add_option("--seed", o.seed, "Seed of the data pattern");
  app.add_option("--cpu-node", o.cpu_node, "Bind the submitting thread to the CPUs of this NUMA node");
  app.add_option("--mode", o.mode,
                 "read: the destination GPU's copy engine/kernel pulls (default); write: the source pushes");
  app.add_option("--format", o.format, "text (default) or json (the Run document on stdout)");
  app.add_option("--output", o.output, "Also write the Run document (JSON) to FILE");
  const char* hidden = "";
  app.add_option("--ops", o.forced_ops, "Operations per sample instead of the >= 20 ms rule")->group(hidden);
  app.add_option("--sm-kernel", o.sm_kernel, "SM copy kernel variant(s): vec,vec_cg,vec_nc,vec_nc256,bulk")->group(hidden);
  app.add_option("--sm-threads", o.sm_threads, "Threads per CTA, list")->group(hidden);
  app.add_option("--sm-ctas-per-sm", o.sm_ctas_per_sm, "Resident CTAs per SM (0 = as many as fit), list")->group(hidden);
  app.add_option("--sm-unroll", o.sm_unroll, "Independent 16-byte loads per thread: 1,2,4,8,12,16, list")->group(hidden);
  app.add_option("--sm-bulk-chunk", o.sm_bulk_chunk, "Bytes per bulk copy (bulk), list")->group(hidden);
  app.add_option("--sm-bulk-stages", o.sm_bulk_stages, "Bulk copies in flight per CTA (bulk), list")->group(hidden);
  app.add_option("--sm-repeat", o.sm_repeat,
                 "A sample's SM copies: auto, kernel (one launch), launch (one launch each), list")->group(hidden);
}

template <typename App>
void add_p2p_tuning_options(App& app, P2pTuningOptions& o) {
  const char* hidden = "";
  app.add_option("--latency-order", o.chase_orders, "Pointer-chase order(s): random,stride")->group(hidden);
  app.add_option("--latency-load", o.chase_loads, "Pointer-chase load(s): cg,ca,plain")->group(hidden);
  app.add_option("--latency-footprint", o.chase_footprints, "Pointer-chase footprint(s), e.g. 2M,64M")->group(hidden);
  app.add_option("--span-sync", o.span_sync, "Shared window of a bidirectional sample: flag (default) or event")
      ->group(hidden);
}

// Validated conversions; each throws UsageError naming the option.
SamplingPolicy sampling_policy(const CopyCommandOptions& o);
Initiator initiator_of(const CopyCommandOptions& o);
// The shapes of the tuning lists, unset dimensions from the mode's default_sm_shape.
std::vector<SmKernelShape> sm_shapes(const CopyCommandOptions& o);
std::vector<ChaseSpec> chase_specs(const P2pTuningOptions& o);
void check_output_options(const CopyCommandOptions& o);

// "1,2,4" -> {1, 2, 4}; "" -> {}.
std::vector<int> parse_int_list(std::string_view text, std::string_view what);
// "8K,16K" -> {8192, 16384}; "" -> {}.
std::vector<std::uint64_t> parse_size_list(std::string_view text, std::string_view what);
std::vector<std::string> parse_word_list(std::string_view text);

}  // namespace linkscope::plan
