// Where kaudit finds the files it reads at run time besides its inputs: the
// harness (kaudit_harness.py) and the tracer library (libkaudit_tracer.so).
// The rule packs, hardware files and kernel families are compiled in.
//
// Each is looked for, in order (docs/usage.md, "Install"):
//   1. where the caller says (--harness, --tracer-lib; $KAUDIT_TRACER_LIB for the tracer);
//   2. beside the file holding this code, the kaudit executable or the Python
//      module (harness/kaudit_harness.py, libkaudit_tracer.so): the build
//      tree's layout, and that of a copied binary;
//   3. the installed layout under PREFIX, the executable's PREFIX/bin/.. or the
//      module's PREFIX/<python dir>/..: PREFIX/share/kaudit/harness/ and
//      PREFIX/lib/kaudit/;
//   4. the build tree this code was built in.
// This file depends on nothing else of kaudit: the tracer's own build
// (tests/gpu/tracer_build) compiles it into its kaudit too.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace kaudit::run {

// The file holding this code: /proc/self/exe in the kaudit executable, the
// module's .so in Python. Empty when unknown.
std::filesystem::path image_file();

// The installation prefix that `image_dir` (the folder of image_file()) lies
// in: its parent for `bin`, the prefix above the Python module folder
// (`python_dir`, relative) for the module. Empty when it is neither.
std::filesystem::path install_prefix(const std::filesystem::path& image_dir, const std::filesystem::path& python_dir);

// The places a resource is looked for in steps 2 to 4, in order, for code in
// the file `image`.
std::vector<std::filesystem::path> harness_candidates(const std::filesystem::path& image = image_file());
std::vector<std::filesystem::path> tracer_candidates(const std::filesystem::path& image = image_file());

// The harness: `requested` (which must exist), else the first candidate that
// exists. Throws std::runtime_error naming where it looked.
std::filesystem::path find_harness(const std::filesystem::path& requested);
// The harness's files: its entry and the modules beside it that it imports
// (kaudit_harness_*.py), which a sandboxed child must see.
std::vector<std::filesystem::path> harness_files(const std::filesystem::path& entry);
// The tracer library: `requested`, else $KAUDIT_TRACER_LIB, else the first
// candidate that exists. Throws std::runtime_error naming where it looked.
std::filesystem::path find_tracer_library(const std::filesystem::path& requested);

}  // namespace kaudit::run
