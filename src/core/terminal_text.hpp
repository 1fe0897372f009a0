#pragma once
#include <string>
#include <string_view>

// The one way text from anywhere (GPU, host and NIC names, versions, sysfs values, process names, a run document,
// error messages) reaches a terminal, a text file or report.md. A terminal obeys control characters: ESC starts a
// sequence that can move the cursor, retitle the window or hide the lines before it, and so can the C1 controls
// (U+0080..U+009F, or such a byte alone where the terminal reads 8-bit). Each is shown instead as "\x1b", as the
// HTML report neutralises them; valid UTF-8 text stays as it is, so normal output is byte for byte unchanged.
namespace linkscope {

// Every C0 control but tab and newline, DEL, every C1 control and every byte that is not part of valid UTF-8,
// shown as "\xNN" (each byte). For whole documents, whose tabs and newlines are their structure.
std::string visible_controls(std::string_view text);

// visible_controls, with tab, newline and carriage return shown too: one value inside a line (a name, a version,
// an error message) can never start a line of its own.
std::string visible_field(std::string_view text);

// A text document (a table, a report, NCCL's log lines) on standard output through visible_controls; a failed write
// is an InputError, as core/file_io's write_stdout. JSON needs no such pass: its writer escapes every control.
void write_text_stdout(std::string_view text);

// One line on standard error: `line` through visible_field, then a newline.
void print_stderr_line(std::string_view line);

}  // namespace linkscope
