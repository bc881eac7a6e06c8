// The escaping helpers that stand between a hostile submission and the reports.
#include "report/text.h"

#include <gtest/gtest.h>

using namespace kaudit::report;

TEST(ReportText, HtmlEscapesMarkupAndQuotes) {
  EXPECT_EQ(html("<a href=\"x\" onclick='y'>&</a>"),
            "&lt;a href=&quot;x&quot; onclick=&#39;y&#39;&gt;&amp;&lt;/a&gt;");
}

TEST(ReportText, HtmlShowsControlsAndBidiOverrides) {
  const std::string s = html("a\u202Eb\x01" "c\td");
  EXPECT_NE(s.find("<span class=\"ctl\">U+202E</span>"), std::string::npos);
  EXPECT_NE(s.find("<span class=\"ctl\">U+0001</span>"), std::string::npos);
  EXPECT_NE(s.find("c\td"), std::string::npos) << "tabs stay";
}

// Every format character (Unicode's Cf) and default-ignorable code point is
// a mark, not only the ones listed by hand: a soft hyphen, a word joiner, a
// variation selector, a tag character, the Mongolian vowel separator.
TEST(ReportText, EveryFormatAndIgnorableCodePointIsShown) {
#ifndef KAUDIT_REPORT_ICU
  GTEST_SKIP() << "built without ICU: only the hand-made list of invisible characters is shown";
#else
  for (const char* cp : {"00AD", "2060", "FE0F", "E0041", "180E", "115F", "1D173"}) {
    char32_t c = static_cast<char32_t>(std::stoul(cp, nullptr, 16));
    std::string one;
    if (c < 0x800) one = {static_cast<char>(0xC0 | (c >> 6)), static_cast<char>(0x80 | (c & 0x3F))};
    else if (c < 0x10000)
      one = {static_cast<char>(0xE0 | (c >> 12)), static_cast<char>(0x80 | ((c >> 6) & 0x3F)),
             static_cast<char>(0x80 | (c & 0x3F))};
    else
      one = {static_cast<char>(0xF0 | (c >> 18)), static_cast<char>(0x80 | ((c >> 12) & 0x3F)),
             static_cast<char>(0x80 | ((c >> 6) & 0x3F)), static_cast<char>(0x80 | (c & 0x3F))};
    EXPECT_NE(html("x" + one + "y").find(std::string("<span class=\"ctl\">U+") + cp + "</span>"), std::string::npos) << cp;
    EXPECT_NE(md("x" + one + "y").find(std::string("U+") + cp), std::string::npos) << cp;
  }
  EXPECT_EQ(html("h\u00E9 \u4E2D"), "h\u00E9 \u4E2D") << "letters stay as they are";
#endif
}

TEST(ReportText, InvalidUtf8BecomesReplacementCharacter) {
  EXPECT_EQ(sanitize_utf8("ok\xff\xfe!"), "ok\uFFFD\uFFFD!");
  EXPECT_EQ(sanitize_utf8("\xC0\x80"), "\uFFFD\uFFFD") << "overlong NUL";
  EXPECT_EQ(sanitize_utf8("\xED\xA0\x80"), "\uFFFD\uFFFD\uFFFD") << "surrogate";
  EXPECT_EQ(sanitize_utf8("h\xC3\xA9"), "h\xC3\xA9");
  EXPECT_EQ(html("\xe2\x82"), "\uFFFD\uFFFD") << "cut short";
}

TEST(ReportText, MarkdownCellCannotMakeLinksTablesOrHtml) {
  const std::string s = md("[x](javascript:alert(1)) | <b>*y*</b>\nz");
  EXPECT_EQ(s, "\\[x\\]\\(javascript:alert\\(1\\)\\) \\| &lt;b&gt;\\*y\\*&lt;/b&gt; z");
}

TEST(ReportText, FenceIsLongerThanAnyBacktickRun) {
  EXPECT_EQ(md_fence("plain"), "```");
  EXPECT_EQ(md_fence("a ```` b"), "`````");
}

TEST(ReportText, UrlSegmentAndSlugAreInert) {
  EXPECT_EQ(url_segment("a b\"<>/..?#"), "a%20b%22%3C%3E%2F..%3F%23");
  EXPECT_EQ(slug("topk__Cheat <script>"), "topk-cheat-script");
  EXPECT_EQ(slug("<>"), "x");
}

TEST(ReportText, NumbersForPeople) {
  EXPECT_EQ(fmt_ms(0.0021), "2.10 µs");
  EXPECT_EQ(fmt_ms(12.345), "12.3 ms");
  EXPECT_EQ(fmt_ms(std::nullopt), "–");
  EXPECT_EQ(fmt_pct(45.67), "45.7%");
  EXPECT_EQ(fmt_ratio(1.5), "1.50×");
}
