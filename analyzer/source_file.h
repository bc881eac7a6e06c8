// A source file the analyzer reads: a file on disk, or a C++/CUDA string
// embedded in a Python file (load_inline, cupy.RawKernel, NVRTC), whose
// lines map back to the .py it came from.
#pragma once

#include "rules/finding.h"

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace kaudit::analyzer {

enum class Language { python, cuda, cpp };
std::string_view to_string(Language l);

struct SourceFile {
  std::string path;  // as given; for embedded sources, "<py path>:<kind>@<line>.cu"
  Language language = Language::python;
  std::string text;  // always valid UTF-8: invalid bytes are replaced by U+FFFD

  // Embedded sources only: the .py file and, for each line of `text`
  // (index line-1), the line in the .py it came from.
  std::string origin_path;
  std::vector<int> origin_lines;

  bool embedded() const { return !origin_path.empty(); }
  // Where a finding at (line, column) of this file should point a person.
  rules::Location location(int line, int column = 0, std::string symbol = {}) const;
};

// Why a file could not be read as source, for an `analysis-incomplete` finding.
struct LoadProblem {
  std::string reason;
  bool fatal = false;  // true: nothing can be analysed (unreadable, binary)
};

struct LoadedSource {
  std::optional<SourceFile> file;        // empty when fatal
  std::vector<LoadProblem> problems;     // e.g. invalid UTF-8 was replaced
};

// The language a file's extension names: .cu/.cuh CUDA, .cpp/.cc/.cxx/.c/.h/.hpp
// C++ (any case), anything else Python.
Language language_of(const std::filesystem::path& path);

// Reads a file and guesses its language from the extension. Never throws.
LoadedSource load_source(const std::filesystem::path& path);
// The same over bytes already read (`path` names the file and its language):
// a NUL byte in the first 8 KiB makes it binary (fatal); invalid UTF-8 is
// replaced. Never throws.
LoadedSource source_from_bytes(const std::filesystem::path& path, std::string bytes);

// Replaces invalid UTF-8 sequences by U+FFFD; returns how many were replaced.
size_t make_valid_utf8(std::string& text);

}  // namespace kaudit::analyzer
