// Who asked for a launch: the first shared object on the calling thread's
// stack that is not CUDA's own plumbing (driver, runtime, CUPTI) or the
// tracer. Unwinding costs tens of microseconds, so the tracer does it once
// per new CUfunction or host stub and caches the answer (injection.cpp).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace kaudit::tracer::inject {

struct Caller {
  std::string object;              // path of the launching object; empty when the stack had none
  std::string symbol;              // nearest symbol dladdr knows in it, may be empty
  std::vector<std::string> chain;  // distinct objects from the launcher outwards, at most 8
};

// Unwinds the calling thread's stack (backtrace() and dladdr).
Caller find_caller();

// The object holding `address` (for a runtime launch, the object that
// registered the kernel's host stub), or an empty string.
std::string object_of(const void* address);

// libcuda, libcudart, libcupti, libnvidia-*, the tracer itself.
bool is_cuda_plumbing(std::string_view object_path);

}  // namespace kaudit::tracer::inject
