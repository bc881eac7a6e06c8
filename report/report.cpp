#include "report/report.h"

#include "evidence/json_file.h"

namespace kaudit::report {

void write_reports(const std::filesystem::path& out_dir) {
  const Batch batch = load_batch(out_dir);
  evidence::write_text_file(out_dir / "report.md", render_markdown(batch));
  evidence::write_text_file(out_dir / "report.html", render_html(batch));
}

}  // namespace kaudit::report
