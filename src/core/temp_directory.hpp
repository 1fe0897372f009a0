#pragma once
#include <optional>
#include <string>
#include <string_view>

#include "core/environment.hpp"

// Private scratch directories under $TMPDIR (else /tmp): NCCL's log and topology dump, the doctor's files for its
// steps. An unusable TMPDIR (a file, read-only, missing) is a one-line reason the caller reports, never an error.
namespace linkscope {

// Creates "<TMPDIR or /tmp>/<prefix>-XXXXXX" (mode 0700); nullopt with `why` naming TMPDIR's value and the reason.
std::optional<std::string> make_temp_directory(std::string_view prefix, const Environment& env, std::string* why);

// A directory made by make_temp_directory and removed, with its files, when this goes out of scope.
class TempDirectory {
 public:
  TempDirectory(std::string_view prefix, const Environment& env);
  ~TempDirectory();
  TempDirectory(const TempDirectory&) = delete;
  TempDirectory& operator=(const TempDirectory&) = delete;

  // "" when it could not be made; why() then says why.
  const std::string& path() const { return path_; }
  const std::string& why() const { return why_; }

  // Writes the file `name` in it; returns its path, or "" when the directory or the file could not be made (why()
  // says why, in one line).
  std::string write(const std::string& name, std::string_view content);

 private:
  std::string path_;
  std::string why_;
};

}  // namespace linkscope
