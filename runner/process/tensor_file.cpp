#include "runner/process/tensor_file.h"

#include <nlohmann/json.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <system_error>
#include <thread>

namespace kaudit::run {
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

// Tables of every float16 and fp8 value, made once from the functions above,
// so that a table decodes exactly as they do (NaN signs included).
template <std::size_t N, typename Fn>
std::array<double, N> table_of(Fn fn) {
  std::array<double, N> t;
  for (std::size_t i = 0; i < N; ++i) t[i] = fn(static_cast<std::uint32_t>(i));
  return t;
}

const double* half_table() {
  static const auto t = table_of<65536>([](std::uint32_t i) { return half_to_double(static_cast<std::uint16_t>(i)); });
  return t.data();
}

const double* e4m3_table() {
  static const auto t = table_of<256>([](std::uint32_t i) { return e4m3_to_double(static_cast<std::uint8_t>(i)); });
  return t.data();
}

const double* e5m2_table() {
  static const auto t = table_of<256>([](std::uint32_t i) { return e5m2_to_double(static_cast<std::uint8_t>(i)); });
  return t.data();
}

// Element decoders, one type per dtype, so that the loops below are compiled
// once per dtype with the decoding inlined (comparisons of large outputs
// decode hundreds of millions of elements).
template <typename T>
struct Plain {
  static constexpr std::size_t size = sizeof(T);
  double operator()(const unsigned char* p) const { return static_cast<double>(load<T>(p)); }
};

struct Bf16 {
  static constexpr std::size_t size = 2;
  double operator()(const unsigned char* p) const { return bf16_to_double(load<std::uint16_t>(p)); }
};

struct Table16 {
  static constexpr std::size_t size = 2;
  const double* table;
  double operator()(const unsigned char* p) const { return table[load<std::uint16_t>(p)]; }
};

struct Table8 {
  static constexpr std::size_t size = 1;
  const double* table;
  double operator()(const unsigned char* p) const { return table[*p]; }
};

// Calls fn with the decoder of a dtype; false when kaudit does not know it.
template <typename Fn>
bool with_decoder(const std::string& dtype, Fn&& fn) {
  if (dtype == "float32") fn(Plain<float>{});
  else if (dtype == "float64") fn(Plain<double>{});
  else if (dtype == "float16") fn(Table16{half_table()});
  else if (dtype == "bfloat16") fn(Bf16{});
  else if (dtype == "float8_e4m3fn") fn(Table8{e4m3_table()});
  else if (dtype == "float8_e5m2") fn(Table8{e5m2_table()});
  else if (dtype == "int64") fn(Plain<std::int64_t>{});
  else if (dtype == "int32") fn(Plain<std::int32_t>{});
  else if (dtype == "int16") fn(Plain<std::int16_t>{});
  else if (dtype == "int8") fn(Plain<std::int8_t>{});
  else if (dtype == "uint8" || dtype == "bool") fn(Plain<std::uint8_t>{});
  else if (dtype == "uint16") fn(Plain<std::uint16_t>{});
  else if (dtype == "uint32") fn(Plain<std::uint32_t>{});
  else if (dtype == "uint64") fn(Plain<std::uint64_t>{});
  else return false;
  return true;
}

// Work on more than this many elements (or bytes, for byte comparisons) is
// split into kChunks equal chunks, run on up to kChunks threads. The chunks
// do not depend on the machine, so neither do the merged results.
constexpr std::size_t kParallelElements = std::size_t{1} << 22;  // 4M
constexpr std::size_t kParallelBytes = std::size_t{1} << 25;     // 32 MiB
constexpr std::size_t kChunks = 8;

// fn(begin, end, part) for each chunk of [0, n); the parts in chunk order.
// One chunk, on the calling thread, when n <= threshold.
template <typename Part, typename Fn>
std::vector<Part> over_chunks(std::size_t n, std::size_t threshold, Fn fn) {
  const std::size_t chunks = n > threshold ? kChunks : 1;
  std::vector<Part> parts(chunks);
  if (chunks == 1) {
    fn(std::size_t{0}, n, parts[0]);
    return parts;
  }
  std::atomic<std::size_t> next{0};
  auto work = [&] {
    for (std::size_t k; (k = next.fetch_add(1)) < chunks;) fn(n * k / chunks, n * (k + 1) / chunks, parts[k]);
  };
  const std::size_t threads = std::clamp<std::size_t>(std::thread::hardware_concurrency(), 1, kChunks);
  std::vector<std::thread> helpers;
  for (std::size_t i = 1; i < threads; ++i) {
    try {
      helpers.emplace_back(work);
    } catch (const std::system_error&) {
      break;  // no thread to spare: the calling thread takes the remaining chunks
    }
  }
  work();
  for (auto& h : helpers) h.join();
  return parts;
}

// One chunk's share of a comparison.
struct Partial {
  std::size_t mismatches = 0;
  std::size_t far_mismatches = 0;
  std::size_t poison_pattern = 0;
  double max_abs_error = 0, max_rel_error = 0;
  std::int64_t first_mismatch = -1;
  double got = 0, expected = 0;
};

template <typename Dec>
void compare_range(Dec dec, const unsigned char* pa, const unsigned char* pe, std::size_t begin, std::size_t end,
                   const Tolerance& tol, const bool count_poison, Partial& c) {
  constexpr std::size_t esize = Dec::size;
  const double atol = tol.atol, rtol = tol.rtol;
  for (std::size_t i = begin; i < end; ++i) {
    const double x = dec(pa + i * esize), y = dec(pe + i * esize);
    bool ok, near = false;
    if (tol.non_finite_expected_excused && !std::isfinite(y)) ok = true;
    else if (std::isnan(y)) ok = std::isnan(x);
    else if (std::isnan(x)) ok = false;
    else if (std::isinf(y) || std::isinf(x)) ok = x == y;
    else {
      const double diff = std::fabs(x - y), bound = atol + rtol * std::fabs(y);
      ok = diff <= bound;
      near = diff <= 2 * bound;
      c.max_abs_error = std::max(c.max_abs_error, diff);
      if (y != 0) c.max_rel_error = std::max(c.max_rel_error, diff / std::fabs(y));
    }
    if (!ok) {
      c.far_mismatches += !near;
      if (c.mismatches == 0) {
        c.first_mismatch = static_cast<std::int64_t>(i);
        c.got = x;
        c.expected = y;
      }
      ++c.mismatches;
      if (count_poison &&
          std::all_of(pa + i * esize, pa + (i + 1) * esize, [](unsigned char b) { return b == 0xFF; }))
        ++c.poison_pattern;
    }
  }
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

bool TensorFile::all_finite() const {
  if (!is_floating()) return true;
  const auto b = bytes();
  const std::size_t n = numel();
  bool finite = false;
  const bool known = with_decoder(dtype, [&](auto dec) {
    using Dec = decltype(dec);
    if (b.size() < n * Dec::size) return;
    const auto parts = over_chunks<char>(n, kParallelElements, [&](std::size_t begin, std::size_t end, char& ok) {
      ok = 1;
      for (std::size_t i = begin; i < end; ++i)
        if (!std::isfinite(dec(b.data() + i * Dec::size))) {
          ok = 0;
          return;
        }
    });
    finite = std::all_of(parts.begin(), parts.end(), [](char ok) { return ok != 0; });
  });
  return known && finite;
}

double TensorFile::max_abs() const {
  const auto b = bytes();
  const std::size_t n = numel();
  double m = 0;
  with_decoder(dtype, [&](auto dec) {
    using Dec = decltype(dec);
    if (b.size() < n * Dec::size) return;
    // The maximum of finite values does not depend on the order, so the
    // chunks' maxima merge exactly.
    const auto parts = over_chunks<double>(n, kParallelElements, [&](std::size_t begin, std::size_t end, double& pm) {
      for (std::size_t i = begin; i < end; ++i) {
        const double v = std::fabs(dec(b.data() + i * Dec::size));
        if (std::isfinite(v) && v > pm) pm = v;
      }
    });
    for (double pm : parts) m = std::max(m, pm);
  });
  return m;
}

double TensorFile::at(std::size_t i) const {
  const unsigned char* p = bytes().data() + i * dtype_size(dtype);
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

namespace {

struct Fd {
  int fd;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

// Up to `n` bytes from the start of the file; fewer only at its end.
std::string read_prefix(int fd, std::size_t n, const std::filesystem::path& path) {
  std::string s(n, '\0');
  std::size_t got = 0;
  while (got < n) {
    const ssize_t r = ::pread(fd, s.data() + got, n - got, static_cast<off_t>(got));
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) throw std::runtime_error(path.string() + ": cannot read: " + std::strerror(errno));
    if (r == 0) break;
    got += static_cast<std::size_t>(r);
  }
  s.resize(got);
  return s;
}

}  // namespace

namespace {

// An open tensor file whose header has been read and checked: the dtype and
// shape in `t`, the payload's size and where it starts. Throws as
// read_tensor_file does.
struct OpenTensorFile {
  Fd f{-1};
  TensorFile t;
  std::size_t nbytes = 0, offset = 0;
};

std::unique_ptr<OpenTensorFile> open_tensor_file(const std::filesystem::path& path) {
  auto o = std::make_unique<OpenTensorFile>();  // never copied: its Fd closes the file once
  o->f.fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  struct stat st {};
  if (o->f.fd < 0 || ::fstat(o->f.fd, &st) != 0) throw std::runtime_error(path.string() + ": cannot open");
  if (!S_ISREG(st.st_mode)) throw std::runtime_error(path.string() + ": not a regular file");
  const auto file_size = static_cast<std::size_t>(st.st_size);

  // The header is the first line, at most 64 KiB; a last line without a
  // newline counts as a line.
  constexpr std::size_t kMaxHeader = 65536;
  const std::string prefix = read_prefix(o->f.fd, std::min(file_size, kMaxHeader + 1), path);
  const std::size_t newline = prefix.find('\n');
  if (prefix.empty() || (newline == std::string::npos && prefix.size() > kMaxHeader))
    throw std::runtime_error(path.string() + ": no header");
  const std::string header = prefix.substr(0, newline);
  o->offset = newline == std::string::npos ? prefix.size() : newline + 1;

  TensorFile& t = o->t;
  std::size_t& nbytes = o->nbytes;
  try {
    const auto h = nlohmann::json::parse(header);
    t.dtype = h.at("dtype").get<std::string>();
    // Integers only: a float such as 4.6e19 has no int64 value to convert to.
    const auto& shape = h.at("shape");
    const auto& count = h.at("nbytes");
    const bool integers = shape.is_array() && count.is_number_integer() &&
                          std::all_of(shape.begin(), shape.end(), [](const auto& d) { return d.is_number_integer(); });
    if (!integers) throw std::runtime_error(path.string() + ": bad header: shape and nbytes must be integers");
    t.shape = shape.get<std::vector<std::int64_t>>();
    nbytes = count.get<std::size_t>();
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error(path.string() + ": bad header: " + e.what());
  }
  const std::size_t esize = dtype_size(t.dtype);
  if (esize == 0) throw std::runtime_error(path.string() + ": dtype " + t.dtype + " is not supported");
  // The element count, refused where the product of the dimensions does not
  // fit in 64 bits: wrapped around, [2^62 + 1, 4] would read as 4 elements.
  bool empty = false, too_large = false;
  std::size_t count = 1;
  for (auto d : t.shape) {
    if (d < 0) throw std::runtime_error(path.string() + ": negative dimension");
    empty |= d == 0;
    too_large |= __builtin_mul_overflow(count, static_cast<std::size_t>(d), &count);
  }
  too_large = !empty && (too_large || __builtin_mul_overflow(count, esize, &count));
  if (too_large) throw std::runtime_error(path.string() + ": the shape has more elements than 64 bits count");
  if (t.numel() * esize != nbytes) throw std::runtime_error(path.string() + ": byte count does not match the shape");
  if (file_size - o->offset < nbytes) throw std::runtime_error(path.string() + ": truncated");
  return o;
}

// `n` bytes of the payload from byte `at` on. Read, never mapped: every file
// in the exchange folder can be written by the submission's process, which
// could cut a mapped file short under the runner (SIGBUS).
void read_payload(const OpenTensorFile& o, std::size_t at, unsigned char* into, std::size_t n,
                  const std::filesystem::path& path) {
  std::size_t got = 0;
  while (got < n) {
    const ssize_t r = ::pread(o.f.fd, into + got, n - got, static_cast<off_t>(o.offset + at + got));
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) throw std::runtime_error(path.string() + ": cannot read: " + std::strerror(errno));
    if (r == 0) throw std::runtime_error(path.string() + ": truncated");
    got += static_cast<std::size_t>(r);
  }
}

}  // namespace

TensorFile read_tensor_file(const std::filesystem::path& path) {
  const auto o = open_tensor_file(path);
  TensorFile t = std::move(o->t);
  if (o->nbytes == 0) return t;
  // Not zero-filled first: every byte is read over.
  const std::shared_ptr<unsigned char[]> buffer(new unsigned char[o->nbytes]);
  read_payload(*o, 0, buffer.get(), o->nbytes, path);
  t.payload = std::shared_ptr<const unsigned char>(buffer, buffer.get());
  t.payload_size = o->nbytes;
  return t;
}

bool same_tensor_files(const std::filesystem::path& a, const std::filesystem::path& b) {
  const auto fa = open_tensor_file(a), fb = open_tensor_file(b);
  if (fa->t.dtype != fb->t.dtype || fa->t.shape != fb->t.shape || fa->nbytes != fb->nbytes) return false;
  constexpr std::size_t kPiece = 64 << 20;
  const std::size_t piece = std::min(kPiece, fa->nbytes);
  std::vector<unsigned char> pa(piece), pb(piece);
  for (std::size_t at = 0; at < fa->nbytes; at += piece) {
    const std::size_t n = std::min(piece, fa->nbytes - at);
    read_payload(*fa, at, pa.data(), n, a);
    read_payload(*fb, at, pb.data(), n, b);
    if (std::memcmp(pa.data(), pb.data(), n) != 0) return false;
  }
  return true;
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
  const auto ba = a.bytes(), be = e.bytes();
  bool readable = false;
  // All-ones bytes are a NaN no arithmetic produces in a floating dtype, but
  // a common value (-1) in an integer one.
  const bool count_poison = a.is_floating();
  with_decoder(a.dtype, [&](auto dec) {
    using Dec = decltype(dec);
    if (ba.size() < n * Dec::size || be.size() < n * Dec::size) return;
    readable = true;
    const auto parts = over_chunks<Partial>(n, kParallelElements, [&](std::size_t begin, std::size_t end, Partial& p) {
      compare_range(dec, ba.data(), be.data(), begin, end, tol, count_poison, p);
    });
    // Chunks in index order: the first with a mismatch holds the lowest
    // index. Maxima of non-NaN values merge exactly in any order.
    for (const Partial& p : parts) {
      if (p.mismatches > 0 && c.mismatches == 0) {
        c.first_mismatch = p.first_mismatch;
        c.got = p.got;
        c.expected = p.expected;
      }
      c.mismatches += p.mismatches;
      c.far_mismatches += p.far_mismatches;
      c.poison_pattern += p.poison_pattern;
      c.max_abs_error = std::max(c.max_abs_error, p.max_abs_error);
      c.max_rel_error = std::max(c.max_rel_error, p.max_rel_error);
    }
  });
  if (!readable) {
    c.reason = "unsupported or truncated tensor";
    return c;
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
  if (a.dtype != b.dtype || a.shape != b.shape) return false;
  const auto ba = a.bytes(), bb = b.bytes();
  if (ba.size() != bb.size()) return false;
  if (ba.empty()) return true;
  const auto parts = over_chunks<char>(ba.size(), kParallelBytes, [&](std::size_t begin, std::size_t end, char& same) {
    same = std::memcmp(ba.data() + begin, bb.data() + begin, end - begin) == 0;
  });
  return std::all_of(parts.begin(), parts.end(), [](char same) { return same != 0; });
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

}  // namespace kaudit::run
