#pragma once
#include <optional>
#include <string>
#include <vector>

namespace linkscope::cli {

// Subcommands that measure one host (p2p, patterns, ladder) under mpirun/srun. Ranks on the same host would
// otherwise measure the same GPUs at the same time and print one result each; instead the leader of every host
// runs the command on its own host once, as a child process without the launcher's variables, the other ranks
// wait, and rank 0 prints every host's output under a header, in host order (with --format json: one JSON
// object {"hosts": [{"host", "ranks", "exit_code", "run"}]}). Returns nothing when not launched in parallel;
// otherwise the exit code (the first failing host's, else 0).
std::optional<int> run_on_every_host(const std::vector<std::string>& argv);

}  // namespace linkscope::cli
