#include "tracer/inject/records.h"

#include "tracer/inject/json_line.h"

#include <cxxabi.h>
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <string_view>
#include <unordered_map>

namespace kaudit::tracer::inject {
namespace {

using nlohmann::json;

// A kernel name as JSON, raw and demangled. Demangling and escaping are slow
// and names repeat; callers hold the journal lock (injection.cpp), so the
// cache needs no lock of its own.
struct Name {
  std::string raw_json;
  std::string demangled_json;  // empty when the name is not mangled
};

const Name& name_of(const char* raw) {
  // Never destroyed: records can arrive while the process exits.
  static auto& cache = *new std::unordered_map<std::string, Name>();
  auto [it, inserted] = cache.try_emplace(raw != nullptr ? raw : "");
  if (inserted) {
    append_json_string(it->second.raw_json, it->first);
    int status = 0;
    char* text = raw != nullptr ? abi::__cxa_demangle(raw, nullptr, nullptr, &status) : nullptr;
    if (status == 0 && text != nullptr) append_json_string(it->second.demangled_json, text);
    std::free(text);
  }
  return it->second;
}

// The fields kernels, copies and fills share: where they ran and when.
template <typename Record>
void where_and_when(JsonLine& line, const Record& r) {
  line.num("device", r.deviceId)
      .num("context", r.contextId)
      .num("stream", r.streamId)
      .num("graph", r.graphId)
      .num("graph_node", r.graphNodeId)
      .num("start", r.start)
      .num("end", r.end);
}

void kernel_line(const CUpti_ActivityKernel10& k, std::string& out) {
  const Name& name = name_of(k.name);
  JsonLine line(out, "kernel");
  line.num("corr", k.correlationId)
      .raw("name", name.raw_json)
      .triple("grid", k.gridX, k.gridY, k.gridZ)
      .triple("block", k.blockX, k.blockY, k.blockZ)
      .triple("cluster", k.clusterX, k.clusterY, k.clusterZ)
      .num("regs", k.registersPerThread)
      .num("smem_static", k.staticSharedMemory)
      .num("smem_dynamic", k.dynamicSharedMemory)
      .num("local_per_thread", k.localMemoryPerThread);
  where_and_when(line, k);
  if (!name.demangled_json.empty()) line.raw("demangled", name.demangled_json);
  if (k.isDeviceLaunched != 0) line.boolean("device_launched", true);
}

void append(const json& line, std::string& out) {
  out += line.dump(-1, ' ', false, json::error_handler_t::replace);
  out += '\n';
}

}  // namespace

void append_json_string(std::string& out, std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  out += '"';
  for (size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      if (c == '"' || c == '\\') {
        out += '\\';
        out += static_cast<char>(c);
      } else if (c < 0x20 || c == 0x7f) {
        out += "\\u00";
        out += kHex[c >> 4];
        out += kHex[c & 15];
      } else {
        out += static_cast<char>(c);
      }
      ++i;
      continue;
    }
    // A multi-byte sequence: copied when well formed, else U+FFFD for its first byte.
    size_t len = c >= 0xf0 && c <= 0xf4 ? 4 : c >= 0xe0 ? 3 : c >= 0xc2 && c <= 0xdf ? 2 : 0;
    if (len == 3 && c > 0xef) len = 0;
    bool ok = len != 0 && i + len <= s.size();
    for (size_t k = 1; ok && k < len; ++k) ok = (static_cast<unsigned char>(s[i + k]) & 0xc0) == 0x80;
    if (ok && len == 3) {  // no overlong forms, no surrogates
      const auto c1 = static_cast<unsigned char>(s[i + 1]);
      ok = !(c == 0xe0 && c1 < 0xa0) && !(c == 0xed && c1 >= 0xa0);
    }
    if (ok && len == 4) {
      const auto c1 = static_cast<unsigned char>(s[i + 1]);
      ok = !(c == 0xf0 && c1 < 0x90) && !(c == 0xf4 && c1 >= 0x90);
    }
    if (ok) {
      out.append(s.data() + i, len);
      i += len;
    } else {
      out += "\xef\xbf\xbd";
      ++i;
    }
  }
  out += '"';
}

const char* memcpy_kind_name(unsigned kind) {
  switch (kind) {
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOD: return "HtoD";
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOH: return "DtoH";
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOA: return "HtoA";
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOH: return "AtoH";
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOA: return "AtoA";
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOD: return "AtoD";
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOA: return "DtoA";
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOD: return "DtoD";
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOH: return "HtoH";
    case CUPTI_ACTIVITY_MEMCPY_KIND_PTOP: return "PtoP";
    default: return "unknown";
  }
}

bool append_record_line(const CUpti_Activity* record, std::string& out) {
  switch (record->kind) {
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
      kernel_line(*reinterpret_cast<const CUpti_ActivityKernel10*>(record), out);
      return true;
    case CUPTI_ACTIVITY_KIND_MEMCPY: {
      const auto& m = *reinterpret_cast<const CUpti_ActivityMemcpy6*>(record);
      JsonLine line(out, "memcpy");
      line.num("corr", m.correlationId)
          .num("runtime_corr", m.runtimeCorrelationId)
          .str("copy_kind", memcpy_kind_name(m.copyKind))
          .num("bytes", m.bytes);
      where_and_when(line, m);
      return true;
    }
    case CUPTI_ACTIVITY_KIND_MEMSET: {
      const auto& m = *reinterpret_cast<const CUpti_ActivityMemset4*>(record);
      JsonLine line(out, "memset");
      line.num("corr", m.correlationId).num("value", m.value).num("bytes", m.bytes);
      where_and_when(line, m);
      return true;
    }
    case CUPTI_ACTIVITY_KIND_MARKER: {
      const auto& m = *reinterpret_cast<const CUpti_ActivityMarker2*>(record);
      append({{"type", "marker"}, {"id", m.id}, {"flags", static_cast<unsigned>(m.flags)},
              {"name", m.name != nullptr ? m.name : ""}, {"domain", m.domain != nullptr ? m.domain : ""},
              {"ts", m.timestamp}},
             out);
      return true;
    }
    case CUPTI_ACTIVITY_KIND_DEVICE: {
      const auto& d = *reinterpret_cast<const CUpti_ActivityDevice5*>(record);
      append({{"type", "device"}, {"id", d.id}, {"name", d.name != nullptr ? d.name : ""},
              {"cc", std::to_string(d.computeCapabilityMajor) + "." + std::to_string(d.computeCapabilityMinor)},
              {"sms", d.numMultiprocessors}, {"memory_bytes", d.globalMemorySize}, {"l2_bytes", d.l2CacheSize},
              {"memory_bandwidth_kbps", d.globalMemoryBandwidth}},
             out);
      return true;
    }
    case CUPTI_ACTIVITY_KIND_OVERHEAD:
      return true;  // not recorded
    default:
      return false;
  }
}

}  // namespace kaudit::tracer::inject
