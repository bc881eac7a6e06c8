#include "analyzer/gpu_toolchains.h"

#include <set>
#include <string_view>
#include <utility>

namespace kaudit::analyzer {
namespace {

// Module prefixes and the toolchain each stands for.
constexpr std::pair<std::string_view, std::string_view> kToolchains[] = {
    {"triton", "triton"},         {"torch.utils.cpp_extension", "torch-extension"},
    {"cupy", "cupy"},             {"cupyx", "cupy"},
    {"numba", "numba"},           {"ctypes", "ctypes"},
    {"cuda", "cuda-python"},      {"pycuda", "pycuda"},
    {"tilelang", "tilelang"},     {"helion", "helion"},
    {"cutlass", "cutlass"},       {"warp", "warp"},
    {"taichi", "taichi"},
};

void note(std::string_view name, std::set<std::string>& out) {
  for (const auto& [prefix, toolchain] : kToolchains)
    if (name == prefix || (name.size() > prefix.size() && name.substr(0, prefix.size()) == prefix &&
                           name[prefix.size()] == '.'))
      out.insert(std::string(toolchain));
}

// The modules an import statement names: `import a.b as c`, `from a.b import c`.
void note_import(const python::Node& n, std::set<std::string>& out) {
  if (n.type() == "import_from_statement") {
    const python::Node module = n.field("module_name");
    if (!module.valid()) return;
    note(module.text(), out);
    // `from torch.utils import cpp_extension`: the imported names count as submodules.
    for (const auto& c : n.named_children())
      if (c.type() == "dotted_name" || c.type() == "aliased_import") {
        const python::Node name = c.type() == "aliased_import" ? c.field("name") : c;
        if (name.valid() && !(name == module)) note(std::string(module.text()) + "." + std::string(name.text()), out);
      }
    return;
  }
  for (const auto& c : n.named_children()) {
    const python::Node name = c.type() == "aliased_import" ? c.field("name") : c;
    if (name.valid()) note(name.text(), out);
  }
}

}  // namespace

std::vector<std::string> gpu_toolchains(const python::Module& m) {
  std::set<std::string> out;
  m.walk([&](python::Node n) {
    if (n.type() == "import_statement" || n.type() == "import_from_statement") {
      note_import(n, out);
      return false;
    }
    return true;
  });
  for (const auto& c : m.calls()) note(c.qualified, out);
  for (const auto& f : m.functions())
    for (const auto& d : f.decorators) note(d, out);
  if (!m.embedded_sources().empty()) out.insert("embedded-c++");
  return {out.begin(), out.end()};
}

}  // namespace kaudit::analyzer
