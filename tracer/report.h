// The short text summary `kaudit trace` prints: per process, GPU time by
// library and the kernels that took the most of it, the calls, and what the
// trace could not see.
#pragma once

#include "tracer/families.h"
#include "tracer/trace.h"

#include <string>

namespace kaudit::tracer {

std::string text_summary(const Trace& trace, const Families& families, size_t top_kernels = 12);

// "1.234 ms", "56.7 us", "890 ns".
std::string format_ns(uint64_t ns);

}  // namespace kaudit::tracer
