#include "plan/p2p_options.hpp"

#include <cctype>
#include <cmath>

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/file_io.hpp"
#include "core/seconds.hpp"
#include "core/size.hpp"

namespace linkscope::plan {

std::vector<std::string> parse_word_list(std::string_view text) {
  std::vector<std::string> words;
  std::size_t start = 0;
  while (start <= text.size() && !text.empty()) {
    std::size_t comma = text.find(',', start);
    if (comma == std::string_view::npos) comma = text.size();
    std::string word(text.substr(start, comma - start));
    while (!word.empty() && std::isspace(static_cast<unsigned char>(word.back()))) word.pop_back();
    while (!word.empty() && std::isspace(static_cast<unsigned char>(word.front()))) word.erase(word.begin());
    words.push_back(word);
    start = comma + 1;
  }
  return words;
}

std::vector<int> parse_int_list(std::string_view text, std::string_view what) {
  std::vector<int> values;
  for (const auto& word : parse_word_list(text)) {
    bool ok = !word.empty() && word.size() <= 6;
    for (char c : word) ok = ok && std::isdigit(static_cast<unsigned char>(c));
    if (!ok) throw UsageError(fmt::format("{}: bad number '{}' (expected e.g. 1,2,4)", what, word));
    values.push_back(std::stoi(word));
  }
  return values;
}

std::vector<std::uint64_t> parse_size_list(std::string_view text, std::string_view what) {
  std::vector<std::uint64_t> values;
  for (const auto& word : parse_word_list(text)) values.push_back(parse_size(word, what));
  return values;
}

SamplingPolicy sampling_policy(const CopyCommandOptions& o) {
  if (!(o.target_ci > 0 && o.target_ci < 1)) {
    throw UsageError(fmt::format("--target-ci {}: must be a fraction between 0 and 1 (0.01 = 1%)", o.target_ci));
  }
  checked_seconds(o.max_time_s, "--max-time", ZeroSeconds::kRefused);
  if (o.warmup_samples < 0 || o.warmup_samples > 1000) {
    throw UsageError(fmt::format("--warmup {}: must be 0 to 1000", o.warmup_samples));
  }
  if (o.forced_ops < 0 || o.forced_ops > kMaxOpsPerSample) {
    throw UsageError(fmt::format("--ops {}: must be 1 to {} (more would block behind the launch gate)", o.forced_ops,
                                 kMaxOpsPerSample));
  }
  SamplingPolicy policy;
  policy.target_ci = o.target_ci;
  policy.max_time_s = o.max_time_s;
  return policy;
}

Initiator initiator_of(const CopyCommandOptions& o) {
  if (o.mode == "read") return Initiator::kDestination;
  if (o.mode == "write") return Initiator::kSource;
  throw UsageError(fmt::format("--mode {}: must be read or write", o.mode));
}

std::vector<SmKernelShape> sm_shapes(const CopyCommandOptions& o) {
  SmShapeLists lists;
  lists.variants = parse_word_list(o.sm_kernel);
  lists.threads = parse_int_list(o.sm_threads, "--sm-threads");
  lists.ctas_per_sm = parse_int_list(o.sm_ctas_per_sm, "--sm-ctas-per-sm");
  lists.unrolls = parse_int_list(o.sm_unroll, "--sm-unroll");
  lists.bulk_chunks = parse_size_list(o.sm_bulk_chunk, "--sm-bulk-chunk");
  lists.bulk_stages = parse_int_list(o.sm_bulk_stages, "--sm-bulk-stages");
  for (const auto& word : parse_word_list(o.sm_repeat)) lists.repeats.push_back(sm_repeat_from_string(word));
  return expand_sm_shapes(lists, default_sm_shape(initiator_of(o)));
}

std::vector<ChaseSpec> chase_specs(const P2pTuningOptions& o) {
  ChaseLists lists;
  lists.orders = parse_word_list(o.chase_orders);
  lists.loads = parse_word_list(o.chase_loads);
  lists.footprints = parse_size_list(o.chase_footprints, "--latency-footprint");
  return expand_chase_specs(lists);
}

void check_output_options(const CopyCommandOptions& o) {
  if (o.format != "text" && o.format != "json") throw UsageError(fmt::format("--format {}: must be text or json", o.format));
  if (!o.output.empty()) check_output_path(o.output, "--output");
}

}  // namespace linkscope::plan
