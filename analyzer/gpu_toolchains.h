// Which GPU toolchains a submission needs, read from what it imports and
// calls (not from its text): a submission that needs none is pure PyTorch
// and can run in CPU mode (DESIGN.md, runner, --device cpu).
#pragma once

#include "analyzer/python/module.h"

#include <string>
#include <vector>

namespace kaudit::analyzer {

// Sorted names: "triton", "torch-extension" (torch.utils.cpp_extension),
// "cupy", "numba", "ctypes", "cuda-python", "pycuda", "tilelang", "helion",
// "cutlass", "warp", "taichi", and "embedded-c++" for C++/CUDA source strings.
std::vector<std::string> gpu_toolchains(const python::Module& module);

}  // namespace kaudit::analyzer
