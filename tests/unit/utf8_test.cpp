// Cutting text to a size never splits a character: a message that quotes
// hostile source, cut short, must still be valid UTF-8 (a JSON writer throws
// on anything else).
#include "common/utf8.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace kaudit::common {
namespace {

bool serializes(const std::string& s) {
  try {
    (void)nlohmann::json(s).dump();
    return true;
  } catch (const nlohmann::json::exception&) {
    return false;
  }
}

TEST(Utf8Cut, NeverEndsInsideACharacter) {
  // 2-, 3- and 4-byte characters, shifted so that every cut offset lands in
  // every position inside one.
  for (const std::string ch : {"\xc3\xa9", "\xe4\xb8\xad", "\xf0\x9f\x98\x80"})
    for (size_t shift = 0; shift < 4; ++shift) {
      std::string s(shift, 'a');
      for (int i = 0; i < 20; ++i) s += ch;
      for (size_t max = 0; max <= s.size() + 1; ++max) {
        const std::string cut = cut_utf8(s, max);
        EXPECT_LE(cut.size(), max);
        EXPECT_EQ(s.compare(0, cut.size(), cut), 0) << "a prefix";
        EXPECT_GE(cut.size() + 3, std::min(max, s.size())) << "backs off by less than one character";
        EXPECT_TRUE(serializes(cut)) << "shift " << shift << " max " << max;
      }
    }
}

TEST(Utf8Cut, ShortTextIsKeptAndBrokenTextIsNotMadeWorse) {
  EXPECT_EQ(cut_utf8("abc", 10), "abc");
  EXPECT_EQ(cut_utf8("abc", 3), "abc");
  EXPECT_EQ(cut_utf8("", 0), "");
  // A run of stray continuation bytes is not a character to back off over.
  EXPECT_EQ(cut_utf8(std::string(10, '\x80'), 6).size(), 6u);
}

TEST(Utf8Cut, ShortenedWithAMarkStaysValid) {
  const std::string s = "x" + std::string(30, 'a') + "\xe4\xb8\xad\xe4\xb8\xad\xe4\xb8\xad";
  for (size_t max = 4; max < s.size(); ++max) {
    const std::string shown = shorten_utf8(s, max, "...");
    EXPECT_LE(shown.size(), max);
    EXPECT_EQ(shown.substr(shown.size() - 3), "...");
    EXPECT_TRUE(serializes(shown)) << max;
  }
  EXPECT_EQ(shorten_utf8(s, s.size(), "..."), s);
}

}  // namespace
}  // namespace kaudit::common
