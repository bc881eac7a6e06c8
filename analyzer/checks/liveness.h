// Which code a harness's import of the submission can run (issue 28, item 3).
// A harness imports the file, builds the model and calls forward (and, by
// KernelBench's convention, may call get_inputs and get_init_inputs); code
// under `if __name__ == "__main__":` never runs then, and a def that nothing
// running refers to is never called. Checks whose offence needs the code to
// run (a replaced function of the harness, a write into the reference
// module) rate such code lower: the offence would need an assumption about
// what runs.
#pragma once

#include "analyzer/python/module.h"

#include <string>

namespace kaudit::analyzer::patterns {

enum class Liveness {
  runs,          // at import, in the model's methods, on forward's path, or called from any of them
  script_only,   // only under `if __name__ == "__main__":` (or in defs only it calls)
  never_called,  // in a def that no running code refers to by name
};

// Where `n` stands. Conservative: a def counts as called when its name is
// mentioned anywhere that runs (a call, a callback, a table of functions);
// every def runs in a file that can look its own names up by a computed name
// (globals(), a function's __globals__, a frame's f_globals, sys.modules,
// eval, exec, a computed getattr); a file that assigns `__name__` has no
// script-only block.
Liveness liveness_of(const python::Module& m, python::Node n);

// " (only under `if __name__ == \"__main__\"`: ...)" and the like; empty for runs.
std::string liveness_note(Liveness l);

}  // namespace kaudit::analyzer::patterns
