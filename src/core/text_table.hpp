#pragma once
#include <string>
#include <vector>

namespace linkscope {

// Left-aligned columns separated by two spaces, each line starting with `indent`, trailing spaces removed.
// Rows may have different lengths. Used by every plain-text table (topology, live facts, hosts).
std::string aligned_table(const std::vector<std::vector<std::string>>& rows, const std::string& indent);

}  // namespace linkscope
