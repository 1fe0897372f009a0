#include "core/subprocess.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <climits>
#include <cstring>

#include <fmt/format.h>

#include "core/error.hpp"

namespace linkscope {

namespace {

void child_exec(const ChildSpec& spec, int out_fd, int err_fd, int in_fd) {
  // Own process group, so a timeout can kill grandchildren (e.g. NCCL's proxy threads' helpers) too.
  setpgid(0, 0);
  dup2(out_fd, STDOUT_FILENO);
  dup2(err_fd, STDERR_FILENO);
  if (in_fd >= 0) {
    dup2(in_fd, STDIN_FILENO);
  } else {
    const int null_fd = open("/dev/null", O_RDONLY);
    if (null_fd >= 0) dup2(null_fd, STDIN_FILENO);
  }
  for (const auto& name : spec.unset_env) unsetenv(name.c_str());
  for (const auto& assignment : spec.set_env) {
    const auto eq = assignment.find('=');
    if (eq != std::string::npos) setenv(assignment.substr(0, eq).c_str(), assignment.substr(eq + 1).c_str(), 1);
  }
  const std::string program = spec.program.empty() ? self_executable() : spec.program;
  std::vector<char*> argv;
  argv.push_back(const_cast<char*>(program.c_str()));
  for (const auto& arg : spec.args) argv.push_back(const_cast<char*>(arg.c_str()));
  argv.push_back(nullptr);
  execvp(program.c_str(), argv.data());
  _exit(127);
}

}  // namespace

std::string last_line(std::string text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
  const auto newline = text.rfind('\n');
  return newline == std::string::npos ? text : text.substr(newline + 1);
}

std::string self_executable() {
  char buffer[PATH_MAX];
  const ssize_t n = readlink("/proc/self/exe", buffer, sizeof buffer - 1);
  if (n <= 0) return "linkscope";
  return std::string(buffer, static_cast<std::size_t>(n));
}

ChildResult run_child(const ChildSpec& spec) {
  int out_pipe[2], err_pipe[2], in_pipe[2] = {-1, -1};
  if (pipe2(out_pipe, O_CLOEXEC) != 0 || pipe2(err_pipe, O_CLOEXEC) != 0 ||
      (spec.stdin_text && pipe2(in_pipe, O_CLOEXEC) != 0)) {
    throw Error(ExitCode::kInternal, fmt::format("cannot create pipes for a child process: {}", std::strerror(errno)));
  }
  const pid_t pid = fork();
  if (pid < 0) throw Error(ExitCode::kInternal, fmt::format("fork failed: {}", std::strerror(errno)));
  if (pid == 0) child_exec(spec, out_pipe[1], err_pipe[1], in_pipe[0]);
  setpgid(pid, pid);  // also from the parent, to win the race with the child's own call
  close(out_pipe[1]);
  close(err_pipe[1]);
  if (spec.stdin_text) {
    close(in_pipe[0]);
    // Best effort: a child that exits without reading gets EPIPE, which must not kill the parent.
    signal(SIGPIPE, SIG_IGN);
    const std::string& text = *spec.stdin_text;
    std::size_t written = 0;
    while (written < text.size()) {
      const ssize_t n = write(in_pipe[1], text.data() + written, text.size() - written);
      if (n <= 0) break;
      written += static_cast<std::size_t>(n);
    }
    close(in_pipe[1]);
  }

  ChildResult result;
  if (spec.on_start) spec.on_start(pid);
  bool limited = spec.timeout_seconds > 0;
  auto deadline = std::chrono::steady_clock::now() +
                  std::chrono::microseconds(static_cast<long long>(spec.timeout_seconds * 1e6));
  pollfd fds[2] = {{out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}};
  int open_fds = 2;
  char buffer[65536];
  while (open_fds > 0) {
    if (spec.stop != nullptr && spec.stop->load() && !result.stopped) {
      // Ask politely, keep reading what it prints, and give it a grace period before the timeout's SIGKILL.
      result.stopped = true;
      kill(-pid, SIGTERM);
      const auto grace = std::chrono::steady_clock::now() +
                         std::chrono::microseconds(static_cast<long long>(spec.stop_grace_seconds * 1e6));
      if (!limited || grace < deadline) deadline = grace;
      limited = true;
    }
    int wait_ms = -1;
    if (limited) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) {
        result.timed_out = !result.stopped;
        kill(-pid, SIGKILL);
        break;
      }
      wait_ms = static_cast<int>(std::min<long long>(left.count(), INT_MAX));
    }
    // A stop request arrives as a signal, which ends poll() early (EINTR); poll at least every 200 ms anyway, in
    // case the signal landed just before poll() began.
    if (spec.stop != nullptr && (wait_ms < 0 || wait_ms > 200)) wait_ms = 200;
    const int ready = poll(fds, 2, wait_ms);
    if (ready < 0 && errno != EINTR) break;
    for (auto& fd : fds) {
      if (fd.fd < 0 || !(fd.revents & (POLLIN | POLLHUP | POLLERR))) continue;
      const ssize_t n = read(fd.fd, buffer, sizeof buffer);
      if (n > 0) {
        (&fd == &fds[0] ? result.out : result.err).append(buffer, static_cast<std::size_t>(n));
      } else if (n == 0 || errno != EINTR) {
        close(fd.fd);
        fd.fd = -1;
        --open_fds;
      }
    }
  }
  for (auto& fd : fds) {
    if (fd.fd >= 0) close(fd.fd);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status)) {
    result.exit_code = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    result.exit_code = -WTERMSIG(status);
  }
  result.started = !(WIFEXITED(status) && result.exit_code == 127 && result.out.empty() && result.err.empty());
  return result;
}

}  // namespace linkscope
