// What the harness may say on the channel, event by event: the fields each
// message must carry and their types. Everything a child writes there is
// data from a process the submission can reach, so a message of an unknown
// event or with a field of the wrong type is refused here, before any step
// reads it, and counts as a protocol violation.
#pragma once

#include <nlohmann/json.hpp>

#include <cstddef>
#include <map>
#include <string>

namespace kaudit::run {

enum class Speaker { reference, submission };

// Empty when `m` is a well-formed message `speaker` may send; else why not.
std::string malformed_message(const nlohmann::json& m, Speaker speaker);

// A message's `key` object of named measures (seconds by part, MiB by
// kind): what of it is a number from 0 to 1e12 under a name of at most 40
// letters, digits or underscores, at most kMaxMeasures of them; nothing
// else. Diagnostics a child reports of itself: never evidence.
constexpr std::size_t kMaxMeasures = 16;
std::map<std::string, double> measures_of(const nlohmann::json& m, const char* key);

}  // namespace kaudit::run
