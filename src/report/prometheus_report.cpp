#include "report/prometheus_report.hpp"

#include <algorithm>
#include <ctime>
#include <deque>
#include <set>

#include "diagnose/rules.hpp"
#include "diagnose/run_status.hpp"
#include "plan/collective_spec.hpp"
#include "report/prometheus_exposition.hpp"

namespace linkscope::report {

namespace {

constexpr double kBytesPerGigabyte = 1e9;  // the Run's GB/s are 1e9 bytes per second
constexpr double kSecondsPerMicrosecond = 1e-6;
constexpr double kSecondsPerNanosecond = 1e-9;

// The one gauge type: every number is the state of the last run, read again at every scrape.
MetricFamily gauge(std::string name, std::string help, std::vector<std::string> labels,
                   DuplicateSamples duplicates = DuplicateSamples::kKeepFirst) {
  MetricFamily family;
  family.name = std::move(name);
  family.type = "gauge";
  family.help = std::move(help);
  family.labels = std::move(labels);
  family.duplicates = duplicates;
  return family;
}

std::string number(std::uint64_t value) { return std::to_string(value); }
std::string number(int value) { return std::to_string(value); }

// "2026-11-29T23:14:09Z" as seconds since the epoch; nothing for another shape.
std::optional<double> epoch_seconds(const std::string& utc) {
  std::tm parts{};
  const char* end = strptime(utc.c_str(), "%Y-%m-%dT%H:%M:%SZ", &parts);
  if (end == nullptr || *end != '\0') return std::nullopt;
  return static_cast<double>(timegm(&parts));
}

// The PCI bus id of a CUDA ordinal: as the p2p section recorded its devices, else from the system's GPUs.
std::string bus_id(const model::Run& run, int cuda_ordinal) {
  if (run.measurements.p2p) {
    for (const auto& device : run.measurements.p2p->devices) {
      if (device.id == cuda_ordinal && !device.pci_bdf.empty()) return device.pci_bdf;
    }
  }
  const model::Gpu* gpu = run.system.gpu_by_cuda_ordinal(cuda_ordinal);
  return gpu != nullptr ? gpu->pci_bdf : "";
}

class Exporter {
 public:
  explicit Exporter(const model::Run& run) : run_(run), host_(run.config.host) {}

  std::vector<MetricFamily> families() {
    add_run();
    add_gpus();
    add_p2p();
    add_patterns();
    add_collectives();
    add_ladder();
    add_cross_host();
    add_findings();
    return {std::make_move_iterator(families_.begin()), std::make_move_iterator(families_.end())};
  }

 private:
  // A deque: the families being filled stay where they are while more are added.
  MetricFamily& family(MetricFamily made) {
    families_.push_back(std::move(made));
    return families_.back();
  }

  void add_run() {
    const model::Run& run = run_;
    const std::string nccl = run.environment.nccl_version.value_or("");
    family(gauge("linkscope_run_info", "The run exported: 1, with what ran and where as labels",
                 {"host", "subcommand", "profile", "linkscope_version", "nccl_version"}))
        .add({host_, run.config.subcommand, run.config.profile.value_or(""), run.tool.version, nccl}, 1);
    if (const auto started = epoch_seconds(run.config.started_at)) {
      family(gauge("linkscope_run_start_time_seconds", "When the run started, in seconds since the Unix epoch",
                   {"host"}))
          .add({host_}, *started);
    }
    if (run.config.measured_seconds) {
      family(gauge("linkscope_run_measured_seconds", "Wall time of the run's measuring steps", {"host"}))
          .add({host_}, *run.config.measured_seconds);
    }
    family(gauge("linkscope_run_complete", "1 when the run reached its last step, 0 when it stopped early",
                 {"host"}))
        .add({host_}, run.config.stopped ? 0 : 1);
    family(gauge("linkscope_run_item_errors", "Items (pairs, sizes, steps) that failed while the rest of the run "
                 "went on", {"host"}))
        .add({host_}, static_cast<double>(run.errors.size()));
    family(gauge("linkscope_check_status", "The run as a Nagios state: 0 OK, 1 WARNING, 2 CRITICAL, 3 UNKNOWN "
                 "(doctor --exit-codes nagios)", {"host"}))
        .add({host_}, to_int(diagnose::nagios_status(run)));
  }

  void add_gpus() {
    auto& gpus = family(gauge("linkscope_gpu_info", "A GPU CUDA shows: 1, with its identity as labels",
                              {"host", "gpu", "pci_bus_id", "uuid", "name"}));
    const auto add_system = [&gpus](const std::string& host, const model::System& system) {
      for (const auto& gpu : system.gpus) {
        if (gpu.cuda_ordinal) gpus.add({host, number(*gpu.cuda_ordinal), gpu.pci_bdf, gpu.uuid, gpu.name}, 1);
      }
    };
    add_system(host_, run_.system);
    for (const auto& host : run_.system.hosts) {
      if (host.system) add_system(host.name, *host.system);
    }
  }

  void add_p2p() {
    if (!run_.measurements.p2p) return;
    const model::P2pResults& p2p = *run_.measurements.p2p;
    // Several SM kernel shapes of one copy (a tuning run): the best one, as the copy's capability.
    auto& copies = family(gauge("linkscope_p2p_bandwidth_bytes_per_second",
                                "Median GPU to GPU copy bandwidth of one direction, verified",
                                {"host", "gpu", "pci_bus_id", "peer", "method", "initiator", "direction", "size"},
                                DuplicateSamples::kKeepLargest));
    for (const auto& point : p2p.points) {
      if (point.status != model::PointStatus::kOk || !point.bandwidth_gbps) continue;
      copies.add({host_, number(point.src), bus_id(run_, point.src), number(point.dst), point.method, point.initiator,
                  point.direction, number(point.bytes)},
                 point.bandwidth_gbps->median * kBytesPerGigabyte);
    }
    auto& latency = family(gauge("linkscope_p2p_latency_seconds", "Median GPU to GPU latency (pointer chase, or one "
                                 "small copy-engine copy)", {"host", "gpu", "pci_bus_id", "peer", "method", "size"},
                                 DuplicateSamples::kKeepSmallest));
    for (const auto& point : p2p.latency) {
      if (point.status != model::PointStatus::kOk || !point.latency_ns) continue;
      latency.add({host_, number(point.src), bus_id(run_, point.src), number(point.dst), point.method,
                   number(point.bytes)},
                  point.latency_ns->median * kSecondsPerNanosecond);
    }
    auto& host_copies = family(gauge("linkscope_host_copy_bandwidth_bytes_per_second", "Median pinned host memory "
                                     "<-> GPU copy bandwidth (h2d, d2h)",
                                     {"host", "gpu", "pci_bus_id", "direction", "size"}));
    for (const auto& point : p2p.host) {
      if (point.status != model::PointStatus::kOk || !point.bandwidth_gbps) continue;
      host_copies.add({host_, number(point.gpu), bus_id(run_, point.gpu), point.direction, number(point.bytes)},
                      point.bandwidth_gbps->median * kBytesPerGigabyte);
    }
  }

  void add_patterns() {
    if (!run_.measurements.patterns) return;
    auto& patterns = family(gauge("linkscope_pattern_bandwidth_bytes_per_second", "Median aggregate bandwidth of a "
                                  "concurrent copy pattern (all payload bytes over the span of every copy)",
                                  {"host", "pattern", "method", "numa_node", "size"}));
    for (const auto& pattern : run_.measurements.patterns->patterns) {
      if (pattern.status != model::PointStatus::kOk || !pattern.aggregate_gbps) continue;
      patterns.add({host_, pattern.name, pattern.method, pattern.cpu_node ? number(*pattern.cpu_node) : "",
                    number(pattern.bytes)},
                   pattern.aggregate_gbps->median * kBytesPerGigabyte);
    }
  }

  void add_collectives() {
    if (!run_.measurements.collectives) return;
    // dtype, redop and root tell apart the series of one op (-d all, -o all, -r all).
    const std::vector<std::string> labels{"host",  "op",        "dtype", "redop",       "root",
                                          "ranks", "placement", "size",  "nccl_version"};
    auto& busbw = family(gauge("linkscope_collective_bus_bandwidth_bytes_per_second",
                               "NCCL collective bus bandwidth (nccl-tests' busbw) from the median time", labels));
    auto& algbw = family(gauge("linkscope_collective_algorithm_bandwidth_bytes_per_second",
                               "NCCL collective algorithm bandwidth (bytes over the median time)", labels));
    auto& time = family(gauge("linkscope_collective_time_seconds",
                              "Median time of one NCCL collective (the slowest rank)", labels));
    const std::string nccl = run_.environment.nccl_version.value_or("");
    for (const auto& series : *run_.measurements.collectives) {
      for (const auto& point : series.points) {
        if (point.status != "ok") continue;
        const std::vector<std::string> values{
            host_,
            std::string(coll::op_name(series.op)),
            std::string(coll::type_name(series.dtype)),
            coll::op_reduces(series.op) ? std::string(coll::red_op_name(series.redop)) : "",
            coll::op_is_rooted(series.op) ? number(series.root) : "",
            number(series.nranks),
            point.in_place ? "in_place" : "out_of_place",
            number(point.bytes),
            nccl};
        if (point.busbw_gbps) busbw.add(values, *point.busbw_gbps * kBytesPerGigabyte);
        if (point.algbw_gbps) algbw.add(values, *point.algbw_gbps * kBytesPerGigabyte);
        if (point.time) time.add(values, point.time->median_us * kSecondsPerMicrosecond);
      }
    }
  }

  void add_ladder() {
    if (!run_.measurements.ladder) return;
    const model::Ladder& ladder = *run_.measurements.ladder;
    auto& layers = family(gauge("linkscope_ladder_bus_bandwidth_bytes_per_second", "Collective bus bandwidth with "
                                "paths taken away (one layer of the path ladder) at its largest size",
                                {"host", "op", "layer", "size", "nccl_version"}));
    for (const auto& layer : ladder.layers) {
      if (layer.status != "ok" || !layer.busbw_gbps || !layer.bytes) continue;
      layers.add({host_, ladder.op, layer.name, number(*layer.bytes), run_.environment.nccl_version.value_or("")},
                 *layer.busbw_gbps * kBytesPerGigabyte);
    }
  }

  void add_cross_host() {
    if (!run_.measurements.cross_host) return;
    const model::CrossHost& cross = *run_.measurements.cross_host;
    auto& pairs = family(gauge("linkscope_cross_host_bandwidth_bytes_per_second", "NCCL sendrecv bandwidth between "
                               "two hosts (one GPU each, per direction) at the largest size",
                               {"host", "peer", "size"}));
    for (const auto& pair : cross.pairs) {
      if (pair.status != "ok" || !pair.bandwidth_gbps) continue;
      pairs.add({cross.host_name(pair.a.host, ""), cross.host_name(pair.b.host, ""), number(pair.bytes)},
                *pair.bandwidth_gbps * kBytesPerGigabyte);
    }
    if (cross.all_reduce && cross.all_reduce_status == "ok") {
      if (const auto* point = model::largest_measured_point(*cross.all_reduce); point && point->busbw_gbps) {
        family(gauge("linkscope_cross_host_all_reduce_bus_bandwidth_bytes_per_second",
                     "NCCL all_reduce over every rank of the job (busbw) at the largest size", {"host", "size"}))
            .add({host_, number(point->bytes)}, *point->busbw_gbps * kBytesPerGigabyte);
      }
    }
    if (cross.isolation) add_isolation(cross);
  }

  // `cluster --isolate`: the all_reduce over every host (its first run) and each host's verdict, so an alert names
  // the slow host itself.
  void add_isolation(const model::CrossHost& cross) {
    const model::IsolationReport& isolation = *cross.isolation;
    const std::uint64_t bytes = cross.sizes_bytes.empty() ? 0 : cross.sizes_bytes.back();
    if (!isolation.runs.empty() && !isolation.runs.front().groups.empty()) {
      const auto& every_host = isolation.runs.front().groups.front();
      if (every_host.busbw_gbps) {
        family(gauge("linkscope_isolation_every_host_bus_bandwidth_bytes_per_second",
                     "cluster --isolate: the all_reduce over every host, one GPU each (busbw), at the largest size",
                     {"host", "size"}))
            .add({host_, number(bytes)}, *every_host.busbw_gbps * kBytesPerGigabyte);
      }
    }
    auto& verdicts = family(gauge("linkscope_isolation_host_verdict",
                                  "cluster --isolate: 1 for each host's verdict (good, slow, hung, unresolved)",
                                  {"host", "verdict"}));
    for (std::size_t h = 0; h < isolation.per_host.size(); ++h) {
      const auto verdict = model::verdict_name(isolation.per_host[h].verdict);
      verdicts.add({cross.host_name(static_cast<int>(h), ""), std::string(verdict)}, 1);
    }
  }

  // Every rule id and severity, 0 or 1, so an alert can fire on a finding and a dashboard can show its absence; a
  // cluster's hosts each with their own findings (a finding of the cluster's run counts for its host).
  void add_findings() {
    auto& findings = family(gauge("linkscope_finding", "1 when the run has a finding of this rule and severity, "
                                  "else 0 (docs/diagnosis.md lists the rules)",
                                  {"host", "rule", "severity"}, DuplicateSamples::kKeepLargest));
    std::set<std::string> hosts{host_};
    for (const auto& host : run_.system.hosts) {
      if (host.findings) hosts.insert(host.name);
    }
    std::vector<std::string> rules;
    for (const auto& rule : diagnose::all_rules()) rules.emplace_back(rule.id);
    const auto add_unknown_rules = [&rules](const std::vector<model::Finding>& list) {
      for (const auto& finding : list) {  // a saved run of a newer linkscope: its rules too
        if (std::find(rules.begin(), rules.end(), finding.id) == rules.end()) rules.push_back(finding.id);
      }
    };
    add_unknown_rules(run_.findings);
    for (const auto& host : run_.system.hosts) {
      if (host.findings) add_unknown_rules(*host.findings);
    }
    const model::Severity severities[] = {model::Severity::kInfo, model::Severity::kWarning, model::Severity::kError};
    for (const auto& host : hosts) {
      for (const auto& rule : rules) {
        for (const auto severity : severities) {
          findings.add({host, rule, std::string(model::severity_name(severity))}, 0);
        }
      }
    }
    const auto mark = [&findings](const std::string& host, const std::vector<model::Finding>& list) {
      for (const auto& finding : list) {
        findings.add({host, finding.id, std::string(model::severity_name(finding.severity))}, 1);
      }
    };
    mark(host_, run_.findings);
    for (const auto& host : run_.system.hosts) {
      if (host.findings) mark(host.name, *host.findings);
    }
  }

  const model::Run& run_;
  std::string host_;
  std::deque<MetricFamily> families_;
};

}  // namespace

std::vector<MetricFamily> prometheus_families(const model::Run& run) { return Exporter(run).families(); }

std::string render_prometheus(const model::Run& run) { return render_exposition(prometheus_families(run)); }

}  // namespace linkscope::report
