#include "report/charts.h"

#include "report/text.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace kaudit::report {
namespace {

std::string px(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  return buf;
}

}  // namespace

std::string timing_plot_svg(const std::vector<TimingRow>& rows, double threshold) {
  double lo = INFINITY, hi = -INFINITY;
  for (const auto& r : rows)
    for (const auto& v : {r.bench_ms, r.fresh_ms})
      if (v && *v > 0) lo = std::min(lo, *v), hi = std::max(hi, *v);
  if (!std::isfinite(lo)) return "";

  const double W = 760, H = 250, left = 70, right = 20, top = 28, bottom = 40;
  double dlo = std::floor(std::log10(lo)), dhi = std::ceil(std::log10(hi));
  if (dhi - dlo < 1) dhi = dlo + 1;
  const double plot_w = W - left - right, plot_h = H - top - bottom;
  auto y_of = [&](double ms) { return top + plot_h * (1 - (std::log10(ms) - dlo) / (dhi - dlo)); };
  const double step = plot_w / static_cast<double>(rows.size());
  auto x_of = [&](std::size_t i) { return left + step * (static_cast<double>(i) + 0.5); };

  std::string s = "<svg class=\"plot\" viewBox=\"0 0 " + px(W) + " " + px(H) +
                  "\" role=\"img\" aria-label=\"bench and fresh median time per shape\">";
  // Grid: every decade labelled; 2 and 5 too when the range is short.
  const bool minor = dhi - dlo <= 2;
  for (double d = dlo; d <= dhi; d += 1) {
    for (double m : {1.0, 2.0, 5.0}) {
      if (m != 1.0 && (!minor || d == dhi)) continue;
      const double ms = m * std::pow(10.0, d);
      const double y = y_of(ms);
      s += "<line x1=\"" + px(left) + "\" x2=\"" + px(W - right) + "\" y1=\"" + px(y) + "\" y2=\"" + px(y) +
           "\" class=\"" + (m == 1.0 ? "grid" : "grid minor") + "\"/>";
      s += "<text x=\"" + px(left - 8) + "\" y=\"" + px(y + 4) + "\" class=\"tick\" text-anchor=\"end\">" +
           html(fmt_ms(ms)) + "</text>";
    }
  }
  s += "<line x1=\"" + px(left) + "\" x2=\"" + px(left) + "\" y1=\"" + px(top) + "\" y2=\"" + px(H - bottom) +
       "\" class=\"axis\"/>";
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const auto& r = rows[i];
    const double x = x_of(i);
    const bool flagged = r.ratio && *r.ratio > threshold;
    s += "<g><title>shape " + std::to_string(r.index) + ": " + html(r.shape) + " · bench " + html(fmt_ms(r.bench_ms)) +
         ", fresh " + html(fmt_ms(r.fresh_ms)) + "</title>";
    const bool both = r.bench_ms && *r.bench_ms > 0 && r.fresh_ms && *r.fresh_ms > 0;
    // Bench a little left of the shape's centre, fresh a little right, so
    // that equal times do not hide one another.
    const double xb = x - 7, xf = x + 7;
    if (both)
      s += "<line x1=\"" + px(xb) + "\" x2=\"" + px(xf) + "\" y1=\"" + px(y_of(*r.bench_ms)) + "\" y2=\"" +
           px(y_of(*r.fresh_ms)) + "\" class=\"" + (flagged ? "join bad" : "join") + "\"/>";
    if (r.bench_ms && *r.bench_ms > 0)
      s += "<circle cx=\"" + px(xb) + "\" cy=\"" + px(y_of(*r.bench_ms)) + "\" r=\"6\" class=\"bench\"/>";
    if (r.fresh_ms && *r.fresh_ms > 0) {
      const double y = y_of(*r.fresh_ms);
      s += "<rect x=\"" + px(xf - 5.5) + "\" y=\"" + px(y - 5.5) + "\" width=\"11\" height=\"11\" class=\"fresh\"/>";
    }
    if (r.ratio) {
      double top_y = H;
      for (const auto& v : {r.bench_ms, r.fresh_ms})
        if (v && *v > 0) top_y = std::min(top_y, y_of(*v));
      s += "<text x=\"" + px(x) + "\" y=\"" + px(std::max(top + 2.0, top_y - 12)) + "\" text-anchor=\"middle\" class=\"" +
           (flagged ? "ratio bad" : "ratio") + "\">" + html(fmt_ratio(r.ratio)) + "</text>";
    }
    s += "<text x=\"" + px(x) + "\" y=\"" + px(H - bottom + 18) + "\" text-anchor=\"middle\" class=\"tick\">#" +
         std::to_string(r.index) + "</text></g>";
  }
  s += "<text x=\"" + px(left + plot_w / 2) + "\" y=\"" + px(H - 4) +
       "\" text-anchor=\"middle\" class=\"tick\">shape (see the table)</text>";
  s += "</svg>";
  return s;
}

std::string library_colour(const std::vector<LibraryTime>& libraries, std::size_t index) {
  static const char* own[] = {"#2f9e63", "#5cbf86", "#1d6f45", "#8fd6ad"};
  static const char* lib[] = {"#d6455d", "#ef8f3a", "#8c5ac8", "#c0392b", "#e6b422", "#b05a7a"};
  const auto& l = libraries[index];
  std::size_t n = 0;  // earlier segments of the same role, so that neighbours differ
  for (std::size_t i = 0; i < index; ++i) n += libraries[i].role == l.role ? 1 : 0;
  if (l.role == "own") return own[n % 4];
  if (l.role == "library") return lib[n % 6];
  return "#9aa0a6";
}

std::string library_bar_svg(const std::vector<LibraryTime>& libraries) {
  double total = 0;
  for (const auto& l : libraries) total += std::max(0.0, l.gpu_ms);
  if (total <= 0) return "";
  const double W = 1000, H = 34;
  std::string s = "<svg class=\"libbar\" viewBox=\"0 0 1000 34\" preserveAspectRatio=\"none\" role=\"img\" "
                  "aria-label=\"GPU time by library\">";
  double x = 0;
  for (std::size_t i = 0; i < libraries.size(); ++i) {
    const double w = W * std::max(0.0, libraries[i].gpu_ms) / total;
    if (w <= 0) continue;
    s += "<rect x=\"" + px(x) + "\" y=\"0\" width=\"" + px(w) + "\" height=\"" + px(H) + "\" fill=\"" +
         library_colour(libraries, i) + "\"><title>" + html(libraries[i].library) + " (" + html(libraries[i].role) +
         "): " + html(fmt_ms(libraries[i].gpu_ms)) + ", " + html(fmt_pct(100.0 * libraries[i].gpu_ms / total)) +
         "</title></rect>";
    x += w;
  }
  s += "</svg>";
  return s;
}

}  // namespace kaudit::report
