#include "model/run_file.hpp"

#include <algorithm>

#include "core/error.hpp"
#include "core/file_io.hpp"

namespace linkscope::model {

Run parse_run_text(const std::string& text, const std::string& source) {
  nlohmann::json document;
  try {
    document = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    // nlohmann reports a byte offset; turn it into a line so the message reads FILE:LINE.
    const std::size_t end = std::min<std::size_t>(e.byte > 0 ? e.byte - 1 : 0, text.size());
    const long line = 1 + static_cast<long>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(end), '\n'));
    throw InputError(source, line, "malformed JSON");
  } catch (const nlohmann::json::exception& e) {
    throw InputError(source, 0, std::string("malformed JSON: ") + e.what());
  }
  try {
    return run_from_json(document, source);
  } catch (const nlohmann::json::exception& e) {
    // A shape a section reader did not expect (they check types; this is the last line of defence).
    throw InputError(source, 0, std::string("not a valid run document: ") + e.what());
  }
}

Run read_run_file(const std::string& path) {
  return parse_run_text(read_input_file(path, kMaxRunFileBytes, "run"), path);
}

std::string run_text(const Run& run) {
  // Strings from the machine (process names, log lines) may not be UTF-8: replace, never fail the write.
  return to_json(run).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

void write_run_file(const std::string& path, const Run& run, const std::vector<std::string>& inputs) {
  write_file_atomically(path, run_text(run), inputs);
}

}  // namespace linkscope::model
