#pragma once
#include <string>

#include "model/run.hpp"

namespace linkscope::report {

struct MarkdownOptions {
  // Link the SVG files the report directory holds (topology.svg, p2p-*.svg, collectives.svg, ladder.svg).
  bool link_svg_files = false;
};

// report.md: GitHub-flavoured Markdown, sections in the same order as report.html.
// Every string from the run goes through report/markdown_escape.
std::string render_markdown(const model::Run& run, const MarkdownOptions& options = {});

}  // namespace linkscope::report
