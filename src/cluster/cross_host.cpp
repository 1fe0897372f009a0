#include "cluster/cross_host.hpp"

#include <algorithm>
#include <cstdlib>

#include <fmt/format.h>

namespace linkscope::cluster {

namespace {

using nlohmann::json;

int severity(const std::string& status) {
  if (status == "ok") return 0;
  if (status == "wrong") return 1;
  if (status == "error") return 2;
  if (status == "timeout") return 3;
  return 2;
}

double median_of(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

json optional_number(const std::optional<double>& value) { return value ? json(*value) : json(nullptr); }

json endpoint_json(const CrossHostEndpoint& e, const std::vector<std::string>& hosts) {
  return {{"host", hosts.at(static_cast<std::size_t>(e.host))},
          {"rank", e.rank},
          {"cuda_device", e.cuda_device ? json(*e.cuda_device) : json(nullptr)},
          {"pci_bdf", e.gpu_bdf},
          {"nic", e.nic.empty() ? json(nullptr) : json(e.nic)},
          {"nic_reason", e.nic.empty() ? json(e.nic_reason) : json(nullptr)},
          {"transport", e.transport.empty() ? json(nullptr) : json(e.transport)}};
}

// The NIC a host's pairs went through when they all agree ("" otherwise).
std::string host_nic(const CrossHostResult& result, int host) {
  std::string nic;
  for (const auto& pair : result.pairs) {
    for (const CrossHostEndpoint* e : {&pair.a, &pair.b}) {
      if (e->host != host || e->nic.empty()) continue;
      if (!nic.empty() && nic != e->nic) return "";
      nic = e->nic;
    }
  }
  return nic;
}

const json* host_system(const HostsComparison* hosts, int index) {
  if (hosts == nullptr || index < 0 || index >= static_cast<int>(hosts->hosts.size())) return nullptr;
  const json& system = hosts->hosts[static_cast<std::size_t>(index)].system;
  return system.is_object() ? &system : nullptr;
}

}  // namespace

std::pair<std::string, std::optional<std::string>> series_status(const model::CollectiveSeries& series) {
  std::string status = "ok";
  std::optional<std::string> reason;
  for (const auto& point : series.points) {
    if (severity(point.status) > severity(status)) {
      status = point.status;
      reason = point.reason.value_or(point.status);
      if (point.status == "wrong") reason = fmt::format("{} wrong elements at {} bytes", point.wrong.value_or(0), point.bytes);
    }
  }
  return {status, reason};
}

void summarize_pair(CrossHostPair& pair) {
  if (!pair.series) {
    if (pair.status == "ok") {
      pair.status = "error";
      pair.reason = pair.reason.value_or("not measured");
    }
    return;
  }
  auto [status, reason] = series_status(*pair.series);
  if (severity(status) > severity(pair.status)) {
    pair.status = status;
    pair.reason = reason;
  }
  if (const model::CollectivePoint* point = model::largest_measured_point(*pair.series)) {
    pair.bandwidth_gbps = point->busbw_gbps;
    pair.bytes = point->bytes;
  }
}

std::optional<double> nic_rate_gbytes(const json& system, const std::string& nic) {
  if (!system.is_object() || !system.contains("nics") || nic.empty()) return std::nullopt;
  const auto colon = nic.find(':');
  const std::string name = nic.substr(0, colon);
  std::optional<int> port;
  if (colon != std::string::npos) port = std::atoi(nic.c_str() + colon + 1);
  for (const auto& entry : system["nics"]) {
    if (entry.value("name", "") != name) continue;
    if (entry.contains("ports")) {
      for (const auto& p : entry["ports"]) {
        if (port && p.value("port", -1) != *port) continue;
        if (p.contains("rate_gbps") && p["rate_gbps"].is_number()) return p["rate_gbps"].get<double>() / 8;
      }
    }
    if (entry.contains("speed_mbps") && entry["speed_mbps"].is_number()) return entry["speed_mbps"].get<double>() / 8000;
  }
  return std::nullopt;
}

std::vector<SlowCulprit> find_slow(const CrossHostResult& result, const HostsComparison* hosts, double slow_fraction) {
  std::vector<SlowCulprit> culprits;
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
      SlowCulprit c;
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
      SlowCulprit c;
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
    return std::any_of(culprits.begin(), culprits.end(), [&](const SlowCulprit& c) { return c.host == host; });
  };
  for (const auto& pair : result.pairs) {
    if (pair.status != "ok" || !pair.bandwidth_gbps || named(pair.a.host) || named(pair.b.host)) continue;
    std::optional<double> rate;
    std::string basis;
    for (const CrossHostEndpoint* e : {&pair.a, &pair.b}) {
      const json* system = host_system(hosts, e->host);
      if (system == nullptr) continue;
      const auto r = nic_rate_gbytes(*system, e->nic);
      if (r && (!rate || *r < *rate)) {
        rate = r;
        basis = fmt::format("{} of {}", e->nic, result.hosts[static_cast<std::size_t>(e->host)]);
      }
    }
    if (!rate || *pair.bandwidth_gbps >= kNicRateShare * *rate) continue;
    SlowCulprit c;
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

nlohmann::json cross_host_to_json(const CrossHostResult& result, const std::vector<SlowCulprit>& slow) {
  const std::size_t n = result.hosts.size();
  json pairs = json::array();
  std::vector<std::vector<json>> gbps(n, std::vector<json>(n, json(nullptr)));
  std::vector<std::vector<json>> status(n, std::vector<json>(n, json("not measured")));
  for (std::size_t i = 0; i < n; ++i) status[i][i] = "self";
  for (const auto& pair : result.pairs) {
    json entry = {{"a", endpoint_json(pair.a, result.hosts)},
                  {"b", endpoint_json(pair.b, result.hosts)},
                  {"round", pair.round},
                  {"status", pair.status},
                  {"reason", pair.reason ? json(*pair.reason) : json(nullptr)},
                  {"bytes", pair.bytes},
                  {"bandwidth_gbps", optional_number(pair.bandwidth_gbps)},
                  {"series", pair.series ? coll::to_json(*pair.series) : json(nullptr)}};
    pairs.push_back(entry);
    const auto a = static_cast<std::size_t>(pair.a.host), b = static_cast<std::size_t>(pair.b.host);
    gbps[a][b] = gbps[b][a] = optional_number(pair.bandwidth_gbps);
    status[a][b] = status[b][a] = pair.status;
  }
  json culprits = json::array();
  for (const auto& c : slow) {
    culprits.push_back({{"kind", c.kind},
                        {"host", c.host >= 0 ? json(result.hosts[static_cast<std::size_t>(c.host)]) : json(nullptr)},
                        {"other_host", c.other_host >= 0 ? json(result.hosts[static_cast<std::size_t>(c.other_host)]) : json(nullptr)},
                        {"nic", c.nic.empty() ? json(nullptr) : json(c.nic)},
                        {"measured_gbps", optional_number(c.measured_gbps)},
                        {"reference_gbps", optional_number(c.reference_gbps)},
                        {"evidence", c.evidence}});
  }
  json all_reduce = {{"status", result.all_reduce_status},
                     {"reason", result.all_reduce_reason ? json(*result.all_reduce_reason) : json(nullptr)},
                     {"transports", result.all_reduce_transports},
                     {"series", result.all_reduce ? coll::to_json(*result.all_reduce) : json(nullptr)}};
  if (result.all_reduce) {
    const model::CollectivePoint* point = model::largest_measured_point(*result.all_reduce);
    all_reduce["nranks"] = result.all_reduce->nranks;
    all_reduce["bytes"] = point != nullptr ? json(point->bytes) : json(nullptr);
    all_reduce["busbw_gbps"] = point != nullptr ? optional_number(point->busbw_gbps) : json(nullptr);
  }
  return {{"op", "sendrecv"},
          {"schedule", result.schedule},
          {"sizes_bytes", result.sizes_bytes},
          {"hosts", result.hosts},
          {"pairs", pairs},
          {"matrix", {{"hosts", result.hosts}, {"bandwidth_gbps", gbps}, {"status", status}}},
          {"all_reduce", all_reduce},
          {"slow", culprits},
          {"notes", result.notes}};
}

}  // namespace linkscope::cluster
