// What a batch audits: submissions given as paths (with one problem for
// all) or listed in a manifest (each with its problem and the verdict a
// person expects), each with a unique evidence-folder key.
#pragma once

#include <nlohmann/json.hpp>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace kaudit::audit {

struct AuditItem {
  std::filesystem::path source;             // the solution .py (or .cu/.cpp: analysed, not run)
  std::optional<std::filesystem::path> problem;
  nlohmann::json expected;                  // from a manifest: {"result":..., "integrity":...}, or null
  std::string key;                          // evidence folder name, unique in the batch
};

// Items from submission paths (a solution file, or a folder holding
// solution.py or other .py files) with one problem for all.
std::vector<AuditItem> items_from_paths(const std::vector<std::string>& paths,
                                        const std::optional<std::filesystem::path>& problem);
// Items from a manifest (kernels/corpus/manifest.json's schema); paths in it
// are relative to the current folder, or absolute. Throws on a malformed manifest.
std::vector<AuditItem> items_from_manifest(const std::filesystem::path& manifest);

// A slice of a batch for one machine (kaudit audit --shard I/N): shard
// `index` of `count`, numbered from 0.
struct Shard {
  int index = 0;
  int count = 1;
};
// Parses "I/N" with 0 <= I < N; throws std::invalid_argument saying why.
Shard parse_shard(const std::string& text);
// The items of one shard: every count-th item from the index-th, in the
// order of their keys (unique in a batch, and the same on every machine
// for the same manifest or paths), kept in the batch's order. The shards of
// one batch are disjoint and together hold every item.
std::vector<AuditItem> shard_items(const std::vector<AuditItem>& items, const Shard& shard);
// What a shard's summary records of the whole batch it came from
// (summary.json `shard.inputs`, docs/audit.md): a digest of every item's key,
// path and problem in order, their number, and each item's key, path,
// problem and expectation, so that a merge can tell whether shards belong
// together and name what a missing shard held.
nlohmann::json batch_inputs(const std::vector<AuditItem>& items);

// A manifest's label against a verdict. A submission labelled clean whose
// run ends in an error matches "unverified": without a completed run its
// integrity cannot be shown (rules/verdict.h), only not found wanting.
bool verdict_matches(const nlohmann::json& expected, const nlohmann::json& result, const nlohmann::json& integrity);

}  // namespace kaudit::audit
