#pragma once
#include <sys/types.h>

#include <string>
#include <vector>

namespace linkscope::test {

// A command started in the background, for tests that act on it while it runs (a signal sent at a known point).
// It starts with SIGINT, SIGTERM and SIGHUP at their default action and unblocked, whatever the test runner set,
// its standard output discarded and its standard error in `stderr_path`.
class BackgroundCommand {
 public:
  // `env`: "NAME=VALUE" added or replaced, "NAME" alone removed.
  BackgroundCommand(const std::string& program, const std::vector<std::string>& args,
                    const std::vector<std::string>& env, std::string stderr_path);
  ~BackgroundCommand();  // a command still running is killed (SIGKILL) and reaped
  BackgroundCommand(const BackgroundCommand&) = delete;
  BackgroundCommand& operator=(const BackgroundCommand&) = delete;

  // True once its standard error holds `text`; false when it ended or `timeout_seconds` passed first.
  bool wait_for_stderr(const std::string& text, int timeout_seconds);
  void send(int signal_number) const;
  // Its exit status, -N when a signal N ended it, -1000 when it still ran after `timeout_seconds` (then killed).
  int wait(int timeout_seconds);
  std::string err() const;

 private:
  pid_t pid_ = -1;
  std::string stderr_path_;
  bool reaped_ = false;
  int status_ = 0;
  bool try_reap();
};

}  // namespace linkscope::test
