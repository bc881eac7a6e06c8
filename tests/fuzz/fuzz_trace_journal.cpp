// libFuzzer target: the trace journal reader (tracer/trace.h, load_journal),
// which reads what libkaudit_tracer.so wrote inside the submission's process
// (and what that process may have written over it), then what the runner
// makes of the trace: the per-call summaries, the trace document and its
// reading back, the Chrome trace.
#include "tracer/call_summary.h"
#include "tracer/chrome_trace.h"
#include "tracer/families.h"
#include "tracer/trace.h"

#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace kaudit::tracer;
  std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
  // A small limit, so that the cut-short path is taken too.
  Trace trace;
  trace.processes.push_back(load_journal(in, "fuzz.jsonl", 1 << 16));
  const Families& families = Families::builtin();
  for (const auto& s : summarize_calls(trace.processes.front(), families)) (void)to_json(s);
  // The trace document must read back (the runner writes it, kaudit verdict reads it).
  const auto doc = to_json(trace, &families);
  (void)to_json(trace_from_json(nlohmann::json::parse(doc.dump())), &families);
  (void)chrome_trace(trace, families).dump();
  return 0;
}
