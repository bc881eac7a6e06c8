// Inline SVG for the HTML report: bench against fresh time per shape, and
// GPU time split by library. Labels pass through html() (text.h).
#pragma once

#include "report/batch.h"

#include <string>
#include <vector>

namespace kaudit::report {

// A dot plot on a log time axis: per shape the bench and fresh medians,
// joined, with their ratio above (red past `threshold`). Empty string when
// no shape has a time.
std::string timing_plot_svg(const std::vector<TimingRow>& rows, double threshold);

// One horizontal bar, a segment per library in proportion to its GPU time.
// Empty string when there is no GPU time.
std::string library_bar_svg(const std::vector<LibraryTime>& libraries);

// The colour of a library's segment (own kernels green, libraries warm, unknown grey).
std::string library_colour(const std::vector<LibraryTime>& libraries, std::size_t index);

}  // namespace kaudit::report
