// Reading and writing evidence documents. Writes are atomic (a temporary
// file renamed over the target), so that an interrupted batch never leaves
// half a file that a resumed one would trust.
#pragma once

#include <nlohmann/json.hpp>

#include <filesystem>
#include <optional>
#include <string>

namespace kaudit::evidence {

// The document at `path`, or nothing when it is missing or not valid JSON.
std::optional<nlohmann::json> read_json_file(const std::filesystem::path& path);
// The same, telling a missing file from one that is there but cannot be
// trusted (truncated, not JSON, unreadable): evidence that must be reported,
// not taken for absent.
struct JsonDocument {
  enum Status { missing, ok, corrupt } status = missing;
  nlohmann::json doc;  // when ok
  std::string error;   // when corrupt: why
};
JsonDocument read_json_document(const std::filesystem::path& path);
// Writes `doc` (indented) to `path` through `path`.tmp; throws std::runtime_error on failure.
void write_json_file(const std::filesystem::path& path, const nlohmann::json& doc);
// Writes `text` to `path` the same way (through `path`.tmp, renamed).
void write_text_file(const std::filesystem::path& path, const std::string& text);
// The whole file as bytes; empty when it cannot be read.
std::string read_text_file(const std::filesystem::path& path);

}  // namespace kaudit::evidence
