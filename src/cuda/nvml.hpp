// NVML through dlopen (libnvidia-ml.so.1): clocks, temperature, power and throttle reasons for
// the environment of every result. Loaded at run time so that nothing links the driver's
// libraries; where it is missing or fails, every field says "unavailable" instead of guessing.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace kjudge::cuda {

class nvml {
 public:
  // Opens NVML and finds the device with this PCI bus id ("0000:17:00.0", cudaDeviceGetPCIBusId).
  explicit nvml(const std::string& pci_bus_id);
  nvml(const nvml&) = delete;
  nvml& operator=(const nvml&) = delete;
  ~nvml();

  [[nodiscard]] bool available() const { return m_device != nullptr; }
  [[nodiscard]] const std::string& why_unavailable() const { return m_error; }
  // Static facts: driver version, max clocks, power limit, persistence mode.
  [[nodiscard]] nlohmann::json facts() const;
  // The moment's state: SM and memory clocks (MHz), temperature (C), power draw and limit (W),
  // active throttle reasons by name.
  [[nodiscard]] nlohmann::json state() const;

 private:
  void* m_lib = nullptr;
  void* m_device = nullptr;  // nvmlDevice_t
  std::string m_error;
};

}  // namespace kjudge::cuda
