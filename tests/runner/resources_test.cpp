// runner/process/resources.h: where the harness and the tracer library are looked for,
// from the kaudit executable or the Python module, installed or in a build tree.
#include "runner/process/resources.h"

#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace kaudit::run {
namespace {

namespace fs = std::filesystem;

TEST(Resources, PrefixOfTheExecutableAndOfThePythonModule) {
  EXPECT_EQ(install_prefix("/opt/k/bin", "lib/python3/dist-packages"), fs::path("/opt/k"));
  EXPECT_EQ(install_prefix("/opt/k/lib/python3/dist-packages", "lib/python3/dist-packages"), fs::path("/opt/k"));
  EXPECT_EQ(install_prefix("/usr/lib/python3/dist-packages/", "lib/python3/dist-packages"), fs::path("/usr"));
  // Neither bin/ nor the module's folder: no installed layout (a build tree).
  EXPECT_EQ(install_prefix("/work/build", "lib/python3/dist-packages"), fs::path());
  EXPECT_EQ(install_prefix("/opt/k/lib/python3.11/dist-packages", "lib/python3/dist-packages"), fs::path());
  EXPECT_EQ(install_prefix("/opt/k/site", "/abs/site"), fs::path());
}

TEST(Resources, BesideTheImageThenInstalledThenTheBuildTree) {
  const auto harness = harness_candidates("/opt/k/bin/kaudit");
  ASSERT_EQ(harness.size(), 3u);
  EXPECT_EQ(harness[0], fs::path("/opt/k/bin/harness/kaudit_harness.py"));
  EXPECT_EQ(harness[1], fs::path("/opt/k/share/kaudit/harness/kaudit_harness.py"));
  EXPECT_EQ(harness[2], fs::path(KAUDIT_BUILD_DIR) / "harness" / "kaudit_harness.py");

  // The module, installed in PREFIX/KAUDIT_INSTALL_PYTHONDIR.
  const fs::path module_dir = fs::path("/opt/k") / KAUDIT_INSTALL_PYTHONDIR;
  const auto tracer = tracer_candidates(module_dir / "kaudit.cpython-311-x86_64-linux-gnu.so");
  ASSERT_EQ(tracer.size(), 3u);
  EXPECT_EQ(tracer[0], module_dir / "libkaudit_tracer.so");
  EXPECT_EQ(tracer[1], fs::path("/opt/k/lib/kaudit/libkaudit_tracer.so"));
  EXPECT_EQ(tracer[2], fs::path(KAUDIT_BUILD_DIR) / "libkaudit_tracer.so");

  // In the build tree: beside the executable is the build tree's own place.
  EXPECT_EQ(harness_candidates(fs::path(KAUDIT_BUILD_DIR) / "kaudit"),
            std::vector<fs::path>{fs::path(KAUDIT_BUILD_DIR) / "harness" / "kaudit_harness.py"});
}

TEST(Resources, ThisTestFindsItsOwnExecutable) {
  EXPECT_EQ(image_file(), fs::read_symlink("/proc/self/exe"));
}

TEST(Resources, AFileNamedOnPurposeWinsAndAMissingOneIsAnError) {
  const fs::path dir = fs::temp_directory_path() / ("kaudit-resources-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::ofstream(dir / "h.py") << "# a harness\n";
  EXPECT_EQ(find_harness(dir / "h.py"), dir / "h.py");
  EXPECT_EQ(find_tracer_library(dir / "h.py"), dir / "h.py");
  try {
    find_harness(dir / "missing.py");
    ADD_FAILURE() << "a missing --harness was accepted";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()), "--harness: " + (dir / "missing.py").string() + " not found");
  }
  ::setenv("KAUDIT_TRACER_LIB", (dir / "missing.so").c_str(), 1);
  EXPECT_THROW(find_tracer_library({}), std::runtime_error);
  ::setenv("KAUDIT_TRACER_LIB", (dir / "h.py").c_str(), 1);
  EXPECT_EQ(find_tracer_library({}), dir / "h.py");
  ::unsetenv("KAUDIT_TRACER_LIB");
  fs::remove_all(dir);
}

// The sandbox shows a child the harness's entry and its modules beside it,
// and nothing else of their folder.
TEST(Resources, TheHarnessIsItsEntryAndTheModulesBesideIt) {
  const fs::path dir = fs::temp_directory_path() / ("kaudit-harness-files-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  for (const char* name : {"h.py", "kaudit_harness_b.py", "kaudit_harness_a.py", "kaudit_harness_c.txt", "other.py",
                           "kaudit_harness.py", "kaudit_harnessx.py"})
    std::ofstream(dir / name) << "# a file\n";
  EXPECT_EQ(harness_files(dir / "h.py"),
            (std::vector<fs::path>{dir / "h.py", dir / "kaudit_harness_a.py", dir / "kaudit_harness_b.py"}));
  fs::remove_all(dir);
}

}  // namespace
}  // namespace kaudit::run

