#pragma once
#include <sys/types.h>

#include <atomic>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace linkscope {

// How to start a child process. NCCL reads most variables once per process, so anything run "with a
// path taken away" (NCCL_P2P_DISABLE=1 ...) runs in a child with its own environment.
struct ChildSpec {
  std::string program;                   // path; "" means this executable (/proc/self/exe)
  std::vector<std::string> args;         // argv[1..]
  std::vector<std::string> set_env;      // "NAME=VALUE" added or replaced in the child
  std::vector<std::string> unset_env;    // names removed in the child
  double timeout_seconds = 0;            // 0 = no limit; on expiry the child's process group gets SIGKILL
  std::optional<std::string> stdin_text; // written to the child's stdin, then closed
  // When it becomes true (a signal handler of the parent sets it), the child's process group gets SIGTERM, then
  // SIGKILL after `stop_grace_seconds`; what it printed so far is returned.
  const std::atomic<bool>* stop = nullptr;
  double stop_grace_seconds = 2;
  std::function<void(pid_t)> on_start;   // told the child's pid (its process group id) once it runs
};

struct ChildResult {
  int exit_code = -1;        // exit status; -N when killed by signal N
  bool timed_out = false;
  bool stopped = false;      // ended because ChildSpec::stop became true
  bool started = false;      // false when exec failed (program missing): exit_code is 127
  std::string out;           // captured stdout
  std::string err;           // captured stderr
};

// Runs the child to completion (or timeout) and captures its output. Never throws for a failing child;
// throws Error only when the parent cannot create pipes or fork.
ChildResult run_child(const ChildSpec& spec);

// The last line of a child's output without its line break: a one-line reason when a child step fails.
std::string last_line(std::string text);

// Path of the running executable (for re-running linkscope itself in a child).
std::string self_executable();

}  // namespace linkscope
