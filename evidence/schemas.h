// The schema string of every document one stage of kaudit writes and the
// next reads (DESIGN.md, "Data flows one way"; docs/report-format.md).
// Changing a document's shape means a new version here.
#pragma once

namespace kaudit::evidence {

inline constexpr const char* kSubmissionSchema = "kaudit-submission/1";  // submission.json
inline constexpr const char* kAnalysisSchema = "kaudit-analysis/1";      // analysis.json (kaudit analyze)
inline constexpr const char* kRunSchema = "kaudit-run/1";                // run.json (kaudit run)
inline constexpr const char* kTraceSchema = "kaudit-trace/1";            // trace.json (tracer/journal_format.h)
inline constexpr const char* kVerdictSchema = "kaudit-verdict/1";        // verdict.json
inline constexpr const char* kAuditSchema = "kaudit-audit/1";            // summary.json (kaudit audit)
inline constexpr const char* kAuditInputsSchema = "kaudit-audit-inputs/1";  // inputs.json (audit/batch_folder.h)
inline constexpr const char* kRulesSchema = "kaudit-rules/1";            // rule packs (rules/packs/*.json)
inline constexpr const char* kHardwareSchema = "kaudit-hardware/1";      // rules/hardware/*.json

}  // namespace kaudit::evidence
