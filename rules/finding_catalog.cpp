#include "rules/finding_catalog.h"

namespace kaudit::rules {

std::string CatalogEntry::sources_text() const {
  std::string s;
  for (const auto& i : sources) s += (s.empty() ? "" : ", ") + std::string(to_string(i.source));
  return s;
}

std::string CatalogEntry::languages_text() const {
  unsigned mask = 0;
  for (const auto& i : sources) mask |= i.languages;
  std::string langs;
  if (mask & kPython) langs += "python";
  if (mask & kCxx) langs += langs.empty() ? "c++/cuda" : ", c++/cuda";
  return langs;
}

void FindingCatalog::add(const FindingInfo& info) {
  for (auto& e : entries_)
    if (e.id == info.id) {
      e.sources.push_back(info);
      return;
    }
  entries_.push_back({std::string(info.id), {info}});
}

const CatalogEntry* FindingCatalog::find(std::string_view id) const {
  for (const auto& e : entries_)
    if (e.id == id) return &e;
  return nullptr;
}

}  // namespace kaudit::rules
