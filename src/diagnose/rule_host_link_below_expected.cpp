// host-link-below-expected: a GPU's host copies at the bandwidth plateau below the warning share of its host link
// rate (PCIe generation x width, or C2C), or a pointer chase into pinned host memory slower than the PCIe anchor.
// Every GPU is checked, on one GPU and on many. A GPU with other work on it is left to noisy-measurement.
#include <set>

#include <fmt/format.h>

#include "core/text.hpp"
#include "diagnose/expectations.hpp"
#include "diagnose/host_link.hpp"
#include "diagnose/rules.hpp"
#include "model/host_copy_kind.hpp"

namespace linkscope::diagnose {

std::optional<Finding> rule_host_link_below_expected(const Context& context) {
  const Evidence& evidence = context.evidence;
  Finding finding;
  finding.id = "host-link-below-expected";
  finding.severity = Severity::kWarning;
  std::set<int> gpus;
  std::optional<int> first_gpu;
  nlohmann::json slow = nlohmann::json::array();
  for (const auto& judgement : plateau_host_copies(evidence)) {
    const auto& p = *judgement.point;
    if (judgement.share >= judgement.shares.warn || context.is_busy(p.gpu)) continue;
    if (judgement.share < judgement.shares.error) finding.severity = Severity::kError;
    const model::Gpu* gpu = evidence.gpu(p.gpu);
    const std::string link = gpu != nullptr ? negotiated_link_text(*gpu) : "";
    finding.evidence.push_back(fmt::format("{}; expected about {}, flagged below {}{}; {}", host_copy_line(judgement),
                                           format_percent(judgement.shares.expected),
                                           format_percent(judgement.shares.warn),
                                           link.empty() ? "" : "; link " + link, host_buffer_numa_text(evidence, p.gpu)));
    slow.push_back({{"gpu", p.gpu}, {"direction", p.direction}, {"method", model::host_copy_method(p)},
                    {"bidirectional", model::host_copy_bidirectional(p)}, {"bytes", p.bytes}, {"gbps", p.bandwidth_gbps->median},
                    {"expected_gbps", judgement.shares.expected * judgement.rate.gbps},
                    {"rate_gbps", judgement.rate.gbps}, {"share", judgement.share}});
    gpus.insert(p.gpu);
    if (!first_gpu) first_gpu = p.gpu;
  }
  const double latency_warn = threshold(Threshold::kHostLatencyWarnNs);
  for (const auto* latency : host_latency_points(evidence)) {
    const int gpu_ordinal = host_latency_gpu(*latency);
    const model::Gpu* gpu = evidence.gpu(gpu_ordinal);
    const auto rate = gpu != nullptr ? model::host_link_rate(*gpu) : std::nullopt;
    // The anchor is a PCIe link's; C2C has none yet.
    if (!rate || rate->kind != LinkRate::Kind::kPcie || context.is_busy(gpu_ordinal)) continue;
    if (latency->latency_ns->median <= latency_warn) continue;
    finding.evidence.push_back(fmt::format("GPU{} host latency {:.0f} ns ({}), flagged above {:.0f} ns over {}; {}",
                                           gpu_ordinal, latency->latency_ns->median, latency->method, latency_warn,
                                           rate->basis, host_buffer_numa_text(evidence, gpu_ordinal)));
    gpus.insert(gpu_ordinal);
    if (!first_gpu) first_gpu = gpu_ordinal;
  }
  if (finding.evidence.empty()) return std::nullopt;
  finding.gpus.assign(gpus.begin(), gpus.end());
  finding.numbers = {{"slow_copies", slow}};
  finding.title = gpus.size() == 1 ? fmt::format("GPU{}'s host link is slower than its rate allows", *first_gpu)
                                   : "host links are slower than their rate allows";
  finding.explanation =
      "Pinned host copies reach about 85% (copy engine) or 80% (SM kernels) of a PCIe link's rate, both directions "
      "at once 80% of that each (nvbandwidth on PCIe Gen5 x16: 55.3 of 63.0 GB/s one way). Much less means the link "
      "trained down under load, the host buffer sits on a far NUMA node, or something else shares the link.";
  finding.cause = "a PCIe link running below its generation or width under load, host memory on a remote NUMA node, "
                  "an IOMMU or virtualization layer in the path, or another device sharing the root port";
  const model::Gpu* gpu = evidence.gpu(*first_gpu);
  const std::string cpu_node = gpu != nullptr && gpu->numa_node && *gpu->numa_node >= 0
                                   ? fmt::format(" --cpu-node {}", *gpu->numa_node)
                                   : "";
  finding.next_command = fmt::format("linkscope p2p -d {} --measure host,latency --host-size 1G{}", *first_gpu, cpu_node);
  return finding;
}

}  // namespace linkscope::diagnose
