#pragma once
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "model/runtime.hpp"

// NCCL's "HINT: ..." lines (2.30.7) gathered into hints. NCCL prints a hint as consecutive INFO lines of one thread:
// "HINT: In many cases this error occurs when <cause>." then advice lines. A burst is the run of HINT lines one thread
// prints without another line in between; lines of other threads may interleave.
namespace linkscope::runtime {

class HintCollector {
 public:
  // One NCCL INFO message of `thread` (the line's "host:pid:tid" prefix). Returns true when it was a HINT line.
  bool add(std::string_view thread, std::string_view message);
  // Any other line of `thread` (a WARN: NCCL warns before it hints) ends its burst.
  void end_burst(std::string_view thread);
  // The hints seen, identical ones merged (count), in the order of their first line.
  std::vector<model::NcclHint> take();

 private:
  std::vector<model::NcclHint> raw_;
  std::map<std::string, std::size_t, std::less<>> open_;  // thread -> its burst's current hint in raw_
};

// What a hint's first line names ("acs-gdr", ...), "other" for text NCCL 2.30.7 does not print.
std::string hint_kind(std::string_view text);

}  // namespace linkscope::runtime
