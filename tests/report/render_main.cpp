// report_render OUT_DIR: writes OUT_DIR/report.md and OUT_DIR/report.html, as
// kaudit audit does at the end of a batch. Used by the browser test.
#include "report/report.h"

#include <exception>
#include <iostream>

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: report_render OUT_DIR\n";
    return 2;
  }
  try {
    kaudit::report::write_reports(argv[1]);
  } catch (const std::exception& e) {
    std::cerr << "report_render: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
