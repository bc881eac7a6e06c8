#include "analyzer/check.h"

namespace kaudit::analyzer {

bool FindingSink::report(const CheckInfo& check, const SourceFile& file, int line, int column,
                         std::string message, std::string symbol,
                         std::optional<rules::Confidence> confidence,
                         std::optional<rules::Category> category) {
  rules::Finding f;
  f.id = std::string(check.id);
  f.location = file.location(line, column, std::move(symbol));
  if (f.location.line > 0 && !reported_.emplace(f.id, f.location.file, f.location.line).second) return false;
  f.source = rules::Source::static_analysis;
  f.category = category.value_or(check.category);
  f.confidence = confidence.value_or(check.confidence);
  f.message = std::move(message);
  out_.push_back(std::move(f));
  return true;
}

}  // namespace kaudit::analyzer
