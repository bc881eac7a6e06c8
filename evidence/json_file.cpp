#include "evidence/json_file.h"

#include "common/utf8.h"

#include <fstream>
#include <sstream>
#include <stdexcept>

namespace kaudit::evidence {
namespace fs = std::filesystem;

std::optional<nlohmann::json> read_json_file(const fs::path& path) {
  JsonDocument d = read_json_document(path);
  if (d.status != JsonDocument::ok) return std::nullopt;
  return std::move(d.doc);
}

JsonDocument read_json_document(const fs::path& path) {
  JsonDocument d;
  std::error_code ec;
  if (!fs::exists(path, ec)) return d;
  d.status = JsonDocument::corrupt;
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    d.error = "cannot be read";
    return d;
  }
  try {
    d.doc = nlohmann::json::parse(in);
    d.status = JsonDocument::ok;
  } catch (const nlohmann::json::exception& e) {
    d.error = std::string("is not valid JSON (truncated or damaged): ") + e.what();
  }
  return d;
}

void write_json_file(const fs::path& path, const nlohmann::json& doc) {
  write_text_file(path, common::json_text(doc, 2) + "\n");
}

void write_text_file(const fs::path& path, const std::string& text) {
  const fs::path tmp = path.string() + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << text;
    if (!out) throw std::runtime_error("cannot write " + tmp.string());
  }
  fs::rename(tmp, path);
}

std::string read_text_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace kaudit::evidence
