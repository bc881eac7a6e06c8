// work-skipped-on-repeat from the ATen op record, where no GPU trace can say
// it: on the CPU, a shape's untimed call on fresh inputs held against its
// untimed call on the benchmark's repeated inputs (docs/runner.md, "ATen
// ops"). A memo keyed on the inputs' values answers the repeated inputs
// without the ops that did the work on the fresh ones.
#pragma once

#include "evidence/run_aten_ops.h"
#include "rules/finding.h"

#include <string>
#include <vector>

namespace kaudit::run {

// One finding per graded shape (0 .. shapes-1) whose `bench` group skipped
// ops that took at least half of its `fresh` group's op time: an op name the
// bench call did not run, or ran on under a fifth of the tensor elements.
// Both calls' inputs must hold as many elements: a problem that draws its
// sizes gives calls that do other work. Groups with a gap, or without `work`
// (an older harness), decide nothing. Pure.
std::vector<rules::Finding> ops_skipped_on_repeat(const evidence::AtenOpsRecord& record, int shapes,
                                                  const std::string& solution);

}  // namespace kaudit::run
