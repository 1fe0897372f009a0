#include "core/replace_permission.hpp"

#include <unistd.h>

#include <fmt/format.h>

namespace linkscope {

std::string replace_refusal(const struct stat& directory, const struct stat& file, uid_t user) {
  if ((directory.st_mode & S_ISVTX) == 0 || user == 0) return "";
  if (user == file.st_uid || user == directory.st_uid) return "";
  return fmt::format("it belongs to another user (uid {}) in a sticky directory (mode {:o}), where only its owner "
                     "may replace it",
                     file.st_uid, directory.st_mode & 07777);
}

std::string replace_refusal(const std::string& target) {
  struct stat file {};
  if (::lstat(target.c_str(), &file) != 0) return "";
  const auto slash = target.rfind('/');
  const std::string directory = slash == std::string::npos ? "." : (slash == 0 ? "/" : target.substr(0, slash));
  struct stat dir {};
  if (::stat(directory.c_str(), &dir) != 0) return "";
  return replace_refusal(dir, file, ::geteuid());
}

}  // namespace linkscope
