// The C++/CUDA front: Clang 19 LibTooling over an in-memory file system.
//
// Each source is parsed once as CUDA host code (--cuda-host-only) and, when it
// mentions __CUDA_ARCH__, once more as device code (--cuda-device-only); the
// facts of both passes are merged without duplicates. The heavy headers (CUDA
// runtime, cuBLAS, fp16/bf16/fp8, common std headers, the torch stub) are
// precompiled once per pass and process into an in-memory PCH, which turns a
// ~1 s parse into ~0.1 s. This is the only translation unit that includes
// Clang headers.
#include "analyzer/cxx/front.h"

#include "analyzer/cxx/stub_headers.h"
#include "common/utf8.h"

#include <clang/AST/ASTConsumer.h>
#include <clang/AST/ASTContext.h>
#include <clang/AST/Attr.h>
#include <clang/AST/Decl.h>
#include <clang/AST/DeclCXX.h>
#include <clang/AST/DeclTemplate.h>
#include <clang/AST/Expr.h>
#include <clang/AST/ExprCXX.h>
#include <clang/AST/RecursiveASTVisitor.h>
#include <clang/AST/Stmt.h>
#include <clang/Basic/Diagnostic.h>
#include <clang/Basic/FileManager.h>
#include <clang/Basic/Version.h>
#include <clang/Basic/SourceManager.h>
#include <clang/Frontend/CompilerInstance.h>
#include <clang/Frontend/FrontendAction.h>
#include <clang/Frontend/MultiplexConsumer.h>
#include <clang/Lex/Lexer.h>
#include <clang/Lex/PPCallbacks.h>
#include <clang/Lex/Preprocessor.h>
#include <clang/Serialization/ASTWriter.h>
#include <clang/Serialization/PCHContainerOperations.h>
#include <clang/Tooling/Tooling.h>
#include <llvm/Support/CrashRecoveryContext.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/VirtualFileSystem.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <unordered_set>

#include <unistd.h>

#ifndef KAUDIT_CLANG_RESOURCE_DIR
#define KAUDIT_CLANG_RESOURCE_DIR "/usr/lib/llvm-19/lib/clang/19"
#endif

namespace kaudit::analyzer::cxx {
namespace {

using namespace clang;

constexpr const char* kRoot = "/kaudit";
constexpr const char* kStubDir = "/kaudit/stubs";
constexpr const char* kStandInDir = "/kaudit/standin";
constexpr const char* kNoCudaDir = "/kaudit/nocuda";  // CUDA header names, where no toolkit was found
constexpr const char* kPreludePath = "/kaudit/prelude.cuh";
constexpr const char* kCcclPreludePath = "/kaudit/prelude_cccl.cuh";  // the prelude, thrust and cub
constexpr const char* kPchPath = "/kaudit/prelude.pch";

enum class Pass { host, device };

// ---------------------------------------------------------------------------
// File system: the real one (CUDA toolkit, system headers) under an in-memory
// layer holding the stubs, the prelude, the stand-in header, the source and
// the PCH. Any torch/ATen/c10/pybind11 header that is not one of the stubs is
// served as a forward to the torch stub, so that a real PyTorch install on the
// machine never mixes with the stubs.

class StubFileSystem : public llvm::vfs::ProxyFileSystem {
 public:
  StubFileSystem(llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> under,
                 llvm::IntrusiveRefCntPtr<llvm::vfs::InMemoryFileSystem> memory)
      : ProxyFileSystem(std::move(under)), memory_(std::move(memory)) {}

  // Only regular files and folders are visible: #include </dev/stdin> or
  // </dev/zero> would otherwise block or never end.
  llvm::ErrorOr<llvm::vfs::Status> status(const llvm::Twine& path) override {
    const std::string p = path.str();
    forward_if_stub(p);
    auto st = ProxyFileSystem::status(p);
    if (st && !readable(*st)) return std::make_error_code(std::errc::no_such_file_or_directory);
    return st;
  }
  llvm::ErrorOr<std::unique_ptr<llvm::vfs::File>> openFileForRead(const llvm::Twine& path) override {
    const std::string p = path.str();
    forward_if_stub(p);
    auto st = ProxyFileSystem::status(p);
    if (!st) return st.getError();
    if (!readable(*st) || st->isDirectory()) return std::make_error_code(std::errc::no_such_file_or_directory);
    return ProxyFileSystem::openFileForRead(p);
  }

 private:
  static bool readable(const llvm::vfs::Status& st) {
    if (st.isDirectory()) return true;
    return st.isRegularFile() && st.getSize() <= (256u << 20);
  }
  void forward_if_stub(const std::string& path) {
    static const std::string prefix = std::string(kStubDir) + "/";
    if (path.rfind(prefix, 0) != 0) return;
    const std::string rest = path.substr(prefix.size());
    const auto slash = rest.find('/');
    if (slash == std::string::npos) return;
    const std::string top = rest.substr(0, slash);
    if (top != "torch" && top != "ATen" && top != "c10" && top != "pybind11" && top != "caffe2" && top != "THC")
      return;
    if (rest.find("..") != std::string::npos) return;
    if (memory_->exists(path)) return;
    memory_->addFile(path, 0, llvm::MemoryBuffer::getMemBuffer("#pragma once\n#include <kaudit/torch_stub.h>\n", path));
  }
  llvm::IntrusiveRefCntPtr<llvm::vfs::InMemoryFileSystem> memory_;
};

struct Vfs {
  llvm::IntrusiveRefCntPtr<llvm::vfs::InMemoryFileSystem> memory;
  llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> fs;
};

Vfs make_vfs() {
  Vfs v;
  v.memory = llvm::makeIntrusiveRefCnt<llvm::vfs::InMemoryFileSystem>();
  for (const auto& h : stubs::headers()) {
    const std::string path = std::string(kStubDir) + "/" + std::string(h.path);
    v.memory->addFile(path, 0, llvm::MemoryBuffer::getMemBuffer(llvm::StringRef(h.text.data(), h.text.size()), path));
  }
  // CUDA 13 removed texture_fetch_functions.h, which Clang 19's CUDA wrapper still includes.
  v.memory->addFile(std::string(kStandInDir) + "/texture_fetch_functions.h", 0,
                    llvm::MemoryBuffer::getMemBuffer("", "texture_fetch_functions.h"));
  v.memory->addFile(std::string(kNoCudaDir) + "/kaudit/cuda_min.h", 0,
                    llvm::MemoryBuffer::getMemBuffer(llvm::StringRef(stubs::cuda_min().data(), stubs::cuda_min().size()),
                                                     "cuda_min.h"));
  for (std::string_view name : stubs::cuda_header_names()) {
    const std::string path = std::string(kNoCudaDir) + "/" + std::string(name);
    v.memory->addFile(path, 0, llvm::MemoryBuffer::getMemBuffer("#pragma once\n#include <kaudit/cuda_min.h>\n", path));
  }
  const auto prelude = stubs::prelude();
  v.memory->addFile(kPreludePath, 0,
                    llvm::MemoryBuffer::getMemBuffer(llvm::StringRef(prelude.data(), prelude.size()), kPreludePath));
  v.memory->addFile(kCcclPreludePath, 0,
                    llvm::MemoryBuffer::getMemBufferCopy(std::string(prelude) + std::string(stubs::cccl_prelude()),
                                                         kCcclPreludePath));
  auto overlay = llvm::makeIntrusiveRefCnt<llvm::vfs::OverlayFileSystem>(llvm::vfs::getRealFileSystem());
  overlay->pushOverlay(v.memory);
  v.fs = llvm::makeIntrusiveRefCnt<StubFileSystem>(overlay, v.memory);
  return v;
}

bool have_toolkit(const FrontOptions& options) {
  std::error_code ec;
  return std::filesystem::is_regular_file(options.cuda_path + "/include/cuda_runtime.h", ec);
}

std::vector<std::string> base_args(Pass pass, const FrontOptions& options) {
  const bool toolkit = have_toolkit(options);
  std::vector<std::string> args = {
      "clang++",
      "-fsyntax-only",
      "-x",
      "cuda",
      "-std=c++17",
      pass == Pass::host ? "--cuda-host-only" : "--cuda-device-only",
      "--cuda-gpu-arch=sm_90",
      toolkit ? "--cuda-path=" + options.cuda_path : std::string("-nocudainc"),
      "-resource-dir",
      KAUDIT_CLANG_RESOURCE_DIR,
      "-Wno-unknown-cuda-version",
      "-w",
      "-ferror-limit=0",
      "-fno-spell-checking",
      "-fno-caret-diagnostics",
      "-fpch-instantiate-templates",
      "-I",
      kStubDir,
      "-idirafter",
      kStandInDir,
      // thrust, cub and libcu++ (CUDA 13 keeps them under include/cccl, which nvcc adds itself).
      "-isystem",
      options.cuda_path + "/include/cccl",
  };
  if (!toolkit) {
    // No CUDA toolkit: minimal declarations under the CUDA header names.
    args.insert(args.end(), {"-nocudalib", "-isystem", kNoCudaDir, "-include", "kaudit/cuda_min.h"});
  }
  for (const auto& a : options.extra_args) args.push_back(a);
  return args;
}

// ---------------------------------------------------------------------------
// The precompiled prelude, built once per pass and set of options, in memory.

class PchSink : public ASTConsumer {
 public:
  PchSink(std::shared_ptr<PCHBuffer> buffer, std::string* out, const SourceManager& sm)
      : buffer_(std::move(buffer)), out_(out), sm_(sm) {}
  void HandleTranslationUnit(ASTContext&) override {
    if (buffer_->IsComplete) out_->assign(buffer_->Data.begin(), buffer_->Data.end());
  }
  // Function bodies in headers are left out of the PCH, as clangd does for
  // its preambles (constexpr functions and deduced return types are kept):
  // facts come from the source only, so instantiating them is wasted time.
  bool shouldSkipFunctionBody(Decl* d) override { return !sm_.isInMainFile(sm_.getFileLoc(d->getLocation())); }

 private:
  std::shared_ptr<PCHBuffer> buffer_;
  std::string* out_;
  const SourceManager& sm_;
};

class SkipMissingHeaders : public PPCallbacks {
 public:
  bool FileNotFound(llvm::StringRef) override { return true; }
};

class BuildPchAction : public ASTFrontendAction {
 public:
  explicit BuildPchAction(std::string* out) : out_(out) {}

 protected:
  bool BeginSourceFileAction(CompilerInstance& ci) override {
    ci.getPreprocessor().addPPCallbacks(std::make_unique<SkipMissingHeaders>());
    ci.getLangOpts().CompilingPCH = true;
    ci.getFrontendOpts().SkipFunctionBodies = true;  // asks PchSink::shouldSkipFunctionBody
    return true;
  }
  std::unique_ptr<ASTConsumer> CreateASTConsumer(CompilerInstance& ci, llvm::StringRef) override {
    auto buffer = std::make_shared<PCHBuffer>();
    std::vector<std::unique_ptr<ASTConsumer>> consumers;
    consumers.push_back(std::make_unique<PCHGenerator>(ci.getPreprocessor(), ci.getModuleCache(), kPchPath, "", buffer,
                                                       ci.getFrontendOpts().ModuleFileExtensions,
                                                       /*AllowASTWithErrors=*/false, /*IncludeTimestamps=*/false));
    consumers.push_back(std::make_unique<PchSink>(buffer, out_, ci.getSourceManager()));
    return std::make_unique<MultiplexConsumer>(std::move(consumers));
  }
  TranslationUnitKind getTranslationUnitKind() override { return TU_Prefix; }

 private:
  std::string* out_;
};

// Counts errors (DiagnosticConsumer::getNumErrors) and prints nothing.
class CountingDiagnostics : public DiagnosticConsumer {};

void enable_crash_recovery() {
  static std::once_flag once;
  std::call_once(once, [] { llvm::CrashRecoveryContext::Enable(); });
}

// Runs fn on a thread with a large stack, turning a crash inside Clang into a
// false return instead of the end of the process.
template <typename F>
bool run_safely(F&& fn) {
  enable_crash_recovery();
  llvm::CrashRecoveryContext crc;
  return crc.RunSafelyOnThread([&] { fn(); }, 64u << 20);
}

struct PchEntry {
  bool tried = false;
  std::shared_ptr<const std::string> data;  // null: building failed, parse without PCH
  std::string disk_path;                    // where it was read from or written to
};

// The precompiled prelude is also kept on disk between processes (a fresh
// `kaudit analyze` would otherwise pay ~3 s of CPU per pass to rebuild it),
// under a name that hashes everything it depends on. A stale file is
// rejected by Clang's own input-file checks, deleted and rebuilt.
std::string pch_cache_dir(const FrontOptions& options) {
  if (options.pch_cache_dir == "none") return {};
  if (!options.pch_cache_dir.empty()) return options.pch_cache_dir;
  if (const char* d = std::getenv("KAUDIT_CACHE_DIR"); d && *d) return d;
  if (const char* d = std::getenv("XDG_CACHE_HOME"); d && *d) return std::string(d) + "/kaudit";
  if (const char* d = std::getenv("HOME"); d && *d) return std::string(d) + "/.cache/kaudit";
  return {};
}

std::optional<std::string> read_file(const std::string& path) {
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/false, /*RequiresNullTerminator=*/false);
  if (!buffer) return std::nullopt;
  return (*buffer)->getBuffer().str();
}

bool write_file_atomically(const std::string& path, const std::string& data) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::create_directories(fs::path(path).parent_path(), ec);
  const std::string tmp = path + ".tmp" + std::to_string(::getpid());
  {
    std::FILE* f = std::fopen(tmp.c_str(), "wb");
    if (!f) return false;
    const bool ok = std::fwrite(data.data(), 1, data.size(), f) == data.size();
    if (std::fclose(f) != 0 || !ok) {
      fs::remove(tmp, ec);
      return false;
    }
  }
  fs::rename(tmp, path, ec);
  if (ec) fs::remove(tmp, ec);
  return !ec;
}

std::string pch_disk_path(Pass pass, bool cccl, const FrontOptions& options) {
  const std::string dir = pch_cache_dir(options);
  if (dir.empty()) return {};
  // Bump kPchFormat whenever the way the prelude is precompiled changes.
  constexpr const char* kPchFormat = "kaudit-pch-2";
  std::string identity = std::string(kPchFormat) + '\0' + getClangFullVersion();
  identity += '\0';
  identity += stubs::prelude();
  if (cccl) identity += stubs::cccl_prelude();
  for (const auto& h : stubs::headers()) {
    identity += '\0';
    identity += h.path;
    identity += '\0';
    identity += h.text;
  }
  for (const auto& a : base_args(pass, options)) identity += '\0' + a;
  if (auto v = read_file(options.cuda_path + "/version.json")) identity += *v;
  char name[64];
  std::snprintf(name, sizeof name, "prelude%s-%s-%016llx.pch", cccl ? "-cccl" : "", pass == Pass::host ? "host" : "device",
                static_cast<unsigned long long>(std::hash<std::string>{}(identity)));
  return dir + "/" + name;
}

std::mutex pch_mutex;
std::map<std::string, PchEntry> pch_cache;

std::string pch_key(Pass pass, bool cccl, const FrontOptions& options) {
  std::string key = pass == Pass::host ? "host" : "device";
  if (cccl) key += "+cccl";
  key += '\0' + options.cuda_path + '\0' + options.pch_cache_dir;
  for (const auto& a : options.extra_args) key += '\0' + a;
  return key;
}

void forget_pch(Pass pass, bool cccl, const FrontOptions& options) {
  std::lock_guard lock(pch_mutex);
  auto& entry = pch_cache[pch_key(pass, cccl, options)];
  entry.tried = true;
  entry.data.reset();
  if (!entry.disk_path.empty()) {
    std::error_code ec;
    std::filesystem::remove(entry.disk_path, ec);
  }
}

// prelude[-cccl]-<pass>-<hash>.pch: other hashes of the same kind come from
// other versions of kaudit (several may share a cache folder); those unused
// for two weeks are removed. A PCH in use is touched when read.
void remove_older_versions(const std::string& current) {
  namespace fs = std::filesystem;
  const fs::path cur(current);
  const std::string name = cur.filename().string();
  const auto dash = name.rfind('-');
  if (dash == std::string::npos) return;
  const std::string kind = name.substr(0, dash + 1);
  std::error_code ec;
  for (fs::directory_iterator it(cur.parent_path(), ec), end; !ec && it != end; it.increment(ec)) {
    const std::string other = it->path().filename().string();
    if (other == name || other.rfind(kind, 0) != 0 || other.size() != name.size() || !other.ends_with(".pch")) continue;
    std::error_code ignored;
    const auto when = fs::last_write_time(it->path(), ignored);
    if (!ignored && fs::file_time_type::clock::now() - when > std::chrono::hours(24 * 14)) fs::remove(it->path(), ignored);
  }
}

std::shared_ptr<const std::string> prelude_pch(Pass pass, bool cccl, const FrontOptions& options) {
  std::lock_guard lock(pch_mutex);
  auto& entry = pch_cache[pch_key(pass, cccl, options)];
  if (entry.tried) return entry.data;
  entry.tried = true;

  const std::string disk_path = pch_disk_path(pass, cccl, options);
  if (!disk_path.empty()) {
    if (auto cached = read_file(disk_path); cached && !cached->empty()) {
      entry.data = std::make_shared<const std::string>(std::move(*cached));
      entry.disk_path = disk_path;
      std::error_code ec;
      std::filesystem::last_write_time(disk_path, std::filesystem::file_time_type::clock::now(), ec);
      return entry.data;
    }
  }

  auto out = std::make_shared<std::string>();
  bool ok = run_safely([&] {
    Vfs vfs = make_vfs();
    llvm::IntrusiveRefCntPtr<FileManager> files(new FileManager(FileSystemOptions(), vfs.fs));
    auto args = base_args(pass, options);
    args.push_back(cccl ? kCcclPreludePath : kPreludePath);
    CountingDiagnostics diags;
    tooling::ToolInvocation invocation(args, std::make_unique<BuildPchAction>(out.get()), files.get());
    invocation.setDiagnosticConsumer(&diags);
    if (!invocation.run() || diags.getNumErrors() > 0) out->clear();
  });
  if (ok && !out->empty()) {
    entry.data = out;
    if (!disk_path.empty() && write_file_atomically(disk_path, *out)) {
      entry.disk_path = disk_path;
      remove_older_versions(disk_path);
    }
  }
  return entry.data;
}

// ---------------------------------------------------------------------------
// Collecting facts.

class Collector {
 public:
  Facts facts;

  bool first(std::string key) { return seen_.insert(std::move(key)).second; }

  void add_call(Call c, bool resolved) {
    const std::string pos = std::to_string(c.line) + ':' + std::to_string(c.column);
    if (!resolved) {
      unresolved_.push_back(std::move(c));
      return;
    }
    resolved_positions_.insert(pos);
    if (first("c" + c.callee + '@' + pos)) facts.calls.push_back(std::move(c));
  }
  void add_error(int line, std::string message) {
    if (facts.errors.size() >= 200) return;
    if (line == 0 && message.rfind("kaudit:", 0) != 0 && ++header_errors_ > 20) return;  // errors inside headers: the first few say enough
    if (first("e" + std::to_string(line) + ':' + message)) facts.errors.push_back({line, std::move(message)});
  }
  void add_include(Include inc) {
    if (first("i" + std::to_string(inc.line) + ':' + inc.header)) facts.includes.push_back(std::move(inc));
  }
  void add_kernel(KernelDef k) {
    if (first("k" + std::to_string(k.line) + ':' + k.name)) facts.kernels.push_back(std::move(k));
  }
  void add_launch(KernelLaunch l, int column) {
    if (first("l" + std::to_string(l.line) + ':' + std::to_string(column) + ':' + l.via))
      facts.launches.push_back(std::move(l));
  }
  void add_static(StaticVariable s) {
    if (first("s" + std::to_string(s.line) + ':' + s.name)) facts.statics.push_back(std::move(s));
  }
  void add_size_literal(SizeLiteral s) {
    if (first("z" + std::to_string(s.line) + ':' + std::to_string(s.value) + ':' + s.compared_with))
      facts.size_literals.push_back(std::move(s));
  }
  void add_name(NameReference n) {
    if (first("n" + std::to_string(n.line) + ':' + n.kind + ':' + n.name)) facts.names.push_back(std::move(n));
  }
  void add_conversion(Conversion c) {
    if (first("v" + std::to_string(c.line) + ':' + c.from_type + '>' + c.to_type))
      facts.conversions.push_back(std::move(c));
  }

  // Calls whose callee could not be resolved (dependent or erroneous) count
  // only where no resolved call sits at the same place (a template's pattern
  // against its instantiations).
  void finish() {
    for (auto& c : unresolved_) {
      const std::string pos = std::to_string(c.line) + ':' + std::to_string(c.column);
      if (resolved_positions_.count(pos)) continue;
      if (first("c" + c.callee + '@' + pos)) facts.calls.push_back(std::move(c));
    }
    unresolved_.clear();
    auto by_line = [](const auto& a, const auto& b) { return a.line < b.line; };
    std::stable_sort(facts.calls.begin(), facts.calls.end(), [](const Call& a, const Call& b) {
      return a.line != b.line ? a.line < b.line : a.column < b.column;
    });
    std::stable_sort(facts.errors.begin(), facts.errors.end(), by_line);
    std::stable_sort(facts.kernels.begin(), facts.kernels.end(), by_line);
    std::stable_sort(facts.launches.begin(), facts.launches.end(), by_line);
    std::stable_sort(facts.statics.begin(), facts.statics.end(), by_line);
    std::stable_sort(facts.size_literals.begin(), facts.size_literals.end(), by_line);
    std::stable_sort(facts.names.begin(), facts.names.end(), by_line);
    std::stable_sort(facts.conversions.begin(), facts.conversions.end(), by_line);
    std::stable_sort(facts.includes.begin(), facts.includes.end(), by_line);
  }

 private:
  std::unordered_set<std::string> seen_;
  int header_errors_ = 0;
  std::set<std::string> resolved_positions_;
  std::vector<Call> unresolved_;
};

// Diagnostics: errors with their line in the source; nothing printed.
class ErrorCollector : public DiagnosticConsumer {
 public:
  explicit ErrorCollector(Collector& out) : out_(out) {}
  void HandleDiagnostic(DiagnosticsEngine::Level level, const clang::Diagnostic& info) override {
    DiagnosticConsumer::HandleDiagnostic(level, info);
    if (level < DiagnosticsEngine::Error) return;
    llvm::SmallString<256> msg;
    info.FormatDiagnostic(msg);
    std::string message = msg.str().str();
    if (message.find("precompiled header") != std::string::npos || message.find("PCH file") != std::string::npos ||
        message.find("AST file") != std::string::npos)
      pch_failed = true;

    int line = 0;
    if (info.hasSourceManager() && info.getLocation().isValid()) {
      const SourceManager& sm = info.getSourceManager();
      SourceLocation loc = sm.getFileLoc(info.getLocation());
      if (sm.isInMainFile(loc)) {
        line = static_cast<int>(sm.getSpellingLineNumber(loc));
      } else {
        PresumedLoc p = sm.getPresumedLoc(loc);
        if (p.isValid()) message = std::string(p.getFilename()) + ":" + std::to_string(p.getLine()) + ": " + message;
      }
    }
    out_.add_error(line, std::move(message));
  }
  bool pch_failed = false;

 private:
  Collector& out_;
};

using Clock = std::chrono::steady_clock;

// Thrown from a preprocessor callback when the time budget is spent inside
// one declaration (a macro that expands exponentially); caught around the
// Clang invocation, whose memory is then abandoned.
struct OutOfTime {};

// Includes written in the source; a header that cannot be found is skipped
// silently (as if empty) and recorded as not found.
class IncludeRecorder : public PPCallbacks {
 public:
  IncludeRecorder(const SourceManager& sm, Collector& out, Clock::time_point deadline)
      : sm_(sm), out_(out), deadline_(deadline) {}
  bool FileNotFound(llvm::StringRef) override { return true; }
  void MacroExpands(const Token&, const MacroDefinition&, SourceRange, const MacroArgs*) override {
    if ((++expansions_ & 0xfff) == 0 && Clock::now() > deadline_) throw OutOfTime{};
  }
  void InclusionDirective(SourceLocation hash, const Token&, llvm::StringRef name, bool, CharSourceRange,
                          OptionalFileEntryRef file, llvm::StringRef, llvm::StringRef, const Module*, bool,
                          SrcMgr::CharacteristicKind) override {
    if (hash.isInvalid() || sm_.getFileID(hash) != sm_.getMainFileID()) return;  // not -include of the prelude
    Include inc;
    inc.header = name.str();
    inc.line = static_cast<int>(sm_.getSpellingLineNumber(hash));
    inc.found = file.has_value();
    out_.add_include(std::move(inc));
  }

 private:
  const SourceManager& sm_;
  Collector& out_;
  Clock::time_point deadline_;
  unsigned long expansions_ = 0;
};

// Qualified name without template arguments or inline namespaces:
// "at::Tensor::matmul", "std::thread::thread", "cudaLimitPersistingL2CacheSize".
std::string qualified_name(const NamedDecl* d) {
  if (!d) return {};
  std::vector<std::string> parts;
  parts.push_back(d->getDeclName().getAsString());
  for (const DeclContext* dc = d->getDeclContext(); dc; dc = dc->getParent()) {
    if (const auto* ns = dyn_cast<NamespaceDecl>(dc)) {
      if (ns->isInlineNamespace()) continue;
      parts.push_back(ns->isAnonymousNamespace() ? "(anonymous namespace)" : ns->getName().str());
    } else if (const auto* rd = dyn_cast<RecordDecl>(dc)) {
      if (const auto* cxx = dyn_cast<CXXRecordDecl>(rd); cxx && cxx->isLambda())
        parts.push_back("(lambda)");
      else if (rd->getIdentifier())
        parts.push_back(rd->getName().str());
      else if (const auto* td = rd->getTypedefNameForAnonDecl())
        parts.push_back(td->getName().str());
      else
        parts.push_back("(anonymous)");
    } else if (const auto* ed = dyn_cast<EnumDecl>(dc)) {
      if (ed->isScoped()) parts.push_back(ed->getName().str());
    } else if (isa<FunctionDecl>(dc)) {
      break;  // local declarations: the name alone
    }
  }
  std::string out;
  for (auto it = parts.rbegin(); it != parts.rend(); ++it) {
    if (!out.empty()) out += "::";
    out += *it;
  }
  return out;
}

bool is_device_function(const FunctionDecl* fd) {
  if (!fd) return false;
  if (const auto* a = fd->getAttr<CUDAGlobalAttr>(); a && !a->isImplicit()) return true;
  if (const auto* a = fd->getAttr<CUDADeviceAttr>(); a && !a->isImplicit()) return true;
  return false;
}

std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// Names that read as a problem dimension: M, N, K, batch, seq_len, hidden_size...
bool dimension_like(llvm::StringRef name) {
  if (name.empty()) return false;
  if (name.size() == 1) return std::string_view("MNKBHWCDLSTEGPQRmnkbhwcdlst").find(name[0]) != std::string_view::npos;
  std::string l = lower(name.str());
  static const char* const words[] = {"size", "dim", "len", "row", "col", "batch", "seq", "numel", "elem",
                                      "feature", "channel", "head", "hidden", "token", "expert", "vocab",
                                      "width", "height", "depth", "shape", "count", "group", "chunk", "page"};
  for (const char* w : words)
    if (l.find(w) != std::string::npos) return true;
  // n, m, k, nq, n_q, num_x, bs, bsz.
  if (l == "bs" || l == "bsz" || l == "nnz") return true;
  if (l.size() <= 3 && (l[0] == 'n' || l[0] == 'm' || l[0] == 'k')) return true;
  if (l.rfind("num", 0) == 0 || l.rfind("n_", 0) == 0) return true;
  return false;
}

bool is_float_like(QualType t) {
  t = t.getCanonicalType().getUnqualifiedType();
  if (t->isRealFloatingType()) return true;
  if (const auto* rd = t->getAsRecordDecl()) {
    if (!rd->getIdentifier()) return false;
    llvm::StringRef n = rd->getName();
    return n.starts_with("__half") || n.starts_with("__nv_bfloat16") || n.starts_with("__nv_fp8") ||
           n.starts_with("__nv_fp6") || n.starts_with("__nv_fp4") || n == "Half" || n == "BFloat16" ||
           n.starts_with("Float8_");
  }
  return false;
}

std::string type_name(QualType t, const PrintingPolicy& policy) {
  QualType c = t.getCanonicalType().getUnqualifiedType();
  if (const auto* rd = c->getAsRecordDecl()) return qualified_name(rd);
  return c.getAsString(policy);
}

class FactsVisitor : public RecursiveASTVisitor<FactsVisitor> {
  using Base = RecursiveASTVisitor<FactsVisitor>;

 public:
  FactsVisitor(ASTContext& ctx, const Preprocessor* pp, Collector& out)
      : ctx_(ctx), sm_(ctx.getSourceManager()), pp_(pp), out_(out), policy_(ctx.getPrintingPolicy()) {
    policy_.SuppressTagKeyword = true;
    policy_.SuppressScope = false;
    policy_.FullyQualifiedName = false;
  }

  bool shouldVisitTemplateInstantiations() const { return true; }
  bool shouldVisitImplicitCode() const { return false; }

  bool TraverseDecl(Decl* d) {
    if (!d) return true;
    if (auto* fd = dyn_cast<FunctionDecl>(d)) {
      const bool device = is_device_function(fd) || (!frames_.empty() && frames_.back().device && isa<CXXMethodDecl>(fd) &&
                                                      cast<CXXMethodDecl>(fd)->getParent()->isLocalClass());
      frames_.push_back({fd, device, true});
      bool r = Base::TraverseDecl(d);
      frames_.pop_back();
      return r;
    }
    return Base::TraverseDecl(d);
  }

  bool TraverseLambdaExpr(LambdaExpr* e) {
    const CXXMethodDecl* op = e->getCallOperator();
    const bool device = is_device_function(op) || (!frames_.empty() && frames_.back().device);
    frames_.push_back({op, device, false});
    bool r = Base::TraverseLambdaExpr(e);
    frames_.pop_back();
    return r;
  }

  // --- declarations -------------------------------------------------------

  bool VisitFunctionDecl(FunctionDecl* fd) {
    if (!fd->hasAttr<CUDAGlobalAttr>() || !fd->doesThisDeclarationHaveABody()) return true;
    if (fd->isTemplateInstantiation()) return true;
    SourceLocation loc = sm_.getFileLoc(fd->getLocation());
    if (!sm_.isInMainFile(loc)) return true;
    out_.add_kernel({qualified_name(fd), line(loc)});
    return true;
  }

  bool VisitVarDecl(VarDecl* vd) {
    if (isa<ParmVarDecl>(vd) || vd->hasLocalStorage()) return true;
    if (vd->hasAttr<CUDASharedAttr>()) return true;  // shared memory tiles, not state
    if (vd->hasExternalStorage() && !vd->hasInit()) return true;
    if (vd->isStaticDataMember() && vd->isThisDeclarationADefinition() == VarDecl::DeclarationOnly) return true;
    if (vd->isImplicit()) return true;
    if (vd->getTemplateSpecializationKind() == TSK_ImplicitInstantiation) return true;
    SourceLocation loc = sm_.getFileLoc(vd->getLocation());
    if (!sm_.isInMainFile(loc)) return true;
    StaticVariable s;
    s.name = vd->isStaticLocal() ? vd->getName().str() : qualified_name(vd);
    s.type = vd->getType().getAsString(policy_);
    s.line = line(loc);
    s.function_local = vd->isStaticLocal();
    s.is_const = vd->getType().isConstQualified() || vd->isConstexpr();
    if (vd->hasAttr<CUDAConstantAttr>())
      s.cuda_space = "__constant__";
    else if (vd->hasAttr<HIPManagedAttr>() || written_before_name(vd, "__managed__"))  // Clang drops 'managed' in CUDA
      s.cuda_space = "__managed__";
    else if (vd->hasAttr<CUDADeviceAttr>() && !vd->getAttr<CUDADeviceAttr>()->isImplicit())
      s.cuda_space = "__device__";
    out_.add_static(std::move(s));
    return true;
  }

  // --- calls --------------------------------------------------------------

  bool VisitCallExpr(CallExpr* e) {
    const Expr* callee = e->getCallee() ? e->getCallee()->IgnoreParenImpCasts() : nullptr;
    SourceLocation name_loc = callee ? callee->getExprLoc() : e->getExprLoc();
    if (const auto* me = dyn_cast_or_null<MemberExpr>(callee)) name_loc = me->getMemberLoc();
    if (const auto* dre = dyn_cast_or_null<DeclRefExpr>(callee)) {
      name_loc = dre->getLocation();
      callee_refs_.insert(dre);
    }
    if (isa<CXXOperatorCallExpr>(e)) name_loc = e->getExprLoc();

    std::string name;
    bool resolved = true;
    if (const FunctionDecl* fd = e->getDirectCallee()) {
      name = qualified_name(fd);
    } else if (const auto* ule = dyn_cast_or_null<UnresolvedLookupExpr>(callee)) {
      name = unresolved_name(ule);
      name_loc = ule->getNameLoc();
      resolved = false;
    } else if (const auto* dsme = dyn_cast_or_null<CXXDependentScopeMemberExpr>(callee)) {
      name = dsme->getMember().getAsString();
      name_loc = dsme->getMemberLoc();
      resolved = false;
    } else if (const auto* ume = dyn_cast_or_null<UnresolvedMemberExpr>(callee)) {
      const CXXRecordDecl* cls = ume->getNamingClass();
      name = (cls ? qualified_name(cls) + "::" : std::string()) + ume->getMemberName().getAsString();
      name_loc = ume->getMemberLoc();
      resolved = false;
    } else if (const NamedDecl* nd = dyn_cast_or_null<NamedDecl>(e->getCalleeDecl())) {
      name = qualified_name(nd);  // a call through a variable holding a function
    } else {
      return true;
    }
    if (name.empty() || is_internal(name)) return true;
    const bool is_operator = llvm::StringRef(name).contains("operator");
    if (!resolved && is_operator) return true;  // a dependent a + b: a builtin in every instantiation seen

    SourceLocation file_loc = sm_.getFileLoc(name_loc);
    if (!sm_.isInMainFile(file_loc)) return true;

    Call c;
    c.callee = name;
    c.spelled = token_at(file_loc);
    if (isa<CXXOperatorCallExpr>(e) && !name_loc.isMacroID()) {
      auto p = name.rfind("::");
      c.spelled = p == std::string::npos ? name : name.substr(p + 2);
    }
    c.line = line(file_loc);
    c.column = column(file_loc);
    c.in_device_code = in_device();
    c.enclosing_function = enclosing();
    out_.add_call(std::move(c), resolved);

    if (const auto* k = dyn_cast<CUDAKernelCallExpr>(e)) record_triple_chevron(k, file_loc);
    else record_api_launch(e, name, file_loc);
    return true;
  }

  bool VisitCXXConstructExpr(CXXConstructExpr* e) {
    const CXXConstructorDecl* ctor = e->getConstructor();
    if (!ctor || ctor->isImplicit() || ctor->isTrivial() || e->isElidable()) return true;
    if (ctor->isCopyOrMoveConstructor() && ctor->isDefaulted()) return true;
    // An implicit conversion (an int passed as dim3, {M, N} as IntArrayRef) is
    // not a construction the source wrote; T(x) is (see VisitCXXFunctionalCastExpr).
    if (!isa<CXXTemporaryObjectExpr>(e) && e->getParenOrBraceRange().isInvalid() && !e->isListInitialization() &&
        !explicit_constructs_.count(e))
      return true;
    if (e->isStdInitListInitialization() && !isa<CXXTemporaryObjectExpr>(e)) return true;  // {4, 4} as IntArrayRef
    SourceLocation loc = e->getLocation();
    if (const auto* t = dyn_cast<CXXTemporaryObjectExpr>(e)) {
      if (t->getTypeSourceInfo()) loc = t->getTypeSourceInfo()->getTypeLoc().getBeginLoc();
    }
    SourceLocation file_loc = sm_.getFileLoc(loc);
    if (!sm_.isInMainFile(file_loc)) return true;
    const std::string name = qualified_name(ctor);
    if (is_internal(name)) return true;
    Call c;
    c.callee = name;
    c.spelled = ctor->getParent()->getName().str();
    c.line = line(file_loc);
    c.column = column(file_loc);
    c.in_device_code = in_device();
    c.enclosing_function = enclosing();
    out_.add_call(std::move(c), true);
    record_conversion_construct(e, file_loc);
    return true;
  }

  bool VisitCXXFunctionalCastExpr(CXXFunctionalCastExpr* e) {
    if (const auto* c = dyn_cast_or_null<CXXConstructExpr>(e->getSubExpr()->IgnoreImplicit()))
      explicit_constructs_.insert(c);
    return true;
  }

  bool VisitRecoveryExpr(RecoveryExpr* e) {
    // foo(x) with foo undeclared: keep the name the source asked for.
    auto subs = e->subExpressions();
    if (subs.empty()) return true;
    const auto* ule = dyn_cast_or_null<UnresolvedLookupExpr>(subs.front() ? subs.front()->IgnoreParenImpCasts() : nullptr);
    if (!ule) return true;
    SourceLocation file_loc = sm_.getFileLoc(ule->getNameLoc());
    if (!sm_.isInMainFile(file_loc)) return true;
    Call c;
    c.callee = unresolved_name(ule);
    c.spelled = token_at(file_loc);
    c.line = line(file_loc);
    c.column = column(file_loc);
    c.in_device_code = in_device();
    c.enclosing_function = enclosing();
    out_.add_call(std::move(c), false);
    return true;
  }

  // --- names ---------------------------------------------------------------

  bool VisitDeclRefExpr(DeclRefExpr* e) {
    const ValueDecl* d = e->getDecl();
    if (const auto* ec = dyn_cast<EnumConstantDecl>(d)) {
      add_name(qualified_name(ec), "enum", e->getLocation());
    } else if (isa<FunctionDecl>(d) && !callee_refs_.count(e)) {
      add_name(qualified_name(d), "function", e->getLocation());
    }
    return true;
  }

  bool VisitMemberExpr(MemberExpr* e) {
    if (const auto* f = dyn_cast<FieldDecl>(e->getMemberDecl())) add_name(f->getName().str(), "field", e->getMemberLoc());
    return true;
  }

  bool VisitDesignatedInitExpr(DesignatedInitExpr* e) {
    for (const auto& d : e->designators()) {
      if (!d.isFieldDesignator()) continue;
      if (const FieldDecl* f = d.getFieldDecl())
        add_name(f->getName().str(), "field", d.getFieldLoc());
      else if (const IdentifierInfo* id = d.getFieldName())
        add_name(id->getName().str(), "field", d.getFieldLoc());
    }
    return true;
  }

  bool VisitTypedefTypeLoc(TypedefTypeLoc tl) {
    add_name(qualified_name(tl.getTypedefNameDecl()), "type", tl.getNameLoc());
    return true;
  }
  bool VisitRecordTypeLoc(RecordTypeLoc tl) {
    const RecordDecl* rd = tl.getDecl();
    if (rd && (rd->getIdentifier() || rd->getTypedefNameForAnonDecl()) && !rd->isLambda())
      add_name(qualified_name(rd), "type", tl.getNameLoc());
    return true;
  }
  bool VisitEnumTypeLoc(EnumTypeLoc tl) {
    if (tl.getDecl() && tl.getDecl()->getIdentifier()) add_name(qualified_name(tl.getDecl()), "type", tl.getNameLoc());
    return true;
  }
  bool VisitTemplateSpecializationTypeLoc(TemplateSpecializationTypeLoc tl) {
    if (const TemplateDecl* td = tl.getTypePtr()->getTemplateName().getAsTemplateDecl())
      add_name(qualified_name(td), "type", tl.getTemplateNameLoc());
    return true;
  }
  bool VisitUsingTypeLoc(UsingTypeLoc tl) {
    if (const auto* td = tl.getFoundDecl()->getTargetDecl()) add_name(qualified_name(td), "type", tl.getNameLoc());
    return true;
  }

  // --- literals compared with sizes ----------------------------------------

  bool VisitBinaryOperator(BinaryOperator* e) {
    if (!e->isComparisonOp()) return true;
    const Expr* lhs = e->getLHS();
    const Expr* rhs = e->getRHS();
    if (!usable(lhs) || !usable(rhs)) return true;
    if (auto v = constant(rhs); v && reads_size(lhs, 0)) record_size_literal(*v, lhs, e->getOperatorLoc());
    else if (auto w = constant(lhs); w && reads_size(rhs, 0)) record_size_literal(*w, rhs, e->getOperatorLoc());
    return true;
  }

  bool VisitCXXOperatorCallExpr(CXXOperatorCallExpr* e) {
    // Comparisons that went through an overloaded operator (c10::SymInt-like types).
    if (!e->isComparisonOp() || e->getNumArgs() != 2) return true;
    const Expr* lhs = e->getArg(0);
    const Expr* rhs = e->getArg(1);
    if (!usable(lhs) || !usable(rhs)) return true;
    if (auto v = constant(rhs); v && reads_size(lhs, 0)) record_size_literal(*v, lhs, e->getOperatorLoc());
    else if (auto w = constant(lhs); w && reads_size(rhs, 0)) record_size_literal(*w, rhs, e->getOperatorLoc());
    return true;
  }

  bool VisitSwitchStmt(SwitchStmt* s) {
    const Expr* cond = s->getCond();
    if (!cond || !usable(cond) || !reads_size(cond, 0)) return true;
    for (const SwitchCase* sc = s->getSwitchCaseList(); sc; sc = sc->getNextSwitchCase()) {
      const auto* cs = dyn_cast<CaseStmt>(sc);
      if (!cs || !cs->getLHS() || !usable(cs->getLHS())) continue;
      if (auto v = constant(cs->getLHS())) record_size_literal(*v, cond, cs->getCaseLoc());
    }
    return true;
  }

  // --- floating conversions in device code -----------------------------------

  // Builtin float <-> double <-> half; class types convert through conversion
  // functions (below) or converting constructors (VisitCXXConstructExpr).
  bool VisitCastExpr(CastExpr* e) {
    if (!in_device() || e->getCastKind() != CK_FloatingCast) return true;
    record_conversion(e->getSubExpr(), e->getType(), e->getExprLoc());
    return true;
  }

  bool VisitCXXMemberCallExpr(CXXMemberCallExpr* e) {
    if (!in_device()) return true;
    const auto* conv = dyn_cast_or_null<CXXConversionDecl>(e->getMethodDecl());
    if (!conv) return true;
    const Expr* object = e->getImplicitObjectArgument();
    if (!object) return true;
    record_conversion(object, conv->getConversionType(), e->getExprLoc());
    return true;
  }

 private:
  struct Frame {
    const FunctionDecl* fn;
    bool device;
    bool named;  // false for lambdas
  };

  static bool is_internal(const std::string& name) {
    return name.find("kaudit_stub") != std::string::npos || name == "__cudaPushCallConfiguration" ||
           name == "cudaConfigureCall" || name.rfind("__cuda_builtin_", 0) == 0;
  }

  static std::string unresolved_name(const UnresolvedLookupExpr* ule) {
    if (ule->getNumDecls() > 0) {
      const NamedDecl* d = *ule->decls_begin();
      if (d) {
        d = d->getUnderlyingDecl();
        if (const auto* ftd = dyn_cast<FunctionTemplateDecl>(d)) d = ftd->getTemplatedDecl();
        return qualified_name(d);
      }
    }
    std::string q;
    if (NestedNameSpecifier* nns = ule->getQualifier()) {
      llvm::raw_string_ostream os(q);
      nns->print(os, PrintingPolicy(LangOptions()));
    }
    return q + ule->getName().getAsString();
  }

  bool in_device() const {
    for (auto it = frames_.rbegin(); it != frames_.rend(); ++it)
      if (it->device) return true;
    return false;
  }
  std::string enclosing() const {
    for (auto it = frames_.rbegin(); it != frames_.rend(); ++it)
      if (it->named) return qualified_name(it->fn);
    return {};
  }
  int line(SourceLocation file_loc) const { return static_cast<int>(sm_.getSpellingLineNumber(file_loc)); }
  int column(SourceLocation file_loc) const { return static_cast<int>(sm_.getSpellingColumnNumber(file_loc)); }

  std::string token_at(SourceLocation file_loc) const {
    if (file_loc.isInvalid()) return {};
    bool invalid = false;
    const char* p = sm_.getCharacterData(file_loc, &invalid);
    if (invalid || !p) return {};
    unsigned len = Lexer::MeasureTokenLength(file_loc, sm_, ctx_.getLangOpts());
    return std::string(p, len);
  }

  bool written_before_name(const VarDecl* vd, llvm::StringRef word) const {
    SourceLocation b = sm_.getFileLoc(vd->getBeginLoc());
    SourceLocation n = sm_.getFileLoc(vd->getLocation());
    if (!sm_.isInMainFile(b) || sm_.getFileID(b) != sm_.getFileID(n) || sm_.getFileOffset(n) < sm_.getFileOffset(b))
      return false;
    bool invalid = false;
    llvm::StringRef t = Lexer::getSourceText(CharSourceRange::getCharRange(b, n), sm_, ctx_.getLangOpts(), &invalid);
    return !invalid && t.contains(word);
  }

  // The expression as written in the source; for an expression passed through
  // nested macros (TORCH_CHECK_EQ(x.size(-1), 128)), its spelling.
  std::string text_of(const Expr* e) const {
    CharSourceRange r = Lexer::makeFileCharRange(CharSourceRange::getTokenRange(e->getSourceRange()), sm_, ctx_.getLangOpts());
    if (r.isInvalid()) {
      SourceLocation b = sm_.getSpellingLoc(e->getBeginLoc());
      SourceLocation en = sm_.getSpellingLoc(e->getEndLoc());
      if (sm_.isInMainFile(b) && sm_.isInMainFile(en) && sm_.getFileOffset(b) <= sm_.getFileOffset(en))
        r = CharSourceRange::getTokenRange(b, en);
    }
    if (r.isInvalid()) {
      SourceLocation b = sm_.getFileLoc(e->getBeginLoc());
      SourceLocation en = sm_.getFileLoc(e->getEndLoc());
      r = CharSourceRange::getTokenRange(b, en);
    }
    bool invalid = false;
    llvm::StringRef t = Lexer::getSourceText(r, sm_, ctx_.getLangOpts(), &invalid);
    if (invalid) return {};
    std::string s = t.str();
    if (s.size() > 200) s = common::cut_utf8(s, 200) + "...";
    return s;
  }

  void add_name(std::string name, const char* kind, SourceLocation loc) {
    if (name.empty() || loc.isInvalid() || is_internal(name)) return;
    SourceLocation file_loc = sm_.getFileLoc(loc);
    if (!sm_.isInMainFile(file_loc)) return;
    if (sm_.isInMainFile(sm_.getSpellingLoc(loc))) {
      // Written by the source itself (directly or in one of its own macros).
      out_.add_name({std::move(name), kind, line(file_loc)});
      return;
    }
    // From a header's macro: only an object-like macro that stands for the
    // name (#define cudaStreamAttrValue cudaLaunchAttributeValue) counts,
    // under both names.
    if (!loc.isMacroID() || !pp_) return;
    CharSourceRange r = sm_.getImmediateExpansionRange(loc);
    if (r.getBegin() != r.getEnd() || !sm_.isInMainFile(r.getBegin())) return;
    std::string macro = token_at(r.getBegin());
    const IdentifierInfo* id = macro.empty() ? nullptr : pp_->getIdentifierInfo(macro);
    const MacroInfo* mi = id ? pp_->getMacroInfo(id) : nullptr;
    if (!mi || mi->isFunctionLike() || mi->getNumTokens() != 1) return;
    out_.add_name({std::move(name), kind, line(file_loc)});
    if (!macro.empty()) out_.add_name({std::move(macro), kind, line(file_loc)});
  }

  static bool usable(const Expr* e) {
    return e && !e->isTypeDependent() && !e->isValueDependent() && !e->containsErrors();
  }

  std::optional<long long> constant(const Expr* e) const {
    const Expr* s = e->IgnoreParenImpCasts();
    if (!s->getType()->isIntegralOrEnumerationType() || s->getType()->isBooleanType()) return std::nullopt;
    if (s->getType()->isEnumeralType()) return std::nullopt;
    Expr::EvalResult r;
    if (!s->EvaluateAsInt(r, ctx_)) return std::nullopt;
    return r.Val.getInt().getExtValue();
  }

  // Whether an expression reads a size: x.size(0), x.sizes()[1], x.numel(),
  // a parameter or variable named like a dimension, a variable initialised
  // from a size, arithmetic on any of those.
  bool reads_size(const Expr* e, int depth) const {
    if (!e || depth > 8) return false;
    e = e->IgnoreParenCasts();
    if (const auto* mc = dyn_cast<CXXMemberCallExpr>(e)) {
      if (const auto* m = mc->getMethodDecl(); m && m->getIdentifier()) {
        llvm::StringRef n = m->getName();
        if (n == "size" || n == "sizes" || n == "numel" || n == "stride" || n == "strides" || n == "sym_size" ||
            n == "sym_sizes" || n == "sym_numel" || n == "nbytes" || n == "size_bytes")
          return true;
      }
      return false;
    }
    if (const auto* oc = dyn_cast<CXXOperatorCallExpr>(e)) {
      if (oc->getOperator() == OO_Subscript && oc->getNumArgs() >= 1) return reads_size(oc->getArg(0), depth + 1);
      return false;
    }
    if (const auto* ase = dyn_cast<ArraySubscriptExpr>(e)) return reads_size(ase->getBase(), depth + 1);
    if (const auto* dre = dyn_cast<DeclRefExpr>(e)) {
      const auto* vd = dyn_cast<VarDecl>(dre->getDecl());
      if (!vd || vd->getType()->isPointerType()) return false;
      if (isa<ParmVarDecl>(vd)) return dimension_like(vd->getName());
      if (loop_variables_.count(vd)) return false;
      if (const Expr* init = vd->getInit(); init && vd->getType()->isIntegralOrEnumerationType()) {
        if (reads_size(init, depth + 1)) return true;
        if (init->isValueDependent() || !init->isIntegerConstantExpr(ctx_)) return dimension_like(vd->getName());
        return false;  // a named constant (constexpr int TILE = 32) is not a size read
      }
      return vd->getType()->isIntegralOrEnumerationType() && dimension_like(vd->getName());
    }
    if (const auto* me = dyn_cast<MemberExpr>(e)) {
      if (const auto* f = dyn_cast<FieldDecl>(me->getMemberDecl()))
        return f->getType()->isIntegralOrEnumerationType() && dimension_like(f->getName());
      return false;
    }
    if (const auto* bo = dyn_cast<BinaryOperator>(e)) {
      if (bo->isAdditiveOp() || bo->isMultiplicativeOp() || bo->isShiftOp() || bo->getOpcode() == BO_And)
        return reads_size(bo->getLHS(), depth + 1) || reads_size(bo->getRHS(), depth + 1);
      return false;
    }
    if (const auto* co = dyn_cast<ConditionalOperator>(e))
      return reads_size(co->getTrueExpr(), depth + 1) || reads_size(co->getFalseExpr(), depth + 1);
    return false;
  }

 public:
  bool TraverseForStmt(ForStmt* s) {
    if (s) {
      if (const auto* ds = dyn_cast_or_null<DeclStmt>(s->getInit()))
        for (const Decl* d : ds->decls())
          if (const auto* vd = dyn_cast<VarDecl>(d)) loop_variables_.insert(vd);
    }
    return Base::TraverseForStmt(s);
  }

 private:
  void record_size_literal(long long value, const Expr* size_side, SourceLocation at) {
    SourceLocation file_loc = sm_.getFileLoc(at);
    if (!sm_.isInMainFile(file_loc)) return;
    SizeLiteral s;
    s.value = value;
    s.compared_with = text_of(size_side->IgnoreParenImpCasts());
    s.line = line(file_loc);
    out_.add_size_literal(std::move(s));
  }

  void record_conversion(const Expr* from, QualType to, SourceLocation at) {
    if (!from || !usable(from)) return;
    const Expr* src = from->IgnoreParenImpCasts();
    if (isa<FloatingLiteral>(src) || isa<IntegerLiteral>(src)) return;
    QualType ft = from->getType();
    if (!is_float_like(ft) || !is_float_like(to)) return;
    if (ctx_.hasSameUnqualifiedType(ft.getCanonicalType(), to.getCanonicalType())) return;
    SourceLocation file_loc = sm_.getFileLoc(at);
    if (!sm_.isInMainFile(file_loc)) return;
    out_.add_conversion({type_name(ft, policy_), type_name(to, policy_), line(file_loc)});
  }

  void record_conversion_construct(const CXXConstructExpr* e, SourceLocation file_loc) {
    if (!in_device() || e->getNumArgs() != 1) return;
    const Expr* arg = e->getArg(0);
    if (!arg || !usable(arg)) return;
    if (isa<FloatingLiteral>(arg->IgnoreParenImpCasts()) || isa<IntegerLiteral>(arg->IgnoreParenImpCasts())) return;
    QualType ft = arg->IgnoreParenImpCasts()->getType();
    QualType to = e->getType();
    if (!is_float_like(ft) || !is_float_like(to)) return;
    if (ctx_.hasSameUnqualifiedType(ft.getCanonicalType(), to.getCanonicalType())) return;
    out_.add_conversion({type_name(ft, policy_), type_name(to, policy_), line(file_loc)});
  }

  // A stream argument is "explicit" unless it is absent, 0, nullptr, or one
  // of the default-stream handles (cudaStreamLegacy, cudaStreamPerThread).
  bool explicit_stream(const Expr* arg) const {
    if (!arg || isa<CXXDefaultArgExpr>(arg)) return false;
    if (!usable(arg)) return true;
    const Expr* s = arg->IgnoreParenCasts();
    if (s->isNullPointerConstant(ctx_, Expr::NPC_ValueDependentIsNotNull)) return false;
    Expr::EvalResult r;
    if (s->getType()->isIntegralOrEnumerationType() && s->EvaluateAsInt(r, ctx_)) {
      auto v = r.Val.getInt().getExtValue();
      return !(v == 0 || v == 1 || v == 2);
    }
    if (s->isEvaluatable(ctx_)) return false;  // a constant handle: (cudaStream_t)0x2
    return true;
  }

  std::string stream_text(const Expr* arg) const {
    if (!arg || isa<CXXDefaultArgExpr>(arg)) return {};
    return text_of(arg);
  }

  std::string kernel_name(const Expr* e) const {
    if (!e) return {};
    e = e->IgnoreParenCasts();
    if (const auto* uo = dyn_cast<UnaryOperator>(e); uo && uo->getOpcode() == UO_AddrOf)
      e = uo->getSubExpr()->IgnoreParenCasts();
    if (const auto* dre = dyn_cast<DeclRefExpr>(e)) return qualified_name(dre->getDecl());
    if (const auto* ule = dyn_cast<UnresolvedLookupExpr>(e)) return unresolved_name(ule);
    return text_of(e);
  }

  // The value last assigned to config.stream / config.hStream (or config->...)
  // in the enclosing function, for a launch given &config or a pointer to it.
  const Expr* config_stream(const Expr* arg) const {
    const Expr* a = arg->IgnoreParenImpCasts();
    if (const auto* uo = dyn_cast<UnaryOperator>(a); uo && uo->getOpcode() == UO_AddrOf)
      a = uo->getSubExpr()->IgnoreParenImpCasts();
    const auto* dre = dyn_cast<DeclRefExpr>(a);
    if (!dre || frames_.empty() || !frames_.back().fn || !frames_.back().fn->getBody()) return nullptr;
    const ValueDecl* config = dre->getDecl();
    const Expr* found = nullptr;
    std::vector<const Stmt*> work{frames_.back().fn->getBody()};
    while (!work.empty()) {
      const Stmt* st = work.back();
      work.pop_back();
      if (!st) continue;
      if (const auto* bo = dyn_cast<BinaryOperator>(st); bo && bo->getOpcode() == BO_Assign) {
        if (const auto* me = dyn_cast<MemberExpr>(bo->getLHS()->IgnoreParenImpCasts())) {
          const auto* base = dyn_cast<DeclRefExpr>(me->getBase()->IgnoreParenImpCasts());
          const auto* field = me->getMemberDecl();
          if (base && base->getDecl() == config && field->getIdentifier() &&
              (field->getName() == "stream" || field->getName() == "hStream"))
            if (!found || sm_.isBeforeInTranslationUnit(found->getBeginLoc(), bo->getRHS()->getBeginLoc()))
              found = bo->getRHS();
        }
      }
      for (const Stmt* child : st->children()) work.push_back(child);
    }
    return found;
  }

  void record_triple_chevron(const CUDAKernelCallExpr* k, SourceLocation file_loc) {
    KernelLaunch l;
    l.via = "<<<>>>";
    l.line = line(file_loc);
    if (const FunctionDecl* fd = k->getDirectCallee())
      l.kernel = qualified_name(fd);
    else
      l.kernel = kernel_name(k->getCallee());
    if (const CallExpr* cfg = k->getConfig(); cfg && cfg->getNumArgs() >= 4) {
      l.explicit_stream = explicit_stream(cfg->getArg(3));
      l.stream = stream_text(cfg->getArg(3));
    }
    out_.add_launch(std::move(l), column(file_loc));
  }

  void record_api_launch(const CallExpr* e, const std::string& name, SourceLocation file_loc) {
    std::string base = name;
    if (auto p = base.rfind("::"); p != std::string::npos) base = base.substr(p + 2);
    int kernel_arg = -1;
    int stream_arg = -1;
    if (base == "cudaLaunchKernel" || base == "cudaLaunchCooperativeKernel") {
      kernel_arg = 0;
      stream_arg = 5;
    } else if (base == "cuLaunchKernel" || base == "cuLaunchCooperativeKernel") {
      kernel_arg = 0;
      stream_arg = 8;
    } else if (base == "cudaLaunchKernelEx" || base == "cudaLaunchKernelExC" || base == "cuLaunchKernelEx") {
      kernel_arg = 1;
    } else if (base == "cudaLaunchCooperativeKernelMultiDevice") {
      kernel_arg = -1;  // an array of launch parameters, one per device
    } else {
      return;
    }
    KernelLaunch l;
    l.via = base;
    l.line = line(file_loc);
    if (kernel_arg >= 0 && static_cast<unsigned>(kernel_arg) < e->getNumArgs()) l.kernel = kernel_name(e->getArg(kernel_arg));
    if (stream_arg >= 0 && static_cast<unsigned>(stream_arg) < e->getNumArgs()) {
      l.explicit_stream = explicit_stream(e->getArg(stream_arg));
      l.stream = stream_text(e->getArg(stream_arg));
    } else if (stream_arg < 0 && e->getNumArgs() > 0) {
      // cudaLaunchKernelEx(&config, ...): the stream is config.stream (hStream for the driver API).
      if (const Expr* s = config_stream(e->getArg(0))) {
        l.explicit_stream = explicit_stream(s);
        l.stream = stream_text(s);
      }
    }
    out_.add_launch(std::move(l), column(file_loc));
  }

  ASTContext& ctx_;
  SourceManager& sm_;
  const Preprocessor* pp_;
  Collector& out_;
  PrintingPolicy policy_;
  std::vector<Frame> frames_;
  std::unordered_set<const DeclRefExpr*> callee_refs_;
  std::unordered_set<const CXXConstructExpr*> explicit_constructs_;
  std::unordered_set<const VarDecl*> loop_variables_;
};

class FactsConsumer : public ASTConsumer {
 public:
  FactsConsumer(const Preprocessor& pp, Collector& out, Clock::time_point deadline, bool* stopped)
      : pp_(pp), out_(out), deadline_(deadline), stopped_(stopped) {}

  void Initialize(ASTContext& ctx) override { ctx_ = &ctx; }
  bool HandleTopLevelDecl(DeclGroupRef group) override {
    for (Decl* d : group) decls_.push_back(d);
    if (Clock::now() > deadline_) {
      // The time budget is spent: read what was parsed and stop parsing.
      *stopped_ = true;
      visit_all();
      return false;
    }
    return true;
  }
  void HandleTranslationUnit(ASTContext&) override { visit_all(); }
  // Bodies of functions in headers are not parsed (constexpr functions and
  // deduced return types excepted, see Sema::canSkipFunctionBody): facts come
  // from the source only, and a header outside the precompiled prelude
  // (thrust, cub, cooperative groups) then costs its declarations only.
  bool shouldSkipFunctionBody(Decl* d) override {
    const SourceManager& sm = pp_.getSourceManager();
    return !sm.isInMainFile(sm.getFileLoc(d->getLocation()));
  }

 private:
  void visit_all() {
    if (!ctx_ || visited_) return;
    visited_ = true;
    FactsVisitor v(*ctx_, &pp_, out_);
    const SourceManager& sm = ctx_->getSourceManager();
    for (Decl* d : decls_) {
      if (!d) continue;
      // Declarations from the source itself (macro expansions in it included).
      if (!sm.isInMainFile(sm.getFileLoc(d->getLocation()))) continue;
      v.TraverseDecl(d);
    }
    out_.facts.parsed = true;
  }

  const Preprocessor& pp_;
  Collector& out_;
  Clock::time_point deadline_;
  bool* stopped_;
  ASTContext* ctx_ = nullptr;
  bool visited_ = false;
  std::vector<Decl*> decls_;
};

class FactsAction : public ASTFrontendAction {
 public:
  FactsAction(Collector& out, Clock::time_point deadline, bool* stopped)
      : out_(out), deadline_(deadline), stopped_(stopped) {}

 protected:
  bool BeginSourceFileAction(CompilerInstance& ci) override {
    ci.getFrontendOpts().SkipFunctionBodies = true;  // asks FactsConsumer::shouldSkipFunctionBody
    ci.getPreprocessor().addPPCallbacks(std::make_unique<IncludeRecorder>(ci.getSourceManager(), out_, deadline_));
    return true;
  }
  std::unique_ptr<ASTConsumer> CreateASTConsumer(CompilerInstance& ci, llvm::StringRef) override {
    return std::make_unique<FactsConsumer>(ci.getPreprocessor(), out_, deadline_, stopped_);
  }

 private:
  Collector& out_;
  Clock::time_point deadline_;
  bool* stopped_;
};

std::string main_file_path(const SourceFile& file) {
  // Quoted includes resolve next to the file (or next to the .py it came from).
  namespace fs = std::filesystem;
  std::error_code ec;
  std::string name = file.path.empty() ? std::string("source.cu") : file.path;
  if (file.embedded()) {
    fs::path origin = fs::absolute(fs::path(file.origin_path), ec);
    if (ec) origin = fs::path(kRoot) / "input" / "solution.py";
    std::string leaf = fs::path(name).filename().string();
    if (leaf.empty()) leaf = "source.cu";
    return (origin.parent_path() / leaf).string();
  }
  fs::path p = fs::absolute(fs::path(name), ec);
  if (ec || p.filename().empty()) p = fs::path(kRoot) / "input" / "source.cu";
  return p.string();
}

// One pass over the source. Returns false when the PCH was rejected (the
// caller retries without it).
bool run_pass(const SourceFile& file, Pass pass, bool cccl, const FrontOptions& options, Collector& out,
              std::shared_ptr<const std::string> pch, Clock::time_point deadline) {
  bool pch_failed = false;
  bool stopped = false;
  const bool ran = run_safely([&] {
    Vfs vfs = make_vfs();
    const std::string path = main_file_path(file);
    vfs.memory->addFile(path, 0, llvm::MemoryBuffer::getMemBufferCopy(file.text, path));
    auto args = base_args(pass, options);
    if (pch) {
      vfs.memory->addFile(kPchPath, 0,
                          llvm::MemoryBuffer::getMemBuffer(llvm::StringRef(pch->data(), pch->size()), kPchPath, false));
      args.push_back("-include-pch");
      args.push_back(kPchPath);
    } else {
      args.push_back("-include");
      args.push_back(cccl ? kCcclPreludePath : kPreludePath);
    }
    args.push_back(path);
    llvm::IntrusiveRefCntPtr<FileManager> files(new FileManager(FileSystemOptions(), vfs.fs));
    ErrorCollector diags(out);
    tooling::ToolInvocation invocation(args, std::make_unique<FactsAction>(out, deadline, &stopped), files.get());
    invocation.setDiagnosticConsumer(&diags);
    try {
      invocation.run();
    } catch (const OutOfTime&) {
      stopped = true;
    }
    pch_failed = diags.pch_failed && pch != nullptr && !out.facts.parsed;
  });
  if (!ran) out.add_error(0, std::string("kaudit: the C++ front crashed in the ") +
                                 (pass == Pass::host ? "host" : "device") + " pass; facts are partial");
  if (stopped) out.add_error(0, "kaudit: the time budget of the C++ front was spent; the rest of the file was not read");
  return !pch_failed;
}

}  // namespace

Facts read_facts(const SourceFile& file, const FrontOptions& options) {
  try {
    std::vector<Pass> passes{Pass::host};
    if (file.language != Language::cpp && file.text.find("__CUDA_ARCH__") != std::string::npos)
      passes.push_back(Pass::device);
    // thrust and cub are large: they get a precompiled prelude of their own,
    // used only by sources that mention them.
    const bool cccl = file.text.find("thrust") != std::string::npos || file.text.find("cub/") != std::string::npos ||
                      file.text.find("cub.cuh") != std::string::npos;
    for (int attempt = 0; attempt < 2; ++attempt) {
      const bool use_pch = attempt == 0;
      // The precompiled preludes first (built once, or read from disk), so
      // that the time budget is the source's own.
      std::vector<std::shared_ptr<const std::string>> pchs;
      for (Pass pass : passes) pchs.push_back(use_pch ? prelude_pch(pass, cccl, options) : nullptr);
      const auto deadline = Clock::now() + std::chrono::milliseconds(std::max(1, options.time_limit_ms));
      Collector out;
      bool rejected = false;
      for (size_t i = 0; i < passes.size(); ++i) {
        if (passes[i] == Pass::device && Clock::now() > deadline) {
          out.add_error(0, "kaudit: the time budget of the C++ front was spent before the device pass");
          break;
        }
        if (!run_pass(file, passes[i], cccl, options, out, pchs[i], deadline)) {
          forget_pch(passes[i], cccl, options);
          rejected = true;
          break;
        }
      }
      if (rejected) continue;
      out.finish();
      return std::move(out.facts);
    }
  } catch (const std::exception& e) {
    Facts f;
    f.errors.push_back({0, std::string("kaudit: the C++ front failed: ") + e.what()});
    return f;
  } catch (...) {
  }
  Facts f;
  f.errors.push_back({0, "kaudit: the C++ front failed"});
  return f;
}

}  // namespace kaudit::analyzer::cxx
