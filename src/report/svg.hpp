// A small SVG writer for the HTML reports (report/html.cpp, and loop/loop_html.cpp a layer above):
// the plots are drawn here, as text, so a page needs no charting library and no network. Every
// string given is escaped; classes name the marks so that the page's CSS styles them and tests can
// count them.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kjudge {

// Escapes the five characters that matter in XML/HTML text and attribute values (& < > " '), so
// that a string from a result (a candidate's name, its kj_info(), a message) is only ever text.
std::string xml_escape(std::string_view s);

// A coordinate or value with at most 2 decimals, no exponent ("12.5", "-3").
std::string svg_num(double v);

// Maps data values in [lo, hi] to pixels in [px_lo, px_hi]; log10 when `log` (lo, hi > 0).
struct svg_axis {
  double lo = 0, hi = 1;
  double px_lo = 0, px_hi = 1;
  bool log = false;
  double map(double v) const;
  // About `n` round values inside [lo, hi]: 1-2-5 steps (decades and their 2, 5 on a log axis).
  std::vector<double> ticks(int n = 6) const;
};

// Extends [lo, hi] so that it holds `v` (finite, and > 0 for a log axis).
void svg_extend(double& lo, double& hi, double v, bool log);

using svg_attrs = std::vector<std::pair<std::string, std::string>>;

class svg_canvas {
 public:
  // `label`: what the plot shows, for readers of the DOM (aria-label) and the page's search.
  svg_canvas(double width, double height, std::string_view css_class, std::string_view label);

  // `title`: a tooltip (an SVG <title> child), empty for none.
  void line(double x1, double y1, double x2, double y2, std::string_view css_class);
  void rect(double x, double y, double w, double h, std::string_view css_class, std::string_view title = "");
  void circle(double cx, double cy, double r, std::string_view css_class, std::string_view title = "");
  // An x-shaped mark of half-width r (rejected proposals).
  void cross(double cx, double cy, double r, std::string_view css_class, std::string_view title = "");
  // A polyline through the points.
  void path(const std::vector<std::pair<double, double>>& pts, std::string_view css_class);
  // anchor: start, middle or end.
  void text(double x, double y, std::string_view s, std::string_view css_class = "", std::string_view anchor = "start");
  // A group with a class and data-* attributes (names and values escaped); close with end_group().
  void group(std::string_view css_class, const svg_attrs& attrs = {});
  void end_group();
  // Tick marks, grid lines and labels of a horizontal axis at y; `fmt` labels a tick value.
  void x_axis(const svg_axis& a, double y, double grid_top, std::string (*fmt)(double));
  void y_axis(const svg_axis& a, double x, double grid_right, std::string (*fmt)(double));

  std::string str() const;

 private:
  std::string m_body;
  double m_width, m_height;
  std::string m_class, m_label;
};

}  // namespace kjudge
