#include "report/report.h"

#include <fstream>
#include <stdexcept>

namespace kaudit::report {
namespace {

// Written to a temporary name and renamed, so that a reader never sees half a report.
void write_file(const std::filesystem::path& file, const std::string& content) {
  const std::filesystem::path tmp = file.string() + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << content;
    if (!out) throw std::runtime_error("cannot write " + tmp.string());
  }
  std::filesystem::rename(tmp, file);
}

}  // namespace

void write_reports(const std::filesystem::path& out_dir) {
  const Batch batch = load_batch(out_dir);
  write_file(out_dir / "report.md", render_markdown(batch));
  write_file(out_dir / "report.html", render_html(batch));
}

}  // namespace kaudit::report
