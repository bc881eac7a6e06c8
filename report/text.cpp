#include "report/text.h"

#ifdef KAUDIT_REPORT_ICU
#include <unicode/uchar.h>
#endif

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <vector>

namespace kaudit::report {
namespace {

// Decodes `s` into code points; an invalid byte becomes U+FFFD.
std::vector<char32_t> decode(std::string_view s) {
  std::vector<char32_t> out;
  out.reserve(s.size());
  std::size_t i = 0;
  while (i < s.size()) {
    const auto b = static_cast<unsigned char>(s[i]);
    int len = 0;
    char32_t cp = 0;
    if (b < 0x80) {
      len = 1, cp = b;
    } else if ((b & 0xE0) == 0xC0) {
      len = 2, cp = b & 0x1F;
    } else if ((b & 0xF0) == 0xE0) {
      len = 3, cp = b & 0x0F;
    } else if ((b & 0xF8) == 0xF0) {
      len = 4, cp = b & 0x07;
    }
    bool ok = len > 0 && i + len <= s.size();
    for (int k = 1; ok && k < len; ++k) {
      const auto c = static_cast<unsigned char>(s[i + k]);
      if ((c & 0xC0) != 0x80) ok = false;
      cp = (cp << 6) | (c & 0x3F);
    }
    // Overlong forms, surrogates and values past U+10FFFF are invalid too.
    if (ok && ((len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) ||
               (cp >= 0xD800 && cp <= 0xDFFF) || cp > 0x10FFFF))
      ok = false;
    if (!ok) {
      out.push_back(0xFFFD);
      ++i;
    } else {
      out.push_back(cp);
      i += len;
    }
  }
  return out;
}

void encode(char32_t cp, std::string& out) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

// Characters that hide or reorder what a reader sees: controls, bidi
// embeddings, overrides and isolates, zero-width characters; with ICU, every
// format character (Cf) and default-ignorable code point Unicode names.
bool invisible(char32_t cp) {
  if (cp == '\t' || cp == '\n') return false;
#ifdef KAUDIT_REPORT_ICU
  const auto c = static_cast<UChar32>(cp);
  if (u_charType(c) == U_FORMAT_CHAR || u_charType(c) == U_CONTROL_CHAR ||
      u_hasBinaryProperty(c, UCHAR_DEFAULT_IGNORABLE_CODE_POINT))
    return true;
#endif
  return cp < 0x20 || cp == 0x7F || (cp >= 0x80 && cp < 0xA0) || cp == 0x061C || cp == 0x200B || cp == 0x200C ||
         cp == 0x200D || cp == 0x200E || cp == 0x200F || (cp >= 0x202A && cp <= 0x202E) ||
         (cp >= 0x2066 && cp <= 0x2069) || cp == 0xFEFF;
}

std::string codepoint_name(char32_t cp) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "U+%04X", static_cast<unsigned>(cp));
  return buf;
}

// HTML and XML text: & < > " ' as entities, tab and newline kept (as
// character references with `attribute_refs`, so that an XML attribute keeps
// them), invisible characters and the non-characters U+FFFE and U+FFFF
// (which XML 1.0 cannot hold) as `shown` makes them.
template <typename Shown>
std::string escaped_markup(std::string_view s, bool attribute_refs, Shown shown) {
  std::string out;
  out.reserve(s.size() + 16);
  for (char32_t cp : decode(s)) {
    switch (cp) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      case '\t': out += attribute_refs ? "&#9;" : "\t"; break;
      case '\n': out += attribute_refs ? "&#10;" : "\n"; break;
      default:
        if (invisible(cp) || cp == 0xFFFE || cp == 0xFFFF)
          out += shown(cp);
        else
          encode(cp, out);
    }
  }
  return out;
}

}  // namespace

std::string sanitize_utf8(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char32_t cp : decode(s)) encode(cp, out);
  return out;
}

std::string html(std::string_view s) {
  return escaped_markup(s, false, [](char32_t cp) { return "<span class=\"ctl\">" + codepoint_name(cp) + "</span>"; });
}

std::string xml(std::string_view s, bool attribute) {
  return escaped_markup(s, attribute, [](char32_t cp) { return "⟨" + codepoint_name(cp) + "⟩"; });
}

std::string md(std::string_view s) {
  std::string out;
  out.reserve(s.size() + 16);
  for (char32_t cp : decode(s)) {
    switch (cp) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '\n': out += ' '; break;
      case '|': out += "\\|"; break;
      case '\\': case '`': case '*': case '_': case '[': case ']': case '(': case ')': case '#': case '!':
      case '~': case '{': case '}':
        out += '\\';
        out += static_cast<char>(cp);
        break;
      default:
        if (invisible(cp) || cp == '\t')
          out += cp == '\t' ? std::string(" ") : "⟨" + codepoint_name(cp) + "⟩";
        else
          encode(cp, out);
    }
  }
  return out;
}

std::string md_code(std::string_view s) {
  std::string out;
  for (char32_t cp : decode(s)) {
    if (invisible(cp))
      out += "⟨" + codepoint_name(cp) + "⟩";
    else
      encode(cp, out);
  }
  return out;
}

std::string md_fence(std::string_view body) {
  std::size_t longest = 0, run = 0;
  for (char c : body) {
    run = c == '`' ? run + 1 : 0;
    longest = std::max(longest, run);
  }
  return std::string(std::max<std::size_t>(3, longest + 1), '`');
}

std::string url_segment(std::string_view s) {
  static const char* hex = "0123456789ABCDEF";
  std::string out;
  for (char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_' ||
        c == '.' || c == '~') {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
  return out;
}

std::string slug(std::string_view s) {
  std::string out;
  for (char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'))
      out += static_cast<char>(c);
    else if (c >= 'A' && c <= 'Z')
      out += static_cast<char>(c - 'A' + 'a');
    else if (!out.empty() && out.back() != '-')
      out += '-';
    if (out.size() >= 60) break;
  }
  while (!out.empty() && out.back() == '-') out.pop_back();
  return out.empty() ? "x" : out;
}

std::string fmt_seconds(double seconds) {
  if (!std::isfinite(seconds)) return "–";
  if (seconds < 0.05) return "< 0.1 s";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.1f s", seconds);
  return buf;
}

std::string fmt_num(double v, int significant) {
  if (!std::isfinite(v)) return "–";
  char buf[64];
  const double a = std::fabs(v);
  if (a >= 1000 || a == 0) {
    std::snprintf(buf, sizeof buf, "%.0f", v);
  } else {
    const int digits = std::max(0, significant - 1 - static_cast<int>(std::floor(std::log10(a))));
    std::snprintf(buf, sizeof buf, "%.*f", std::min(digits, 6), v);
  }
  return buf;
}

std::string fmt_ms(std::optional<double> ms) {
  if (!ms || !std::isfinite(*ms)) return "–";
  if (*ms < 1.0) return fmt_num(*ms * 1000.0) + " µs";
  return fmt_num(*ms) + " ms";
}

std::string fmt_pct(std::optional<double> pct) {
  if (!pct || !std::isfinite(*pct)) return "–";
  return fmt_num(*pct, 3) + "%";
}

std::string fmt_ratio(std::optional<double> r) {
  if (!r || !std::isfinite(*r)) return "–";
  return fmt_num(*r, 3) + "×";
}

std::string basename_of(std::string_view path) {
  const auto pos = path.find_last_of('/');
  return std::string(pos == std::string_view::npos ? path : path.substr(pos + 1));
}

}  // namespace kaudit::report
