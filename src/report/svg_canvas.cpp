#include "report/svg_canvas.hpp"

#include <cmath>

#include <fmt/format.h>

#include "report/report_format.hpp"

namespace linkscope::report {

std::string svg_number(double value) {
  if (!std::isfinite(value)) return "0";
  std::string text = fmt::format("{:.2f}", value);
  while (!text.empty() && text.back() == '0') text.pop_back();
  if (!text.empty() && text.back() == '.') text.pop_back();
  if (text == "-0") text = "0";
  return text;
}

SvgCanvas::SvgCanvas(double width, double height, std::string id, std::string title) : id_(std::move(id)) {
  header_ = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {0} {1}\" width=\"{0}\" height=\"{1}\" "
      "role=\"img\" aria-labelledby=\"{2}-title\" font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\">\n"
      "<title id=\"{2}-title\">{3}</title>\n",
      svg_number(width), svg_number(height), escape_html(id_), escape_html(title));
}

void SvgCanvas::raw(std::string_view markup) { body_ += markup; }

namespace {
std::string attribute_text(const SvgAttributes& attributes) {
  std::string out;
  for (const auto& [name, value] : attributes) out += fmt::format(" {}=\"{}\"", name, escape_html(value));
  return out;
}
}  // namespace

void SvgCanvas::element(std::string_view tag, const SvgAttributes& attributes, std::string_view text) {
  if (text.empty()) {
    body_ += fmt::format("<{}{}/>\n", tag, attribute_text(attributes));
  } else {
    body_ += fmt::format("<{0}{1}>{2}</{0}>\n", tag, attribute_text(attributes), escape_html(text));
  }
}

void SvgCanvas::open(std::string_view tag, const SvgAttributes& attributes) {
  body_ += fmt::format("<{}{}>\n", tag, attribute_text(attributes));
}

void SvgCanvas::close(std::string_view tag) { body_ += fmt::format("</{}>\n", tag); }

void SvgCanvas::line(double x1, double y1, double x2, double y2, std::string_view stroke, double width,
                     std::string_view dash) {
  SvgAttributes a = {{"x1", svg_number(x1)}, {"y1", svg_number(y1)},       {"x2", svg_number(x2)},
                     {"y2", svg_number(y2)}, {"stroke", std::string(stroke)}, {"stroke-width", svg_number(width)}};
  if (!dash.empty()) a.push_back({"stroke-dasharray", std::string(dash)});
  element("line", a);
}

void SvgCanvas::rect(double x, double y, double w, double h, std::string_view fill, std::string_view stroke, double rx) {
  SvgAttributes a = {{"x", svg_number(x)}, {"y", svg_number(y)}, {"width", svg_number(w)}, {"height", svg_number(h)},
                     {"fill", std::string(fill)}};
  if (stroke != "none") a.push_back({"stroke", std::string(stroke)});
  if (rx > 0) a.push_back({"rx", svg_number(rx)});
  element("rect", a);
}

void SvgCanvas::text(double x, double y, std::string_view content, double size, std::string_view anchor,
                     std::string_view fill, std::string_view weight) {
  SvgAttributes a = {{"x", svg_number(x)}, {"y", svg_number(y)}, {"font-size", svg_number(size)},
                     {"fill", std::string(fill)}};
  if (anchor != "start") a.push_back({"text-anchor", std::string(anchor)});
  if (weight != "normal") a.push_back({"font-weight", std::string(weight)});
  element("text", a, content);
}

std::string SvgCanvas::finish() { return header_ + body_ + "</svg>\n"; }

std::string series_color(std::size_t index) {
  static constexpr const char* kColors[] = {"#0072B2", "#D55E00", "#009E73", "#CC79A7", "#56B4E9",
                                            "#E69F00", "#000000", "#7f7f7f", "#b15928", "#6a3d9a"};
  return kColors[index % (sizeof kColors / sizeof kColors[0])];
}

}  // namespace linkscope::report
