// The runner's own environment variables, read with a fallback.
#pragma once

#include <cstdlib>
#include <string>

namespace kaudit::run {

// The variable's value, or `fallback` when unset or empty.
inline std::string env_or(const char* name, const std::string& fallback) {
  const char* v = std::getenv(name);
  return v && *v ? v : fallback;
}

}  // namespace kaudit::run
