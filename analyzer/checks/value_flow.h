// Where a value goes once computed: followed by name through the
// assignments of its function, and through helpers' returns to their call
// sites. Checks ask it whether a banned op's result or a cached entry
// reaches what forward returns, or only feeds a comparison (a test oracle)
// or a further computation (a prepacked weight, a descriptor).
#pragma once

#include "analyzer/python/module.h"

#include <optional>

namespace kaudit::analyzer::patterns {

using python::Module;
using python::Node;

struct ValueFlow {
  bool returned_by_forward = false;  // part of what the model's forward returns
  bool returned_unresolved = false;  // returned by a function whose callers are not in the file
  bool consumed = false;  // stored in an attribute or a container, or passed to a computation
  bool checked = false;   // compared, asserted, printed or raised: a verdict, not a result
  // Only compared or printed: it never becomes part of a result.
  bool only_checked() const { return !returned_by_forward && !returned_unresolved && !consumed; }
};

// How values travel through calls.
enum class ThroughCalls {
  // Any call carries its arguments into its result (torch.where(c, a, b),
  // a + f(a)): what a banned op's result becomes.
  all,
  // Only PyTorch ops and Tensor methods carry a value (x.clone(), x[i],
  // torch.add(x, 0)); the submission's own code consumes it (a kernel
  // launch, a helper, an extension): whether a cached entry is handed back,
  // or used by the submission to compute something new.
  torch_ops_only,
};

// Follows the value `expr` computes (a call, an operator, a name).
ValueFlow follow_value(const Module& m, Node expr, ThroughCalls through);

// Follows what `f` returns to its call sites in the file.
ValueFlow follow_return(const Module& m, const python::FunctionDef& f, ThroughCalls through);

}  // namespace kaudit::analyzer::patterns

namespace kaudit::analyzer::patterns {

// The truth a condition has in a graded run when it can be known from the
// file alone: literals, module constants and self attributes set to one
// literal, environment reads (the harness sets none of the submission's
// variables, so they take their defaults), and `not`/`and`/`or`/`==`/`!=`
// of those. nullopt when it depends on anything else.
std::optional<bool> static_truth(const Module& m, Node cond);

// The condition that keeps `n` from ever running in a graded run (an
// `if TUNE:` whose TUNE is off by default, the `else` of an always-true
// test), or invalid when there is none.
Node dead_branch_guard(const Module& m, Node n);

}  // namespace kaudit::analyzer::patterns
