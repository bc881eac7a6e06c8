#!/usr/bin/env bash
# Scaffolds a new family of runtime findings judged from one shape's probe
# evidence, as scripts/add_check.sh does for a static check:
#   scripts/add_runtime_finding.sh [--root DIR] ID CATEGORY [SOURCE]
#     ID         the finding id, kebab-case: my-new-finding
#     CATEGORY   cheat | benchmark_aware | suspicious | info
#     SOURCE     probe (default) | timing
#     --root     the repository to write into (default: this script's repository);
#                the add_runtime_finding_scaffold test points it at a scratch copy.
# Creates runner/judge/findings/<id_with_underscores>.cpp (a family that reports
# nothing yet, with a stub of its catalog entry), appends
# KAUDIT_RUNTIME_FINDING(<name>) to runner/judge/findings/finding_list.def,
# creates tests/runner/findings/<name>_test.cpp (a case that must report the id,
# failing until the family does, and one that must not), and prints what is
# left to do by hand. Refuses to overwrite anything.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
if [[ "${1:-}" == "--root" ]]; then
  root="$(cd "$2" && pwd)"
  shift 2
fi
if [[ $# -ne 2 && $# -ne 3 ]]; then
  sed -n '4,9p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2
  exit 2
fi
id="$1" category="$2" source="${3:-probe}"

[[ "$id" =~ ^[a-z][a-z0-9]*(-[a-z0-9]+)*$ ]] || { echo "add_runtime_finding: ID must be kebab-case (my-new-finding): $id" >&2; exit 2; }
case "$category" in cheat|benchmark_aware|suspicious|info) ;; *)
  echo "add_runtime_finding: CATEGORY must be cheat, benchmark_aware, suspicious or info: $category" >&2; exit 2 ;;
esac
# Trace findings are judged over a whole trace (runner/judge/trace_summary.cpp),
# not from one shape's probe evidence, so they are no family of this list.
case "$source" in probe|timing) ;; *)
  echo "add_runtime_finding: SOURCE must be probe or timing: $source" >&2; exit 2 ;;
esac
name="${id//-/_}"
camel="$(sed -E 's/(^|_)([a-z0-9])/\U\2/g' <<<"$name")"
findings="$root/runner/judge/findings"
source_file="$findings/$name.cpp"
list="$findings/finding_list.def"
test_file="$root/tests/runner/findings/${name}_test.cpp"

[[ -f "$list" ]] || { echo "add_runtime_finding: no $list" >&2; exit 1; }
[[ ! -e "$source_file" ]] || { echo "add_runtime_finding: $source_file exists" >&2; exit 1; }
[[ ! -e "$test_file" ]] || { echo "add_runtime_finding: $test_file exists" >&2; exit 1; }
! grep -q "^KAUDIT_RUNTIME_FINDING($name)\$" "$list" || { echo "add_runtime_finding: $name is already in $list" >&2; exit 1; }
# One catalog entry an id: the runner's catalog is runner/judge/finding_catalog.cpp and the families' files.
if grep -rqF "{\"$id\"," "$root/runner/judge"; then
  echo "add_runtime_finding: $id already has an entry in the runner's catalog ($(grep -rlF "{\"$id\"," "$root/runner/judge" | sed "s|^$root/||" | head -1))" >&2
  exit 1
fi

cat > "$source_file" <<CPP
// $id: TODO one sentence on what this family finds in a shape's probe evidence.
#include "runner/judge/findings/families.h"

namespace kaudit::run {

using rules::Category;
using rules::Confidence;
using rules::Source;

void judge_${name}(ShapeJudge& judge) {
  // TODO: read judge.evidence() (ShapeEvidence: what the harness reported of this shape; a new fact
  // comes from the harness, CONTRIBUTING.md "A probe") and the pack's thresholds (judge.fresh(), or a new
  // field of rules::Thresholds: never a number written here), then
  // judge.add("$id", judge.shape() + ", <where>", "On " + judge.shape() + " <what was seen>.").
  (void)judge;
}

std::vector<rules::FindingInfo> ${name}_catalog() {
  return {
    {"$id", Category::$category, Confidence::medium, 0,  // TODO: how sure a finding is
     "TODO: a one-line summary.",
     "TODO: one paragraph: what the probe measures, why it matters to a benchmark, and what it leaves alone.",
     "TODO: how a person confirms a finding by hand (what to call, what to compare).", Source::$source},
  };
}

}  // namespace kaudit::run
CPP

echo "KAUDIT_RUNTIME_FINDING($name)" >> "$list"

mkdir -p "$(dirname "$test_file")"
cat > "$test_file" <<CPP
// $id: the family in runner/judge/findings/$name.cpp, through probe_findings().
#include "rules/rule_pack.h"
#include "runner/judge/finding_catalog.h"
#include "runner/judge/probe_findings.h"

#include <gtest/gtest.h>

#include <algorithm>

using namespace kaudit::run;

namespace {

// The default rule pack's thresholds, as a run on a GPU takes them.
FreshThresholds pack_fresh() {
  const kaudit::rules::Thresholds& t = kaudit::rules::default_rule_pack().thresholds;
  return {t.fresh_over_bench, t.fresh_gap_ms};
}

// A shape whose every probe saw an honest submission.
ShapeEvidence honest() {
  ShapeEvidence e;
  e.correctness_counts = {{"calls", 5}};
  for (const char* m : {"bench", "fresh", "rewrite"}) e.modes[m] = {true, 1.0, 0.9, {{"calls", 10}}};
  return e;
}

bool reports(const std::vector<kaudit::rules::Finding>& fs) {
  return std::any_of(fs.begin(), fs.end(), [](const auto& f) { return f.id == "$id"; });
}

}  // namespace

TEST(${camel}Finding, IsInTheCatalog) { EXPECT_NE(find_runner_finding("$id"), nullptr); }

TEST(${camel}Finding, HonestEvidenceHasNone) { EXPECT_FALSE(reports(probe_findings(honest(), "s.py", pack_fresh()))); }

// TODO: the evidence of the offence; fails until judge_${name}() reports it.
TEST(${camel}Finding, ReportsTheOffence) {
  ShapeEvidence e = honest();
  EXPECT_TRUE(reports(probe_findings(e, "s.py", pack_fresh())));
}
CPP

cat <<MSG
Created:
  ${source_file#$root/}
  ${test_file#$root/} (ReportsTheOffence fails until the family reports $id)
Added KAUDIT_RUNTIME_FINDING($name) to ${list#$root/}: its findings come after those of every family above it.
Left to do by hand:
  1. Fill in the TODOs of the catalog entry and write judge_${name}(); give the test the offence's evidence.
     What the harness must measure for it: CONTRIBUTING.md, "A probe".
  2. Build runner_unit_test and run it (runner/judge/findings/*.cpp and tests/runner/findings/*_test.cpp are
     globbed: the build finds the new files).
  3. Regenerate the finding reference: kaudit explain --all --markdown > docs/findings.md, and add the id
     to the runtime findings' table in docs/runner.md.
  4. Where it confirms a static id, name it in that id's verdict.confirmed_by in rules/packs/default.json
     (docs/rules.md); a new threshold is a field of rules::Thresholds (CONTRIBUTING.md, "A threshold").
MSG
