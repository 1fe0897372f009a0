#pragma once
// NCCL_ALGO / NCCL_PROTO as NCCL reads them (graph/tuning.cc parseList): an optional first list for every
// collective, then "collective:list" entries, ';'-separated; a list is ','-separated names (case-insensitive), or
// "^names" for everything except them. "ring,collnetdirect;allreduce:tree" or "^LL128;allreduce:LL128".
#include <string>
#include <vector>

namespace linkscope::topo {

// `enabled` holds one row of `names.size()` values per collective (`prefixes`); rows of collectives the text
// names are overwritten with 0/1. Returns "" or NCCL's WARN message (NCCL then fails the communicator).
std::string parse_enable_list(const std::string& text, const std::vector<const char*>& prefixes,
                              const std::vector<const char*>& names, std::vector<int>& enabled);

}  // namespace linkscope::topo
