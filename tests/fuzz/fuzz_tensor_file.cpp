// libFuzzer target: runner/process/tensor_file.h's reader over any bytes (the harness's
// tensors are written by the submission's process), then every reading of
// the tensor the runner makes: elements, finiteness, maxima, a comparison
// with itself and with a zero tensor of its shape. A file is accepted only
// when its payload holds exactly numel * element-size bytes.
#include "runner/process/tensor_file.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>

namespace {

// An in-memory file, written anew for each input (no disk).
int memory_file() {
  static const int fd = ::memfd_create("kaudit-fuzz-tensor", MFD_CLOEXEC);
  if (fd < 0) std::abort();
  return fd;
}

void check(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "tensor_file invariant broken: %s\n", what);
    std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace kaudit::run;
  const int fd = memory_file();
  if (::ftruncate(fd, 0) != 0 || ::pwrite(fd, data, size, 0) != static_cast<ssize_t>(size)) std::abort();
  TensorFile t;
  try {
    t = read_tensor_file("/proc/self/fd/" + std::to_string(fd));
  } catch (const std::runtime_error&) {
    return 0;
  }
  // What the reader promises: a known dtype, no negative dimension, and a
  // payload of exactly numel elements (numel computed without wrapping).
  const std::size_t esize = dtype_size(t.dtype);
  check(esize != 0, "unknown dtype accepted");
  using u128 = unsigned __int128;
  const u128 cap = u128(1) << 64;  // past 2^64 elements the product is only "too many"
  u128 numel = 1;
  for (auto d : t.shape) {
    check(d >= 0, "negative dimension accepted");
    numel = std::min(numel * static_cast<u128>(d), cap);
  }
  check(numel * esize == t.bytes().size(), "payload size is not numel * element size");
  check(t.numel() == static_cast<std::size_t>(numel), "numel() wrapped");

  const std::size_t n = t.numel();
  double sum = 0;
  for (std::size_t i = 0; i < n && i < 4096; ++i) sum += t.at(i);
  (void)sum;
  (void)t.all_finite();
  (void)t.max_abs();
  (void)t.shape_text();
  (void)t.is_floating();
  (void)compare_tensors(t, t, Tolerance{});
  TensorFile zeros = t;
  zeros.payload.reset();
  zeros.payload_size = 0;
  zeros.data.assign(t.bytes().size(), 0);
  (void)compare_tensors(t, zeros, Tolerance{0, 0});
  (void)same_bytes(t, zeros);
  (void)fnv1a_hex(t.bytes().data(), t.bytes().size());
  return 0;
}
