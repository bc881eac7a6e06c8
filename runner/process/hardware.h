// Peak rates of a GPU, for % of peak (rules/hardware/*.json, schema
// kaudit-hardware/1, compiled into kaudit). Each rate has a datasheet value
// and, where someone measured it on a real machine, a measured one; the
// report says which it used ("basis").
#pragma once

#include <nlohmann/json.hpp>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace kaudit::run {

struct Hardware {
  std::string name;
  std::vector<std::string> match;  // substrings of the device name that select this file
  double l2_bytes = 0;
  nlohmann::json doc;

  // The peak for `basis` ("measured" or "datasheet"); when the measured one
  // is missing, the datasheet one, and `used` says so. nullopt if neither.
  struct Peak {
    double value = 0;
    std::string basis;
  };
  std::optional<Peak> memory_peak(const std::string& basis) const;
  std::optional<Peak> compute_peak(const std::string& precision, const std::string& basis) const;
};

// The files compiled in (rules/hardware/*.json), by name.
std::vector<Hardware> builtin_hardware();
// By name ("h200") or, failing that, by a device name ("NVIDIA H200").
std::optional<Hardware> find_hardware(const std::string& name_or_device);
Hardware load_hardware(const std::filesystem::path& path);  // throws std::runtime_error
Hardware hardware_from_json(const nlohmann::json& doc);     // throws std::runtime_error

// The largest CPU cache of this machine, from /sys (the last level: L3 on
// most); 32 MiB where /sys does not say. A CPU run's timed calls are each
// preceded by writing twice this much, in every mode, as a GPU run's flush
// the device's L2.
double host_last_level_cache_bytes();

}  // namespace kaudit::run
