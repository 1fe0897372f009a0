#include "core/temp_directory.hpp"

#include <stdlib.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <system_error>

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/file_io.hpp"

namespace linkscope {

std::optional<std::string> make_temp_directory(std::string_view prefix, const Environment& env, std::string* why) {
  const auto tmpdir = env.get("TMPDIR");
  const bool from_variable = tmpdir && !tmpdir->empty();
  const std::string base = from_variable ? *tmpdir : "/tmp";
  std::string pattern = fmt::format("{}/{}-XXXXXX", base, prefix);
  if (::mkdtemp(pattern.data()) != nullptr) return pattern;
  if (why != nullptr) {
    *why = fmt::format("cannot create a temporary directory in {}{}: {}", base, from_variable ? " (TMPDIR)" : "",
                       std::strerror(errno));
  }
  return std::nullopt;
}

TempDirectory::TempDirectory(std::string_view prefix, const Environment& env) {
  path_ = make_temp_directory(prefix, env, &why_).value_or("");
}

std::string TempDirectory::write(const std::string& name, std::string_view content) {
  if (path_.empty()) return "";
  const std::string path = path_ + "/" + name;
  try {
    write_file_atomically(path, content);
  } catch (const Error& e) {
    why_ = e.what();
    return "";
  }
  return path;
}

TempDirectory::~TempDirectory() {
  std::error_code ignored;
  if (!path_.empty()) std::filesystem::remove_all(path_, ignored);
}

}  // namespace linkscope
