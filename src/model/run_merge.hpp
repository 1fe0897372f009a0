#pragma once
#include <string>

#include "model/run.hpp"

namespace linkscope::model {

// Folds the Run of a child step (p2p, patterns, coll, ladder) into the run being built, so one report holds every
// layer:
// - measurements: collective series are appended; p2p points, latency and host entries are appended to an existing
//   p2p section (a second p2p step adds its bidirectional points); any other section is taken as the child has it.
// - runtime: the child's runs are appended; nccl_version is kept from the first child that reports it.
// - errors: appended, each `where` prefixed with `step` so the report says which step failed.
void merge_child_run(Run& into, const Run& child, const std::string& step);

}  // namespace linkscope::model
