#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "model/run.hpp"

namespace linkscope::model {

// A run document larger than this is not one linkscope wrote (a full 8-GPU default doctor run is a few MiB).
inline constexpr std::uint64_t kMaxRunFileBytes = 256ull << 20;

// Reads and checks a saved run; every problem is an InputError "FILE:LINE: what" (exit 2).
Run read_run_file(const std::string& path);
// Parses a run document's text (a file's, or a child step's stdout); `source` names it in errors.
Run parse_run_text(const std::string& text, const std::string& source);
// Writes the run atomically (core/file_io); refuses to write over one of `inputs`.
void write_run_file(const std::string& path, const Run& run, const std::vector<std::string>& inputs = {});
// The document text as linkscope writes it (2-space indented JSON and a newline).
std::string run_text(const Run& run);

}  // namespace linkscope::model
