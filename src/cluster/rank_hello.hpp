#pragma once
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cluster/host_identity.hpp"

// The first thing every rank of an MPI job tells rank 0: who it is, which linkscope build it runs and with
// which arguments. Rank 0 refuses the job when builds or arguments differ (cluster/roster.hpp).
namespace linkscope::cluster {

struct RankHello {
  int rank = 0;
  HostIdentity host;
  int pid = 0;
  std::string version;                 // linkscope's version
  std::string git;                     // git describe of the build
  std::vector<std::string> arguments;  // the command line without the program's path (which may differ per host)
  int local_rank = 0;                  // index among the ranks MPI places on the same machine
  std::optional<int> cuda_device;      // the GPU (CUDA ordinal) this rank drives, when it drives one
  std::string cuda_device_reason;      // why it has none
  std::string error;                   // what failed on this rank before it could take part (empty: nothing)
  int error_exit_code = 0;             // the exit code that error maps to
};

nlohmann::json hello_to_json(const RankHello& hello);
// Reads what hello_to_json wrote; throws Error (internal) on another shape, naming the field.
RankHello hello_from_json(const nlohmann::json& json);

}  // namespace linkscope::cluster
