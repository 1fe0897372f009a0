#pragma once
#include <optional>
#include <string_view>
#include <vector>

#include "diagnose/context.hpp"
#include "model/run.hpp"

// Hypotheses: falsifiable statements made from hardware facts and NCCL's model BEFORE measuring, each with a
// numeric prediction; after measuring, a judge gives the verdict with the numbers. One per file
// (src/diagnose/hypothesis_<name>.cpp).
namespace linkscope::diagnose {

using model::Hypothesis;
using model::Verdict;

struct HypothesisRule {
  std::string_view id;
  // From `system` and `model` only; nullopt when the machine gives nothing to predict (e.g. one NUMA node).
  std::optional<Hypothesis> (*make)(const Evidence& evidence);
  // Sets verdict, evidence and measured numbers; leaves `untested` when the needed measurement is absent.
  void (*judge)(const Context& context, Hypothesis& hypothesis);
};

const std::vector<HypothesisRule>& all_hypothesis_rules();

// Predictions for this machine (system, model and environment only; measurements are not read).
std::vector<Hypothesis> make_hypotheses(const model::Run& run);
// Judges `hypotheses` against the context's measurements.
void judge_hypotheses(const Context& context, std::vector<Hypothesis>& hypotheses);

std::optional<Hypothesis> make_nvlink_graph_complete(const Evidence& evidence);
void judge_nvlink_graph_complete(const Context& context, Hypothesis& hypothesis);
std::optional<Hypothesis> make_directed_pairs_agree(const Evidence& evidence);
void judge_directed_pairs_agree(const Context& context, Hypothesis& hypothesis);
std::optional<Hypothesis> make_copy_share(const Evidence& evidence);
void judge_copy_share(const Context& context, Hypothesis& hypothesis);
std::optional<Hypothesis> make_small_messages_latency_bound(const Evidence& evidence);
void judge_small_messages_latency_bound(const Context& context, Hypothesis& hypothesis);
std::optional<Hypothesis> make_patterns_scale(const Evidence& evidence);
void judge_patterns_scale(const Context& context, Hypothesis& hypothesis);
std::optional<Hypothesis> make_numa_neutral(const Evidence& evidence);
void judge_numa_neutral(const Context& context, Hypothesis& hypothesis);
std::optional<Hypothesis> make_busbw_share(const Evidence& evidence);
void judge_busbw_share(const Context& context, Hypothesis& hypothesis);
std::optional<Hypothesis> make_nccl_transport(const Evidence& evidence);
void judge_nccl_transport(const Context& context, Hypothesis& hypothesis);
std::optional<Hypothesis> make_nccl_model_busbw(const Evidence& evidence);
void judge_nccl_model_busbw(const Context& context, Hypothesis& hypothesis);
std::optional<Hypothesis> make_host_link_share(const Evidence& evidence);
void judge_host_link_share(const Context& context, Hypothesis& hypothesis);
std::optional<Hypothesis> make_local_copy_share(const Evidence& evidence);
void judge_local_copy_share(const Context& context, Hypothesis& hypothesis);

// Verdict helpers shared by the judges.
void set_untested(Hypothesis& hypothesis, const std::string& why);

}  // namespace linkscope::diagnose
