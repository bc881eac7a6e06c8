// Text helpers for the batch reports: everything that comes from a
// submission (file names, messages, source lines, kernel names) is hostile
// and passes through one of these before it reaches report.md or report.html.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace kaudit::report {

// Valid UTF-8: invalid bytes become U+FFFD, so that the page stays well formed.
std::string sanitize_utf8(std::string_view s);

// HTML text and attribute values: & < > " ' escaped; C0 controls (but tab
// and newline) and bidirectional overrides (Trojan Source) shown as visible
// marks (<span class="ctl">U+202E</span>) so that a reviewer sees them.
std::string html(std::string_view s);

// One Markdown table cell or list item: HTML-significant characters as
// entities, Markdown punctuation backslash-escaped, newlines as spaces,
// controls and bidi overrides as ⟨U+XXXX⟩.
std::string md(std::string_view s);

// A source line for a fenced code block: controls and bidi overrides made
// visible, nothing else changed (a code block interprets nothing).
std::string md_code(std::string_view s);

// XML 1.0 character data, or an attribute value with `attribute` (JUnit
// XML): escaped as html() does, tab and newline kept in text and written as
// character references in attributes, so that they survive; characters XML
// 1.0 cannot hold (other C0 controls, U+FFFE, U+FFFF) and the other
// invisible ones (as md) shown as ⟨U+XXXX⟩, so that the file stays valid.
std::string xml(std::string_view s, bool attribute = false);

// A fence of backticks longer than any run of backticks in `body`.
std::string md_fence(std::string_view body);

// Percent-encodes everything but unreserved characters: a path segment
// that is safe inside an href.
std::string url_segment(std::string_view s);

// An HTML id made of [a-z0-9-] from `s` (plus a suffix the caller makes unique).
std::string slug(std::string_view s);

// Numbers for people: "1.23 ms", "45.6%", "1.8x"; "–" when absent.
std::string fmt_ms(std::optional<double> ms);
std::string fmt_pct(std::optional<double> pct);
std::string fmt_ratio(std::optional<double> r);
std::string fmt_num(double v, int significant = 3);
// A submission's time: "12.3 s", or "< 0.1 s".
std::string fmt_seconds(double seconds);

// The last path component (for launcher objects and file names).
std::string basename_of(std::string_view path);

}  // namespace kaudit::report
