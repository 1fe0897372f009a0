#include "runtime/nccl_debug_capture.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <system_error>
#include <vector>

#include <fmt/format.h>

#include "core/temp_directory.hpp"

namespace linkscope::runtime {

namespace fs = std::filesystem;

namespace {

// The directory a SIGTERM removes, and the handler it replaced. Fixed storage: a signal handler may not allocate.
char g_sigterm_directory[4096];
struct sigaction g_earlier_sigterm {};

// Removes the files of `directory` (NCCL writes plain files there, no folders), then the directory, with system
// calls only (getdents64, unlinkat, rmdir are async-signal-safe; opendir/readdir are not).
void remove_directory_signal_safe(const char* directory) {
  const int fd = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd >= 0) {
    alignas(8) char buffer[4096];
    for (long n = syscall(SYS_getdents64, fd, buffer, sizeof buffer); n > 0;
         n = syscall(SYS_getdents64, fd, buffer, sizeof buffer)) {
      for (long offset = 0; offset < n;) {
        // struct linux_dirent64: ino (8), off (8), reclen (2), type (1), name.
        unsigned short length = 0;
        std::memcpy(&length, buffer + offset + 16, sizeof length);
        const char* name = buffer + offset + 19;
        if (std::strcmp(name, ".") != 0 && std::strcmp(name, "..") != 0) unlinkat(fd, name, 0);
        offset += length;
      }
    }
    close(fd);
  }
  rmdir(directory);
}

extern "C" void remove_capture_then_terminate(int signal_number) {
  if (g_sigterm_directory[0] != '\0') remove_directory_signal_safe(g_sigterm_directory);
  // A handler that was there before (an MPI library's, say) gets the signal as it would have; else SIGTERM's
  // default ends the process.
  if ((g_earlier_sigterm.sa_flags & SA_SIGINFO) == 0 && g_earlier_sigterm.sa_handler != SIG_DFL &&
      g_earlier_sigterm.sa_handler != SIG_IGN) {
    g_earlier_sigterm.sa_handler(signal_number);
    return;
  }
  std::signal(signal_number, SIG_DFL);
  std::raise(signal_number);
}

}  // namespace

NcclDebugCapture::NcclDebugCapture(const Environment& env, CaptureDetail detail) : detail_(detail) {
  if (const auto debug = env.get("NCCL_DEBUG")) {
    reason_ = fmt::format("NCCL_DEBUG={} is set by the user; the runtime layer (NCCL's transports) is not recorded", *debug);
    return;
  }
  if (const auto file = env.get("NCCL_DEBUG_FILE")) {
    reason_ = fmt::format("NCCL_DEBUG_FILE={} is set by the user; the runtime layer (NCCL's transports) is not recorded",
                          *file);
    return;
  }
  std::string why;
  const auto directory = make_temp_directory("linkscope-nccl", env, &why);
  if (!directory) {
    reason_ = fmt::format("NCCL's log: {}; the runtime layer is not recorded", why);
    return;
  }
  directory_ = *directory;
  active_ = true;
}

NcclDebugCapture::~NcclDebugCapture() {
  remove_files();  // first: a SIGTERM until the handler goes still finds (and removes) the directory
  if (sigterm_installed_) {
    sigaction(SIGTERM, &g_earlier_sigterm, nullptr);
    g_sigterm_directory[0] = '\0';
  }
}

void NcclDebugCapture::remove_on_sigterm() {
  if (!active_ || sigterm_installed_ || directory_.size() >= sizeof g_sigterm_directory) return;
  // An ignored SIGTERM (nohup, a launcher's choice) stays ignored; a handler taking siginfo is left alone.
  struct sigaction current {};
  if (sigaction(SIGTERM, nullptr, &current) != 0 || current.sa_handler == SIG_IGN ||
      (current.sa_flags & SA_SIGINFO) != 0) {
    return;
  }
  std::memcpy(g_sigterm_directory, directory_.c_str(), directory_.size() + 1);
  struct sigaction action {};
  action.sa_handler = remove_capture_then_terminate;
  sigemptyset(&action.sa_mask);
  sigterm_installed_ = sigaction(SIGTERM, &action, &g_earlier_sigterm) == 0;
}

void NcclDebugCapture::remove_files() noexcept {
  if (directory_.empty()) return;
  std::error_code ignored;
  fs::remove_all(directory_, ignored);
}

std::map<std::string, std::string> NcclDebugCapture::variables() const {
  if (!active_) return {};
  // %h and %p: NCCL substitutes host and pid, so every process writes its own file.
  return {{"NCCL_DEBUG", "INFO"},
          {"NCCL_DEBUG_SUBSYS", detail_ == CaptureDetail::kInitAndCalls ? "INIT,GRAPH,ENV,TUNING" : "INIT,GRAPH,ENV"},
          {"NCCL_DEBUG_FILE", directory_ + "/nccl.%h.%p.log"}};
}

void NcclDebugCapture::apply() const {
  for (const auto& [name, value] : variables()) setenv(name.c_str(), value.c_str(), 1);
}

std::string NcclDebugCapture::collect() const {
  if (!active_) return {};
  std::vector<fs::path> files;
  std::error_code error;
  for (const auto& entry : fs::directory_iterator(directory_, error)) {
    if (entry.is_regular_file()) files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  std::string text;
  for (const auto& file : files) {
    std::ifstream in(file, std::ios::binary);
    std::stringstream buffer;
    buffer << in.rdbuf();
    text += buffer.str();
    if (!text.empty() && text.back() != '\n') text += '\n';
  }
  return text;
}

}  // namespace linkscope::runtime
