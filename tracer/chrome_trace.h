// Chrome trace / Perfetto JSON export of a trace: for each traced process
// one track group for the host (call ranges on their own track, launch API
// calls per thread) and one per GPU (one track per stream), with a flow
// arrow from each launch to the kernel or transfer it started.
#pragma once

#include "tracer/families.h"
#include "tracer/trace.h"

#include <nlohmann/json.hpp>

#include <string>

namespace kaudit::tracer {

nlohmann::json chrome_trace(const Trace& trace, const Families& families);

// "at::native::vectorized_elementwise_kernel" for the long demangled name of
// a templated kernel: no return type, template arguments or parameters.
std::string short_kernel_name(const Kernel& kernel);

}  // namespace kaudit::tracer
