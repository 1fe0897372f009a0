#pragma once
#include <string>
#include <string_view>
#include <vector>

// The step every atomic write shares: a new file made whole beside its target, under a hidden temporary name,
// before a rename puts it in place (core/file_io for one file, core/file_set for a report directory).
namespace linkscope {

// What a temporary file's name carries after the target's name: ".NAME.tmp-XXXXXX" beside NAME.
inline constexpr std::string_view kStagedFileMarker = ".tmp-";

// Refuses a target that must not be written: no name, a directory, or one of `inputs` (the same file, by inode).
// Throws InputError naming `path`.
void check_write_target(const std::string& path, const std::vector<std::string>& inputs);

// Writes `content` into a new hidden file beside `path`, flushed to disk (fsync) and as readable as any file the
// user creates; returns its path. On failure nothing is left behind and the InputError names `path`, the file the
// user asked for.
std::string stage_beside(const std::string& path, std::string_view content);

}  // namespace linkscope
