// NFKC normalisation of identifiers, as Python applies it when it reads
// them (PEP 3131): fullwidth `ｔｏｒｃｈ` is the name `torch`.
#include "analyzer/python/module.h"

#include <unicode/normalizer2.h>
#include <unicode/unistr.h>

#include <algorithm>

namespace kaudit::analyzer::python {

std::string nfkc(std::string_view s) {
  if (std::all_of(s.begin(), s.end(), [](char c) { return static_cast<unsigned char>(c) < 0x80; }))
    return std::string(s);  // ASCII is already NFKC; the common case skips ICU
  UErrorCode status = U_ZERO_ERROR;
  const icu::Normalizer2* n = icu::Normalizer2::getNFKCInstance(status);
  if (U_FAILURE(status) || n == nullptr) return std::string(s);
  icu::UnicodeString in = icu::UnicodeString::fromUTF8(icu::StringPiece(s.data(), static_cast<int32_t>(s.size())));
  icu::UnicodeString out = n->normalize(in, status);
  if (U_FAILURE(status)) return std::string(s);
  std::string r;
  out.toUTF8String(r);
  return r;
}

}  // namespace kaudit::analyzer::python
