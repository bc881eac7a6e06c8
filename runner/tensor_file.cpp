#include "runner/tensor_file.h"

#include <nlohmann/json.hpp>

#include <bit>
#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <sstream>
#include <stdexcept>

namespace kaudit::runner {
namespace {

template <typename T>
T load(const unsigned char* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

double half_to_double(std::uint16_t h) {
  const int sign = h >> 15, exp = (h >> 10) & 0x1f, mant = h & 0x3ff;
  double v;
  if (exp == 0) v = std::ldexp(mant, -24);
  else if (exp == 31) v = mant ? std::numeric_limits<double>::quiet_NaN() : std::numeric_limits<double>::infinity();
  else v = std::ldexp(mant + 1024, exp - 25);
  return sign ? -v : v;
}

double bf16_to_double(std::uint16_t b) {
  return std::bit_cast<float>(static_cast<std::uint32_t>(b) << 16);
}

// OCP fp8: e4m3fn has no infinities and NaN at S.1111.111; e5m2 is IEEE-like.
double e4m3_to_double(std::uint8_t b) {
  const int sign = b >> 7, exp = (b >> 3) & 0xf, mant = b & 0x7;
  double v;
  if (exp == 15 && mant == 7) v = std::numeric_limits<double>::quiet_NaN();
  else if (exp == 0) v = std::ldexp(mant, -9);
  else v = std::ldexp(mant + 8, exp - 10);
  return sign ? -v : v;
}

double e5m2_to_double(std::uint8_t b) {
  const int sign = b >> 7, exp = (b >> 2) & 0x1f, mant = b & 0x3;
  double v;
  if (exp == 31) v = mant ? std::numeric_limits<double>::quiet_NaN() : std::numeric_limits<double>::infinity();
  else if (exp == 0) v = std::ldexp(mant, -16);
  else v = std::ldexp(mant + 4, exp - 17);
  return sign ? -v : v;
}

}  // namespace

std::size_t dtype_size(const std::string& d) {
  if (d == "float64" || d == "int64" || d == "uint64") return 8;
  if (d == "float32" || d == "int32" || d == "uint32") return 4;
  if (d == "float16" || d == "bfloat16" || d == "int16" || d == "uint16") return 2;
  if (d == "int8" || d == "uint8" || d == "bool" || d == "float8_e4m3fn" || d == "float8_e5m2") return 1;
  return 0;
}

std::size_t TensorFile::numel() const {
  std::size_t n = 1;
  for (auto s : shape) n *= static_cast<std::size_t>(s);
  return n;
}

bool TensorFile::is_floating() const { return dtype.starts_with("float") || dtype == "bfloat16"; }

namespace {
using Decoder = double (*)(const unsigned char*);

// The element decoder for a dtype, chosen once per tensor: comparisons of
// large outputs decode hundreds of millions of elements.
Decoder decoder_for(const std::string& dtype) {
  if (dtype == "float32") return [](const unsigned char* p) -> double { return load<float>(p); };
  if (dtype == "float64") return [](const unsigned char* p) { return load<double>(p); };
  if (dtype == "float16") return [](const unsigned char* p) { return half_to_double(load<std::uint16_t>(p)); };
  if (dtype == "bfloat16") return [](const unsigned char* p) { return bf16_to_double(load<std::uint16_t>(p)); };
  if (dtype == "float8_e4m3fn") return [](const unsigned char* p) { return e4m3_to_double(*p); };
  if (dtype == "float8_e5m2") return [](const unsigned char* p) { return e5m2_to_double(*p); };
  if (dtype == "int64") return [](const unsigned char* p) { return static_cast<double>(load<std::int64_t>(p)); };
  if (dtype == "int32") return [](const unsigned char* p) -> double { return load<std::int32_t>(p); };
  if (dtype == "int16") return [](const unsigned char* p) -> double { return load<std::int16_t>(p); };
  if (dtype == "int8") return [](const unsigned char* p) -> double { return load<std::int8_t>(p); };
  if (dtype == "uint8" || dtype == "bool") return [](const unsigned char* p) -> double { return *p; };
  if (dtype == "uint16") return [](const unsigned char* p) -> double { return load<std::uint16_t>(p); };
  if (dtype == "uint32") return [](const unsigned char* p) -> double { return load<std::uint32_t>(p); };
  if (dtype == "uint64") return [](const unsigned char* p) { return static_cast<double>(load<std::uint64_t>(p)); };
  return nullptr;
}
}  // namespace

bool TensorFile::all_finite() const {
  if (!is_floating()) return true;
  const Decoder dec = decoder_for(dtype);
  const std::size_t esize = dtype_size(dtype), n = numel();
  if (!dec || data.size() < n * esize) return false;
  for (std::size_t i = 0; i < n; ++i)
    if (!std::isfinite(dec(data.data() + i * esize))) return false;
  return true;
}

double TensorFile::max_abs() const {
  const Decoder dec = decoder_for(dtype);
  const std::size_t esize = dtype_size(dtype), n = numel();
  if (!dec || data.size() < n * esize) return 0;
  double m = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const double v = std::fabs(dec(data.data() + i * esize));
    if (std::isfinite(v) && v > m) m = v;
  }
  return m;
}

double TensorFile::at(std::size_t i) const {
  const unsigned char* p = data.data() + i * dtype_size(dtype);
  if (dtype == "float32") return load<float>(p);
  if (dtype == "float64") return load<double>(p);
  if (dtype == "float16") return half_to_double(load<std::uint16_t>(p));
  if (dtype == "bfloat16") return bf16_to_double(load<std::uint16_t>(p));
  if (dtype == "float8_e4m3fn") return e4m3_to_double(*p);
  if (dtype == "float8_e5m2") return e5m2_to_double(*p);
  if (dtype == "int64") return static_cast<double>(load<std::int64_t>(p));
  if (dtype == "int32") return load<std::int32_t>(p);
  if (dtype == "int16") return load<std::int16_t>(p);
  if (dtype == "int8") return load<std::int8_t>(p);
  if (dtype == "uint8" || dtype == "bool") return *p;
  if (dtype == "uint16") return load<std::uint16_t>(p);
  if (dtype == "uint32") return load<std::uint32_t>(p);
  if (dtype == "uint64") return static_cast<double>(load<std::uint64_t>(p));
  return std::numeric_limits<double>::quiet_NaN();
}

std::string TensorFile::shape_text() const {
  std::ostringstream o;
  o << '[';
  for (std::size_t i = 0; i < shape.size(); ++i) o << (i ? ", " : "") << shape[i];
  o << ']';
  return o.str();
}

TensorFile read_tensor_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error(path.string() + ": cannot open");
  std::string header;
  if (!std::getline(in, header) || header.size() > 65536) throw std::runtime_error(path.string() + ": no header");
  TensorFile t;
  std::size_t nbytes = 0;
  try {
    const auto h = nlohmann::json::parse(header);
    t.dtype = h.at("dtype").get<std::string>();
    t.shape = h.at("shape").get<std::vector<std::int64_t>>();
    nbytes = h.at("nbytes").get<std::size_t>();
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error(path.string() + ": bad header: " + e.what());
  }
  const std::size_t esize = dtype_size(t.dtype);
  if (esize == 0) throw std::runtime_error(path.string() + ": dtype " + t.dtype + " is not supported");
  for (auto s : t.shape)
    if (s < 0) throw std::runtime_error(path.string() + ": negative dimension");
  if (t.numel() * esize != nbytes) throw std::runtime_error(path.string() + ": byte count does not match the shape");
  t.data.resize(nbytes);
  in.read(reinterpret_cast<char*>(t.data.data()), static_cast<std::streamsize>(nbytes));
  if (static_cast<std::size_t>(in.gcount()) != nbytes) throw std::runtime_error(path.string() + ": truncated");
  return t;
}

Comparison compare_tensors(const TensorFile& a, const TensorFile& e, const Tolerance& tol) {
  Comparison c;
  if (a.shape != e.shape) {
    c.reason = "shape " + a.shape_text() + " where the reference has " + e.shape_text();
    return c;
  }
  if (a.dtype != e.dtype) {
    c.reason = "dtype " + a.dtype + " where the reference has " + e.dtype;
    return c;
  }
  const std::size_t n = a.numel();
  c.checked = n;
  const Decoder dec = decoder_for(a.dtype);
  const std::size_t esize = dtype_size(a.dtype);
  if (!dec || a.data.size() < n * esize || e.data.size() < n * esize) {
    c.reason = "unsupported or truncated tensor";
    return c;
  }
  const unsigned char* pa = a.data.data();
  const unsigned char* pe = e.data.data();
  for (std::size_t i = 0; i < n; ++i) {
    const double x = dec(pa + i * esize), y = dec(pe + i * esize);
    bool ok;
    if (std::isnan(y)) ok = std::isnan(x);
    else if (std::isnan(x)) ok = false;
    else if (std::isinf(y) || std::isinf(x)) ok = x == y;
    else {
      const double diff = std::fabs(x - y);
      ok = diff <= tol.atol + tol.rtol * std::fabs(y);
      c.max_abs_error = std::max(c.max_abs_error, diff);
      if (y != 0) c.max_rel_error = std::max(c.max_rel_error, diff / std::fabs(y));
    }
    if (!ok) {
      if (c.mismatches == 0) {
        c.first_mismatch = static_cast<std::int64_t>(i);
        c.got = x;
        c.expected = y;
      }
      ++c.mismatches;
    }
  }
  c.ok = c.mismatches == 0;
  if (!c.ok) {
    std::ostringstream o;
    o << c.mismatches << " of " << n << " elements outside tolerance (first at flat index " << c.first_mismatch
      << ": got " << c.got << ", expected " << c.expected << ")";
    c.reason = o.str();
  }
  return c;
}

bool same_bytes(const TensorFile& a, const TensorFile& b) {
  return a.dtype == b.dtype && a.shape == b.shape && a.data == b.data;
}

std::string fnv1a_hex(const unsigned char* data, std::size_t n) {
  std::uint64_t h = 1469598103934665603ULL;
  for (std::size_t i = 0; i < n; ++i) {
    h ^= data[i];
    h *= 1099511628211ULL;
  }
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

}  // namespace kaudit::runner
