#include "analyzer/source_file.h"

#include <algorithm>
#include <fstream>
#include <sstream>

namespace kaudit::analyzer {
namespace fs = std::filesystem;

std::string_view to_string(Language l) {
  switch (l) {
    case Language::python: return "python";
    case Language::cuda: return "cuda";
    case Language::cpp: return "cpp";
  }
  return "python";
}

rules::Location SourceFile::location(int line, int column, std::string symbol) const {
  rules::Location loc;
  loc.symbol = std::move(symbol);
  if (!embedded()) {
    loc.file = path;
    loc.line = line;
    loc.column = column;
    return loc;
  }
  loc.file = origin_path;
  if (line >= 1 && static_cast<size_t>(line) <= origin_lines.size())
    loc.line = origin_lines[line - 1];
  else if (!origin_lines.empty())
    loc.line = origin_lines.front();
  loc.column = 0;  // columns inside a Python string literal do not map simply
  return loc;
}

size_t make_valid_utf8(std::string& text) {
  std::string out;
  out.reserve(text.size());
  size_t replaced = 0;
  const auto* s = reinterpret_cast<const unsigned char*>(text.data());
  const size_t n = text.size();
  size_t i = 0;
  while (i < n) {
    unsigned char c = s[i];
    size_t len = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
    bool ok = len != 0 && i + len <= n;
    for (size_t k = 1; ok && k < len; ++k) ok = (s[i + k] & 0xC0) == 0x80;
    if (ok && len == 2) ok = c >= 0xC2;                                     // overlong
    if (ok && len == 3) {
      unsigned cp = ((c & 0x0F) << 12) | ((s[i + 1] & 0x3F) << 6) | (s[i + 2] & 0x3F);
      ok = cp >= 0x800 && !(cp >= 0xD800 && cp <= 0xDFFF);                 // overlong, surrogate
    }
    if (ok && len == 4) {
      unsigned cp = ((c & 0x07) << 18) | ((s[i + 1] & 0x3F) << 12) | ((s[i + 2] & 0x3F) << 6) |
                    (s[i + 3] & 0x3F);
      ok = cp >= 0x10000 && cp <= 0x10FFFF;
    }
    if (ok) {
      out.append(text, i, len);
      i += len;
    } else {
      out += "\xEF\xBF\xBD";
      ++replaced;
      ++i;
    }
  }
  if (replaced) text = std::move(out);
  return replaced;
}

Language language_of(const fs::path& path) {
  std::string ext = path.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return std::tolower(c); });
  if (ext == ".cu" || ext == ".cuh") return Language::cuda;
  if (ext == ".cpp" || ext == ".cc" || ext == ".cxx" || ext == ".h" || ext == ".hpp" || ext == ".c")
    return Language::cpp;
  return Language::python;
}

LoadedSource load_source(const fs::path& path) {
  LoadedSource result;
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) {
    result.problems.push_back({"not a regular file", true});
    return result;
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    result.problems.push_back({"cannot be opened for reading", true});
    return result;
  }
  std::ostringstream buf;
  buf << in.rdbuf();
  return source_from_bytes(path, buf.str());
}

LoadedSource source_from_bytes(const fs::path& path, std::string text) {
  LoadedSource result;
  // A NUL byte in the first 8 KiB means a binary file, as git and grep judge.
  const auto head_end = text.begin() + static_cast<std::ptrdiff_t>(std::min<size_t>(text.size(), 8192));
  if (std::find(text.begin(), head_end, '\0') != head_end) {
    result.problems.push_back({"is a binary file, not source", true});
    return result;
  }
  if (size_t bad = make_valid_utf8(text))
    result.problems.push_back({std::to_string(bad) + " byte(s) of invalid UTF-8 were replaced before parsing", false});

  SourceFile f;
  f.path = path.string();
  f.language = language_of(path);
  f.text = std::move(text);
  result.file = std::move(f);
  return result;
}

}  // namespace kaudit::analyzer
