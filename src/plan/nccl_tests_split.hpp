#pragma once
#include <optional>
#include <string>
#include <vector>

#include "core/environment.hpp"

// NCCL_TESTS_SPLIT_MASK and NCCL_TESTS_SPLIT: nccl-tests 2.19.6 (common.cu, run()) gives every MPI process a colour
// from its world rank and splits MPI_COMM_WORLD by it, so each colour's processes form their own NCCL communicator
// (the timing, the checks and the printing still span the whole job). Host-only: the colour rules and the groups
// they make; measure/ creates one communicator per group.
namespace linkscope::coll {

struct SplitRule {
  enum class Kind { kNone, kMask, kAnd, kOr, kMod, kDiv };
  Kind kind = Kind::kNone;
  long long value = 0;
  std::string source;  // "NCCL_TESTS_SPLIT=MOD2": what the user set, for messages
  std::vector<std::string> notes;  // a value nccl-tests ignores silently
};

// nccl-tests' parsing: NCCL_TESTS_SPLIT_MASK is hexadecimal (strtoul base 16, "0x" allowed) and wins over
// NCCL_TESTS_SPLIT, which is AND/&, OR/|, MOD/% or DIV/: (case-insensitive) followed by a number in base 10, 0x hex,
// 0 octal or 0b binary. A value it does not recognise leaves every process in one group (a note says so);
// MOD or DIV by 0, which crash nccl-tests, are a UsageError.
SplitRule parse_split_rule(const Environment& env);

// The colour of the process with world rank `proc`.
int split_color(const SplitRule& rule, int proc);

// One process's communicator after the split: ranks keep their world order within a colour (MPI_Comm_split's key).
struct ColorGroup {
  int color = 0;
  int rank = 0;    // index among the processes of this colour
  int size = 1;    // processes of this colour
  int leader = 0;  // world rank of the colour's first process (it makes the NCCL id)
};
// `colors` holds every world rank's colour.
ColorGroup color_group(const std::vector<int>& colors, int proc);

// Every distinct colour's leader, in world-rank order.
std::vector<int> color_leaders(const std::vector<int>& colors);

}  // namespace linkscope::coll
