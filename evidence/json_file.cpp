#include "evidence/json_file.h"

#include <fstream>
#include <sstream>
#include <stdexcept>

namespace kaudit::evidence {
namespace fs = std::filesystem;

std::optional<nlohmann::json> read_json_file(const fs::path& path) {
  std::ifstream in(path);
  if (!in) return std::nullopt;
  nlohmann::json j = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return std::nullopt;
  return j;
}

void write_json_file(const fs::path& path, const nlohmann::json& doc) {
  const fs::path tmp = path.string() + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary);
    out << doc.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
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
