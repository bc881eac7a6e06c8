// Tensors as the harness hands them to the runner: one JSON header line
// ({"dtype": "float32", "shape": [2, 3], "nbytes": 24}) then the raw bytes,
// row-major, little-endian. The runner compares them itself, with the
// problem's tolerance, so the submission's process never decides a verdict.
//
// A tensor read from a file holds its payload in a buffer shared by copies
// of the object (outputs of hundreds of MB, inputs of several GB); one built
// in memory (tests) fills `data`. Everything reads through bytes(). Files are
// read, not mapped: the submission's process can write the exchange folder
// and could cut a mapped file short under the runner (SIGBUS).
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace kaudit::run {

struct TensorFile {
  std::string dtype;             // torch's name without "torch.": float32, bfloat16, int64, ...
  std::vector<std::int64_t> shape;
  std::vector<unsigned char> data;  // bytes of a tensor built in memory; empty for one read from a file
  // Set by read_tensor_file: the payload read from the file. Null for an
  // empty payload and for tensors built in memory.
  std::shared_ptr<const unsigned char> payload;
  std::size_t payload_size = 0;

  // The tensor's bytes: the payload read from a file when there is one, else `data`.
  std::span<const unsigned char> bytes() const {
    return payload ? std::span<const unsigned char>(payload.get(), payload_size) : std::span<const unsigned char>(data);
  }

  std::size_t numel() const;
  bool is_floating() const;
  double at(std::size_t i) const;  // element i as a double (NaN and inf kept)
  bool all_finite() const;         // true for non-floating dtypes
  double max_abs() const;          // largest finite |element| (0 when none)
  std::string shape_text() const;  // "[2, 3]"
};

// Throws std::runtime_error on a missing file, a bad header, a dtype kaudit
// does not know, a byte count that does not match the shape, or a file cut
// short (also while it is read).
TensorFile read_tensor_file(const std::filesystem::path& path);
std::size_t dtype_size(const std::string& dtype);  // 0 when unknown

struct Tolerance {
  double atol = 1e-2;
  double rtol = 1e-2;
  // Elements where the expected tensor is NaN or infinite are not checked (a
  // bounds case whose reference breaks down at a range's end).
  bool non_finite_expected_excused = false;
};

struct Comparison {
  bool ok = false;
  std::string reason;         // empty when ok; else one sentence
  std::size_t mismatches = 0;
  // Mismatches off by more than twice the tolerance, or not finite where the
  // other side is (the rest are near misses: check_outputs, near_miss_allowance).
  std::size_t far_mismatches = 0;
  std::size_t checked = 0;
  // Mismatching elements of a floating dtype whose bytes are all 0xFF: the
  // harness poisons freed memory with those bytes before a call, so these
  // were never written by the submission (no arithmetic makes that NaN).
  std::size_t poison_pattern = 0;
  double max_abs_error = 0;   // over finite pairs
  double max_rel_error = 0;
  std::int64_t first_mismatch = -1;  // flat index
  double got = 0, expected = 0;      // at first_mismatch
};

// `actual` against `expected`: same shape and dtype, then element-wise
// |a - e| <= atol + rtol * |e|. NaN matches only NaN in the expected output
// (a NaN where the reference has a number is how poisoned memory shows);
// infinities must match exactly. Integer and boolean outputs use the same
// rule, so a tolerance of 0 means exact. Tensors of more than 4M elements are
// compared in 8 chunks on up to 8 threads; the result does not depend on it.
Comparison compare_tensors(const TensorFile& actual, const TensorFile& expected, const Tolerance& tol);

// Byte equality (inputs before and after a call); large tensors on several threads.
bool same_bytes(const TensorFile& a, const TensorFile& b);
// The same for two tensor files, read a piece at a time (inputs of several
// GiB are never held whole); throws as read_tensor_file does on a bad file.
bool same_tensor_files(const std::filesystem::path& a, const std::filesystem::path& b);

// A 64-bit FNV-1a hash, in hex, for reports (not for security).
std::string fnv1a_hex(const unsigned char* data, std::size_t n);

}  // namespace kaudit::run
