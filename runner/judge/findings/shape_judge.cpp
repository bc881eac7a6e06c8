#include "runner/judge/findings/shape_judge.h"

#include <cstdio>

namespace kaudit::run {

rules::Finding& ShapeJudge::add(const std::string& id, const std::string& where, const std::string& message) {
  out_.push_back(make_probe_finding(id, file_, where, message));
  return out_.back();
}

bool ShapeJudge::mode_failed(const char* mode) const {
  const auto it = e_.modes.find(mode);
  return it != e_.modes.end() && !it->second.samples_ok;
}

int count_of(const nlohmann::json& counts, const char* key) {
  return counts.is_object() && counts.contains(key) && counts[key].is_number_integer() ? counts[key].get<int>() : 0;
}

std::string fmt3(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", v);
  return buf;
}

}  // namespace kaudit::run
