#pragma once
#include <string>
#include <vector>

#include "model/isolation.hpp"

// `cluster --isolate` in words: the runs it took and why each host is judged as it is.
namespace linkscope::report {

// "slow: beside node-a (found good) in run 3: slow; runs 1 (slow, 4 hosts), 2 (slow, 2 hosts), 3 (slow, 2 hosts)";
// `names` are the hosts' names by index.
std::string host_reason(const model::IsolationReport& report, int host, const std::vector<std::string>& names);

// The isolation section of the cluster text: runs and collectives, each run's groups, the hosts named and why.
std::string render_isolation_text(const model::IsolationReport& report, const std::vector<std::string>& names);

}  // namespace linkscope::report
