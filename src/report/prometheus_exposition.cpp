#include "report/prometheus_exposition.hpp"

#include <cmath>

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/terminal_text.hpp"

namespace linkscope::report {

void MetricFamily::add(std::vector<std::string> values, double value) {
  if (values.size() != labels.size()) {
    throw Error(ExitCode::kInternal, fmt::format("{}: {} label values for {} labels", name, values.size(),
                                                 labels.size()));
  }
  if (!std::isfinite(value)) return;
  const auto [found, inserted] = index_.emplace(values, samples.size());
  if (inserted) {
    samples.emplace_back(std::move(values), value);
    return;
  }
  double& kept = samples[found->second].second;
  if (duplicates == DuplicateSamples::kKeepLargest && value > kept) kept = value;
  if (duplicates == DuplicateSamples::kKeepSmallest && value < kept) kept = value;
}

namespace {

// Control characters and bytes that are no UTF-8 as "\xNN" first (core/terminal_text): Prometheus refuses a label
// value that is not valid UTF-8, and a terminal showing the file must not obey an escape sequence.
std::string escape(std::string_view raw, bool quote) {
  const std::string text = visible_controls(raw);
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '"' && quote) {
      out += "\\\"";
    } else {
      out += c;
    }
  }
  return out;
}

}  // namespace

std::string escape_label_value(std::string_view value) { return escape(value, true); }

std::string escape_help(std::string_view text) { return escape(text, false); }

std::string render_exposition(const std::vector<MetricFamily>& families) {
  std::string out;
  for (const auto& family : families) {
    if (family.samples.empty()) continue;
    out += fmt::format("# HELP {} {}\n# TYPE {} {}\n", family.name, escape_help(family.help), family.name, family.type);
    for (const auto& [values, value] : family.samples) {
      out += family.name;
      if (!family.labels.empty()) {
        out += '{';
        for (std::size_t i = 0; i < values.size(); ++i) {
          out += fmt::format("{}{}=\"{}\"", i == 0 ? "" : ",", family.labels[i], escape_label_value(values[i]));
        }
        out += '}';
      }
      // Shortest text that reads back as the same double (Go's ParseFloat, as Prometheus reads it).
      out += fmt::format(" {}\n", value);
    }
  }
  return out;
}

}  // namespace linkscope::report
