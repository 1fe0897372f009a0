#include "model/run_merge.hpp"

namespace linkscope::model {

void merge_child_run(Run& into, const Run& child, const std::string& step) {
  Measurements& m = into.measurements;
  const Measurements& c = child.measurements;
  if (c.p2p) {
    if (m.p2p) {
      m.p2p->points.insert(m.p2p->points.end(), c.p2p->points.begin(), c.p2p->points.end());
      m.p2p->latency.insert(m.p2p->latency.end(), c.p2p->latency.begin(), c.p2p->latency.end());
      m.p2p->host.insert(m.p2p->host.end(), c.p2p->host.begin(), c.p2p->host.end());
    } else {
      m.p2p = c.p2p;
    }
  }
  if (c.patterns) m.patterns = c.patterns;
  if (c.collectives) {
    if (!m.collectives) m.collectives.emplace();
    m.collectives->insert(m.collectives->end(), c.collectives->begin(), c.collectives->end());
  }
  if (c.ladder) m.ladder = c.ladder;
  if (c.cross_host) m.cross_host = c.cross_host;
  if (!into.runtime.nccl_version) into.runtime.nccl_version = child.runtime.nccl_version;
  into.runtime.runs.insert(into.runtime.runs.end(), child.runtime.runs.begin(), child.runtime.runs.end());
  for (const auto& error : child.errors) into.errors.push_back({step + ": " + error.where, error.message});
}

}  // namespace linkscope::model
