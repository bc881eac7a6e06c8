// Small stand-ins for the PyTorch and pybind11 headers that load_inline code
// includes, embedded in the binary and served to Clang as in-memory files
// (a missing header is fatal to Clang and hides everything after it).
// Internal to the C++ front; includes no Clang header.
#pragma once

#include <span>
#include <string_view>

namespace kaudit::analyzer::cxx::stubs {

struct Header {
  std::string_view path;  // relative to the stub include folder: "torch/extension.h"
  std::string_view text;
};

// Every stub header. Most are one-line forwards to the one real stub,
// "kaudit/torch_stub.h", so that any of them declares the whole surface.
std::span<const Header> headers();

// The header Clang precompiles once per pass: the CUDA runtime, cuBLAS, the
// fp16/bf16/fp8 types, common standard headers and the torch stub.
std::string_view prelude();

// Added to the prelude for sources that use thrust or cub (a second PCH).
std::string_view cccl_prelude();

// Without a CUDA toolkit (a wrong --cuda-path): minimal CUDA declarations,
// served as "kaudit/cuda_min.h" and under the names of the CUDA headers, so
// that kernels, launches and the torch stub still parse.
std::string_view cuda_min();
std::span<const std::string_view> cuda_header_names();

}  // namespace kaudit::analyzer::cxx::stubs
