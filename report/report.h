// The batch reports of `kaudit audit` and `kaudit verdict`: OUT_DIR/report.md
// and OUT_DIR/report.html, read from the batch folder (report/batch.h;
// docs/report-format.md, "Batch reports"). The HTML file is self-contained:
// inline CSS and SVG, no script, no network.
#pragma once

#include "report/batch.h"

#include <filesystem>
#include <string>

namespace kaudit::report {

// Writes OUT_DIR/report.md and OUT_DIR/report.html. Renders whatever exists;
// throws std::runtime_error only when summary.json itself is unreadable (or
// a report cannot be written).
void write_reports(const std::filesystem::path& out_dir);

std::string render_markdown(const Batch& batch);
std::string render_html(const Batch& batch);

}  // namespace kaudit::report
