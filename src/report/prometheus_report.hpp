#pragma once
#include <string>
#include <vector>

#include "model/run.hpp"
#include "report/prometheus_exposition.hpp"

// A run as a node-exporter textfile (`report --format prometheus`, `doctor --prometheus FILE`): linkscope_*
// gauges in base units (bytes per second, seconds) with the labels host, gpu, pci_bus_id, peer, op, size and
// nccl_version, and one finding gauge per rule id and severity. Every name is documented in docs/reports.md
// ("Prometheus export").
namespace linkscope::report {

std::string render_prometheus(const model::Run& run);

// The same metrics as families of samples (a soak's cycles keep their bandwidths by these names).
std::vector<MetricFamily> prometheus_families(const model::Run& run);

}  // namespace linkscope::report
