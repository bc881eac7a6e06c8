// CUPTI activity records as journal lines (JSON objects, one a line). Runs
// on CUPTI's worker thread or the flushing thread, never on a launch.
#pragma once

#include <cupti.h>

#include <string>

namespace kaudit::tracer::inject {

// Appends one line for `record` to `out`. Kinds the tracer does not record
// are skipped. Returns false for a kind the tracer did not expect.
bool append_record_line(const CUpti_Activity* record, std::string& out);

// "HtoD", "DtoD", ... for CUpti_ActivityMemcpyKind.
const char* memcpy_kind_name(unsigned kind);

}  // namespace kaudit::tracer::inject
