#include "runtime/nccl_debug_capture.hpp"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <system_error>
#include <vector>

#include <fmt/format.h>

namespace linkscope::runtime {

namespace fs = std::filesystem;

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
  const auto tmp = env.get("TMPDIR");
  std::string pattern = (tmp && !tmp->empty() ? *tmp : std::string("/tmp")) + "/linkscope-nccl-XXXXXX";
  std::vector<char> buffer(pattern.begin(), pattern.end());
  buffer.push_back('\0');
  if (mkdtemp(buffer.data()) == nullptr) {
    reason_ = fmt::format("cannot create a directory for NCCL's log under {}; the runtime layer is not recorded",
                          pattern.substr(0, pattern.rfind('/')));
    return;
  }
  directory_ = buffer.data();
  active_ = true;
}

NcclDebugCapture::~NcclDebugCapture() { remove_files(); }

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
