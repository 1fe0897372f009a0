#include "support/background_command.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <thread>

#include "support/run_command.hpp"

extern char** environ;

namespace linkscope::test {

namespace {

std::vector<std::string> child_environment(const std::vector<std::string>& changes) {
  std::vector<std::string> env;
  for (char** entry = environ; *entry != nullptr; ++entry) env.emplace_back(*entry);
  for (const auto& change : changes) {
    const std::string name = change.substr(0, change.find('='));
    for (auto it = env.begin(); it != env.end();) {
      it = it->compare(0, name.size() + 1, name + "=") == 0 ? env.erase(it) : it + 1;
    }
    if (change.find('=') != std::string::npos) env.push_back(change);
  }
  return env;
}

std::vector<char*> pointers(std::vector<std::string>& strings) {
  std::vector<char*> out;
  for (auto& s : strings) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

}  // namespace

BackgroundCommand::BackgroundCommand(const std::string& program, const std::vector<std::string>& args,
                                     const std::vector<std::string>& env, std::string stderr_path)
    : stderr_path_(std::move(stderr_path)) {
  // Everything the child needs is made before fork: between fork and exec only async-signal-safe calls.
  std::vector<std::string> argv_strings{program};
  argv_strings.insert(argv_strings.end(), args.begin(), args.end());
  std::vector<std::string> env_strings = child_environment(env);
  std::vector<char*> argv = pointers(argv_strings);
  std::vector<char*> envp = pointers(env_strings);
  const int err_fd = ::open(stderr_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  const int null_fd = ::open("/dev/null", O_WRONLY | O_CLOEXEC);
  if (err_fd < 0 || null_fd < 0) throw std::runtime_error("cannot open " + stderr_path_ + " or /dev/null");
  pid_ = ::fork();
  if (pid_ < 0) throw std::runtime_error("fork failed");
  if (pid_ == 0) {
    for (int s : {SIGINT, SIGTERM, SIGHUP}) ::signal(s, SIG_DFL);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    ::dup2(null_fd, STDOUT_FILENO);
    ::dup2(err_fd, STDERR_FILENO);
    ::execve(argv[0], argv.data(), envp.data());
    ::_exit(127);
  }
  ::close(err_fd);
  ::close(null_fd);
}

BackgroundCommand::~BackgroundCommand() {
  if (pid_ > 0 && !try_reap()) {
    ::kill(pid_, SIGKILL);
    while (::waitpid(pid_, &status_, 0) < 0 && errno == EINTR) {
    }
  }
}

bool BackgroundCommand::try_reap() {
  if (reaped_) return true;
  const pid_t done = ::waitpid(pid_, &status_, WNOHANG);
  reaped_ = done == pid_;
  return reaped_;
}

bool BackgroundCommand::wait_for_stderr(const std::string& text, int timeout_seconds) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(timeout_seconds);
  while (std::chrono::steady_clock::now() < until) {
    if (err().find(text) != std::string::npos) return true;
    if (try_reap()) return err().find(text) != std::string::npos;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return false;
}

void BackgroundCommand::send(int signal_number) const {
  if (!reaped_) ::kill(pid_, signal_number);
}

int BackgroundCommand::wait(int timeout_seconds) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(timeout_seconds);
  while (!try_reap()) {
    if (std::chrono::steady_clock::now() >= until) {
      ::kill(pid_, SIGKILL);
      while (::waitpid(pid_, &status_, 0) < 0 && errno == EINTR) {
      }
      reaped_ = true;
      return -1000;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  if (WIFEXITED(status_)) return WEXITSTATUS(status_);
  return WIFSIGNALED(status_) ? -WTERMSIG(status_) : -1;
}

std::string BackgroundCommand::err() const { return read_text(stderr_path_); }

}  // namespace linkscope::test
