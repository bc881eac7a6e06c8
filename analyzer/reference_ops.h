// The ops a problem's reference computes with, for problems that name none
// (KernelBench's one-file problems have no `forbidden:` list; issue 28,
// item 4). A submission that calls the reference's own op on forward's path
// wraps the library around a fig-leaf kernel: a lead (medium), which the
// trace settles (library-does-the-work, no-authored-kernel-ran). Shape,
// dtype and allocation plumbing (view, to, empty, cat...) is not math.
#pragma once

#include "analyzer/python/module.h"
#include "rules/rule_pack.h"

#include <string>
#include <vector>

namespace kaudit::analyzer {

struct ReferenceOps {
  std::vector<std::string> python_ops;      // "torch.nn.functional.conv2d", "torch.nn.Conv2d"
  std::vector<std::string> tensor_methods;  // "sum", "matmul"
  bool matmul_operator = false;             // forward uses `@`
};

// What the reference's Model.forward (and what it reaches in the file)
// computes with, plus the torch.nn modules its __init__ builds.
ReferenceOps reference_ops(const python::Module& reference);

// Adds them to `pack` as leads (RulePack::reference_ops names them).
void add_reference_ops(rules::RulePack& pack, const ReferenceOps& ops);

}  // namespace kaudit::analyzer
