// l2-persistence: the submission pins data in the L2 cache (a persisting-L2
// carve-out, an access policy window), which survives the benchmark's L2
// flush between timed calls.
#include "analyzer/checks/pattern_helpers.h"
#include "analyzer/checks/factories.h"

#include <algorithm>
#include <map>
#include <regex>
#include <set>

namespace kaudit::analyzer {
namespace {

using python::Node;
using rules::Category;
using rules::Confidence;

const CheckInfo kInfo{
    "l2-persistence",
    Category::benchmark_aware,
    Confidence::high,
    kPython | kCxx,
    "the submission reserves persisting L2 cache or sets an access policy window",
    "The submission sets aside part of the L2 cache for persisting accesses (cudaDeviceSetLimit or "
    "cuCtxSetLimit with cudaLimitPersistingL2CacheSize / CU_LIMIT_PERSISTING_L2_CACHE_SIZE) or marks a "
    "memory range as persisting with an access policy window (accessPolicyWindow, hitProp = "
    "cudaAccessPropertyPersisting, cudaStreamSetAttribute or a launch attribute with "
    "cudaStreamAttributeAccessPolicyWindow), from C++ or through cuda-python or ctypes. Benchmarks flush L2 "
    "between timed calls so that every call reads its inputs from HBM as it would in real use; persisting "
    "lines are not evicted by an ordinary flush, so the inputs (or weights) stay cached across timed calls "
    "and the kernel looks faster than it is. The work is still done on every call, hence benchmark-aware "
    "rather than cheat."
    "\n\n**Confidence.** High: the submission reserves persisting L2 "
    "(cudaLimitPersistingL2CacheSize) or sets an access policy window, through the CUDA runtime, "
    "cuda-python or ctypes, anywhere: benchmark-aware, it keeps data hot across the benchmark's "
    "cache flushes. Medium and low: never. Clean counter-example: eviction hints on loads "
    "(`tl.load(..., eviction_policy=\"evict_last\")`) are not reported.",
    "Look for the window's base pointer and size: if they cover the inputs or weights, the speed-up comes "
    "from the cache. Run with kaudit's fresh mode (new allocations each call): the window then misses and "
    "the fresh/bench ratio rises; Nsight Compute shows the L2 hit rate of the timed calls."};

struct Key {
  const char* what;    // for messages
  const char* family;  // findings are reported once per family and source
};

// Names of the persisting-L2 API, C++ and Python spellings.
const std::map<std::string, Key, std::less<>>& key_names() {
  static const std::map<std::string, Key, std::less<>> names = {
      {"cudaLimitPersistingL2CacheSize", {"a persisting-L2 carve-out (cudaLimitPersistingL2CacheSize)", "limit"}},
      {"CU_LIMIT_PERSISTING_L2_CACHE_SIZE", {"a persisting-L2 carve-out (CU_LIMIT_PERSISTING_L2_CACHE_SIZE)", "limit"}},
      {"accessPolicyWindow", {"an L2 access policy window (accessPolicyWindow)", "window"}},
      {"cudaAccessPolicyWindow", {"an L2 access policy window (cudaAccessPolicyWindow)", "window"}},
      {"CUaccessPolicyWindow", {"an L2 access policy window (CUaccessPolicyWindow)", "window"}},
      {"CUaccessPolicyWindow_v1", {"an L2 access policy window (CUaccessPolicyWindow)", "window"}},
      {"cudaStreamAttributeAccessPolicyWindow", {"an L2 access policy window on a stream", "window"}},
      {"cudaLaunchAttributeAccessPolicyWindow", {"an L2 access policy window on a launch", "window"}},
      {"cudaKernelNodeAttributeAccessPolicyWindow", {"an L2 access policy window on a graph node", "window"}},
      {"CU_STREAM_ATTRIBUTE_ACCESS_POLICY_WINDOW", {"an L2 access policy window on a stream", "window"}},
      {"CU_LAUNCH_ATTRIBUTE_ACCESS_POLICY_WINDOW", {"an L2 access policy window on a launch", "window"}},
      {"CU_KERNEL_NODE_ATTRIBUTE_ACCESS_POLICY_WINDOW", {"an L2 access policy window on a graph node", "window"}},
      {"cudaAccessPropertyPersisting", {"persisting L2 accesses (cudaAccessPropertyPersisting)", "persisting"}},
      {"CU_ACCESS_PROPERTY_PERSISTING", {"persisting L2 accesses (CU_ACCESS_PROPERTY_PERSISTING)", "persisting"}},
  };
  return names;
}

const Key* find_key(std::string_view name) {
  // cuda-python spells members as cudaLimit.cudaLimitPersistingL2CacheSize or as attributes
  // of a struct (attr.accessPolicyWindow); Python code may also use snake_case.
  auto it = key_names().find(name);
  if (it != key_names().end()) return &it->second;
  static const Key snake_window{"an L2 access policy window (access_policy_window)", "window"};
  if (name == "access_policy_window" || name == "accessPolicyWindow_") return &snake_window;
  return nullptr;
}

// cudaLimitPersistingL2CacheSize and CU_LIMIT_PERSISTING_L2_CACHE_SIZE are both 0x06.
constexpr long long kPersistingLimitValue = 6;

class L2PersistenceCheck : public Check {
 public:
  const CheckInfo& info() const override { return kInfo; }

  void run(const Submission& s, const Context&, FindingSink& sink) const override {
    if (s.python) run_python(*s.python, sink);
    for (const auto& unit : s.cxx)
      if (unit.file && unit.facts) run_cxx(*unit.file, *unit.facts, sink);
  }

 private:
  static std::string message(const Key& k) {
    return "The submission sets up " + std::string(k.what) +
           ", which keeps data in L2 across the benchmark's cache flush between timed calls.";
  }

  static void run_python(const python::Module& m, FindingSink& sink) {
    std::set<std::string> families;
    auto hit = [&](const Key& k, Node n, std::string symbol) {
      if (!families.insert(k.family).second) return;
      sink.report(kInfo, m.file(), n.line(), n.column(), message(k), std::move(symbol));
    };
    m.walk([&](Node n) {
      const auto t = n.type();
      if (t == "identifier") {
        if (const Key* k = find_key(n.text())) hit(*k, n, std::string(n.text()));
      } else if (t == "string" && n.parent().valid() && n.parent().type() == "argument_list") {
        // getattr(cudart, "cudaLimitPersistingL2CacheSize")
        if (auto v = m.constant_string(n))
          if (const Key* k = find_key(*v)) hit(*k, n, *v);
        return false;
      }
      return true;
    });
    // ctypes: libcudart.cudaDeviceSetLimit(6, n) / cuCtxSetLimit(0x06, n)
    static const Key limit_by_value{"a persisting-L2 carve-out (limit 0x06 of cudaDeviceSetLimit)", "limit"};
    for (const auto& c : m.calls()) {
      std::string_view callee = c.callee.valid() ? c.callee.text() : std::string_view{};
      std::string_view last = patterns::last_component(c.qualified.empty() ? callee : std::string_view(c.qualified));
      if (last != "cudaDeviceSetLimit" && last != "cuCtxSetLimit") continue;
      auto args = c.node.positional_args();
      if (args.empty()) continue;
      auto v = m.constant_int(args[0]);
      if (v && *v == kPersistingLimitValue) hit(limit_by_value, c.node, std::string(last));
    }
  }

  static void run_cxx(const SourceFile& file, const cxx::Facts& facts, FindingSink& sink) {
    std::set<std::string> families;
    auto hit = [&](const Key& k, int line, std::string symbol) {
      if (!families.insert(k.family).second) return;
      sink.report(kInfo, file, line, 0, message(k), std::move(symbol));
    };
    if (facts.parsed) {
      // In source order, so that the first use of each family is the one reported.
      std::vector<const cxx::NameReference*> refs;
      for (const auto& r : facts.names) refs.push_back(&r);
      std::stable_sort(refs.begin(), refs.end(), [](auto* a, auto* b) { return a->line < b->line; });
      for (const auto* r : refs) {
        std::string_view name = r->name;
        if (auto pos = name.rfind("::"); pos != std::string_view::npos) name = name.substr(pos + 2);
        if (const Key* k = find_key(name)) hit(*k, r->line, std::string(name));
      }
      return;
    }
    // Clang could not build an AST: fall back to the words of the text, skipping // comments.
    static const std::regex word(R"([A-Za-z_][A-Za-z0-9_]*)");
    int line_no = 0;
    size_t start = 0;
    const std::string& text = file.text;
    while (start <= text.size()) {
      size_t end = text.find('\n', start);
      if (end == std::string::npos) end = text.size();
      ++line_no;
      std::string line = text.substr(start, end - start);
      if (auto c = line.find("//"); c != std::string::npos) line.resize(c);
      for (auto it = std::sregex_iterator(line.begin(), line.end(), word); it != std::sregex_iterator(); ++it)
        if (const Key* k = find_key(it->str())) hit(*k, line_no, it->str());
      start = end + 1;
    }
  }
};

}  // namespace

std::unique_ptr<Check> make_l2_persistence_check() { return std::make_unique<L2PersistenceCheck>(); }

}  // namespace kaudit::analyzer
