#include "diagnose/hypotheses.hpp"

namespace linkscope::diagnose {

const std::vector<HypothesisRule>& all_hypothesis_rules() {
  static const std::vector<HypothesisRule> kRules = {
      {"nvlink-graph-complete", &make_nvlink_graph_complete, &judge_nvlink_graph_complete},
      {"directed-pairs-agree", &make_directed_pairs_agree, &judge_directed_pairs_agree},
      {"copy-reaches-link-share", &make_copy_share, &judge_copy_share},
      {"small-messages-latency-bound", &make_small_messages_latency_bound, &judge_small_messages_latency_bound},
      {"disjoint-add-shared-contend", &make_patterns_scale, &judge_patterns_scale},
      {"numa-binding-neutral", &make_numa_neutral, &judge_numa_neutral},
      {"busbw-reaches-link-share", &make_busbw_share, &judge_busbw_share},
      {"nccl-uses-predicted-transport", &make_nccl_transport, &judge_nccl_transport},
      {"nccl-model-busbw", &make_nccl_model_busbw, &judge_nccl_model_busbw},
      {"host-link-reaches-share", &make_host_link_share, &judge_host_link_share},
      {"local-copy-reaches-memory-share", &make_local_copy_share, &judge_local_copy_share},
  };
  return kRules;
}

std::vector<Hypothesis> make_hypotheses(const model::Run& run) {
  // Only the sections known before measuring.
  model::Run facts;
  facts.system = run.system;
  facts.topology = run.topology;
  facts.environment = run.environment;
  const Evidence evidence(facts);
  std::vector<Hypothesis> hypotheses;
  for (const auto& rule : all_hypothesis_rules()) {
    if (auto hypothesis = rule.make(evidence)) {
      hypothesis->id = std::string(rule.id);
      hypotheses.push_back(std::move(*hypothesis));
    }
  }
  return hypotheses;
}

void judge_hypotheses(const Context& context, std::vector<Hypothesis>& hypotheses) {
  for (auto& hypothesis : hypotheses) {
    for (const auto& rule : all_hypothesis_rules()) {
      if (rule.id == hypothesis.id) rule.judge(context, hypothesis);
    }
  }
}

void set_untested(Hypothesis& hypothesis, const std::string& why) {
  hypothesis.verdict = Verdict::kUntested;
  hypothesis.evidence = why;
}

}  // namespace linkscope::diagnose
