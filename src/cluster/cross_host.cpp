#include "cluster/cross_host.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "core/text.hpp"
#include "model/link_rate.hpp"

namespace linkscope::cluster {

namespace {

// The NIC a host's pairs went through when they all agree ("" otherwise).
std::string host_nic(const model::CrossHost& result, int host) {
  std::string nic;
  for (const auto& pair : result.pairs) {
    for (const model::CrossHostEndpoint* e : {&pair.a, &pair.b}) {
      if (e->host != host || e->nic.empty()) continue;
      if (!nic.empty() && nic != e->nic) return "";
      nic = e->nic;
    }
  }
  return nic;
}

const model::System* host_system(const HostsComparison* hosts, int index) {
  if (hosts == nullptr || index < 0 || index >= static_cast<int>(hosts->hosts.size())) return nullptr;
  return hosts->hosts[static_cast<std::size_t>(index)].system.get();
}

}  // namespace

int status_severity(const std::string& status) {
  if (status == "ok") return 0;
  if (status == "wrong") return 1;
  if (status == "timeout") return 3;
  return 2;
}

std::pair<std::string, std::optional<std::string>> series_status(const model::CollectiveSeries& series) {
  std::string status = "ok";
  std::optional<std::string> reason;
  for (const auto& point : series.points) {
    if (status_severity(point.status) > status_severity(status)) {
      status = point.status;
      reason = point.reason.value_or(point.status);
      if (point.status == "wrong") reason = fmt::format("{} wrong elements at {} bytes", point.wrong.value_or(0), point.bytes);
    }
  }
  return {status, reason};
}

void summarize_pair(model::CrossHostPair& pair) {
  if (!pair.series) {
    if (pair.status == "ok") {
      pair.status = "error";
      pair.reason = pair.reason.value_or("not measured");
    }
    return;
  }
  auto [status, reason] = series_status(*pair.series);
  if (status_severity(status) > status_severity(pair.status)) {
    pair.status = status;
    pair.reason = reason;
  }
  if (const model::CollectivePoint* point = model::largest_measured_point(*pair.series)) {
    pair.bandwidth_gbps = point->busbw_gbps;
    pair.bytes = point->bytes;
  }
}

std::vector<model::SlowCulprit> find_slow(const model::CrossHost& result, const HostsComparison* hosts, double slow_fraction) {
  std::vector<model::SlowCulprit> culprits;
  const int host_count = static_cast<int>(result.hosts.size());

  for (int h = 0; h < host_count; ++h) {
    int involved = 0, failed = 0;
    std::string first_reason;
    for (const auto& pair : result.pairs) {
      if (pair.a.host != h && pair.b.host != h) continue;
      ++involved;
      if (pair.status != "ok" && pair.status != "wrong") {
        ++failed;
        if (first_reason.empty()) first_reason = pair.status + ": " + pair.reason.value_or("");
      }
    }
    // With two hosts a failing pair cannot be pinned on either.
    if (host_count >= 3 && involved > 0 && failed == involved) {
      model::SlowCulprit c;
      c.kind = "failed";
      c.host = h;
      c.nic = host_nic(result, h);
      c.evidence = fmt::format("every pair with {} failed ({} of {}; first: {})", result.hosts[static_cast<std::size_t>(h)],
                               failed, involved, first_reason);
      culprits.push_back(c);
    }
  }

  if (host_count >= 3) {
    for (int h = 0; h < host_count; ++h) {
      std::vector<double> mine, others;
      for (const auto& pair : result.pairs) {
        if (pair.status != "ok" || !pair.bandwidth_gbps) continue;
        (pair.a.host == h || pair.b.host == h ? mine : others).push_back(*pair.bandwidth_gbps);
      }
      if (mine.empty() || others.empty()) continue;
      const double my_median = median_of(mine), other_median = median_of(others);
      if (my_median >= (1 - slow_fraction) * other_median) continue;
      model::SlowCulprit c;
      c.kind = "host";
      c.host = h;
      c.nic = host_nic(result, h);
      c.measured_gbps = my_median;
      c.reference_gbps = other_median;
      c.evidence = fmt::format("{}: median {:.1f} GB/s over its {} pair(s){} vs {:.1f} GB/s over the {} pair(s) without it "
                               "({:.0f}% lower)",
                               result.hosts[static_cast<std::size_t>(h)], my_median, mine.size(),
                               c.nic.empty() ? std::string() : " through " + c.nic, other_median, others.size(),
                               100 * (1 - my_median / other_median));
      if (hosts != nullptr) {
        for (const auto& line : host_difference_lines(*hosts, h)) c.evidence += "; differs: " + line;
      }
      culprits.push_back(c);
    }
  }

  // A pair of a host already named is explained by that host.
  const auto named = [&](int host) {
    return std::any_of(culprits.begin(), culprits.end(), [&](const model::SlowCulprit& c) { return c.host == host; });
  };
  for (const auto& pair : result.pairs) {
    if (pair.status != "ok" || !pair.bandwidth_gbps || named(pair.a.host) || named(pair.b.host)) continue;
    std::optional<double> rate;
    std::string basis;
    for (const model::CrossHostEndpoint* e : {&pair.a, &pair.b}) {
      const model::System* system = host_system(hosts, e->host);
      if (system == nullptr) continue;
      const auto r = model::named_nic_rate(*system, e->nic);
      if (r && (!rate || r->gbps < *rate)) {
        rate = r->gbps;
        basis = fmt::format("{} of {}", e->nic, result.hosts[static_cast<std::size_t>(e->host)]);
      }
    }
    if (!rate || *pair.bandwidth_gbps >= kNicRateShare * *rate) continue;
    model::SlowCulprit c;
    c.kind = "pair";
    c.host = pair.a.host;
    c.other_host = pair.b.host;
    c.measured_gbps = pair.bandwidth_gbps;
    c.reference_gbps = rate;
    c.evidence = fmt::format("{} <-> {}: {:.1f} GB/s per direction is {:.0f}% of the slower NIC's {:.1f} GB/s ({}); "
                             "expected at least {:.0f}%",
                             result.hosts[static_cast<std::size_t>(pair.a.host)],
                             result.hosts[static_cast<std::size_t>(pair.b.host)], *pair.bandwidth_gbps,
                             100 * *pair.bandwidth_gbps / *rate, *rate, basis, 100 * kNicRateShare);
    culprits.push_back(c);
  }
  return culprits;
}

void record_cross_host_errors(model::Run& run, const model::CrossHost& result) {
  const auto host = [&](int index) { return result.hosts[static_cast<std::size_t>(index)]; };
  for (const auto& pair : result.pairs) {
    if (pair.status == "ok") continue;
    run.record_error(fmt::format("cross_host {} <-> {}", host(pair.a.host), host(pair.b.host)),
                     pair.status + ": " + pair.reason.value_or(""));
  }
  if (result.all_reduce_status != "ok" && result.all_reduce_status != "not run") {
    run.record_error("cross_host all_reduce", result.all_reduce_status + ": " + result.all_reduce_reason.value_or(""));
  }
}

int cross_host_exit_code(const model::CrossHost& result) {
  int worst = 0;
  for (const auto& pair : result.pairs) worst = std::max(worst, status_severity(pair.status));
  if (result.all_reduce_status != "not run") worst = std::max(worst, status_severity(result.all_reduce_status));
  if (result.isolation) {  // a hung group timed out
    for (const auto& run : result.isolation->runs) {
      for (const auto& group : run.groups) {
        if (group.outcome == model::GroupOutcome::kHung) worst = std::max(worst, status_severity("timeout"));
      }
    }
  }
  switch (worst) {
    case 3: return to_int(ExitCode::kTimeout);
    case 2: return to_int(ExitCode::kDevice);
    case 1: return to_int(ExitCode::kWrongResults);
    default: return 0;
  }
}

}  // namespace linkscope::cluster
