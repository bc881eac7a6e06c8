// What the harness may say on the channel, event by event: the fields each
// message must carry and their types. Everything a child writes there is
// data from a process the submission can reach, so a message of an unknown
// event or with a field of the wrong type is refused here, before any step
// reads it, and counts as a protocol violation.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

namespace kaudit::run {

enum class Speaker { reference, submission };

// Empty when `m` is a well-formed message `speaker` may send; else why not.
std::string malformed_message(const nlohmann::json& m, Speaker speaker);

}  // namespace kaudit::run
