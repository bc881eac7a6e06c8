#include "tracer/inject/records.h"

#include <cxxabi.h>
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <string_view>
#include <unordered_map>

namespace kaudit::tracer::inject {
namespace {

using nlohmann::json;

// Demangling is slow and names repeat; the cache is used under the
// journal lock (injection.cpp), so it needs no lock of its own.
const std::string& demangled(const char* raw) {
  // Never destroyed: records can arrive while the process exits.
  static auto& cache = *new std::unordered_map<std::string, std::string>();
  auto [it, inserted] = cache.try_emplace(raw);
  if (inserted) {
    int status = 0;
    char* text = abi::__cxa_demangle(raw, nullptr, nullptr, &status);
    if (status == 0 && text != nullptr) it->second = text;
    std::free(text);
  }
  return it->second;  // empty when the name is not mangled
}

void append(const json& line, std::string& out) {
  out += line.dump(-1, ' ', false, json::error_handler_t::replace);
  out += '\n';
}

void kernel_line(const CUpti_ActivityKernel10& k, std::string& out) {
  json j = {{"type", "kernel"},
            {"corr", k.correlationId},
            {"name", k.name != nullptr ? k.name : ""},
            {"grid", {k.gridX, k.gridY, k.gridZ}},
            {"block", {k.blockX, k.blockY, k.blockZ}},
            {"cluster", {k.clusterX, k.clusterY, k.clusterZ}},
            {"regs", k.registersPerThread},
            {"smem_static", k.staticSharedMemory},
            {"smem_dynamic", k.dynamicSharedMemory},
            {"local_per_thread", k.localMemoryPerThread},
            {"device", k.deviceId},
            {"context", k.contextId},
            {"stream", k.streamId},
            {"graph", k.graphId},
            {"graph_node", k.graphNodeId},
            {"start", k.start},
            {"end", k.end}};
  if (k.name != nullptr) {
    const std::string& d = demangled(k.name);
    if (!d.empty()) j["demangled"] = d;
  }
  if (k.isDeviceLaunched != 0) j["device_launched"] = true;
  append(j, out);
}

}  // namespace

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
      append({{"type", "memcpy"}, {"corr", m.correlationId}, {"runtime_corr", m.runtimeCorrelationId}, {"copy_kind", memcpy_kind_name(m.copyKind)},
              {"bytes", m.bytes}, {"device", m.deviceId}, {"context", m.contextId}, {"stream", m.streamId},
              {"graph", m.graphId}, {"graph_node", m.graphNodeId}, {"start", m.start}, {"end", m.end}},
             out);
      return true;
    }
    case CUPTI_ACTIVITY_KIND_MEMSET: {
      const auto& m = *reinterpret_cast<const CUpti_ActivityMemset4*>(record);
      append({{"type", "memset"}, {"corr", m.correlationId}, {"value", m.value}, {"bytes", m.bytes},
              {"device", m.deviceId}, {"context", m.contextId}, {"stream", m.streamId}, {"graph", m.graphId},
              {"graph_node", m.graphNodeId}, {"start", m.start}, {"end", m.end}},
             out);
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
