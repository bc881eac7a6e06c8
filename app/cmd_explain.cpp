// kaudit explain ID | --list | --all [--markdown]
#include "app/commands.h"
#include "audit/finding_catalog.h"

#include <iostream>
#include <stdexcept>
#include <string>

namespace kaudit::app {

void add_explain_command(CLI::App& app, int& exit_code) {
  struct Args {
    std::string id;
    bool list = false, all = false, markdown = false;
  };
  auto args = std::make_shared<Args>();
  CLI::App* cmd = app.add_subcommand("explain", "What a finding id means and how to confirm it by hand");
  cmd->add_option("ID", args->id, "finding id, e.g. banned-call");
  cmd->add_flag("--list", args->list, "list every finding id with its summary");
  cmd->add_flag("--all", args->all, "explain every finding id");
  cmd->add_flag("--markdown", args->markdown, "with --all: print docs/findings.md");
  cmd->callback([args, &exit_code] {
    const auto& all = audit::finding_catalog().entries();
    if (args->list) {
      for (const auto& e : all)
        std::cout << e.id << "\t" << rules::to_string(e.first().category) << "\t" << e.first().summary << "\n";
      exit_code = 0;
      return;
    }
    if (args->all) {
      if (args->markdown) {
        std::cout << audit::findings_markdown();
      } else {
        for (const auto& e : all) std::cout << audit::explain_text(e) << "\n";
      }
      exit_code = 0;
      return;
    }
    if (args->id.empty()) {
      std::cerr << "kaudit explain: give a finding id, --list or --all\n";
      exit_code = 2;
      return;
    }
    try {
      std::cout << audit::explain(args->id);
      exit_code = 0;
    } catch (const std::invalid_argument& e) {
      std::cerr << "kaudit explain: " << e.what() << "\n";
      exit_code = 2;
    }
  });
}

}  // namespace kaudit::app
