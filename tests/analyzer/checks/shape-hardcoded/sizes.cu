// Size literals in C++ without a problem: only sizes that are not powers of two.
#include <torch/extension.h>

torch::Tensor run(torch::Tensor x) {
  TORCH_CHECK(x.size(1) == 11008, "hidden size");  // expect: shape-hardcoded
  if (x.size(0) > 1024) return x * 2;
  return x;
}
