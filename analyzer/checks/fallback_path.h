// Code that runs only when the authored kernel fails (issue 28, item 3): an
// except handler, the statements after `if self.use_fast: try: return
// kernel(x) ... except: self.use_fast = False`, and helpers called only from
// such places. A library op there does the work only if the kernel fails in
// a graded run, which the static view cannot know; the trace can.
#pragma once

#include "analyzer/python/module.h"

namespace kaudit::analyzer::patterns {

// The except clause or `if` statement that makes `n` a fallback for a failed
// kernel, or invalid when `n` runs whether or not the kernel fails.
python::Node fallback_guard(const python::Module& m, python::Node n);

// True when the try block guarded by `except_clause` raises on its own: a
// `raise` (or `assert False`) in it, or in a local function it calls. The
// submission then arranged for the handler to run (a launcher that refuses
// unaligned shapes), rather than guarding against a launch that may fail.
bool try_raises_itself(const python::Module& m, python::Node except_clause);

// The `if` whose branch holding `n` runs only off the GPU (`if not
// x.is_cuda:`, `if x.device.type == "cpu":`, the else of `if
// torch.cuda.is_available():`), or invalid. Graded runs are on the GPU.
python::Node cpu_only_guard(const python::Module& m, python::Node n);

}  // namespace kaudit::analyzer::patterns
