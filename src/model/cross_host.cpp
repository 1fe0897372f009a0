#include "model/cross_host.hpp"

#include <algorithm>

namespace linkscope::model {

using nlohmann::json;

namespace {

json host_name_or_null(const CrossHost& c, int index) {
  return index >= 0 && index < static_cast<int>(c.hosts.size()) ? json(c.hosts[static_cast<std::size_t>(index)])
                                                                 : json(nullptr);
}

json endpoint_json(const CrossHostEndpoint& e, const CrossHost& c) {
  json hints = json::array();
  for (const auto& hint : e.hints) hints.push_back(to_json(hint));
  return {{"host", host_name_or_null(c, e.host)},
          {"rank", e.rank},
          {"cuda_device", optional_json(e.cuda_device)},
          {"pci_bdf", e.gpu_bdf},
          {"nic", string_or_null(e.nic)},
          {"nic_reason", e.nic.empty() ? json(e.nic_reason) : json(nullptr)},
          {"transport", string_or_null(e.transport)},
          {"hints", std::move(hints)}};
}

CrossHostEndpoint endpoint_from(const JsonReader& r, const CrossHost& c) {
  CrossHostEndpoint e;
  e.host = c.host_index(r.string_or("host"));
  e.rank = r.small_int("rank").value_or(0);
  e.cuda_device = r.small_int("cuda_device");
  e.gpu_bdf = r.string_or("pci_bdf");
  e.nic = r.string_or("nic");
  e.nic_reason = r.string_or("nic_reason");
  e.transport = r.string_or("transport");
  for (const auto& hint : r.array("hints")) e.hints.push_back(hint_from_json(hint));
  return e;
}

}  // namespace

int CrossHost::host_index(const std::string& name) const {
  const auto it = std::find(hosts.begin(), hosts.end(), name);
  return it == hosts.end() ? -1 : static_cast<int>(it - hosts.begin());
}

std::string CrossHost::host_name(int index, const std::string& fallback) const {
  return index >= 0 && index < static_cast<int>(hosts.size()) ? hosts[static_cast<std::size_t>(index)] : fallback;
}

json to_json(const CrossHost& c) {
  const std::size_t n = c.hosts.size();
  json pairs = json::array();
  std::vector<std::vector<json>> gbps(n, std::vector<json>(n, json(nullptr)));
  std::vector<std::vector<json>> status(n, std::vector<json>(n, json("not measured")));
  for (std::size_t i = 0; i < n; ++i) status[i][i] = "self";
  for (const auto& pair : c.pairs) {
    pairs.push_back({{"a", endpoint_json(pair.a, c)},
                     {"b", endpoint_json(pair.b, c)},
                     {"round", pair.round},
                     {"status", pair.status},
                     {"reason", optional_json(pair.reason)},
                     {"bytes", pair.bytes},
                     {"bandwidth_gbps", optional_json(pair.bandwidth_gbps)},
                     {"series", pair.series ? to_json(*pair.series) : json(nullptr)}});
    if (pair.a.host < 0 || pair.b.host < 0 || pair.a.host >= static_cast<int>(n) || pair.b.host >= static_cast<int>(n)) {
      continue;
    }
    const auto a = static_cast<std::size_t>(pair.a.host), b = static_cast<std::size_t>(pair.b.host);
    gbps[a][b] = gbps[b][a] = optional_json(pair.bandwidth_gbps);
    status[a][b] = status[b][a] = pair.status;
  }
  json culprits = json::array();
  for (const auto& s : c.slow) {
    culprits.push_back({{"kind", s.kind},
                        {"host", host_name_or_null(c, s.host)},
                        {"other_host", host_name_or_null(c, s.other_host)},
                        {"nic", string_or_null(s.nic)},
                        {"measured_gbps", optional_json(s.measured_gbps)},
                        {"reference_gbps", optional_json(s.reference_gbps)},
                        {"evidence", s.evidence}});
  }
  json all_reduce = {{"status", c.all_reduce_status},
                     {"reason", optional_json(c.all_reduce_reason)},
                     {"transports", c.all_reduce_transports},
                     {"series", c.all_reduce ? to_json(*c.all_reduce) : json(nullptr)}};
  if (c.all_reduce) {
    const CollectivePoint* point = largest_measured_point(*c.all_reduce);
    all_reduce["nranks"] = c.all_reduce->nranks;
    all_reduce["bytes"] = point != nullptr ? json(point->bytes) : json(nullptr);
    all_reduce["busbw_gbps"] = point != nullptr ? optional_json(point->busbw_gbps) : json(nullptr);
  }
  json known = {{"op", "sendrecv"},
                      {"schedule", c.schedule},
                      {"sizes_bytes", c.sizes_bytes},
                      {"hosts", c.hosts},
                      {"pairs", pairs},
                      {"matrix", {{"hosts", c.hosts}, {"bandwidth_gbps", gbps}, {"status", status}}},
                      {"all_reduce", all_reduce},
                      {"slow", culprits},
                      {"notes", c.notes}};
  if (c.isolation) known["isolation"] = to_json(*c.isolation, c.hosts);
  return with_extras(known, c.extra);
}

CrossHost cross_host_from_json(const JsonReader& r) {
  CrossHost c;
  c.hosts = r.strings("hosts");
  c.schedule = r.string_or("schedule");
  for (auto size : r.integers("sizes_bytes")) c.sizes_bytes.push_back(static_cast<std::uint64_t>(size));
  for (const auto& p : r.array("pairs")) {
    CrossHostPair pair;
    pair.a = endpoint_from(p.object("a"), c);
    pair.b = endpoint_from(p.object("b"), c);
    pair.round = p.small_int("round").value_or(0);
    pair.status = p.string_or("status", "ok");
    pair.reason = p.string("reason");
    pair.bytes = p.count("bytes").value_or(0);
    pair.bandwidth_gbps = p.number("bandwidth_gbps");
    if (p.has("series")) pair.series = series_from_json(p.object("series"));
    c.pairs.push_back(std::move(pair));
  }
  const JsonReader all_reduce = r.object("all_reduce");
  c.all_reduce_status = all_reduce.string_or("status", "not run");
  c.all_reduce_reason = all_reduce.string("reason");
  c.all_reduce_transports = all_reduce.strings("transports");
  if (all_reduce.has("series")) c.all_reduce = series_from_json(all_reduce.object("series"));
  for (const auto& s : r.array("slow")) {
    SlowCulprit culprit;
    culprit.kind = s.string_or("kind");
    culprit.host = c.host_index(s.string_or("host"));
    culprit.other_host = c.host_index(s.string_or("other_host"));
    culprit.nic = s.string_or("nic");
    culprit.measured_gbps = s.number("measured_gbps");
    culprit.reference_gbps = s.number("reference_gbps");
    culprit.evidence = s.string_or("evidence");
    c.slow.push_back(std::move(culprit));
  }
  if (r.has("isolation") && !r.at("isolation").is_null()) c.isolation = isolation_from_json(r.object("isolation"), c.hosts);
  c.notes = r.strings("notes");
  r.skip({"op", "matrix"});  // op is always sendrecv; the matrix is derived from the pairs
  c.extra = r.extras();
  return c;
}

}  // namespace linkscope::model
