#include "timing/ceilings.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <fstream>
#include <memory>
#include <thread>
#include <vector>

#include "builder/builder.hpp"
#include "core/json_file.hpp"
#include "core/paths.hpp"
#include "core/utc.hpp"
#include "pool/process_census.hpp"
#include "stats/stats.hpp"

namespace kjudge {

nlohmann::json device_ceilings::to_json() const {
  auto opt = [](const std::optional<double>& v) { return v ? nlohmann::json(*v) : nlohmann::json(nullptr); };
  return nlohmann::json{{"schema", "kjudge.ceilings/1"},
                        {"device", device},
                        {"identity", identity},
                        {"copy_gbps", copy_gbps},
                        {"fp32_gflops", opt(fp32_gflops)},
                        {"tf32_gflops", opt(tf32_gflops)},
                        {"bf16_gflops", opt(bf16_gflops)},
                        {"details", details}};
}

device_ceilings device_ceilings::from_json(const nlohmann::json& j) {
  device_ceilings c;
  c.device = j.value("device", "");
  c.identity = j.value("identity", "");
  c.copy_gbps = j.value("copy_gbps", 0.0);
  auto opt = [&](const char* k) -> std::optional<double> {
    if (j.contains(k) && j[k].is_number()) return j[k].get<double>();
    return std::nullopt;
  };
  c.fp32_gflops = opt("fp32_gflops");
  c.tf32_gflops = opt("tf32_gflops");
  c.bf16_gflops = opt("bf16_gflops");
  c.details = j.value("details", nlohmann::json::object());
  return c;
}

std::string cpu_identity() {
  std::ifstream f("/proc/cpuinfo");
  std::string line;
  while (std::getline(f, line))
    if (line.rfind("model name", 0) == 0) {
      const auto p = line.find(':');
      return (p == std::string::npos ? line : line.substr(p + 2)) + " x" +
             std::to_string(std::thread::hardware_concurrency());
    }
  return "unknown x" + std::to_string(std::thread::hardware_concurrency());
}

namespace {

double loadavg_1min() {
  std::ifstream in("/proc/loadavg");
  double v = -1;
  in >> v;
  return v;
}

}  // namespace

bool device_ceilings::measured_under_load() const {
  return details.is_object() && details.contains("load") &&
         details["load"].value("other_cores", 0.0) >= max_other_cores;
}

device_ceilings measure_cpu_ceilings() {
  // 256 MiB per buffer, 8x a 32 MiB LLC: the copy streams from and to DRAM.
  constexpr std::size_t bytes = 256u << 20;
  constexpr int reps = 7;
  // The machine's other work while measuring (a ceiling measured on a busy machine is low, and an
  // honest kernel then reads above 100% of it): CPU time of every other process, in cores.
  const long long busy0 = machine_busy_ticks(), own0 = process_ticks(::getpid(), false);
  const auto wall0 = std::chrono::steady_clock::now();
  const unsigned threads = std::max(1u, std::thread::hardware_concurrency());
  std::unique_ptr<char[]> src(new char[bytes]), dst(new char[bytes]);
  std::memset(src.get(), 1, bytes);
  std::memset(dst.get(), 2, bytes);
  std::vector<double> gbps;
  for (int r = 0; r < reps; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    std::vector<std::thread> pool;
    const std::size_t chunk = bytes / threads;
    for (unsigned t = 0; t < threads; ++t)
      pool.emplace_back([&, t] {
        const std::size_t off = t * chunk;
        const std::size_t n = t + 1 == threads ? bytes - off : chunk;
        std::memcpy(dst.get() + off, src.get() + off, n);
      });
    for (auto& th : pool) th.join();
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    gbps.push_back(2.0 * static_cast<double>(bytes) / s / 1e9);
  }
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
  const double other = wall > 0 ? ticks_to_seconds(std::max(0LL, (machine_busy_ticks() - busy0) -
                                                                     (process_ticks(::getpid(), false) - own0))) /
                                      wall
                                : 0.0;
  device_ceilings c;
  c.device = "cpu";
  c.identity = cpu_identity();
  c.copy_gbps = *std::max_element(gbps.begin(), gbps.end());
  const auto sp = stats::summarize(gbps);
  c.details = {{"method", "memcpy of 256 MiB buffers split over all threads; bytes read + written; best of 7"},
               {"threads", threads},
               {"median_gbps", sp.median},
               {"min_gbps", sp.min},
               {"max_gbps", sp.max},
               {"load", {{"other_cores", other}, {"loadavg_1min", loadavg_1min()}, {"measured_at", utc_now()}}}};
  return c;
}

std::optional<device_ceilings> load_ceilings(const std::string& device, const std::string& identity) {
  const auto path = cache_root() / ("ceilings-" + device + ".json");
  std::ifstream in(path);
  if (!in) return std::nullopt;
  try {
    const auto j = nlohmann::json::parse(in);
    auto c = device_ceilings::from_json(j);
    if (c.device != device || (!identity.empty() && c.identity != identity) || !(c.copy_gbps > 0)) return std::nullopt;
    return c;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

void save_ceilings(const device_ceilings& c) {
  write_json_file(cache_root() / ("ceilings-" + c.device + ".json"), c.to_json());
}

}  // namespace kjudge
