// The C++/CUDA front's output: facts read off a Clang 19 AST after macro
// expansion and overload resolution. Checks read these; only the front
// (front.cpp) includes Clang headers, which keeps the build fast.
#pragma once

#include "analyzer/source_file.h"

#include <string>
#include <vector>

namespace kaudit::analyzer::cxx {

// Lines and columns below are in the SourceFile handed to the front; for an
// embedded source, SourceFile::location maps them back to the .py.
struct Call {
  std::string callee;   // fully qualified: "cublasSgemm_v2", "at::matmul", "at::Tensor::matmul",
                        // "cudaStreamCreate", "std::thread::thread" (constructors too)
  std::string spelled;  // the name as written at the call site: "cublasSgemm"
  int line = 0;
  int column = 0;
  bool in_device_code = false;     // inside a __global__ or __device__ function
  std::string enclosing_function;  // qualified name of the caller, empty at namespace scope
};

struct KernelDef {
  std::string name;  // __global__ function, qualified
  int line = 0;
};

struct KernelLaunch {
  std::string kernel;  // name of the launched kernel when known
  std::string via;     // "<<<>>>", "cudaLaunchKernel", "cuLaunchKernel", "cudaLaunchCooperativeKernel", ...
  int line = 0;
  bool explicit_stream = false;  // a stream argument other than 0/default was passed
  std::string stream;            // the stream argument as written, empty when none was given
};

// Global, namespace-scope or function-local static variables: where caches live.
struct StaticVariable {
  std::string name;
  std::string type;
  int line = 0;
  bool function_local = false;
  bool is_const = false;
  std::string cuda_space;  // "" (host), "__device__", "__constant__" or "__managed__"
};

// An integer literal compared with (==, !=, <, >, switch case) or asserted
// against an expression that reads a size: x.size(0), x.sizes()[1], numel(),
// a parameter named like a dimension (M, N, K, n, batch...).
struct SizeLiteral {
  long long value = 0;
  std::string compared_with;  // the other side, as written
  int line = 0;
};

// A reference to a named enum constant or a field by name:
// cudaLimitPersistingL2CacheSize, accessPolicyWindow, cudaStreamCaptureModeGlobal.
struct NameReference {
  std::string name;
  std::string kind;  // "enum", "field", "type", or "function" (a function named but not called: &f, f as an argument)
  int line = 0;
};

// A conversion between floating-point types in device code, such as
// __nv_fp8_e4m3 -> __nv_bfloat16 before an MMA (precision lowering).
struct Conversion {
  std::string from_type;
  std::string to_type;
  int line = 0;
};

struct Include {
  std::string header;
  int line = 0;
  bool found = true;
};

struct Diagnostic {
  int line = 0;
  std::string message;
};

struct Facts {
  bool parsed = false;  // false: Clang could not build an AST at all
  std::vector<Diagnostic> errors;  // compile errors (the rest was still read)
  std::vector<Call> calls;
  std::vector<KernelDef> kernels;
  std::vector<KernelLaunch> launches;
  std::vector<StaticVariable> statics;
  std::vector<SizeLiteral> size_literals;
  std::vector<NameReference> names;
  std::vector<Conversion> conversions;
  std::vector<Include> includes;
};

}  // namespace kaudit::analyzer::cxx
