#pragma once
#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

// A minimal SVG writer for the report's charts: elements with escaped attributes, numbers printed the same way on
// every machine (no locale, no timestamps), presentation attributes instead of CSS so a chart looks the same inline
// in report.html and as a standalone .svg file.
namespace linkscope::report {

// Coordinates and sizes: at most 2 decimals, trailing zeros removed ("12.5", "40", "-3.25").
std::string svg_number(double value);

using SvgAttributes = std::vector<std::pair<std::string, std::string>>;

class SvgCanvas {
 public:
  // `id` prefixes every internal id (patterns, gradients) so several charts can share one HTML page.
  SvgCanvas(double width, double height, std::string id, std::string title);

  const std::string& id() const { return id_; }
  void raw(std::string_view markup);  // trusted, already-escaped markup (defs)
  void element(std::string_view tag, const SvgAttributes& attributes, std::string_view text = {});
  void open(std::string_view tag, const SvgAttributes& attributes);
  void close(std::string_view tag);

  void line(double x1, double y1, double x2, double y2, std::string_view stroke, double width = 1,
            std::string_view dash = {});
  void rect(double x, double y, double w, double h, std::string_view fill, std::string_view stroke = "none",
            double rx = 0);
  // anchor: "start", "middle", "end".
  void text(double x, double y, std::string_view content, double size = 12, std::string_view anchor = "start",
            std::string_view fill = "#222", std::string_view weight = "normal");

  std::string finish();

 private:
  std::string id_;
  std::string body_;
  std::string header_;
};

// Colour-blind-safe series colours (Okabe-Ito without yellow), then greys.
std::string series_color(std::size_t index);

}  // namespace linkscope::report
