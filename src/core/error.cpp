#include "core/error.hpp"

namespace linkscope {

namespace {
std::string locate(const std::string& file, long line, const std::string& what) {
  if (line > 0) return file + ":" + std::to_string(line) + ": " + what;
  return file + ": " + what;
}
}  // namespace

InputError::InputError(const std::string& file, long line, const std::string& what)
    : Error(ExitCode::kUsage, locate(file, line, what)), file_(file), line_(line) {}

}  // namespace linkscope
