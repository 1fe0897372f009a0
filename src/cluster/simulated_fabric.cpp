#include "cluster/simulated_fabric.hpp"

#include <algorithm>
#include <limits>

#include "core/error.hpp"
#include "core/file_io.hpp"
#include "model/json_read.hpp"

namespace linkscope::cluster {

namespace {

constexpr std::uint64_t kMaxFabricBytes = 16ull << 20;

// A host's fields over `base` (the file's default); each number must be positive (latency: not negative).
FabricHost read_host(const model::JsonReader& reader, FabricHost base) {
  const auto positive = [&](std::string_view key, double& value, bool zero_ok) {
    if (const auto number = reader.number(key)) {
      if (*number < 0 || (!zero_ok && *number == 0)) reader.fail(key, zero_ok ? "must not be negative" : "must be positive");
      value = *number;
    }
  };
  positive("send_gbps", base.send_gbps, false);
  positive("recv_gbps", base.recv_gbps, false);
  if (const auto both = reader.number("gbps")) {
    if (*both <= 0) reader.fail("gbps", "must be positive");
    base.send_gbps = base.recv_gbps = *both;
  }
  positive("latency_us", base.latency_us, true);
  base.slow = reader.boolean("slow").value_or(base.slow);
  base.hung = reader.boolean("hung").value_or(base.hung);
  if (const auto from = reader.small_int("slow_from")) {
    if (*from < 0) reader.fail("slow_from", "must not be negative");
    base.slow_from = *from;
  }
  return base;
}

void refuse_unknown_fields(const model::JsonReader& reader) {
  const nlohmann::json extra = reader.extras();
  if (extra.is_object() && !extra.empty()) reader.fail(extra.begin().key(), "unknown field");
}

}  // namespace

SimulatedFabric SimulatedFabric::parse(const std::string& text, const std::string& file) {
  nlohmann::json json;
  try {
    json = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    throw InputError(file, 0, std::string("not JSON: ") + e.what());
  }
  const auto root = model::JsonReader::root(json, file);
  SimulatedFabric fabric;
  fabric.default_host_ = FabricHost{50, 50, 5, false, false};
  const auto defaults = root.object("default");
  fabric.default_host_ = read_host(defaults, fabric.default_host_);
  refuse_unknown_fields(defaults);
  if (const auto factor = root.number("slow_factor")) {
    if (*factor <= 0 || *factor > 1) root.fail("slow_factor", "must be in (0, 1]");
    fabric.slow_factor_ = *factor;
  }
  for (const auto& entry_reader : root.array("hosts")) {
    Entry entry;
    entry.name = entry_reader.string("name");
    entry.rank = entry_reader.small_int("rank");
    if (entry.name.has_value() == entry.rank.has_value()) entry_reader.fail("name", "give a host's name or a rank, one of them");
    if (entry.rank && *entry.rank < 0) entry_reader.fail("rank", "must not be negative");
    entry.host = read_host(entry_reader, fabric.default_host_);
    refuse_unknown_fields(entry_reader);
    fabric.entries_.push_back(entry);
  }
  refuse_unknown_fields(root);
  return fabric;
}

SimulatedFabric SimulatedFabric::load(const std::string& path) {
  return parse(read_input_file(path, kMaxFabricBytes, "simulated fabric"), path);
}

FabricHost SimulatedFabric::host(const FabricMember& member) const {
  for (const auto& entry : entries_) {
    if (entry.name && *entry.name == member.host) return entry.host;
    if (entry.rank && std::find(member.ranks.begin(), member.ranks.end(), *entry.rank) != member.ranks.end()) {
      return entry.host;
    }
  }
  return default_host_;
}

FabricOutcome SimulatedFabric::collective(coll::CollectiveOp op, const std::vector<FabricMember>& members,
                                          std::uint64_t bytes, const std::vector<long long>& counts) const {
  FabricOutcome outcome;
  double gbps = std::numeric_limits<double>::max(), latency_us = 0;
  for (std::size_t i = 0; i < members.size(); ++i) {
    const FabricHost speed = host(members[i]);
    if (speed.hung) outcome.hung_hosts.push_back(members[i].host);
    const long long count = i < counts.size() ? counts[i] : 1;
    const bool slow = speed.slow || (speed.slow_from > 0 && count >= speed.slow_from);
    const double factor = slow ? slow_factor_ : 1.0;
    gbps = std::min({gbps, speed.send_gbps * factor, speed.recv_gbps * factor});
    latency_us = std::max(latency_us, speed.latency_us);
  }
  outcome.hung = !outcome.hung_hosts.empty();
  const int n = static_cast<int>(members.size());
  outcome.time_us = latency_us + coll::bus_factor(op, n) * static_cast<double>(bytes) / (gbps * 1e3);
  return outcome;
}

}  // namespace linkscope::cluster
