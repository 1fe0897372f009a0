#pragma once
#include <string>
#include <string_view>

// The one way a string from a run (host and GPU names, error texts, versions, the command, finding texts) reaches
// report.md. A run document may come from anywhere, and GitHub-flavoured Markdown turns some characters into
// markup: raw HTML (`<script>`, `<img onerror=...>`), entities, links and images, code spans, table cells and line
// structure. These functions neutralise exactly those, so the text renders as itself and nothing else; characters
// that only change emphasis (`*`, `_`, `~`) are left alone: they cannot add anything to the page.
namespace linkscope::report {

// Inline text (inside a paragraph, a heading, a table cell): `<` that would open a tag or an autolink becomes
// "&lt;", `&` that would start an entity "&amp;"; backticks, `|` and a backslash before punctuation are escaped;
// "](" cannot close a link; line breaks become spaces.
std::string markdown_text(std::string_view text);

// Inline text that starts a line (a list item's or a paragraph's first words): markdown_text, and a leading block
// marker (`#`, `>`, `-`, `+`, `*`, `[`, "1." or "1)") is escaped so it cannot open a heading, quote, list or
// link definition.
std::string markdown_line(std::string_view text);

// A code span holding `text` verbatim: a fence one backtick longer than the longest backtick run inside, padded
// with a space where the content would touch the fence or lose its edge spaces; line breaks become spaces.
std::string markdown_code(std::string_view text);

}  // namespace linkscope::report
