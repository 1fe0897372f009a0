#include "diagnose/measured_summary.hpp"

#include <map>
#include <set>

#include <fmt/format.h>

#include "diagnose/expectations.hpp"
#include "core/text.hpp"

namespace linkscope::diagnose {

bool copy_ok(const model::CopyPoint& point) {
  return point.status == model::PointStatus::kOk && point.bandwidth_gbps.has_value();
}

double copy_gbps(const model::CopyPoint& point) { return point.bandwidth_gbps->median; }

std::vector<CollectiveRef> largest_collective_points(const Evidence& evidence, std::uint64_t min_bytes) {
  std::map<std::string, CollectiveRef> best;
  for (const auto& ref : evidence.collectives) {
    const auto& point = *ref.point;
    if (!ref.ok() || point.bytes < min_bytes || ref.what_if) continue;
    auto it = best.find(ref.op());
    if (it == best.end()) {
      best.emplace(ref.op(), ref);
      continue;
    }
    const auto& held = *it->second.point;
    const bool larger = point.bytes > held.bytes;
    const bool same_size_prefers_out_of_place = point.bytes == held.bytes && held.in_place && !point.in_place;
    if (larger || same_size_prefers_out_of_place) it->second = ref;
  }
  std::vector<CollectiveRef> result;
  for (auto& [op, point] : best) result.push_back(point);
  return result;
}

std::string collective_line(const Evidence& evidence, const CollectiveRef& point) {
  std::string line = fmt::format("{} busbw {} at {}", point.op(), format_gbps(point.busbw()), format_bytes(point.point->bytes));
  if (const auto rate = evidence.slowest_link_rate(); rate && rate->gbps > 0) {
    line += fmt::format(" ({} of the {} link rate)", format_percent(point.busbw() / rate->gbps),
                        format_gbps(rate->gbps));
  }
  return line;
}

std::string transport_class(const std::string& transport) {
  for (const char* prefix : {"P2P", "SHM", "NET", "COLLNET", "NVLS"}) {
    if (transport.rfind(prefix, 0) == 0) return prefix;
  }
  return transport;
}

std::optional<int> transport_rank(const std::string& transport_class) {
  if (transport_class == "P2P" || transport_class == "NVLS") return 0;
  if (transport_class == "SHM") return 1;
  if (transport_class == "NET" || transport_class == "COLLNET") return 2;
  return std::nullopt;
}

std::vector<std::string> runtime_transport_lines(const Evidence& evidence, std::size_t max_lines) {
  // (context, rank, peer, transport) -> channels
  std::map<std::tuple<std::string, int, int, std::string>, std::set<int>> grouped;
  for (const auto& c : evidence.connections) {
    grouped[{c.run->context, c.connection->rank, c.connection->peer, c.connection->transport}].insert(c.connection->channel);
  }
  std::vector<std::string> lines;
  for (const auto& [key, channels] : grouped) {
    if (lines.size() >= max_lines) {
      lines.push_back(fmt::format("... {} more connection groups", grouped.size() - max_lines));
      break;
    }
    const auto& [context, rank, peer, transport] = key;
    lines.push_back(fmt::format("NCCL {}: rank {} -> {} via {} on {} channel(s)", context.empty() ? "run" : context, rank,
                                peer, transport, channels.size()));
  }
  return lines;
}


std::optional<std::pair<double, double>> copy_shares(const std::string& method) {
  if (method == "ce") {
    return std::make_pair(threshold(Threshold::kCeShareOfLinkRate), threshold(Threshold::kCeWarnShareOfLinkRate));
  }
  if (method == "sm_read" || method == "sm_write" || method == "sm") {
    return std::make_pair(threshold(Threshold::kSmShareOfLinkRate), threshold(Threshold::kSmWarnShareOfLinkRate));
  }
  return std::nullopt;
}

std::vector<CopyJudgement> plateau_copies(const Evidence& evidence) {
  const auto min_bytes = static_cast<std::uint64_t>(threshold(Threshold::kCopyPlateauMinBytes));
  std::map<std::tuple<int, int, std::string>, const model::CopyPoint*> largest;
  for (const auto* point : evidence.p2p) {
    if (!copy_ok(*point) || point->direction != "uni" || point->bytes < min_bytes || point->src == point->dst ||
        !copy_shares(point->method)) {
      continue;
    }
    const auto key = std::make_tuple(point->src, point->dst, point->method);
    auto it = largest.find(key);
    if (it == largest.end() || point->bytes > it->second->bytes) largest[key] = point;
  }
  std::vector<CopyJudgement> result;
  for (const auto& [key, point] : largest) {
    const auto rate = evidence.link_rate(point->src, point->dst);
    if (!rate || rate->gbps <= 0) continue;
    const auto shares = copy_shares(point->method);
    CopyJudgement judgement;
    judgement.point = point;
    judgement.rate = *rate;
    judgement.share = copy_gbps(*point) / rate->gbps;
    judgement.expected_share = shares->first;
    judgement.warn_share = shares->second;
    result.push_back(judgement);
  }
  return result;
}

std::string copy_line(const CopyJudgement& judgement) {
  const auto& p = *judgement.point;
  return fmt::format("{} GPU{}->GPU{} {} at {} ({} of {} = {})", p.method, p.src, p.dst, format_gbps(copy_gbps(p)),
                     format_bytes(p.bytes), format_percent(judgement.share), judgement.rate.basis,
                     format_gbps(judgement.rate.gbps));
}

std::map<std::pair<int, int>, const model::CopyPoint*> best_directed_copies(const Evidence& evidence,
                                                                         std::uint64_t min_bytes) {
  std::map<std::pair<int, int>, const model::CopyPoint*> best;
  for (const auto* point : evidence.p2p) {
    if (point->direction != "uni" || point->src == point->dst) continue;
    const std::pair<int, int> key{point->src, point->dst};
    auto it = best.find(key);
    if (!copy_ok(*point)) {
      // A failed pair is remembered only until some size of it measures fine.
      if (it == best.end() && point->status != model::PointStatus::kOk) best.emplace(key, point);
      continue;
    }
    if (point->bytes < min_bytes) continue;
    if (it == best.end() || !copy_ok(*it->second) || point->bytes > it->second->bytes ||
        (point->bytes == it->second->bytes && copy_gbps(*point) > copy_gbps(*it->second))) {
      best[key] = point;
    }
  }
  return best;
}

}  // namespace linkscope::diagnose
