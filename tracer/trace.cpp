#include "tracer/trace.h"

#include "tracer/families.h"
#include "tracer/flat_line.h"
#include "tracer/journal_format.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string_view>
#include <system_error>
#include <thread>
#include <unordered_map>

namespace kaudit::tracer {
namespace {

using nlohmann::json;

template <typename T>
T get(const json& j, const char* key, T fallback = T{}) {
  const auto it = j.find(key);
  if (it == j.end() || it->is_null()) return fallback;
  if constexpr (std::is_arithmetic_v<T> && !std::is_same_v<T, bool>)
    if (it->is_number_float() && !fits_in<T>(it->template get<double>())) return fallback;
  try {
    return it->get<T>();
  } catch (const json::exception&) {
    return fallback;
  }
}

template <typename T>
T get(const FlatLine& line, const char* key, T fallback = T{}) {
  return line.get<T>(key, fallback);
}

std::array<int, 3> dim3_of(const FlatLine& line, const char* key) { return line.dim3(key); }

std::array<int, 3> dim3_of(const json& j, const char* key) {
  std::array<int, 3> d{1, 1, 1};
  const auto it = j.find(key);
  if (it == j.end() || !it->is_array() || it->size() != 3) return d;
  for (const auto& v : *it)
    if (v.is_number_float() && !fits_in<int>(v.get<double>())) return d;
  for (size_t i = 0; i < 3; ++i) d[i] = (*it)[i].get<int>();
  return d;
}

// ---- one reader and one writer per record, shared by journals and documents
Launcher launcher_from(const json& j) {
  return {get<uint32_t>(j, "id"), get<std::string>(j, "api"), get<std::string>(j, "object"),
          get<std::string>(j, "symbol"), get<std::string>(j, "how"), get<std::vector<std::string>>(j, "chain")};
}
json to_json(const Launcher& l) {
  return {{"id", l.id},         {"api", l.api}, {"object", l.object},
          {"symbol", l.symbol}, {"how", l.how}, {"chain", l.chain}};
}

// Launch and kernel lines are read from documents and from flat lines alike.
template <typename Line>
Launch launch_from(const Line& j) {
  Launch l;
  l.corr = get<uint32_t>(j, "corr");
  l.parent = get<uint32_t>(j, "parent");
  l.launcher = get<uint32_t>(j, "launcher");
  l.call = get<uint32_t>(j, "call");
  l.api = get<std::string>(j, "api");
  l.tid = get<uint32_t>(j, "tid");
  l.enter = get<uint64_t>(j, "enter");
  l.exit = get<uint64_t>(j, "exit");
  l.captured = get<bool>(j, "captured");
  l.status = get<int>(j, "status");
  return l;
}
json to_json(const Launch& l) {
  json j = {{"corr", l.corr}, {"launcher", l.launcher}, {"call", l.call}, {"api", l.api},
            {"tid", l.tid},   {"enter", l.enter},       {"exit", l.exit}};
  if (l.parent != 0) j["parent"] = l.parent;
  if (l.captured) j["captured"] = true;
  if (l.status != 0) j["status"] = l.status;
  return j;
}

template <typename Line>
Kernel kernel_from(const Line& j) {
  Kernel k;
  k.name = get<std::string>(j, "name");
  k.demangled = get<std::string>(j, "demangled");
  k.grid = dim3_of(j, "grid");
  k.block = dim3_of(j, "block");
  k.cluster = dim3_of(j, "cluster");
  k.regs = get<int>(j, "regs");
  k.smem_static = get<int>(j, "smem_static");
  k.smem_dynamic = get<int>(j, "smem_dynamic");
  k.local_per_thread = get<uint32_t>(j, "local_per_thread");
  k.device = get<uint32_t>(j, "device");
  k.context = get<uint32_t>(j, "context");
  k.stream = get<uint32_t>(j, "stream");
  k.graph = get<uint32_t>(j, "graph");
  k.graph_node = get<uint64_t>(j, "graph_node");
  k.start = get<uint64_t>(j, "start");
  k.end = get<uint64_t>(j, "end");
  k.corr = get<uint32_t>(j, "corr");
  k.device_launched = get<bool>(j, "device_launched");
  k.launcher = get<uint32_t>(j, "launcher");
  k.call = get<uint32_t>(j, "call");
  k.api = get<std::string>(j, "api");
  k.tid = get<uint32_t>(j, "tid");
  k.api_enter = get<uint64_t>(j, "api_enter");
  return k;
}
json to_json(const Kernel& k) {
  json j = {{"name", k.name},
            {"grid", k.grid},
            {"block", k.block},
            {"cluster", k.cluster},
            {"regs", k.regs},
            {"smem_static", k.smem_static},
            {"smem_dynamic", k.smem_dynamic},
            {"local_per_thread", k.local_per_thread},
            {"device", k.device},
            {"context", k.context},
            {"stream", k.stream},
            {"graph", k.graph},
            {"graph_node", k.graph_node},
            {"start", k.start},
            {"end", k.end},
            {"corr", k.corr},
            {"launcher", k.launcher},
            {"call", k.call},
            {"api", k.api},
            {"tid", k.tid},
            {"api_enter", k.api_enter}};
  if (!k.demangled.empty()) j["demangled"] = k.demangled;
  if (k.device_launched) j["device_launched"] = true;
  return j;
}

Transfer transfer_from(const json& j, std::string kind) {
  Transfer t;
  t.kind = std::move(kind);
  t.copy_kind = get<std::string>(j, "copy_kind");
  t.bytes = get<uint64_t>(j, "bytes");
  t.device = get<uint32_t>(j, "device");
  t.context = get<uint32_t>(j, "context");
  t.stream = get<uint32_t>(j, "stream");
  t.graph = get<uint32_t>(j, "graph");
  t.graph_node = get<uint64_t>(j, "graph_node");
  t.start = get<uint64_t>(j, "start");
  t.end = get<uint64_t>(j, "end");
  t.corr = get<uint32_t>(j, "corr");
  t.runtime_corr = get<uint32_t>(j, "runtime_corr");
  t.call = get<uint32_t>(j, "call");
  t.api = get<std::string>(j, "api");
  t.tid = get<uint32_t>(j, "tid");
  t.api_enter = get<uint64_t>(j, "api_enter");
  return t;
}
json to_json(const Transfer& t) {
  json j = {{"kind", t.kind},     {"bytes", t.bytes}, {"device", t.device}, {"context", t.context},
            {"stream", t.stream}, {"graph", t.graph}, {"graph_node", t.graph_node}, {"start", t.start},
            {"end", t.end},       {"corr", t.corr},   {"call", t.call},     {"api", t.api},
            {"tid", t.tid},       {"api_enter", t.api_enter}};
  if (!t.copy_kind.empty()) j["copy_kind"] = t.copy_kind;
  if (t.runtime_corr != 0) j["runtime_corr"] = t.runtime_corr;
  return j;
}

Call call_from(const json& j) {
  Call c;
  c.id = get<uint32_t>(j, "call", get<uint32_t>(j, "id"));
  c.phase = get<std::string>(j, "phase");
  c.shape = get<std::string>(j, "shape");
  c.mode = get<std::string>(j, "mode");
  c.index = get<int64_t>(j, "index");
  c.begin = get<uint64_t>(j, "begin", get<uint64_t>(j, "ts"));
  c.end = get<uint64_t>(j, "end");
  c.tid = get<uint32_t>(j, "tid");
  c.implicit_end = get<bool>(j, "implicit_end");
  return c;
}
json to_json(const Call& c) {
  json j = {{"id", c.id},       {"phase", c.phase}, {"shape", c.shape}, {"mode", c.mode},
            {"index", c.index}, {"begin", c.begin}, {"end", c.end},     {"tid", c.tid}};
  if (c.implicit_end) j["implicit_end"] = true;
  return j;
}

Module module_from(const json& j) {
  return {get<uint32_t>(j, "id"), get<uint64_t>(j, "cubin_bytes"), get<std::string>(j, "loader"),
          get<std::vector<std::string>>(j, "chain"), get<uint64_t>(j, "ts")};
}
json to_json(const Module& m) {
  return {{"id", m.id}, {"cubin_bytes", m.cubin_bytes}, {"loader", m.loader}, {"chain", m.chain}, {"ts", m.ts}};
}

Stream stream_from(const json& j) {
  return {get<uint32_t>(j, "id"), get<std::string>(j, "creator"), get<uint64_t>(j, "ts"), get<uint32_t>(j, "tid")};
}
json to_json(const Stream& s) { return {{"id", s.id}, {"creator", s.creator}, {"ts", s.ts}, {"tid", s.tid}}; }

Device device_from(const json& j) {
  return {get<uint32_t>(j, "id"),  get<std::string>(j, "name"),       get<std::string>(j, "cc"),
          get<uint32_t>(j, "sms"), get<uint64_t>(j, "memory_bytes"), get<uint64_t>(j, "l2_bytes")};
}
json to_json(const Device& d) {
  return {{"id", d.id},   {"name", d.name},   {"cc", d.cc}, {"sms", d.sms}, {"memory_bytes", d.memory_bytes},
          {"l2_bytes", d.l2_bytes}};
}

Marker marker_from(const json& j) {
  return {get<uint32_t>(j, "id"), get<std::string>(j, "name"), get<std::string>(j, "domain"), get<uint64_t>(j, "ts")};
}
json to_json(const Marker& m) { return {{"id", m.id}, {"name", m.name}, {"domain", m.domain}, {"ts", m.ts}}; }

GraphNode graph_node_from(const json& j) {
  return {get<uint64_t>(j, "node"),     get<uint32_t>(j, "graph"),       get<std::string>(j, "node_type"),
          get<uint32_t>(j, "corr"),     get<uint32_t>(j, "launcher"),    get<std::string>(j, "object"),
          get<uint32_t>(j, "call"),     get<uint64_t>(j, "original")};
}
json to_json(const GraphNode& g) {
  json j = {{"node", g.node}, {"graph", g.graph}, {"node_type", g.node_type},
            {"corr", g.corr}, {"launcher", g.launcher}, {"call", g.call}};
  if (!g.object.empty()) j["object"] = g.object;
  if (g.original != 0) j["original"] = g.original;
  return j;
}

Note note_from(const json& j) { return {get<std::string>(j, "level", "info"), get<std::string>(j, "text")}; }
json to_json(const Note& n) { return {{"level", n.level}, {"text", n.text}}; }

template <typename T, typename F>
std::vector<T> list_from(const json& j, const char* key, F f) {
  std::vector<T> out;
  if (const auto it = j.find(key); it != j.end() && it->is_array())
    for (const json& e : *it) out.push_back(f(e));
  return out;
}

template <typename T>
json list_json(const std::vector<T>& items) {
  json a = json::array();
  for (const T& item : items) a.push_back(to_json(item));
  return a;
}

// ---- joining and loss accounting, once every line of a journal is read
// What the journal lost, as notes: launches without a kernel record, kernels
// without an end, dropped records, an ending without the exit flush.
void note_losses(Process& p, const std::unordered_map<uint32_t, size_t>& records_by_root) {
  // Launches that should have produced a kernel and did not: a second CUPTI
  // client took the activity stream, records were dropped, or the process
  // ended before they were delivered.
  size_t missing = 0;
  for (const Launch& l : p.launches) {
    if (l.parent != 0 || l.captured || l.status != 0) continue;
    const bool kernel_api = l.api.find("Launch") != std::string::npos;
    if (kernel_api && records_by_root.find(l.corr) == records_by_root.end()) ++missing;
  }
  size_t unfinished = 0;
  for (const Kernel& k : p.kernels)
    if (k.start == 0 || k.end == 0) ++unfinished;

  if (p.cupti_seen && p.end_reason.empty())
    p.notes.push_back({"loss", "the process ended without the tracer's exit flush (os._exit, a crash or a kill): "
                               "records after the last periodic flush are missing"});
  if (p.end_reason == "signal")
    p.notes.push_back({"loss", "the process died of signal " + std::to_string(p.end_signal) +
                                   ": records not yet delivered by CUPTI are missing"});
  if (p.dropped > 0)
    p.notes.push_back({"loss", "CUPTI dropped " + std::to_string(p.dropped) + " activity records"});
  if (missing > 0)
    p.notes.push_back({"loss", std::to_string(missing) +
                                   " launches have no kernel record: another CUPTI client (such as torch.profiler) "
                                   "took the activity stream, or the records were lost"});
  if (unfinished > 0)
    p.notes.push_back({"loss", std::to_string(unfinished) +
                                   " kernel records are incomplete (the kernel had not finished when the process "
                                   "ended)"});
  if (!p.cupti_seen && !p.calls.empty())
    p.notes.push_back({"info", "CUDA was never initialised in this process: the calls it marked ran no GPU work"});
}

void join(Process& p, std::unordered_map<uint64_t, uint64_t>& clone_of) {
  std::unordered_map<uint32_t, const Launch*> by_corr;
  by_corr.reserve(p.launches.size());
  for (const Launch& l : p.launches) by_corr[l.corr] = &l;
  // Nodes added to a graph explicitly (not captured) name their object;
  // give each such object a launcher of its own.
  uint32_t next_id = 1;
  for (const Launcher& l : p.launchers) next_id = std::max(next_id, l.id + 1);
  std::map<std::string, uint32_t> explicit_ids;
  for (GraphNode& g : p.graph_nodes) {
    if (auto c = clone_of.find(g.node); c != clone_of.end()) g.original = c->second;
    if (g.launcher != 0 || g.object.empty()) continue;
    auto [it, inserted] = explicit_ids.try_emplace(g.object, next_id);
    if (inserted) p.launchers.push_back({next_id++, "graph node", g.object, "", "stack", {g.object}});
    g.launcher = it->second;
  }
  std::unordered_map<uint64_t, const GraphNode*> node_by_id;
  for (const GraphNode& g : p.graph_nodes) node_by_id[g.node] = &g;
  // Instantiating a graph creates its executable nodes (no launch on the
  // stack, so they name only the instantiating object) and reports each as
  // a clone of a captured node: follow clones back to the node whose capture
  // saw the launch, and fall back to the first node found.
  auto node_tag = [&](uint64_t id) -> const GraphNode* {
    const GraphNode* fallback = nullptr;
    for (int hops = 0; hops < 16; ++hops) {
      if (auto it = node_by_id.find(id); it != node_by_id.end()) {
        if (it->second->corr != 0) return it->second;
        if (fallback == nullptr) fallback = it->second;
      }
      auto c = clone_of.find(id);
      if (c == clone_of.end()) break;
      id = c->second;
    }
    return fallback;
  };
  // The outermost launch API of a nested group (cudaLaunchKernel and the
  // cuLaunchKernel it made): GPU records may carry either id.
  auto root_of = [&](uint32_t corr) {
    for (int hops = 0; hops < 8; ++hops) {
      auto it = by_corr.find(corr);
      if (it == by_corr.end() || it->second->parent == 0) return corr;
      corr = it->second->parent;
    }
    return corr;
  };

  std::unordered_map<uint32_t, size_t> records_by_root;
  for (Kernel& k : p.kernels) {
    ++records_by_root[root_of(k.corr)];
    if (auto it = by_corr.find(k.corr); it != by_corr.end()) {
      const Launch& l = *it->second;
      k.launcher = l.launcher;
      if (k.launcher == 0 && l.parent != 0)
        if (auto pit = by_corr.find(l.parent); pit != by_corr.end()) k.launcher = pit->second->launcher;
      k.call = l.call;
      k.api = l.api;
      k.tid = l.tid;
      k.api_enter = l.enter;
    }
    if (k.graph != 0 && k.graph_node != 0) {
      // A replayed node keeps the launcher of the launch that was captured.
      if (const GraphNode* tag = node_tag(k.graph_node); tag != nullptr && tag->launcher != 0)
        k.launcher = tag->launcher;
    }
  }
  for (Transfer& t : p.transfers) {
    const uint32_t corr = t.runtime_corr != 0 && by_corr.count(t.runtime_corr) != 0 ? t.runtime_corr : t.corr;
    ++records_by_root[root_of(corr)];
    if (auto it = by_corr.find(corr); it != by_corr.end()) {
      t.call = it->second->call;
      t.api = it->second->api;
      t.tid = it->second->tid;
      t.api_enter = it->second->enter;
    }
  }

  note_losses(p, records_by_root);
}

// Records mostly arrive in order already: a sort of a million kernels moves
// hundreds of megabytes, so it runs only where needed.
template <typename T, typename Less>
void stable_sort_unless_sorted(std::vector<T>& v, Less less) {
  if (!std::is_sorted(v.begin(), v.end(), less)) std::stable_sort(v.begin(), v.end(), less);
}

void sort_by_time(Process& p) {
  stable_sort_unless_sorted(p.kernels, [](const Kernel& a, const Kernel& b) { return a.start < b.start; });
  stable_sort_unless_sorted(p.transfers, [](const Transfer& a, const Transfer& b) { return a.start < b.start; });
  stable_sort_unless_sorted(p.launches, [](const Launch& a, const Launch& b) { return a.corr < b.corr; });
}

}  // namespace

const Launcher* Process::launcher(uint32_t id) const {
  for (const Launcher& l : launchers)
    if (l.id == id) return &l;
  return nullptr;
}

const Call* Process::call(uint32_t id) const {
  for (const Call& c : calls)
    if (c.id == id) return &c;
  return nullptr;
}

namespace {

// The process's identity, as journals' first line and trace documents hold it.
void read_identity(Process& p, const json& j) {
  p.pid = get<long>(j, "pid");
  p.ppid = get<long>(j, "ppid");
  p.forked_from = get<long>(j, "forked_from");
  p.exe = get<std::string>(j, "exe");
  p.argv = get<std::vector<std::string>>(j, "argv");
  p.unix_time_ns = get<int64_t>(j, "unix_time_ns");
}

// One journal line into the process. Throws json::exception on a field of
// the wrong type (the caller counts the line as unreadable).
void read_line(Process& p, const json& j, std::map<uint32_t, size_t>& call_index,
               std::unordered_map<uint64_t, uint64_t>& clone_of, bool& saw_header) {
  const std::string type = get<std::string>(j, "type");
  if (type == "process") {
    saw_header = true;
    if (get<std::string>(j, "schema") != kJournalSchema)
      p.notes.push_back({"warning", "unknown journal schema '" + get<std::string>(j, "schema") + "'"});
    read_identity(p, j);
  } else if (type == "cupti") {
    p.cupti_seen = true;
    p.cupti_api_version = get<uint32_t>(j, "api_version");
    p.cupti_compiled_version = get<uint32_t>(j, "compiled_api_version");
    p.driver_version = get<int>(j, "driver_version");
    p.subscribed = get<bool>(j, "subscribed");
  } else if (type == "launcher") {
    p.launchers.push_back(launcher_from(j));
  } else if (type == "launch") {
    p.launches.push_back(launch_from(j));
  } else if (type == "kernel") {
    p.kernels.push_back(kernel_from(j));
  } else if (type == "memcpy" || type == "memset") {
    p.transfers.push_back(transfer_from(j, type));
  } else if (type == "call_begin") {
    call_index[get<uint32_t>(j, "call")] = p.calls.size();
    p.calls.push_back(call_from(j));
  } else if (type == "call_end") {
    if (auto it = call_index.find(get<uint32_t>(j, "call")); it != call_index.end()) {
      p.calls[it->second].end = get<uint64_t>(j, "ts");
      p.calls[it->second].implicit_end = get<bool>(j, "implicit");
    }
  } else if (type == "module") {
    p.modules.push_back(module_from(j));
  } else if (type == "stream") {
    p.streams.push_back(stream_from(j));
  } else if (type == "device") {
    p.devices.push_back(device_from(j));
  } else if (type == "marker") {
    p.markers.push_back(marker_from(j));
  } else if (type == "graph_node") {
    p.graph_nodes.push_back(graph_node_from(j));
  } else if (type == "graph_node_clone") {
    clone_of[get<uint64_t>(j, "node")] = get<uint64_t>(j, "original");
  } else if (type == "note") {
    p.notes.push_back(note_from(j));
  } else if (type == "end") {
    p.end_reason = get<std::string>(j, "reason");
    p.end_signal = get<int>(j, "signal");
    p.dropped = get<uint64_t>(j, "dropped", p.dropped);
    p.launches_counted = get<uint64_t>(j, "launches");
  }
  // thread, graph_exec and future line types are not part of the model yet
}

// One stretch of a journal's lines, parsed on its own thread: launches and
// kernels read without a document (FlatLine), every other line as a document
// (read into the process later, in order, as it may refer to earlier lines).
struct ParsedChunk {
  enum class Kind : uint8_t { kernel, launch, document, bad };
  std::vector<std::pair<Kind, uint32_t>> order;  // each line: what it became, and its index in that list
  std::vector<Kernel> kernels;
  std::vector<Launch> launches;
  std::vector<json> documents;
};

void parse_chunk(std::string_view text, ParsedChunk& out) {
  // Reserved, not touched: no list is copied as it grows.
  const auto lines = static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n')) + 1;
  out.order.reserve(lines);
  out.kernels.reserve(lines);
  out.launches.reserve(lines);
  FlatLine flat;
  auto add = [&](ParsedChunk::Kind kind, std::size_t index) {
    out.order.emplace_back(kind, static_cast<uint32_t>(index));
  };
  for (std::size_t at = 0; at < text.size();) {
    std::size_t end = text.find('\n', at);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = text.substr(at, end - at);
    at = end + 1;
    if (line.empty()) continue;
    if (flat.parse(line)) {
      const std::string type = flat.get<std::string>("type");
      if (type == "kernel") {
        out.kernels.push_back(kernel_from(flat));
        add(ParsedChunk::Kind::kernel, out.kernels.size() - 1);
        continue;
      }
      if (type == "launch") {
        out.launches.push_back(launch_from(flat));
        add(ParsedChunk::Kind::launch, out.launches.size() - 1);
        continue;
      }
    }
    try {
      out.documents.push_back(json::parse(line));
      add(ParsedChunk::Kind::document, out.documents.size() - 1);
    } catch (const json::exception&) {
      add(ParsedChunk::Kind::bad, 0);
    }
  }
}

// Journals of a million lines and more take seconds to parse: big ones are
// cut at line ends into a chunk per thread (at most 8).
constexpr std::size_t kBytesPerThread = 8u << 20;

std::vector<ParsedChunk> parse_journal_text(std::string_view text) {
  const std::size_t threads =
      std::clamp<std::size_t>(std::min<std::size_t>(std::thread::hardware_concurrency(), text.size() / kBytesPerThread),
                              1, 8);
  std::vector<std::string_view> pieces;
  for (std::size_t at = 0, i = 0; at < text.size(); ++i) {
    std::size_t end = i + 1 == threads ? text.size() : std::max(at, text.size() * (i + 1) / threads);
    end = text.find('\n', end);
    end = end == std::string_view::npos ? text.size() : end + 1;
    pieces.push_back(text.substr(at, end - at));
    at = end;
  }
  std::vector<ParsedChunk> chunks(pieces.size());
  std::vector<std::thread> helpers;
  for (std::size_t i = 1; i < pieces.size(); ++i) {
    try {
      helpers.emplace_back(parse_chunk, pieces[i], std::ref(chunks[i]));
    } catch (const std::system_error&) {
      parse_chunk(pieces[i], chunks[i]);  // no thread to spare: parsed here
    }
  }
  if (!pieces.empty()) parse_chunk(pieces[0], chunks[0]);
  for (auto& h : helpers) h.join();
  return chunks;
}

}  // namespace

Process load_journal(std::istream& in, const std::string& source, std::size_t max_bytes) {
  Process p;
  p.source = source;
  std::unordered_map<uint64_t, uint64_t> clone_of;
  std::map<uint32_t, size_t> call_index;
  size_t bad_lines = 0;
  bool saw_header = false;
  // Past max_bytes the rest is left unread (the runner then finds calls
  // missing and calls the trace incomplete).
  std::string text;
  // Read into one allocation of the stream's size where it can be known.
  if (const auto begin = in.tellg(); begin >= 0 && in.seekg(0, std::ios::end)) {
    const auto size = static_cast<std::size_t>(in.tellg() - begin);
    in.seekg(begin);
    text.reserve(std::min(size, max_bytes) + 1);
  }
  in.clear();
  while (text.size() < max_bytes && in.peek() != std::char_traits<char>::eof()) {
    // Straight into the text: all of it at once where its size was known.
    const std::size_t at = text.size();
    text.resize(at + std::min(std::max<std::size_t>(text.capacity() - at, 1 << 20), max_bytes - at));
    in.read(text.data() + at, static_cast<std::streamsize>(text.size() - at));
    text.resize(at + static_cast<std::size_t>(std::max<std::streamsize>(in.gcount(), 0)));
    if (text.size() == at) break;
  }
  const bool cut = in.good() && in.peek() != std::char_traits<char>::eof();
  if (cut) text.resize(text.rfind('\n') == std::string::npos ? 0 : text.rfind('\n') + 1);
  // Lines go into the process in the journal's order. A line cut short by a
  // crash, or one the traced process wrote itself with fields of the wrong
  // type, is skipped and counted, never the end of the whole trace (which
  // would hide every finding it holds).
  std::vector<ParsedChunk> chunks = parse_journal_text(text);
  std::string().swap(text);  // the chunks own what they read: a journal's text can be a gigabyte
  std::size_t kernels = 0, launches = 0;
  for (const ParsedChunk& chunk : chunks) {
    kernels += chunk.kernels.size();
    launches += chunk.launches.size();
  }
  p.kernels.reserve(kernels);
  p.launches.reserve(launches);
  for (ParsedChunk& chunk : chunks) {
    for (const auto& [kind, index] : chunk.order) {
      switch (kind) {
        case ParsedChunk::Kind::kernel: p.kernels.push_back(std::move(chunk.kernels[index])); break;
        case ParsedChunk::Kind::launch: p.launches.push_back(std::move(chunk.launches[index])); break;
        case ParsedChunk::Kind::bad: ++bad_lines; break;
        case ParsedChunk::Kind::document:
          try {
            read_line(p, chunk.documents[index], call_index, clone_of, saw_header);
          } catch (const json::exception&) {
            ++bad_lines;
          }
          break;
      }
    }
  }
  if (!saw_header) p.notes.push_back({"warning", "journal has no process line"});
  if (cut)
    p.notes.push_back({"loss", "the journal is larger than " + std::to_string(max_bytes) +
                                   " bytes: only its first lines were read"});
  if (bad_lines > 0)
    p.notes.push_back({"loss", std::to_string(bad_lines) + " journal lines were unreadable (cut short, or fields of the wrong type)"});
  join(p, clone_of);
  sort_by_time(p);
  return p;
}

Process load_journal_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read " + path);
  return load_journal(in, path);
}

Trace load_journal_dir(const std::string& dir) {
  Trace trace;
  namespace fs = std::filesystem;
  std::error_code ec;
  for (const fs::directory_entry& e : fs::directory_iterator(dir, ec)) {
    const std::string name = e.path().filename().string();
    if (name.rfind("kaudit-trace.", 0) == 0 && e.path().extension() == ".jsonl")
      trace.processes.push_back(load_journal_file(e.path().string()));
  }
  if (ec) throw std::runtime_error("cannot list " + dir + ": " + ec.message());
  std::sort(trace.processes.begin(), trace.processes.end(),
            [](const Process& a, const Process& b) { return a.pid < b.pid; });
  return trace;
}

Trace load_trace_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read " + path);
  std::stringstream text;
  text << in.rdbuf();
  const std::string content = text.str();
  // A journal's first line is a complete object of type "process".
  const std::string first = content.substr(0, content.find('\n'));
  try {
    const json head = json::parse(first);
    if (head.is_object() && head.value("type", "") == "process") {
      std::istringstream lines(content);
      Trace trace;
      trace.processes.push_back(load_journal(lines, path));
      return trace;
    }
  } catch (const json::exception&) {
    // not a single-line object: a document
  }
  try {
    return trace_from_json(json::parse(content));
  } catch (const json::exception& e) {
    throw std::runtime_error(path + ": " + e.what());
  }
}

json to_json(const Trace& trace, const Families* families) {
  json processes = json::array();
  for (const Process& p : trace.processes) {
    json kernels = list_json(p.kernels);
    if (families != nullptr) {
      for (size_t i = 0; i < p.kernels.size(); ++i) {
        const Kernel& k = p.kernels[i];
        const Launcher* l = p.launcher(k.launcher);
        const LibraryMatch lib = families->library_of(l != nullptr ? l->object : "", k.display_name());
        kernels[i]["library"] = lib.name;
        kernels[i]["role"] = to_string(lib.role);
        kernels[i]["family"] = families->family_of(k.display_name());
      }
    }
    json j = {{"pid", p.pid},
              {"ppid", p.ppid},
              {"exe", p.exe},
              {"argv", p.argv},
              {"unix_time_ns", p.unix_time_ns},
              {"cupti", {{"seen", p.cupti_seen},
                         {"subscribed", p.subscribed},
                         {"api_version", p.cupti_api_version},
                         {"compiled_api_version", p.cupti_compiled_version},
                         {"driver_version", p.driver_version}}},
              {"end", {{"reason", p.end_reason}, {"signal", p.end_signal}}},
              {"complete", p.complete()},
              {"dropped_records", p.dropped},
              {"launches_counted", p.launches_counted},
              {"source", p.source},
              {"devices", list_json(p.devices)},
              {"launchers", list_json(p.launchers)},
              {"calls", list_json(p.calls)},
              {"launches", list_json(p.launches)},
              {"kernels", std::move(kernels)},
              {"transfers", list_json(p.transfers)},
              {"modules", list_json(p.modules)},
              {"streams", list_json(p.streams)},
              {"markers", list_json(p.markers)},
              {"graph_nodes", list_json(p.graph_nodes)},
              {"notes", list_json(p.notes)}};
    if (p.forked_from != 0) j["forked_from"] = p.forked_from;
    processes.push_back(std::move(j));
  }
  json doc = {{"schema", kTraceSchema}, {"command", trace.command}, {"processes", std::move(processes)},
              {"notes", list_json(trace.notes)}};
  doc["exit_status"] = trace.exit_status ? json(*trace.exit_status) : json(nullptr);
  return doc;
}

Trace trace_from_json(const json& doc) {
  if (!doc.is_object() || doc.value("schema", "") != kTraceSchema)
    throw std::runtime_error(std::string("not a trace document (expected \"schema\": \"") + kTraceSchema + "\")");
  Trace trace;
  trace.command = get<std::vector<std::string>>(doc, "command");
  if (const auto it = doc.find("exit_status"); it != doc.end() && it->is_number_integer())
    trace.exit_status = it->get<int>();
  trace.notes = list_from<Note>(doc, "notes", note_from);
  for (const json& j : doc.value("processes", json::array())) {
    Process p;
    read_identity(p, j);
    const json cupti = j.value("cupti", json::object());
    p.cupti_seen = get<bool>(cupti, "seen");
    p.subscribed = get<bool>(cupti, "subscribed");
    p.cupti_api_version = get<uint32_t>(cupti, "api_version");
    p.cupti_compiled_version = get<uint32_t>(cupti, "compiled_api_version");
    p.driver_version = get<int>(cupti, "driver_version");
    const json end = j.value("end", json::object());
    p.end_reason = get<std::string>(end, "reason");
    p.end_signal = get<int>(end, "signal");
    p.dropped = get<uint64_t>(j, "dropped_records");
    p.launches_counted = get<uint64_t>(j, "launches_counted");
    p.source = get<std::string>(j, "source");
    p.devices = list_from<Device>(j, "devices", device_from);
    p.launchers = list_from<Launcher>(j, "launchers", launcher_from);
    p.calls = list_from<Call>(j, "calls", call_from);
    p.launches = list_from<Launch>(j, "launches", launch_from<json>);
    p.kernels = list_from<Kernel>(j, "kernels", kernel_from<json>);
    p.transfers = list_from<Transfer>(j, "transfers",
                                      [](const json& e) { return transfer_from(e, get<std::string>(e, "kind")); });
    p.modules = list_from<Module>(j, "modules", module_from);
    p.streams = list_from<Stream>(j, "streams", stream_from);
    p.markers = list_from<Marker>(j, "markers", marker_from);
    p.graph_nodes = list_from<GraphNode>(j, "graph_nodes", graph_node_from);
    p.notes = list_from<Note>(j, "notes", note_from);
    trace.processes.push_back(std::move(p));
  }
  return trace;
}

}  // namespace kaudit::tracer
