#include "report/svg.hpp"

#include <fmt/format.h>

#include <cmath>

namespace kjudge {

std::string xml_escape(std::string_view s) {
  std::string o;
  o.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '&':
        o += "&amp;";
        break;
      case '<':
        o += "&lt;";
        break;
      case '>':
        o += "&gt;";
        break;
      case '"':
        o += "&quot;";
        break;
      case '\'':
        o += "&#39;";
        break;
      default:
        o += c;
    }
  }
  return o;
}

std::string svg_num(double v) {
  if (!std::isfinite(v)) return "0";
  std::string s = fmt::format("{:.2f}", v);
  while (s.back() == '0') s.pop_back();
  if (s.back() == '.') s.pop_back();
  return s == "-0" ? "0" : s;
}

double svg_axis::map(double v) const {
  double a = lo, b = hi, x = v;
  if (log) {
    a = std::log10(lo);
    b = std::log10(hi);
    x = std::log10(std::max(v, 1e-300));
  }
  if (b <= a) return (px_lo + px_hi) / 2;
  return px_lo + (x - a) / (b - a) * (px_hi - px_lo);
}

std::vector<double> svg_axis::ticks(int n) const {
  std::vector<double> out;
  if (!(hi > lo)) return out;
  if (log) {
    // Decades, with 2 and 5 between them when the range spans few decades.
    const int d0 = static_cast<int>(std::floor(std::log10(lo)));
    const int d1 = static_cast<int>(std::ceil(std::log10(hi)));
    const bool fine = d1 - d0 <= 3;
    for (int d = d0; d <= d1; ++d)
      for (double m : {1.0, 2.0, 5.0}) {
        if (!fine && m != 1.0) continue;
        const double v = m * std::pow(10.0, d);
        if (v >= lo * (1 - 1e-9) && v <= hi * (1 + 1e-9)) out.push_back(v);
      }
    return out;
  }
  const double raw = (hi - lo) / std::max(1, n);
  const double mag = std::pow(10.0, std::floor(std::log10(raw)));
  double step = mag;
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (m * mag >= raw) {
      step = m * mag;
      break;
    }
  for (double v = std::ceil(lo / step) * step; v <= hi + step * 1e-9; v += step)
    out.push_back(std::fabs(v) < step * 1e-9 ? 0.0 : v);
  return out;
}

void svg_extend(double& lo, double& hi, double v, bool log) {
  if (!std::isfinite(v) || (log && v <= 0)) return;
  lo = std::min(lo, v);
  hi = std::max(hi, v);
}

namespace {

std::string title_element(std::string_view title) {
  return title.empty() ? std::string() : "<title>" + xml_escape(title) + "</title>";
}

// An element with a tooltip is written open and closed; one without, self-closing.
std::string element(std::string_view tag, const std::string& attrs, std::string_view title) {
  if (title.empty()) return fmt::format("<{} {}/>\n", tag, attrs);
  return fmt::format("<{} {}>{}</{}>\n", tag, attrs, title_element(title), tag);
}

}  // namespace

svg_canvas::svg_canvas(double width, double height, std::string_view css_class, std::string_view label)
    : m_width(width), m_height(height), m_class(css_class), m_label(label) {}

void svg_canvas::line(double x1, double y1, double x2, double y2, std::string_view css_class) {
  m_body += fmt::format("<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" class=\"{}\"/>\n", svg_num(x1), svg_num(y1),
                        svg_num(x2), svg_num(y2), xml_escape(css_class));
}

void svg_canvas::rect(double x, double y, double w, double h, std::string_view css_class, std::string_view title) {
  m_body += element("rect",
                    fmt::format("x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" class=\"{}\"", svg_num(x), svg_num(y),
                                svg_num(std::max(0.0, w)), svg_num(std::max(0.0, h)), xml_escape(css_class)),
                    title);
}

void svg_canvas::circle(double cx, double cy, double r, std::string_view css_class, std::string_view title) {
  m_body += element("circle",
                    fmt::format("cx=\"{}\" cy=\"{}\" r=\"{}\" class=\"{}\"", svg_num(cx), svg_num(cy), svg_num(r),
                                xml_escape(css_class)),
                    title);
}

void svg_canvas::cross(double cx, double cy, double r, std::string_view css_class, std::string_view title) {
  const std::string d =
      fmt::format("M{} {}L{} {}M{} {}L{} {}", svg_num(cx - r), svg_num(cy - r), svg_num(cx + r), svg_num(cy + r),
                  svg_num(cx - r), svg_num(cy + r), svg_num(cx + r), svg_num(cy - r));
  m_body += element("path", fmt::format("d=\"{}\" class=\"{}\"", d, xml_escape(css_class)), title);
}

void svg_canvas::path(const std::vector<std::pair<double, double>>& pts, std::string_view css_class) {
  if (pts.empty()) return;
  std::string d;
  for (const auto& [x, y] : pts) d += fmt::format("{}{} {}", d.empty() ? "M" : "L", svg_num(x), svg_num(y));
  m_body += fmt::format("<path d=\"{}\" class=\"{}\"/>\n", d, xml_escape(css_class));
}

void svg_canvas::text(double x, double y, std::string_view s, std::string_view css_class, std::string_view anchor) {
  m_body += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"{}\"{}>{}</text>\n", svg_num(x), svg_num(y),
                        xml_escape(anchor),
                        css_class.empty() ? std::string() : " class=\"" + xml_escape(css_class) + "\"", xml_escape(s));
}

void svg_canvas::group(std::string_view css_class, const svg_attrs& attrs) {
  std::string a;
  for (const auto& [k, v] : attrs) a += fmt::format(" data-{}=\"{}\"", xml_escape(k), xml_escape(v));
  m_body += fmt::format("<g class=\"{}\"{}>\n", xml_escape(css_class), a);
}

void svg_canvas::end_group() {
  m_body += "</g>\n";
}

void svg_canvas::x_axis(const svg_axis& a, double y, double grid_top, std::string (*label)(double)) {
  line(a.px_lo, y, a.px_hi, y, "axis");
  for (double t : a.ticks()) {
    const double x = a.map(t);
    line(x, grid_top, x, y, "grid");
    text(x, y + 14, label(t), "tick", "middle");
  }
}

void svg_canvas::y_axis(const svg_axis& a, double x, double grid_right, std::string (*label)(double)) {
  line(x, a.px_lo, x, a.px_hi, "axis");
  for (double t : a.ticks(5)) {
    const double y = a.map(t);
    line(x, y, grid_right, y, "grid");
    text(x - 4, y + 4, label(t), "tick", "end");
  }
}

std::string svg_canvas::str() const {
  return fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"{}\" width=\"{}\" height=\"{}\" viewBox=\"0 0 {} {}\" "
      "role=\"img\" aria-label=\"{}\">\n{}</svg>\n",
      xml_escape(m_class), svg_num(m_width), svg_num(m_height), svg_num(m_width), svg_num(m_height),
      xml_escape(m_label), m_body);
}

}  // namespace kjudge
