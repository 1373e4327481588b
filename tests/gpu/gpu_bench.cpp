// kjudge-gpu-bench: the timer's own figures on this GPU, through the cuda backend's time() (the
// same code that times candidates): the floor (an empty kernel, cold and warm), a >= 100 us
// kernel's median (run the program twice to see its stability), the SM clock per sample, the
// cost of tracing, and for comparison the naive event method and CUDA graph replay. With
// --doctor it adds the device ceilings. Prints one JSON document.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cuda/cuda_backend.hpp"
#include "cuda/detail/kernels.hpp"
#include "cuda/doctor.hpp"

namespace {

using json = nlohmann::json;
using namespace kjudge;

json stats_us(std::vector<double> s) {
  std::sort(s.begin(), s.end());
  const auto q = [&](double f) { return s[static_cast<std::size_t>(f * static_cast<double>(s.size() - 1))] * 1e6; };
  return json{{"n", s.size()}, {"median_us", q(0.5)}, {"p10_us", q(0.1)}, {"p90_us", q(0.9)},
              {"min_us", s.front() * 1e6}, {"max_us", s.back() * 1e6}};
}

struct series {
  std::vector<double> seconds, mhz;
  int hold_timeouts = 0;
};

template <class F>
series run(backend& be, int n, bool cold, F&& launch) {
  series out;
  for (int i = 0; i < n; ++i) {
    if (cold) be.flush_cache();
    const timed_call t = be.time([&] { return launch() == cudaSuccess ? 0 : 1; });
    if (t.rc != 0) throw std::runtime_error("launch failed");
    out.seconds.push_back(t.seconds);
    if (t.extra.contains("sm_mhz") && t.extra["sm_mhz"].is_number()) out.mhz.push_back(t.extra["sm_mhz"].get<double>());
    if (t.extra.value("hold", "") != "released") ++out.hold_timeouts;
  }
  return out;
}

json describe(const series& s) {
  json j = stats_us(s.seconds);
  if (!s.mhz.empty()) {
    std::vector<double> m = s.mhz;
    std::sort(m.begin(), m.end());
    const double med = m[m.size() / 2];
    const auto under = std::count_if(m.begin(), m.end(), [&](double x) { return x < 0.9 * med; });
    j["sm_mhz"] = {{"median", med}, {"min", m.front()}, {"max", m.back()}, {"under_0.9_median", under}};
  }
  j["hold_not_released"] = s.hold_timeouts;
  return j;
}

}  // namespace

int main(int argc, char** argv) {
  std::string out_path;
  bool doctor = false;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--out") == 0 && i + 1 < argc) out_path = argv[++i];
    else if (std::strcmp(argv[i], "--doctor") == 0) doctor = true;
  }
  try {
    auto be = cuda::make_cuda_backend();
    const auto s = static_cast<cudaStream_t>(be->stream());
    json r;
    r["schema"] = "kjudge.gpu-bench/1";
    r["env"] = be->environment();

    // Floor: an empty kernel, cold (L2 flushed before each sample) and warm.
    r["empty_cold"] = describe(run(*be, 500, true, [&] { return cuda::detail::launch_empty(s); }));
    r["empty_warm"] = describe(run(*be, 500, false, [&] { return cuda::detail::launch_empty(s); }));

    // A >= 100 us memory-bound kernel: copy of 256 MiB (512 MiB moved), cold.
    {
      const std::size_t bytes = 256u << 20;
      guarded_buffer a = be->allocate(bytes, "src"), b = be->allocate(bytes, "dst");
      cudaMemsetAsync(a.data, 1, bytes, s);
      int sms = 0;
      cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
      json j = describe(run(*be, 300, true, [&] { return cuda::detail::launch_copy16(a.data, b.data, bytes, sms * 8, s); }));
      j["gbps_at_median"] = 2.0 * static_cast<double>(bytes) / (j["median_us"].get<double>() * 1e-6) / 1e9;
      r["copy_256MiB_cold"] = j;
      be->release(a);
      be->release(b);
    }
    // A >= 100 us compute-bound kernel: 132 blocks spinning 300k cycles (~150 us at 1.98 GHz).
    r["spin_300k_cycles"] = describe(run(*be, 300, true, [&] { return cuda::detail::launch_spin_cycles(300'000, 132, s); }));

    // Tracing cost on an empty kernel (checked calls only pay it).
    {
      std::vector<double> t;
      for (int i = 0; i < 50; ++i) {
        be->flush_cache();
        be->begin_trace();
        const timed_call c = be->time([&] { return cuda::detail::launch_empty(s) == cudaSuccess ? 0 : 1; });
        (void)be->end_trace();
        t.push_back(c.seconds);
      }
      r["empty_cold_traced"] = stats_us(t);
    }

    // For comparison: the naive method (sync, then events around one launch, no hold) and graph
    // replay (100 empty launches captured once, per launch).
    {
      cudaEvent_t e0, e1;
      cudaEventCreate(&e0);
      cudaEventCreate(&e1);
      std::vector<double> naive;
      for (int i = 0; i < 300; ++i) {
        be->flush_cache();
        cudaEventRecord(e0, s);
        cuda::detail::launch_empty(s);
        cudaEventRecord(e1, s);
        cudaEventSynchronize(e1);
        float ms = 0;
        cudaEventElapsedTime(&ms, e0, e1);
        naive.push_back(ms * 1e-3);
      }
      r["empty_naive_events"] = stats_us(naive);
      cudaStream_t cs;
      cudaStreamCreateWithFlags(&cs, cudaStreamNonBlocking);
      cudaGraph_t g;
      cudaGraphExec_t ge;
      cudaStreamBeginCapture(cs, cudaStreamCaptureModeThreadLocal);
      for (int i = 0; i < 100; ++i) cuda::detail::launch_empty(cs);
      cudaStreamEndCapture(cs, &g);
      cudaGraphInstantiate(&ge, g, 0);
      cudaGraphLaunch(ge, cs);
      cudaStreamSynchronize(cs);
      std::vector<double> per;
      for (int i = 0; i < 50; ++i) {
        cudaEventRecord(e0, cs);
        cudaGraphLaunch(ge, cs);
        cudaEventRecord(e1, cs);
        cudaEventSynchronize(e1);
        float ms = 0;
        cudaEventElapsedTime(&ms, e0, e1);
        per.push_back(ms * 1e-3 / 100);
      }
      r["empty_graph_per_launch"] = stats_us(per);
      cudaGraphExecDestroy(ge);
      cudaGraphDestroy(g);
      cudaStreamDestroy(cs);
      cudaEventDestroy(e0);
      cudaEventDestroy(e1);
    }
    r["device_state_after"] = be->device_state();
    if (doctor) r["doctor"] = cuda::measure_ceilings(0);
    const std::string text = r.dump(2);
    if (!out_path.empty()) std::ofstream(out_path) << text << "\n";
    std::printf("%s\n", text.c_str());
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "kjudge-gpu-bench: %s\n", e.what());
    return 3;
  }
}
