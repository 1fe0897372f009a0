#include "plan/nccl_tests_split.hpp"

#include <strings.h>

#include <cctype>
#include <cstdlib>
#include <cstring>

#include <fmt/format.h>

#include "core/error.hpp"

namespace linkscope::coll {

namespace {

// nccl-tests' parseInt: leading blanks skipped, "0b" binary, otherwise strtoul base 0; false when no digit was read.
std::optional<long long> parse_number(const char* text) {
  while (*text != '\0' && std::isspace(static_cast<unsigned char>(*text))) ++text;
  if (*text == '\0') return std::nullopt;
  char* end = nullptr;
  const bool binary = strncasecmp(text, "0b", 2) == 0;
  const char* digits = binary ? text + 2 : text;
  const unsigned long value = std::strtoul(digits, &end, binary ? 2 : 0);
  if (end == digits) return std::nullopt;
  return static_cast<int>(value);  // nccl-tests stores it in an int
}

struct Operator {
  const char* word;
  const char* symbol;
  SplitRule::Kind kind;
};
constexpr Operator kOperators[] = {{"AND", "&", SplitRule::Kind::kAnd},
                                   {"OR", "|", SplitRule::Kind::kOr},
                                   {"MOD", "%", SplitRule::Kind::kMod},
                                   {"DIV", "/", SplitRule::Kind::kDiv}};

}  // namespace

SplitRule parse_split_rule(const Environment& env) {
  SplitRule rule;
  if (const auto mask = env.get("NCCL_TESTS_SPLIT_MASK")) {
    rule.kind = SplitRule::Kind::kMask;
    rule.value = static_cast<long long>(std::strtoul(mask->c_str(), nullptr, 16));
    rule.source = "NCCL_TESTS_SPLIT_MASK=" + *mask;
    return rule;
  }
  const auto split = env.get("NCCL_TESTS_SPLIT");
  if (!split) return rule;
  rule.source = "NCCL_TESTS_SPLIT=" + *split;
  for (const auto& op : kOperators) {
    for (const char* prefix : {op.word, op.symbol}) {
      const std::size_t n = std::strlen(prefix);
      if (strncasecmp(split->c_str(), prefix, n) != 0) continue;
      if (const auto value = parse_number(split->c_str() + n)) {
        rule.kind = op.kind;
        rule.value = *value;
      }
    }
  }
  if (rule.kind == SplitRule::Kind::kNone) {
    rule.notes.push_back(fmt::format("{} is not AND/&, OR/|, MOD/% or DIV// followed by a number; as nccl-tests, "
                                     "every process stays in one communicator",
                                     rule.source));
  } else if ((rule.kind == SplitRule::Kind::kMod || rule.kind == SplitRule::Kind::kDiv) && rule.value == 0) {
    throw UsageError(fmt::format("{} divides the rank by 0 (nccl-tests crashes there)", rule.source));
  }
  return rule;
}

int split_color(const SplitRule& rule, int proc) {
  const auto p = static_cast<long long>(proc);
  switch (rule.kind) {
    case SplitRule::Kind::kNone: return 0;
    case SplitRule::Kind::kMask:
    case SplitRule::Kind::kAnd: return static_cast<int>(p & rule.value);
    case SplitRule::Kind::kOr: return static_cast<int>(p | rule.value);
    case SplitRule::Kind::kMod: return static_cast<int>(p % rule.value);
    case SplitRule::Kind::kDiv: return static_cast<int>(p / rule.value);
  }
  return 0;
}

ColorGroup color_group(const std::vector<int>& colors, int proc) {
  ColorGroup g;
  g.color = colors.at(static_cast<std::size_t>(proc));
  g.size = 0;
  g.leader = -1;
  for (std::size_t r = 0; r < colors.size(); ++r) {
    if (colors[r] != g.color) continue;
    if (g.leader < 0) g.leader = static_cast<int>(r);
    if (static_cast<int>(r) < proc) ++g.rank;
    ++g.size;
  }
  return g;
}

std::vector<int> color_leaders(const std::vector<int>& colors) {
  std::vector<int> leaders;
  for (std::size_t r = 0; r < colors.size(); ++r) {
    if (color_group(colors, static_cast<int>(r)).leader == static_cast<int>(r)) leaders.push_back(static_cast<int>(r));
  }
  return leaders;
}

}  // namespace linkscope::coll
