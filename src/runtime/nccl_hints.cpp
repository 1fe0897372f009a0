#include "runtime/nccl_hints.hpp"

#include <array>
#include <utility>

namespace linkscope::runtime {

namespace {

constexpr std::string_view kHint = "HINT: ";
// How each of NCCL 2.30.7's hints opens (net_ib/common.h, misc/ibvwrap.cc, graph/xml.h).
constexpr std::string_view kOpening = "In many cases this ";
// NCCL prints at most four advice lines per hint; a hostile log must not grow without bound.
constexpr std::size_t kMaxAdvice = 16;
constexpr std::size_t kMaxHints = 100000;

std::string merge_key(const model::NcclHint& hint) {
  std::string key = hint.kind + '\n' + hint.text + '\n' + (hint.primary ? "1" : "0");
  for (const auto& line : hint.advice) key += '\n' + line;
  return key;
}

}  // namespace

std::string hint_kind(std::string_view text) {
  static constexpr std::array<std::pair<std::string_view, std::string_view>, 6> kKinds{{
      {"ACS is enabled which would break GPU Direct RDMA", "acs-gdr"},
      {"NIC on the same instance cannot talk to each other", "nic-same-instance"},
      {"NCCL_IB_TIMEOUT is set too short", "ib-timeout"},
      {"NICs are not cross-rail connected", "cross-rail"},
      {"incorrect GID index is forced by NCCL_IB_GID_INDEX", "ib-gid-index"},
      {"missing or faulty information in the provided topology file", "topology-file"},
  }};
  for (const auto& [phrase, kind] : kKinds) {
    if (text.find(phrase) != std::string_view::npos) return std::string(kind);
  }
  return "other";
}

void HintCollector::end_burst(std::string_view thread) {
  if (const auto open = open_.find(thread); open != open_.end()) open_.erase(open);
}

bool HintCollector::add(std::string_view thread, std::string_view message) {
  if (message.compare(0, kHint.size(), kHint) != 0) {
    end_burst(thread);
    return false;
  }
  const auto open = open_.find(thread);
  message.remove_prefix(kHint.size());
  const bool opening = message.compare(0, kOpening.size(), kOpening) == 0;
  if (!opening && open != open_.end()) {
    auto& advice = raw_[open->second].advice;
    if (advice.size() < kMaxAdvice) advice.emplace_back(message);
    return true;
  }
  if (raw_.size() >= kMaxHints) {
    end_burst(thread);
    return true;
  }
  model::NcclHint hint;
  hint.kind = hint_kind(message);
  hint.text = std::string(message);
  hint.primary = open == open_.end();
  if (open == open_.end()) {
    open_.emplace(std::string(thread), raw_.size());
  } else {
    open->second = raw_.size();
  }
  raw_.push_back(std::move(hint));
  return true;
}

std::vector<model::NcclHint> HintCollector::take() {
  std::vector<model::NcclHint> merged;
  std::map<std::string, std::size_t> index;
  for (auto& hint : raw_) {
    const auto [at, added] = index.emplace(merge_key(hint), merged.size());
    if (added) {
      merged.push_back(std::move(hint));
    } else {
      ++merged[at->second].count;
    }
  }
  raw_.clear();
  open_.clear();
  return merged;
}

}  // namespace linkscope::runtime
