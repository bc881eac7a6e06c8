// Text that ends up in evidence documents is UTF-8, and a JSON writer throws
// on anything else. Submissions are hostile: their source, file names and the
// names their processes report can hold any bytes, and a quote cut to a size
// can split a character. These keep every such string writable.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <string_view>

namespace kaudit::common {

// The longest prefix of `s` of at most `max_bytes` bytes that does not end
// inside a UTF-8 character (bytes already invalid are left as they are).
std::string cut_utf8(std::string_view s, size_t max_bytes);
// `s` when it fits in `max_bytes`; else its cut prefix followed by `mark`
// ("...", " ..."), the whole at most `max_bytes` bytes.
std::string shorten_utf8(std::string_view s, size_t max_bytes, std::string_view mark);
// `doc` as JSON text (indent < 0: one line) where invalid UTF-8 in a string
// becomes U+FFFD instead of throwing: every document kaudit writes goes
// through here.
std::string json_text(const nlohmann::json& doc, int indent = -1);

}  // namespace kaudit::common
