// libFuzzer target: what reads a .cu/.cpp file before Clang does (the binary
// test, the UTF-8 repair, the language from the extension, the line map of a
// source). Clang itself is too heavy to fuzz at a useful rate here (a parse
// is ~0.1 s with the precompiled prelude, seconds without it); with
// KAUDIT_FUZZ_CLANG=1 in the environment each input is also handed to the
// Clang front (read_facts), for slow, longer runs.
#include "analyzer/cxx/front.h"
#include "analyzer/source_file.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

namespace {

bool with_clang() {
  static const bool on = [] {
    const char* v = std::getenv("KAUDIT_FUZZ_CLANG");
    return v && std::string(v) == "1";
  }();
  return on;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace kaudit::analyzer;
  // The first byte picks the file's name (and so its language), the rest is the file.
  static const char* const kNames[] = {"kernel.cu", "kernel.CUH", "ext.cpp", "ext.h", "ext.cxx", "odd.c"};
  const char* name = kNames[size ? data[0] % 6 : 0];
  std::string bytes = size ? std::string(reinterpret_cast<const char*>(data) + 1, size - 1) : std::string();
  LoadedSource loaded = source_from_bytes(name, std::move(bytes));
  if (!loaded.file) return 0;
  SourceFile& f = *loaded.file;
  // Locations of every line, as findings make them; and the same file seen
  // as an embedded source whose lines map back to a .py.
  const int lines = static_cast<int>(std::count(f.text.begin(), f.text.end(), '\n')) + 1;
  for (int line = 0; line <= lines + 1; ++line) (void)f.location(line, 1, "k");
  SourceFile embedded = f;
  embedded.origin_path = "solution.py";
  for (int line = 0; line < lines / 2; ++line) embedded.origin_lines.push_back(10 + line);
  for (int line = -1; line <= lines + 1; ++line) (void)embedded.location(line);
  if (with_clang()) {
    cxx::FrontOptions o;
    o.time_limit_ms = 2000;
    (void)cxx::read_facts(f, o);
  }
  return 0;
}
