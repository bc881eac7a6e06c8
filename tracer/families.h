// Library families and op families: which library a kernel came from and
// what kind of operation it is. The rules are data (rules/kernel_families.json,
// compiled in as the default); this class only applies them.
#pragma once

#include <nlohmann/json.hpp>

#include <memory>
#include <mutex>
#include <regex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace kaudit::tracer {

// "own": the submission's own code (its extension, its Triton kernels, the
// traced program itself); "library": a vendor or framework library.
enum class Role { own, library, unknown };
std::string_view to_string(Role r);

struct LibraryMatch {
  std::string name;    // "cuBLASLt", "libtorch_cuda", ...; for own objects the file's name; "unknown"
  Role role = Role::unknown;
  std::string source;  // "launcher" (matched its object), "kernel name", or "none"
};

class Families {
 public:
  // Throws std::runtime_error on a malformed document or pattern.
  static Families from_json(const nlohmann::json& doc);
  static Families load(const std::string& path);
  // rules/kernel_families.json as it was at build time.
  static const Families& builtin();

  // `launcher_object`: path of the launching object, empty when unknown.
  LibraryMatch library_of(std::string_view launcher_object, std::string_view kernel_name) const;
  // "gemm", "topk/sort", "softmax", "attention", "elementwise", "copy", "fill", "reduction", ... or "other".
  std::string family_of(std::string_view kernel_name) const;
  std::vector<std::string> family_names() const;

 private:
  struct Library {
    std::string name;
    Role role = Role::library;
    std::vector<std::regex> objects, kernels;
  };
  struct Family {
    std::string name;
    std::vector<std::regex> patterns;
  };
  std::vector<Library> libraries_;
  std::vector<Family> families_;
  // std::regex is slow and names repeat thousands of times in a trace. The
  // builtin families are shared by an audit's concurrent jobs: the caches
  // are guarded (a pointer, so that Families stays copyable).
  std::shared_ptr<std::mutex> cache_mutex_ = std::make_shared<std::mutex>();
  mutable std::unordered_map<std::string, std::string> family_cache_;
  mutable std::unordered_map<std::string, LibraryMatch> library_cache_;
};

}  // namespace kaudit::tracer
