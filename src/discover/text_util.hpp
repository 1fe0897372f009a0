#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace linkscope::discover {

// `text` without leading and trailing white space.
std::string trim_spaces(std::string_view text);
// Splits at `separator`, trimming each item; empty items are kept (CUDA_VISIBLE_DEVICES gives them meaning).
std::vector<std::string> split_list(std::string_view text, char separator);

}  // namespace linkscope::discover
