#!/usr/bin/env bash
# Scaffolds a new analyzer check, in the manner of clang-tidy's add_new_check.py:
#   scripts/add_check.sh [--root DIR] ID CATEGORY LANGUAGES
#     ID         the finding id, kebab-case: my-new-check
#     CATEGORY   cheat | benchmark_aware | suspicious | info
#     LANGUAGES  python | cxx | python,cxx
#     --root     the repository to write into (default: this script's repository);
#                the add_check_scaffold test points it at a scratch copy.
# Creates analyzer/checks/<id_with_underscores>.cpp (a check that reports
# nothing yet), appends KAUDIT_CHECK(<name>) to analyzer/checks/check_list.def,
# creates tests/analyzer/checks/<id>/ with a positive and a negative fixture,
# gives a cheat or benchmark_aware id its verdict policy entry (in
# verdict.static_leads of rules/packs/default.json: it never decides until a
# person moves it to static_decides or confirmed_by), and prints what is left
# to do by hand. Refuses to overwrite anything.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
if [[ "${1:-}" == "--root" ]]; then
  root="$(cd "$2" && pwd)"
  shift 2
fi
if [[ $# -ne 3 ]]; then
  sed -n '2,12p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2
  exit 2
fi
id="$1" category="$2" languages="$3"

[[ "$id" =~ ^[a-z][a-z0-9]*(-[a-z0-9]+)*$ ]] || { echo "add_check: ID must be kebab-case (my-new-check): $id" >&2; exit 2; }
case "$category" in cheat|benchmark_aware|suspicious|info) ;; *)
  echo "add_check: CATEGORY must be cheat, benchmark_aware, suspicious or info: $category" >&2; exit 2 ;;
esac
case "$languages" in
  python) langs="kPython" ;;
  cxx) langs="kCxx" ;;
  python,cxx|cxx,python) langs="kPython | kCxx" ;;
  *) echo "add_check: LANGUAGES must be python, cxx or python,cxx: $languages" >&2; exit 2 ;;
esac
name="${id//-/_}"
source_file="$root/analyzer/checks/$name.cpp"
list="$root/analyzer/checks/check_list.def"
tests="$root/tests/analyzer/checks/$id"

[[ -f "$list" ]] || { echo "add_check: no $list" >&2; exit 1; }
[[ ! -e "$source_file" ]] || { echo "add_check: $source_file exists" >&2; exit 1; }
[[ ! -e "$tests" ]] || { echo "add_check: $tests exists" >&2; exit 1; }
! grep -q "^KAUDIT_CHECK($name)\$" "$list" || { echo "add_check: $name is already in $list" >&2; exit 1; }

cat > "$source_file" <<CPP
// $id: TODO one sentence on what this check finds.
#include "analyzer/checks/factories.h"
#include "analyzer/checks/pattern_helpers.h"

namespace kaudit::analyzer {
namespace {

using rules::Category;
using rules::Confidence;

const CheckInfo kInfo{
    "$id",
    Category::$category,
    Confidence::high,  // TODO: how sure a finding of this check is
    $langs,
    "TODO: a one-line title",
    "TODO: one paragraph: what the check looks for, why it matters to a benchmark, and what it leaves alone.",
    "TODO: how a reviewer confirms a finding (what to open, what to run)."};

class $(sed -E 's/(^|_)([a-z])/\U\2/g' <<<"$name")Check : public Check {
 public:
  const CheckInfo& info() const override { return kInfo; }

  void run(const Submission& submission, const Context& context, FindingSink& sink) const override {
    // TODO: read submission.python (python::Module: calls(), functions(), reach_of(), on_forward_path())
    // and submission.cxx (cxx::Facts), then sink.report(kInfo, file, line, column, message, symbol).
    (void)submission;
    (void)context;
    (void)sink;
  }
};

}  // namespace

std::unique_ptr<Check> make_${name}_check() { return std::make_unique<$(sed -E 's/(^|_)([a-z])/\U\2/g' <<<"$name")Check>(); }

}  // namespace kaudit::analyzer
CPP

echo "KAUDIT_CHECK($name)" >> "$list"

# The verdict policy entry (tests/unit/policy_test.cpp requires one for ids
# that could decide): a lead until someone decides otherwise.
pack="$root/rules/packs/default.json"
policy_note="$id needs no verdict policy entry (category $category never decides)."
if [[ "$category" == cheat || "$category" == benchmark_aware ]]; then
  [[ -f "$pack" ]] || { echo "add_check: no $pack" >&2; exit 1; }
  grep -q '"static_leads": \[' "$pack" || { echo "add_check: $pack has no verdict.static_leads" >&2; exit 1; }
  sed -i -E "s/^( *)\"static_leads\": \[\]/\1\"static_leads\": [\"$id\"]/; t; s/^( *)\"static_leads\": \[/\1\"static_leads\": [\"$id\", /" "$pack"
  policy_note="Added $id to verdict.static_leads in rules/packs/default.json: it never decides until you move it
     to static_decides (its presence is the offence) or confirmed_by (runtime ids that confirm it); docs/rules.md."
fi

mkdir -p "$tests"
cat > "$tests/positive.py" <<PY
# $id: TODO code that the check must report (the expectation sits on the line).
import torch


class ModelNew(torch.nn.Module):
    def forward(self, x):
        return x  # expect: $id
PY
cat > "$tests/negative.py" <<PY
# $id: TODO code that looks alike but must not be reported.
import torch


class ModelNew(torch.nn.Module):
    def forward(self, x):
        return x
PY

cat <<MSG
Created:
  ${source_file#$root/}
  ${tests#$root/}/positive.py (expects $id; fails until the check reports it)
  ${tests#$root/}/negative.py
Added KAUDIT_CHECK($name) to ${list#$root/}.
Left to do by hand:
  1. Fill in the TODOs of kInfo and write run(); make the fixtures real (CONTRIBUTING.md, "Inline expectations").
  2. Re-run cmake's configure (checks/*.cpp is globbed), build, and run expectations_test.
  3. Regenerate the finding reference: kaudit explain --all --markdown > docs/findings.md
  4. $policy_note
MSG
