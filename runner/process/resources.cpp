#include "runner/process/resources.h"

#include <dlfcn.h>
#include <sys/auxv.h>

#include <algorithm>
#include <cstdlib>
#include <stdexcept>

// The installed layout, relative to the prefix (set by CMakeLists.txt, which
// installs there), and the build tree this file was compiled in.
#ifndef KAUDIT_INSTALL_DATADIR
#define KAUDIT_INSTALL_DATADIR "share/kaudit"
#endif
#ifndef KAUDIT_INSTALL_TRACERDIR
#define KAUDIT_INSTALL_TRACERDIR "lib/kaudit"
#endif
#ifndef KAUDIT_INSTALL_PYTHONDIR
#define KAUDIT_INSTALL_PYTHONDIR "lib/python3/dist-packages"
#endif
#ifndef KAUDIT_BUILD_DIR
#define KAUDIT_BUILD_DIR ""
#endif

namespace kaudit::run {
namespace fs = std::filesystem;

namespace {

constexpr const char* kHarness = "kaudit_harness.py";
// The modules the harness's entry imports (runner/harness/).
constexpr const char* kHarnessModulePrefix = "kaudit_harness_";
constexpr const char* kTracer = "libkaudit_tracer.so";

// Where one resource may be for code in `image`: beside it (`beside`,
// relative to its folder), in the installed layout (`installed`, relative to
// the prefix), then in the build tree, where the kaudit executable has it
// beside itself too.
std::vector<fs::path> candidates(const fs::path& image, const fs::path& beside, const fs::path& installed,
                                 const char* name) {
  std::vector<fs::path> out;
  if (!image.empty()) {
    const fs::path dir = image.parent_path();
    out.push_back(dir / beside / name);
    const fs::path prefix = install_prefix(dir, KAUDIT_INSTALL_PYTHONDIR);
    if (!prefix.empty()) out.push_back(prefix / installed / name);
  }
  const fs::path built = fs::path(KAUDIT_BUILD_DIR) / beside / name;
  if (*KAUDIT_BUILD_DIR != '\0' && std::find(out.begin(), out.end(), built) == out.end()) out.push_back(built);
  return out;
}

std::string listed(const std::vector<fs::path>& paths) {
  std::string s;
  for (const auto& p : paths) s += (s.empty() ? "" : ", ") + p.string();
  return s;
}

std::optional<fs::path> first_existing(const std::vector<fs::path>& paths) {
  std::error_code ec;
  for (const auto& p : paths)
    if (fs::is_regular_file(p, ec)) return fs::weakly_canonical(p, ec);
  return std::nullopt;
}

}  // namespace

fs::path image_file() {
  // Computed once: a relative name the loader was given stays relative to
  // the folder the process started in.
  static const fs::path file = [] {
    Dl_info self{}, main_program{};
    std::error_code ec;
    const bool in_main = dladdr(reinterpret_cast<void*>(&image_file), &self) != 0 &&
                         dladdr(reinterpret_cast<void*>(getauxval(AT_PHDR)), &main_program) != 0 &&
                         self.dli_fbase == main_program.dli_fbase;
    if (in_main || self.dli_fname == nullptr || *self.dli_fname == '\0') {
      const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
      return ec ? fs::path() : exe;
    }
    const fs::path so = fs::absolute(self.dli_fname, ec);
    return ec ? fs::path() : so.lexically_normal();
  }();
  return file;
}

fs::path install_prefix(const fs::path& image_dir, const fs::path& python_dir) {
  fs::path dir = image_dir.lexically_normal();
  if (dir.filename().empty()) dir = dir.parent_path();  // "PREFIX/bin/" as "PREFIX/bin"
  if (dir.filename() == "bin") return dir.parent_path();
  if (python_dir.empty() || python_dir.is_absolute()) return {};
  // Strip python_dir's components from the end of dir, last first.
  std::vector<fs::path> parts(python_dir.begin(), python_dir.end());
  fs::path prefix = dir;
  for (auto it = parts.rbegin(); it != parts.rend(); ++it) {
    if (it->empty()) continue;
    if (prefix.filename() != *it) return {};
    prefix = prefix.parent_path();
  }
  return prefix;
}

std::vector<fs::path> harness_candidates(const fs::path& image) {
  return candidates(image, "harness", fs::path(KAUDIT_INSTALL_DATADIR) / "harness", kHarness);
}

std::vector<fs::path> tracer_candidates(const fs::path& image) {
  return candidates(image, "", KAUDIT_INSTALL_TRACERDIR, kTracer);
}

fs::path find_harness(const fs::path& requested) {
  if (!requested.empty()) {
    if (!fs::is_regular_file(requested)) throw std::runtime_error("--harness: " + requested.string() + " not found");
    return fs::absolute(requested);
  }
  const auto all = harness_candidates();
  if (const auto found = first_existing(all)) return *found;
  throw std::runtime_error(std::string("the harness (") + kHarness + ") was not found (looked for " + listed(all) + ")");
}

std::vector<fs::path> harness_files(const fs::path& entry) {
  std::vector<fs::path> files = {entry};
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(entry.parent_path(), ec)) {
    const std::string name = e.path().filename().string();
    if (name.rfind(kHarnessModulePrefix, 0) == 0 && e.path().extension() == ".py" && e.is_regular_file(ec)) files.push_back(e.path());
  }
  std::sort(files.begin() + 1, files.end());
  return files;
}

fs::path find_tracer_library(const fs::path& requested) {
  if (!requested.empty()) {
    if (!fs::is_regular_file(requested)) throw std::runtime_error("--tracer-lib: " + requested.string() + " not found");
    return fs::absolute(requested);
  }
  if (const char* env = std::getenv("KAUDIT_TRACER_LIB"); env != nullptr && *env != '\0') {
    if (!fs::is_regular_file(env)) throw std::runtime_error(std::string("KAUDIT_TRACER_LIB: ") + env + " not found");
    return fs::absolute(env);
  }
  const auto all = tracer_candidates();
  if (const auto found = first_existing(all)) return *found;
  throw std::runtime_error(std::string(kTracer) + " was not found (looked for " + listed(all) +
                           "): build with the tracer, give --tracer-lib or set KAUDIT_TRACER_LIB");
}

}  // namespace kaudit::run
