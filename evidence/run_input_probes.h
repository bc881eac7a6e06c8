// run.json's `input_probes` (docs/runner.md, "Input probes"): the calls on
// shapes near the graded ones and on inputs drawn from other distributions,
// each against the reference, and the probes the reference could not make.
// The runner's judge (runner/judge/input_probes.h) writes it, and the checks
// a run made (run_checks.h) read it, through these types.
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace kaudit::evidence {

// One probe call against the reference.
struct ProbeCall {
  int shape_index = 0;
  int case_index = 0;                // "case"
  std::string status = "not run";    // passed | failed | skipped | raised | not run
  std::string reason;
  // The output check's numbers (max_abs_error, max_rel_error, mismatches,
  // tolerated_mismatches, unwritten_elements, tie_reordered_elements; atol
  // for a distribution case), as CaseCheck's.
  nlohmann::json check = nlohmann::json::object();
  bool non_finite = false;  // failed with NaN or infinity where the reference is finite
  // A call that came back: "seed" where both processes drew its inputs from
  // the seed (large and reproducible), "file" where they were the reference's files.
  std::string inputs_from;
  // An off-grid shape: its values ("shape"), and which size moved where.
  nlohmann::json shape;
  std::string dim, step;  // step: aligned | unaligned
  std::optional<long long> from, to;
  std::string distribution;  // a distribution case: which one
};

// A size the reference refused at every value tried.
struct RejectedSize {
  std::string dim;
  nlohmann::json tried = nlohmann::json::array();
  std::string reason;
};

struct OffGridProbe {
  int budget = 0;
  std::optional<int> base_shape;
  std::string status;  // off | ran | skipped
  std::string reason;  // skipped: why
  std::vector<ProbeCall> shapes;
  std::vector<RejectedSize> rejected;
  std::vector<std::string> not_sizes;  // names whose change changes no input's shape
};

struct SkippedDistribution {
  int shape_index = 0;
  std::string distribution, reason;
};

struct InputProbesRecord {
  bool judged = false;
  std::string reason;  // not judged: why
  OffGridProbe off_grid;
  std::vector<ProbeCall> distributions;
  std::vector<SkippedDistribution> distributions_skipped;
};

nlohmann::json to_json(const ProbeCall& call);
nlohmann::json to_json(const RejectedSize& rejected);
nlohmann::json to_json(const SkippedDistribution& skipped);
nlohmann::json to_json(const OffGridProbe& off_grid);
nlohmann::json to_json(const InputProbesRecord& record);
// Read back leniently (json_fields.h): a field missing or of another type is
// left out; a record that is not an object reads as not judged.
InputProbesRecord input_probes_record_from_json(const nlohmann::json& doc);

}  // namespace kaudit::evidence
