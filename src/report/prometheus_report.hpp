#pragma once
#include <string>

#include "model/run.hpp"

// A run as a node-exporter textfile (`report --format prometheus`, `doctor --prometheus FILE`): linkscope_*
// gauges in base units (bytes per second, seconds) with the labels host, gpu, pci_bus_id, peer, op, size and
// nccl_version, and one finding gauge per rule id and severity. Every name is documented in docs/reports.md
// ("Prometheus export").
namespace linkscope::report {

std::string render_prometheus(const model::Run& run);

}  // namespace linkscope::report
