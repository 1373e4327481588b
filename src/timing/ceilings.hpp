// Speed of light (DESIGN.md §4): the device's measured ceilings, cached per machine, so that every
// result can report the fraction of the ceiling it reached and a result faster than physically
// possible is rejected.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "core/paths.hpp"

namespace kjudge {

struct device_ceilings {
  std::string device;      // "cpu" | "cuda"
  std::string identity;    // CPU model / GPU name the figures belong to
  double copy_gbps = 0.0;  // bytes read + bytes written per second / 1e9, large buffers
  std::optional<double> fp32_gflops, tf32_gflops, bf16_gflops;
  nlohmann::json details;  // method, sizes, repetitions, spread; cpu: the load while measured

  // cpu: other processes used at least max_other_cores of the machine while it was measured
  // (details.load.other_cores): the figure may be low, and is measured again before it is used.
  [[nodiscard]] bool measured_under_load() const;
  static constexpr double max_other_cores = 0.25;

  [[nodiscard]] nlohmann::json to_json() const;
  static device_ceilings from_json(const nlohmann::json& j);
};

// Measures the cpu ceilings here: a multi-threaded copy of buffers far larger than the LLC
// (best of several repetitions, all cores). Takes about a second.
device_ceilings measure_cpu_ceilings();

// The cached ceilings for `device` on this machine (cache_root()/ceilings-<device>.json), if they
// belong to this machine's CPU/GPU; nullopt otherwise.
std::optional<device_ceilings> load_ceilings(const std::string& device, const std::string& identity);
void save_ceilings(const device_ceilings& c);

// This machine's CPU model string (the identity of cpu ceilings).
std::string cpu_identity();

}  // namespace kjudge
