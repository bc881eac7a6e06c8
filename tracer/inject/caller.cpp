#include "tracer/inject/caller.h"

#include <dlfcn.h>
#include <execinfo.h>
#include <link.h>
#include <unistd.h>

#include <array>
#include <climits>

namespace kaudit::tracer::inject {
namespace {

std::string_view basename_of(std::string_view path) {
  const size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

const std::string& main_program_path() {
  static const std::string path = [] {
    std::array<char, PATH_MAX> buf{};
    const ssize_t n = ::readlink("/proc/self/exe", buf.data(), buf.size() - 1);
    return n > 0 ? std::string(buf.data(), static_cast<size_t>(n)) : std::string("[main program]");
  }();
  return path;
}

const std::string& tracer_path() {
  static const std::string path = [] {
    Dl_info info{};
    if (dladdr(reinterpret_cast<const void*>(&find_caller), &info) != 0 && info.dli_fname != nullptr)
      return std::string(info.dli_fname);
    return std::string();
  }();
  return path;
}

}  // namespace

std::string object_of(const void* address) {
  Dl_info info{};
  link_map* map = nullptr;
  if (dladdr1(address, &info, reinterpret_cast<void**>(&map), RTLD_DL_LINKMAP) == 0) return {};
  // The main program's link map has an empty name; dli_fname is then argv[0].
  if (map != nullptr && (map->l_name == nullptr || map->l_name[0] == '\0')) return main_program_path();
  return info.dli_fname != nullptr ? std::string(info.dli_fname) : std::string();
}

bool is_cuda_plumbing(std::string_view object_path) {
  if (object_path.empty()) return false;
  if (!tracer_path().empty() && object_path == tracer_path()) return true;
  const std::string_view base = basename_of(object_path);
  for (std::string_view prefix : {"libcuda.so", "libcudart.so", "libcupti.so", "libnvidia-", "libkaudit_tracer"}) {
    if (base.substr(0, prefix.size()) == prefix) return true;
  }
  return false;
}

Caller find_caller() {
  std::array<void*, 64> frames{};
  const int n = backtrace(frames.data(), static_cast<int>(frames.size()));
  Caller caller;
  std::string last;
  for (int i = 0; i < n; ++i) {
    // A return address points after the call; step back into the call.
    const void* pc = static_cast<const char*>(frames[static_cast<size_t>(i)]) - 1;
    std::string object = object_of(pc);
    if (object.empty()) continue;  // JIT code or a frame dladdr cannot place
    if (caller.object.empty()) {
      if (is_cuda_plumbing(object)) continue;
      caller.object = object;
      Dl_info info{};
      if (dladdr(pc, &info) != 0 && info.dli_sname != nullptr) caller.symbol = info.dli_sname;
    }
    if (object != last) {
      caller.chain.push_back(object);
      last = std::move(object);
      if (caller.chain.size() == 8) break;
    }
  }
  return caller;
}

}  // namespace kaudit::tracer::inject
