#include "cli/error_exit.hpp"

#include <string>

#include "core/error.hpp"
#include "core/long_numbers.hpp"
#include "core/nagios_status.hpp"
#include "core/terminal_text.hpp"

namespace linkscope::cli {

int report_error(const std::exception& error) {
  if (const auto* known = dynamic_cast<const Error*>(&error)) {
    print_stderr_line("linkscope: error: " + clip_long_numbers(known->what()));
    return to_int(known->code());
  }
  print_stderr_line(std::string("linkscope: internal error: ") + error.what());
  return to_int(ExitCode::kInternal);
}

int nagios_check(const std::function<int()>& run) {
  try {
    return run();
  } catch (const std::exception& error) {
    report_error(error);
    return to_int(NagiosStatus::kUnknown);
  }
}

}  // namespace linkscope::cli
