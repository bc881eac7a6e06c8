// Names shared by the writer of trace journals (libkaudit_tracer.so) and
// their reader (the trace model): schema strings and environment variables.
#pragma once

namespace kaudit::tracer {

// One journal per traced process: JSON Lines, one record a line, written as
// the process runs so that a crash or os._exit loses only the tail.
inline constexpr const char* kJournalSchema = "kaudit-trace-journal/1";
// The trace document that `kaudit trace -o` writes and the model reads.
inline constexpr const char* kTraceSchema = "kaudit-trace/1";

// Folder where each process writes kaudit-trace.<pid>.jsonl.
inline constexpr const char* kEnvTraceDir = "KAUDIT_TRACE_DIR";
// Or one file name, in which %p becomes the process id.
inline constexpr const char* kEnvTraceFile = "KAUDIT_TRACE_FILE";
// Milliseconds between the tracer's background flushes (default 1000; 0: off).
inline constexpr const char* kEnvFlushMs = "KAUDIT_TRACE_FLUSH_MS";
// "all" (default), "api" or "activity": which parts of the tracer run (docs/tracer.md).
inline constexpr const char* kEnvTraceParts = "KAUDIT_TRACE_PARTS";

}  // namespace kaudit::tracer
