#include "cluster/host_identity.hpp"

#include <algorithm>
#include <cctype>

#include <fmt/format.h>

#include "core/error.hpp"

namespace linkscope::cluster {

namespace {

bool usable_name(const std::string& name) {
  if (name.empty() || name.size() > 64) return false;
  return std::all_of(name.begin(), name.end(), [](unsigned char c) {
    return std::isalnum(c) != 0 || c == '.' || c == '_' || c == '-';
  });
}

}  // namespace

HostIdentity resolve_host_identity(const Environment& env, const std::string& hostname, int rank) {
  HostIdentity identity;
  identity.hostname = hostname;
  identity.name = hostname;
  identity.source = "hostname";
  if (const auto name = env.get(kHostNameVariable); name && !name->empty()) {
    if (!usable_name(*name)) {
      throw UsageError(fmt::format("{}='{}' is not a host name: use 1 to 64 letters, digits, '.', '_' or '-'",
                                   kHostNameVariable, *name));
    }
    identity.name = *name;
    identity.source = kHostNameVariable;
  }
  if (const auto per_rank = env.get(kHostPerRankVariable); per_rank && !per_rank->empty()) {
    if (*per_rank != "0" && *per_rank != "1") {
      throw UsageError(fmt::format("{}='{}' must be 0 or 1", kHostPerRankVariable, *per_rank));
    }
    if (*per_rank == "1") {
      identity.name += fmt::format("-rank{}", rank);
      identity.source += std::string(" + ") + kHostPerRankVariable;
    }
  }
  return identity;
}

}  // namespace linkscope::cluster
