#pragma once
#include <sys/stat.h>
#include <sys/types.h>

#include <string>

// Whether a rename may replace a file in a directory, decided before a set of renames starts (core/file_set), so
// that none of them fails half-way for a reason known in advance. In a sticky directory (mode +t, such as a shared
// /tmp-like folder of mode 1777) the kernel lets only the file's owner, the directory's owner or root replace or
// remove a file, whatever the write permission says.
namespace linkscope {

// "" when `user` may replace the file `file` in `directory` (their lstat data); else why not, in a few words.
std::string replace_refusal(const struct stat& directory, const struct stat& file, uid_t user);

// The same for `target`'s directory and the file `target` names now, by the effective user of this process;
// "" when `target` does not exist yet (a new name needs only the write permission staging already proved).
std::string replace_refusal(const std::string& target);

}  // namespace linkscope
