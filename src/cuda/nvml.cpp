#include "cuda/nvml.hpp"

#include <dlfcn.h>

#include <utility>
#include <vector>

namespace kjudge::cuda {

namespace {

using json = nlohmann::json;

// The few NVML entry points used, declared here (nvml.h is not part of every toolkit install).
// nvmlReturn_t is an int-sized enum with 0 = success; nvmlDevice_t an opaque pointer.
using nvml_ret = int;
using nvml_device = void*;
constexpr nvml_ret nvml_success = 0;
constexpr unsigned nvml_clock_graphics = 0, nvml_clock_sm = 1, nvml_clock_mem = 2;
constexpr unsigned nvml_temperature_gpu = 0;

struct nvml_api {
  nvml_ret (*init)() = nullptr;
  nvml_ret (*shutdown)() = nullptr;
  const char* (*error_string)(nvml_ret) = nullptr;
  nvml_ret (*by_pci)(const char*, nvml_device*) = nullptr;
  nvml_ret (*by_index)(unsigned, nvml_device*) = nullptr;
  nvml_ret (*driver_version)(char*, unsigned) = nullptr;
  nvml_ret (*name)(nvml_device, char*, unsigned) = nullptr;
  nvml_ret (*clock)(nvml_device, unsigned, unsigned*) = nullptr;
  nvml_ret (*max_clock)(nvml_device, unsigned, unsigned*) = nullptr;
  nvml_ret (*app_clock)(nvml_device, unsigned, unsigned*) = nullptr;
  nvml_ret (*temperature)(nvml_device, unsigned, unsigned*) = nullptr;
  nvml_ret (*power_usage)(nvml_device, unsigned*) = nullptr;
  nvml_ret (*power_limit)(nvml_device, unsigned*) = nullptr;
  nvml_ret (*enforced_power_limit)(nvml_device, unsigned*) = nullptr;
  nvml_ret (*throttle_reasons)(nvml_device, unsigned long long*) = nullptr;
  nvml_ret (*persistence)(nvml_device, unsigned*) = nullptr;
};

nvml_api& api() {
  static nvml_api a;
  return a;
}

template <class F>
void bind(void* lib, F& f, const char* name) {
  f = reinterpret_cast<F>(::dlsym(lib, name));
}

// nvmlClocksEventReasons bits (nvml.h) and their names.
const std::vector<std::pair<unsigned long long, const char*>>& reason_names() {
  static const std::vector<std::pair<unsigned long long, const char*>> r = {{0x1ull, "gpu_idle"},
                                                                            {0x2ull, "applications_clocks_setting"},
                                                                            {0x4ull, "sw_power_cap"},
                                                                            {0x8ull, "hw_slowdown"},
                                                                            {0x10ull, "sync_boost"},
                                                                            {0x20ull, "sw_thermal_slowdown"},
                                                                            {0x40ull, "hw_thermal_slowdown"},
                                                                            {0x80ull, "hw_power_brake_slowdown"},
                                                                            {0x100ull, "display_clock_setting"}};
  return r;
}

}  // namespace

nvml::nvml(const std::string& pci_bus_id) {
  m_lib = ::dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (m_lib == nullptr) {
    const char* e = ::dlerror();
    m_error = std::string("dlopen libnvidia-ml.so.1: ") + (e ? e : "?");
    return;
  }
  nvml_api& a = api();
  bind(m_lib, a.init, "nvmlInit_v2");
  bind(m_lib, a.shutdown, "nvmlShutdown");
  bind(m_lib, a.error_string, "nvmlErrorString");
  bind(m_lib, a.by_pci, "nvmlDeviceGetHandleByPciBusId_v2");
  bind(m_lib, a.by_index, "nvmlDeviceGetHandleByIndex_v2");
  bind(m_lib, a.driver_version, "nvmlSystemGetDriverVersion");
  bind(m_lib, a.name, "nvmlDeviceGetName");
  bind(m_lib, a.clock, "nvmlDeviceGetClockInfo");
  bind(m_lib, a.max_clock, "nvmlDeviceGetMaxClockInfo");
  bind(m_lib, a.app_clock, "nvmlDeviceGetApplicationsClock");
  bind(m_lib, a.temperature, "nvmlDeviceGetTemperature");
  bind(m_lib, a.power_usage, "nvmlDeviceGetPowerUsage");
  bind(m_lib, a.power_limit, "nvmlDeviceGetPowerManagementLimit");
  bind(m_lib, a.enforced_power_limit, "nvmlDeviceGetEnforcedPowerLimit");
  bind(m_lib, a.throttle_reasons, "nvmlDeviceGetCurrentClocksEventReasons");
  if (a.throttle_reasons == nullptr) bind(m_lib, a.throttle_reasons, "nvmlDeviceGetCurrentClocksThrottleReasons");
  bind(m_lib, a.persistence, "nvmlDeviceGetPersistenceMode");
  if (a.init == nullptr || (a.by_pci == nullptr && a.by_index == nullptr)) {
    m_error = "libnvidia-ml.so.1 lacks nvmlInit_v2 or device lookup";
    return;
  }
  if (const nvml_ret r = a.init(); r != nvml_success) {
    m_error = std::string("nvmlInit: ") + (a.error_string ? a.error_string(r) : std::to_string(r).c_str());
    return;
  }
  nvml_device d = nullptr;
  nvml_ret r = a.by_pci ? a.by_pci(pci_bus_id.c_str(), &d) : -1;
  if (r != nvml_success && a.by_index != nullptr) r = a.by_index(0, &d);  // bus id formats differ
  if (r != nvml_success) {
    m_error = "NVML found no device with PCI bus id " + pci_bus_id;
    return;
  }
  m_device = d;
}

nvml::~nvml() {
  if (m_device != nullptr && api().shutdown != nullptr) api().shutdown();
  // The library stays loaded: the driver's own threads may still reference it.
}

json nvml::facts() const {
  if (!available()) return json{{"nvml", "unavailable: " + m_error}};
  const nvml_api& a = api();
  json j;
  char buf[128] = {0};
  if (a.driver_version && a.driver_version(buf, sizeof buf) == nvml_success) j["driver"] = buf;
  unsigned v = 0;
  if (a.max_clock && a.max_clock(m_device, nvml_clock_sm, &v) == nvml_success) j["max_sm_clock_mhz"] = v;
  if (a.max_clock && a.max_clock(m_device, nvml_clock_mem, &v) == nvml_success) j["max_mem_clock_mhz"] = v;
  if (a.app_clock && a.app_clock(m_device, nvml_clock_graphics, &v) == nvml_success) j["applications_clock_mhz"] = v;
  if (a.power_limit && a.power_limit(m_device, &v) == nvml_success) j["power_limit_w"] = v / 1000.0;
  if (a.enforced_power_limit && a.enforced_power_limit(m_device, &v) == nvml_success)
    j["enforced_power_limit_w"] = v / 1000.0;
  if (a.persistence && a.persistence(m_device, &v) == nvml_success) j["persistence_mode"] = v != 0;
  return j;
}

json nvml::state() const {
  if (!available()) return json{{"nvml", "unavailable: " + m_error}};
  const nvml_api& a = api();
  json j;
  unsigned v = 0;
  const auto put = [&](const char* key, bool ok, json value) { j[key] = ok ? std::move(value) : json("unavailable"); };
  bool ok = a.clock && a.clock(m_device, nvml_clock_sm, &v) == nvml_success;
  put("sm_clock_mhz", ok, v);
  ok = a.clock && a.clock(m_device, nvml_clock_mem, &v) == nvml_success;
  put("mem_clock_mhz", ok, v);
  ok = a.temperature && a.temperature(m_device, nvml_temperature_gpu, &v) == nvml_success;
  put("temperature_c", ok, v);
  ok = a.power_usage && a.power_usage(m_device, &v) == nvml_success;
  put("power_w", ok, v / 1000.0);
  unsigned long long reasons = 0;
  if (a.throttle_reasons && a.throttle_reasons(m_device, &reasons) == nvml_success) {
    json names = json::array();
    for (const auto& [bit, name] : reason_names())
      if ((reasons & bit) != 0) names.push_back(name);
    j["throttle_reasons"] = names;
    j["throttle_reasons_mask"] = reasons;
  } else {
    j["throttle_reasons"] = "unavailable";
  }
  return j;
}

}  // namespace kjudge::cuda
