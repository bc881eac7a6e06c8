#include "tracer/families.h"

#include <fstream>
#include <stdexcept>

namespace kaudit::tracer {
namespace {

const char kBuiltinFamilies[] =
#include "kernel_families.inc"
    ;

std::vector<std::regex> compile(const nlohmann::json& patterns, const std::string& where) {
  std::vector<std::regex> out;
  if (patterns.is_null()) return out;
  for (const auto& p : patterns) {
    try {
      out.emplace_back(p.get<std::string>(), std::regex::ECMAScript | std::regex::icase | std::regex::optimize);
    } catch (const std::exception& e) {
      throw std::runtime_error("kernel families: bad pattern in " + where + ": " + p.dump() + " (" + e.what() + ")");
    }
  }
  return out;
}

bool any_match(const std::vector<std::regex>& patterns, std::string_view text) {
  for (const std::regex& re : patterns)
    if (std::regex_search(text.begin(), text.end(), re)) return true;
  return false;
}

std::string_view basename_of(std::string_view path) {
  const size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

}  // namespace

std::string_view to_string(Role r) {
  switch (r) {
    case Role::own: return "own";
    case Role::library: return "library";
    case Role::unknown: return "unknown";
  }
  return "unknown";
}

Families Families::from_json(const nlohmann::json& doc) {
  if (!doc.is_object() || doc.value("schema", "") != "kaudit-kernel-families/1")
    throw std::runtime_error("kernel families: expected \"schema\": \"kaudit-kernel-families/1\"");
  Families f;
  for (const auto& lib : doc.value("libraries", nlohmann::json::array())) {
    Library l;
    l.name = lib.at("name").get<std::string>();
    const std::string role = lib.value("role", "library");
    if (role != "own" && role != "library") throw std::runtime_error("kernel families: bad role '" + role + "'");
    l.role = role == "own" ? Role::own : Role::library;
    l.objects = compile(lib.value("objects", nlohmann::json::array()), l.name);
    l.kernels = compile(lib.value("kernels", nlohmann::json::array()), l.name);
    f.libraries_.push_back(std::move(l));
  }
  for (const auto& fam : doc.value("families", nlohmann::json::array())) {
    Family family;
    family.name = fam.at("name").get<std::string>();
    family.patterns = compile(fam.value("patterns", nlohmann::json::array()), family.name);
    f.families_.push_back(std::move(family));
  }
  return f;
}

Families Families::load(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read " + path);
  try {
    return from_json(nlohmann::json::parse(in));
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error(path + ": " + e.what());
  }
}

const Families& Families::builtin() {
  static const Families families = from_json(nlohmann::json::parse(kBuiltinFamilies));
  return families;
}

LibraryMatch Families::library_of(std::string_view launcher_object, std::string_view kernel_name) const {
  std::string key(launcher_object);
  key += '\n';
  key += kernel_name;
  {
    std::lock_guard lock(*cache_mutex_);
    if (auto it = library_cache_.find(key); it != library_cache_.end()) return it->second;
  }
  LibraryMatch match;
  if (!launcher_object.empty()) {
    for (const Library& l : libraries_)
      if (any_match(l.objects, launcher_object)) {
        match = {l.name, l.role, "launcher"};
        break;
      }
    // Any other object is the submission's own: its extension, or the program itself.
    if (match.source.empty()) match = {std::string(basename_of(launcher_object)), Role::own, "launcher"};
  } else {
    for (const Library& l : libraries_)
      if (l.role == Role::library && any_match(l.kernels, kernel_name)) {
        match = {l.name, l.role, "kernel name"};
        break;
      }
    if (match.source.empty()) match = {"unknown", Role::unknown, "none"};
  }
  std::lock_guard lock(*cache_mutex_);
  library_cache_.emplace(std::move(key), match);
  return match;
}

std::string Families::family_of(std::string_view kernel_name) const {
  std::string key(kernel_name);
  {
    std::lock_guard lock(*cache_mutex_);
    if (auto it = family_cache_.find(key); it != family_cache_.end()) return it->second;
  }
  std::string name = "other";
  for (const Family& f : families_)
    if (any_match(f.patterns, kernel_name)) {
      name = f.name;
      break;
    }
  std::lock_guard lock(*cache_mutex_);
  family_cache_.emplace(std::move(key), name);
  return name;
}

std::vector<std::string> Families::family_names() const {
  std::vector<std::string> names;
  for (const Family& f : families_) names.push_back(f.name);
  return names;
}

}  // namespace kaudit::tracer
