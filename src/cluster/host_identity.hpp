#pragma once
#include <string>

#include "core/environment.hpp"

// Which host a rank reports as. Normally the machine's host name; tests that run several ranks on one machine
// as if they were separate hosts say so explicitly through a variable, and the Run records where the name came
// from, so a renamed host is never silent.
namespace linkscope::cluster {

// LINKSCOPE_HOST_NAME=NAME: this rank reports as host NAME (letters, digits, '.', '_', '-'; at most 64).
inline constexpr const char* kHostNameVariable = "LINKSCOPE_HOST_NAME";
// LINKSCOPE_HOST_PER_RANK=1: append "-rank<N>" (N = MPI world rank) to the name, so every rank is its own host.
inline constexpr const char* kHostPerRankVariable = "LINKSCOPE_HOST_PER_RANK";

struct HostIdentity {
  std::string name;      // what reports call the host
  std::string hostname;  // the machine's own name (gethostname)
  std::string source;    // "hostname", "LINKSCOPE_HOST_NAME", "hostname + LINKSCOPE_HOST_PER_RANK", ...

  bool renamed() const { return source != "hostname"; }
};

// Resolves the identity of world rank `rank` on a machine called `hostname`. Throws UsageError naming the
// variable when LINKSCOPE_HOST_NAME is not a usable name or LINKSCOPE_HOST_PER_RANK is not 0 or 1.
HostIdentity resolve_host_identity(const Environment& env, const std::string& hostname, int rank);

}  // namespace linkscope::cluster
