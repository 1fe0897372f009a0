#pragma once
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

// Prometheus' text exposition format (version 0.0.4, what node-exporter's textfile collector reads): metric
// families with `# HELP` and `# TYPE`, one sample a line, label values escaped. The metrics of a run:
// report/prometheus_report.
namespace linkscope::report {

// Which sample stays when two carry the same labels (several SM kernel shapes of one copy, several latency chases).
enum class DuplicateSamples { kKeepFirst, kKeepLargest, kKeepSmallest };

// One metric family: every sample has the same label names, in the family's order (node-exporter refuses a family
// whose samples differ in their label names).
struct MetricFamily {
  std::string name;  // linkscope_..., base units in the name (_seconds, _bytes_per_second)
  std::string type;  // gauge (a value read now; linkscope writes no counters)
  std::string help;
  std::vector<std::string> labels;
  DuplicateSamples duplicates = DuplicateSamples::kKeepFirst;
  std::vector<std::pair<std::vector<std::string>, double>> samples;  // label values (in `labels` order), value

  // Adds a sample, or applies `duplicates` to the one with the same label values. A non-finite value is left out
  // (a number that could not be measured is absent, never NaN or 0).
  void add(std::vector<std::string> values, double value);

 private:
  std::map<std::vector<std::string>, std::size_t> index_;  // label values -> position in samples
};

// Backslash, double quote and line feed as \\, \" and \n: a label value in the exposition format. Other controls
// and bytes that are not UTF-8 first become "\xNN" (core/terminal_text), so the value is valid UTF-8.
std::string escape_label_value(std::string_view value);
// Backslash and line feed as \\ and \n, other controls as for a label value: the text of a # HELP line.
std::string escape_help(std::string_view text);

// The families in order, each with its # HELP and # TYPE lines and its samples; a family without samples is left
// out. No timestamps: node-exporter's textfile collector refuses them.
std::string render_exposition(const std::vector<MetricFamily>& families);

}  // namespace linkscope::report
