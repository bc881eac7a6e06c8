#include "common/utf8.h"

namespace kaudit::common {

namespace {
bool continuation(char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; }
}  // namespace

std::string cut_utf8(std::string_view s, size_t max_bytes) {
  if (s.size() <= max_bytes) return std::string(s);
  // s[max_bytes] starts the part dropped: while it continues a character,
  // that character straddles the cut. A character is at most 4 bytes, so a
  // longer run of continuation bytes is broken text, cut where asked.
  size_t end = max_bytes;
  for (size_t back = 0; back < 3 && end > 0 && continuation(s[end]); ++back) --end;
  if (continuation(s[end])) end = max_bytes;
  return std::string(s.substr(0, end));
}

std::string shorten_utf8(std::string_view s, size_t max_bytes, std::string_view mark) {
  if (s.size() <= max_bytes) return std::string(s);
  return cut_utf8(s, max_bytes > mark.size() ? max_bytes - mark.size() : 0) + std::string(mark);
}

std::string json_text(const nlohmann::json& doc, int indent) {
  return doc.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace kaudit::common
