#include "diagnose/host_link.hpp"

#include <cctype>
#include <map>
#include <tuple>

#include <fmt/format.h>

#include "core/text.hpp"
#include "diagnose/expectations.hpp"
#include "model/host_copy_kind.hpp"

namespace linkscope::diagnose {

namespace {

std::string upper(std::string text) {
  for (char& c : text) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return text;
}

}  // namespace

HostShares host_shares(LinkRate::Kind link, const std::string& method, bool bidirectional) {
  HostShares shares;
  if (link == LinkRate::Kind::kC2c) {
    shares.expected = threshold(Threshold::kC2cShareOfLinkRate);
  } else {
    shares.expected = threshold(method == "sm" ? Threshold::kHostSmShareOfLinkRate : Threshold::kHostCeShareOfLinkRate);
  }
  shares.warn = threshold(Threshold::kHostWarnShareOfLinkRate);
  shares.error = threshold(Threshold::kHostErrorShareOfLinkRate);
  if (bidirectional) {
    // Both directions share the link's credits and the host's memory: each keeps a known share of one way.
    const double factor = threshold(Threshold::kHostBidirectionalFactor);
    shares.expected *= factor;
    shares.warn *= factor;
    shares.error *= factor;
  }
  return shares;
}

std::vector<HostCopyJudgement> plateau_host_copies(const Evidence& evidence) {
  if (!evidence.run.measurements.p2p) return {};
  const auto min_bytes = static_cast<std::uint64_t>(threshold(Threshold::kCopyPlateauMinBytes));
  // (gpu, direction, method, both at once) -> the point at the largest size
  std::map<std::tuple<int, std::string, std::string, bool>, const model::HostPoint*> largest;
  for (const auto& point : evidence.run.measurements.p2p->host) {
    if (point.status != model::PointStatus::kOk || !point.bandwidth_gbps || point.bytes < min_bytes) continue;
    auto& held = largest[{point.gpu, point.direction, model::host_copy_method(point), model::host_copy_bidirectional(point)}];
    if (held == nullptr || point.bytes > held->bytes) held = &point;
  }
  std::vector<HostCopyJudgement> judgements;
  for (const auto& [key, point] : largest) {
    const model::Gpu* gpu = evidence.gpu(point->gpu);
    const auto rate = gpu != nullptr ? model::host_link_rate(*gpu) : std::nullopt;
    if (!rate || rate->gbps <= 0) continue;
    HostCopyJudgement judgement;
    judgement.point = point;
    judgement.rate = *rate;
    judgement.share = point->bandwidth_gbps->median / rate->gbps;
    judgement.shares = host_shares(rate->kind, model::host_copy_method(*point), model::host_copy_bidirectional(*point));
    judgements.push_back(judgement);
  }
  return judgements;
}

std::string host_copy_label(const model::HostPoint& point) {
  return upper(point.direction) + " " + model::host_copy_kind(point);
}

std::string host_copy_line(const HostCopyJudgement& judgement) {
  const auto& p = *judgement.point;
  return fmt::format("GPU{} {} {}: {} = {} of {} {}", p.gpu, host_copy_label(p), format_bytes(p.bytes),
                     format_gbps(p.bandwidth_gbps->median), format_percent(judgement.share), judgement.rate.basis,
                     format_gbps(judgement.rate.gbps));
}

std::string negotiated_link_text(const model::Gpu& gpu) {
  if (gpu.c2c && gpu.c2c->active_links > 0) return fmt::format("{} active C2C links", gpu.c2c->active_links);
  const auto& pcie = gpu.pcie;
  auto gen_width = [](const model::Known<int>& gen, const model::Known<int>& width) {
    return fmt::format("Gen{} x{}", gen ? std::to_string(*gen) : "?", width ? std::to_string(*width) : "?");
  };
  if (!pcie.current_gen && !pcie.current_width && !pcie.max_gen && !pcie.max_width) return "";
  return fmt::format("PCIe {} now, max {}", gen_width(pcie.current_gen, pcie.current_width),
                     gen_width(pcie.max_gen, pcie.max_width));
}

std::string host_buffer_numa_text(const Evidence& evidence, int cuda_ordinal) {
  const model::Gpu* gpu = evidence.gpu(cuda_ordinal);
  const std::string gpu_node = gpu != nullptr && gpu->numa_node && *gpu->numa_node >= 0
                                   ? fmt::format("GPU{} is on node {}", cuda_ordinal, *gpu->numa_node)
                                   : fmt::format("GPU{}'s node unknown", cuda_ordinal);
  const auto& p2p = evidence.run.measurements.p2p;
  if (p2p && p2p->request.cpu_node) {
    return fmt::format("host buffer on NUMA node {} (--cpu-node {}; {})", *p2p->request.cpu_node,
                       *p2p->request.cpu_node, gpu_node);
  }
  return fmt::format("host buffer not bound to a NUMA node ({})", gpu_node);
}

std::vector<const model::LatencyPoint*> host_latency_points(const Evidence& evidence) {
  std::vector<const model::LatencyPoint*> points;
  for (const auto& point : evidence.latency()) {
    if (model::is_host_latency(point) && point.status == model::PointStatus::kOk && point.latency_ns) points.push_back(&point);
  }
  return points;
}

int host_latency_gpu(const model::LatencyPoint& point) {
  return point.src == model::kHostEndpoint ? point.dst : point.src;
}

}  // namespace linkscope::diagnose
