// The cuda backend. The timing method (DESIGN.md §4), per sample:
//   [flush: cudaMemsetAsync of max(2 x L2, 256 MiB), stream synchronised]      (cold mode only)
//   hold kernel  -> clock probe A -> start event -> kj_run's work -> stop event -> clock probe B
// all queued on the judge's stream while the hold kernel spins on a host-mapped flag; the host
// releases the flag only after kj_run returned and the stop event is queued, so host launch cost
// stays outside [start, stop]. seconds = cudaEventElapsedTime(start, stop). The probes record
// clock64 and %globaltimer on every SM they land on; cycles / ns between A and B is the SM clock
// of that sample (MHz, reported so the controller can discard samples under 0.9x the median).
// host_seconds = steady clock from the call into kj_run until the stop event completed.
#include "cuda/cuda_backend.hpp"

#include <cuda_runtime.h>
#include <dirent.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <map>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "core/error.hpp"
#include "cuda/check.hpp"
#include "cuda/cupti_trace.hpp"
#include "cuda/detail/kernels.hpp"
#include "cuda/doctor.hpp"
#include "cuda/nvml.hpp"
#include "inputs/distributions.hpp"
#include "inputs/matrix_profiles.hpp"
#include "inputs/poison.hpp"
#include "worker/host_pages.hpp"

namespace kjudge::cuda {

namespace {

using clock_type = std::chrono::steady_clock;
using detail::clock_sample;

// Kernel records listed in a trace (the counts cover all of them).
constexpr std::size_t trace_listed_max = 256;
// Consecutive timed-out holds after which samples are timed without the hold kernel.
constexpr int hold_timeouts_to_disable = 2;

int count_threads() {
  int n = 0;
  if (DIR* d = ::opendir("/proc/self/task")) {
    while (const dirent* e = ::readdir(d))
      if (e->d_name[0] != '.') ++n;
    ::closedir(d);
  }
  return n;
}

std::string version_string(int v) {  // 13000 -> "13.0"
  return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10);
}

bool parse_distribution(std::string_view name, detail::gen_dist& out) {
  static constexpr std::pair<std::string_view, detail::gen_dist> table[] = {
      {"uniform", detail::gen_dist::uniform},   {"normal", detail::gen_dist::normal},
      {"negative", detail::gen_dist::negative}, {"wide", detail::gen_dist::wide},
      {"offset", detail::gen_dist::offset},     {"heavy", detail::gen_dist::heavy},
      {"small", detail::gen_dist::small},       {"large", detail::gen_dist::large}};
  for (const auto& [n, id] : table)
    if (n == name) {
      out = id;
      return true;
    }
  return false;
}

// Selects the device and creates its primary context with the flags the timer wants, before any
// other member touches CUDA. Spin scheduling: a synchronising host thread polls instead of
// sleeping, so host_seconds carries no wake-up latency.
struct context_init {
  int device = 0;
  context_init() {
    int count = 0;
    const cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess || count == 0)
      throw internal_error("the cuda backend found no usable GPU: " +
                           (e != cudaSuccess ? describe(e) : std::string("0 devices")));
    KJ_CUDA_CHECK(cudaGetDevice(&device));
    const cudaError_t f = cudaSetDeviceFlags(cudaDeviceScheduleSpin | cudaDeviceMapHost);
    if (f != cudaSuccess && f != cudaErrorSetOnActiveProcess) KJ_CUDA_CHECK(f);
    (void)cudaGetLastError();
    KJ_CUDA_CHECK(cudaFree(nullptr));
  }
};

class cuda_backend final : public backend {
 public:
  cuda_backend();
  ~cuda_backend() override;
  cuda_backend(const cuda_backend&) = delete;
  cuda_backend& operator=(const cuda_backend&) = delete;

  std::string_view name() const override { return "cuda"; }
  json environment() override;
  guarded_buffer allocate(std::size_t bytes, std::string label) override;
  void release(guarded_buffer& b) override;
  void upload(guarded_buffer& b, const void* host, std::size_t bytes) override;
  void download(const guarded_buffer& b, void* host, std::size_t bytes) override;
  void poison(guarded_buffer& b, dtype t, std::size_t numel) override;
  std::vector<guard_violation> check_guards(const guarded_buffer& b) override;
  void* stream() override { return m_stream.get(); }
  void synchronize() override { KJ_CUDA_CHECK(cudaStreamSynchronize(m_stream.get())); }
  void synchronize_all() override { KJ_CUDA_CHECK(cudaDeviceSynchronize()); }
  void reserve_snapshot(std::size_t index, std::size_t bytes) override;
  bool snapshot(std::size_t index, const guarded_buffer& b) override;
  byte_changes compare_with_snapshot(std::size_t index, const guarded_buffer& b, std::size_t bytes) override;
  void download_snapshot(std::size_t index, void* host, std::size_t bytes) override;
  void flush_cache() override;
  timed_call time(const std::function<int()>& call) override;
  long long last_call_peak_extra_bytes() override { return m_last_peak; }
  bool generate(guarded_buffer& b, const tensor_desc& d, std::string_view distribution, std::uint64_t seed,
                int input_index, const std::optional<int_range>& range) override;
  bool impose_structure(guarded_buffer& b, const tensor_desc& d, matrix_structure s) override;
  [[nodiscard]] bool device_resident() const override { return true; }
  bool widen_to_f64(const guarded_buffer& src, dtype from, guarded_buffer& dst, std::size_t numel) override;
  bool perturb_ulp_copy(const guarded_buffer& src, guarded_buffer& dst, dtype t, std::size_t numel,
                        std::uint64_t seed) override;
  bool round_tf32_copy(const guarded_buffer& src, guarded_buffer& dst, dtype t, std::size_t numel,
                       std::uint64_t seed) override;
  void begin_trace() override;
  json end_trace() override;
  void detach_trace() override;
  json device_state() override;
  json doctor() override { return measure_ceilings(m_ctx.device); }
  void pin_host_memory(void* p, std::size_t bytes) override;

 private:
  json sm_clock(unsigned int tag) const;
  void warm_up();
  bool generate_profile(guarded_buffer& b, const tensor_desc& d, std::string_view profile, std::uint64_t seed);

  context_init m_ctx;  // first: every member below needs the context
  cudaDeviceProp m_prop{};
  std::string m_pci;
  cuda::stream m_stream;
  event m_start, m_stop;
  mapped_host_buffer m_hold;                // int[2]: release flag, outcome
  mapped_host_buffer m_probe_a, m_probe_b;  // clock_sample[max_sm_slots]
  device_buffer m_flush;
  std::unique_ptr<nvml> m_nvml;
  std::map<void*, std::size_t> m_live;  // allocation -> bytes allocated (guards included)
  allocation_shift m_shift;
  std::size_t m_live_bytes = 0;
  unsigned int m_tag = 0;
  bool m_blocking = true;
  int m_hold_timeouts = 0;
  bool m_tracing = false;
  int m_threads_at_trace = 0;
  std::size_t m_free_before_trace = 0;
  long long m_last_peak = -1;
  std::vector<unsigned char> m_guard_host;
  // Per output index: its copy as the call returned (reserve_snapshot), reused across calls, and
  // how many bytes the last snapshot() took.
  std::vector<device_buffer> m_snapshots;
  std::vector<std::size_t> m_snapshot_bytes;
  device_buffer m_compare_counts;  // unsigned long long[2]: bytes changed, first offset
  std::vector<void*> m_pinned;     // the host regions registered by pin_host_memory, in order
  std::string m_pin_status = "not requested";
  // KJUDGE_CUPTI_DETACH=each (an experiment, off by default): CUPTI is detached after every
  // traced call, not only before timed calls, so that no process loads modules while it is
  // attached (docs/notebook/2026-12-03-cupti-detach-and-remembered-envelope.md: the A/A asymmetry that remained on
  // KernelBench #61).
  const bool m_detach_each = [] {
    const char* v = std::getenv("KJUDGE_CUPTI_DETACH");
    return v != nullptr && std::string_view(v) == "each";
  }();
};

cuda_backend::cuda_backend()
    : m_hold(2 * sizeof(int)),
      m_probe_a(detail::max_sm_slots * sizeof(clock_sample)),
      m_probe_b(detail::max_sm_slots * sizeof(clock_sample)) {
  KJ_CUDA_CHECK(cudaGetDeviceProperties(&m_prop, m_ctx.device));
  char bus[32] = {0};
  KJ_CUDA_CHECK(cudaDeviceGetPCIBusId(bus, sizeof bus, m_ctx.device));
  m_pci = bus;
  std::memset(m_probe_a.host<void>(), 0, m_probe_a.bytes());
  std::memset(m_probe_b.host<void>(), 0, m_probe_b.bytes());
  const std::size_t flush = std::max<std::size_t>(2 * static_cast<std::size_t>(m_prop.l2CacheSize), flush_min_bytes);
  m_flush = device_buffer(flush);
  m_guard_host.resize(2 * guard_bytes);
  m_nvml = std::make_unique<nvml>(m_pci);
  m_compare_counts = device_buffer(2 * sizeof(unsigned long long));
  // CUPTI and every judge kernel are initialised now, while the worker may still read files
  // (the sandbox comes after the backend).
  activity_trace::instance().init();
  warm_up();
}

cuda_backend::~cuda_backend() {
  for (auto& [base, bytes] : m_live) cudaFree(base);
  for (void* p : m_pinned) cudaHostUnregister(p);
}

void cuda_backend::pin_host_memory(void* p, std::size_t bytes) {
  if (p == nullptr || bytes == 0) return;
  // The pages faulted on the host's threads first (worker/host_pages.hpp): the driver
  // faults them one by one.
  const unsigned threads = std::min(16u, std::max(1u, std::thread::hardware_concurrency()));
  const auto t_populate = clock_type::now();
  const bool populated = kjudge::detail::populate_pages(p, bytes, threads);
  const double populate_s = std::chrono::duration<double>(clock_type::now() - t_populate).count();
  const auto t0 = clock_type::now();
  const cudaError_t e = cudaHostRegister(p, bytes, cudaHostRegisterDefault);
  // A later region (the reference's envelope slots, pinned on first use) is reported after the first.
  const std::string sep = m_pinned.empty() && m_pin_status == "not requested" ? "" : m_pin_status + "; then ";
  if (e != cudaSuccess) {
    (void)cudaGetLastError();  // not sticky: copies then go through the driver's staging
    m_pin_status = sep + "failed (" + describe(e) + "): copies are staged";
    return;
  }
  m_pinned.push_back(p);
  m_pin_status = sep + std::to_string(bytes) + " bytes pinned in " +
                 std::to_string(std::chrono::duration<double>(clock_type::now() - t0).count()) + " s" +
                 (populated ? ", their pages populated beforehand on " + std::to_string(threads) + " threads in " +
                                  std::to_string(populate_s) + " s"
                            : ", pages faulted by the driver (no MADV_POPULATE_WRITE)");
}

void cuda_backend::warm_up() {
  const cudaStream_t s = m_stream.get();
  device_buffer scratch(4096);
  m_hold.host<int>()[0] = 1;
  KJ_CUDA_CHECK(detail::launch_hold_stream(m_hold.device<int>(), m_hold.device<int>() + 1, hold_timeout_ns, s));
  KJ_CUDA_CHECK(detail::launch_clock_probe(m_probe_a.device<clock_sample>(), 0, 1, s));
  KJ_CUDA_CHECK(detail::launch_fill_pattern(scratch.get(), 16, 4, 0, s));
  KJ_CUDA_CHECK(detail::launch_fill_pattern(scratch.get(), 16, 8, 0, s));
  KJ_CUDA_CHECK(detail::launch_fill_pattern(scratch.get(), 16, 2, 0, s));
  KJ_CUDA_CHECK(detail::launch_fill_pattern(scratch.get(), 16, 1, 0, s));
  detail::gen_params g;
  KJ_CUDA_CHECK(detail::launch_generate_f32(scratch.as<float>(), 16, g, s));
  KJ_CUDA_CHECK(detail::launch_generate_bf16(scratch.as<std::uint16_t>(), 16, g, s));
  KJ_CUDA_CHECK(detail::launch_widen_to_f64(scratch.get(), detail::widen_src::f32, scratch.as<double>() + 256, 8, s));
  KJ_CUDA_CHECK(detail::launch_widen_to_f64(scratch.get(), detail::widen_src::bf16, scratch.as<double>() + 256, 8, s));
  KJ_CUDA_CHECK(cudaEventRecord(m_start.get(), s));
  KJ_CUDA_CHECK(cudaMemsetAsync(m_flush.get(), 0, 1 << 20, s));
  KJ_CUDA_CHECK(cudaEventRecord(m_stop.get(), s));
  KJ_CUDA_CHECK(cudaStreamSynchronize(s));
  if (activity_trace::instance().available()) {
    // CUPTI's first enable is slow (hundreds of ms); pay it here, not in the first checked call.
    activity_trace::instance().begin();
    KJ_CUDA_CHECK(detail::launch_clock_probe(m_probe_a.device<clock_sample>(), 0, 1, s));
    KJ_CUDA_CHECK(cudaDeviceSynchronize());
    (void)activity_trace::instance().end();
    if (m_detach_each) activity_trace::instance().detach();
  }
}

json cuda_backend::environment() {
  int driver = 0, runtime = 0, cupti = 0;
  cudaDriverGetVersion(&driver);
  cudaRuntimeGetVersion(&runtime);
  cuptiGetVersion(reinterpret_cast<std::uint32_t*>(&cupti));
  int cublas_major = 0, cublas_minor = 0, cublas_patch = 0;
  cublasGetProperty(MAJOR_VERSION, &cublas_major);
  cublasGetProperty(MINOR_VERSION, &cublas_minor);
  cublasGetProperty(PATCH_LEVEL, &cublas_patch);
  json env{{"backend", "cuda"},
           {"gpu", m_prop.name},
           {"compute_capability", std::to_string(m_prop.major) + "." + std::to_string(m_prop.minor)},
           {"sms", m_prop.multiProcessorCount},
           {"l2_bytes", m_prop.l2CacheSize},
           {"memory_bytes", m_prop.totalGlobalMem},
           {"pci_bus_id", m_pci},
           {"cuda_driver_api", version_string(driver)},
           {"cuda_runtime", version_string(runtime)},
           {"cublas",
            std::to_string(cublas_major) + "." + std::to_string(cublas_minor) + "." + std::to_string(cublas_patch)},
           {"cupti_api", cupti},
           {"nvml", m_nvml->facts()},
           {"state_before", m_nvml->state()},
           {"clock", "cuda events"},
           {"timer",
            {{"method",
              "cudaEventElapsedTime between events queued behind a blocking kernel that spins on a "
              "host-mapped flag until kj_run returned and the stop event is queued"},
             {"hold_timeout_ns", hold_timeout_ns},
             {"sm_clock",
              "clock64 / %globaltimer between probe kernels before the start and after the stop event, "
              "median over the SMs both probes visited"},
             {"host_seconds", "steady_clock from the call into kj_run to the stop event's completion"}}},
           {"cold_flush", "cudaMemsetAsync of " + std::to_string(m_flush.bytes()) +
                              " bytes (>= 2 x L2), then stream "
                              "synchronised; not timed"},
           {"arena_pinned", m_pin_status},
           {"trace", activity_trace::instance().available() || activity_trace::instance().detached()
                         ? json(m_detach_each ? "CUPTI activity (checked calls only; detached after every traced call)"
                                              : "CUPTI activity (checked calls only; detached before timed calls)")
                         : json("unavailable: " + activity_trace::instance().why_unavailable())}};
  return env;
}

guarded_buffer cuda_backend::allocate(std::size_t bytes, std::string label) {
  // [guard][data][guard] in one allocation: the data starts 4096 bytes in (keeping cudaMalloc's
  // 256-byte alignment) and the back guard at the first byte after the data, so a one-element
  // overrun lands on it.
  // The whole is shifted from one allocation to the next (allocation_shift): cudaMalloc hands back
  // the address it just freed, and a call's inputs would otherwise sit where the last call's did.
  const std::size_t shift = m_shift.next();
  const std::size_t total = shift + guard_bytes + bytes + guard_bytes;
  void* allocation = nullptr;
  KJ_CUDA_CHECK(cudaMalloc(&allocation, total));
  auto* p = static_cast<unsigned char*>(allocation) + shift;
  const cudaStream_t s = m_stream.get();
  KJ_CUDA_CHECK(cudaMemsetAsync(p, canary_byte, guard_bytes, s));
  KJ_CUDA_CHECK(cudaMemsetAsync(p + guard_bytes + bytes, canary_byte, guard_bytes, s));
  m_live[allocation] = total;
  m_live_bytes += total;
  guarded_buffer b;
  b.base = p;
  b.data = p + guard_bytes;
  b.bytes = bytes;
  b.label = std::move(label);
  b.allocation = allocation;
  b.allocation_bytes = total;
  return b;
}

void cuda_backend::release(guarded_buffer& b) {
  if (b.base != nullptr) {
    if (auto it = m_live.find(b.allocation); it != m_live.end()) {
      m_live_bytes -= it->second;
      m_live.erase(it);
    }
    KJ_CUDA_CHECK(cudaFree(b.allocation));
  }
  b = guarded_buffer{};
}

void cuda_backend::upload(guarded_buffer& b, const void* host, std::size_t bytes) {
  const std::size_t n = std::min(bytes, b.bytes);
  if (n == 0) return;
  KJ_CUDA_CHECK(cudaMemcpyAsync(b.data, host, n, cudaMemcpyHostToDevice, m_stream.get()));
  KJ_CUDA_CHECK(cudaStreamSynchronize(m_stream.get()));
}

// The snapshot and the comparison stay on the device: downloading 256 MiB into pageable memory and
// comparing it on one host thread made the probe the largest part of a recheck of an 8192 x 8192
// case, and a download of every timed sample's outputs the largest part of a KernelBench sample.
void cuda_backend::reserve_snapshot(std::size_t index, std::size_t bytes) {
  if (m_snapshots.size() <= index) {
    m_snapshots.resize(index + 1);
    m_snapshot_bytes.resize(index + 1, 0);
  }
  device_buffer& s = m_snapshots[index];
  if (s.bytes() >= bytes) return;
  s = device_buffer();  // the old one first: the larger alone is held
  try {
    s = device_buffer(bytes);
  } catch (const std::exception&) {
    // No room on the device: this output is downloaded as the call returns instead (the
    // allocation error is not sticky; cleared so that no later check reports it).
    (void)cudaGetLastError();
  }
}

bool cuda_backend::snapshot(std::size_t index, const guarded_buffer& b) {
  if (index >= m_snapshots.size() || m_snapshots[index].bytes() < b.bytes || b.bytes == 0) return false;
  // On the judge's stream, as download() is: ordered after the call's work there, not after work
  // it left on streams of its own (which the probe's comparison then sees).
  KJ_CUDA_CHECK(cudaMemcpyAsync(m_snapshots[index].get(), b.data, b.bytes, cudaMemcpyDeviceToDevice, m_stream.get()));
  KJ_CUDA_CHECK(cudaStreamSynchronize(m_stream.get()));
  m_snapshot_bytes[index] = b.bytes;
  return true;
}

byte_changes cuda_backend::compare_with_snapshot(std::size_t index, const guarded_buffer& b, std::size_t bytes) {
  if (index >= m_snapshots.size())
    throw std::logic_error("compare_with_snapshot: no snapshot " + std::to_string(index));
  const std::size_t n = std::min({bytes, b.bytes, m_snapshot_bytes[index]});
  byte_changes r;
  if (n == 0) return r;
  const cudaStream_t s = m_stream.get();
  const unsigned long long init[2] = {0ull, ~0ull};
  KJ_CUDA_CHECK(cudaMemcpyAsync(m_compare_counts.get(), init, sizeof init, cudaMemcpyHostToDevice, s));
  KJ_CUDA_CHECK(
      detail::launch_count_changed(m_snapshots[index].get(), b.data, n, m_compare_counts.as<unsigned long long>(), s));
  unsigned long long out[2] = {0, 0};
  KJ_CUDA_CHECK(cudaMemcpyAsync(out, m_compare_counts.get(), sizeof out, cudaMemcpyDeviceToHost, s));
  KJ_CUDA_CHECK(cudaStreamSynchronize(s));
  r.changed = static_cast<std::size_t>(out[0]);
  r.first = r.changed > 0 ? static_cast<std::size_t>(out[1]) : 0;
  return r;
}

void cuda_backend::download_snapshot(std::size_t index, void* host, std::size_t bytes) {
  if (index >= m_snapshots.size()) throw std::logic_error("download_snapshot: no snapshot " + std::to_string(index));
  const std::size_t n = std::min(bytes, m_snapshot_bytes[index]);
  if (n == 0) return;
  KJ_CUDA_CHECK(cudaMemcpyAsync(host, m_snapshots[index].get(), n, cudaMemcpyDeviceToHost, m_stream.get()));
  KJ_CUDA_CHECK(cudaStreamSynchronize(m_stream.get()));
}

void cuda_backend::download(const guarded_buffer& b, void* host, std::size_t bytes) {
  const std::size_t n = std::min(bytes, b.bytes);
  if (n == 0) return;
  // On the judge's stream: ordered after the call's work there (and after legacy-stream work),
  // but not after work the call left on streams of its own.
  KJ_CUDA_CHECK(cudaMemcpyAsync(host, b.data, n, cudaMemcpyDeviceToHost, m_stream.get()));
  KJ_CUDA_CHECK(cudaStreamSynchronize(m_stream.get()));
}

void cuda_backend::poison(guarded_buffer& b, dtype t, std::size_t numel) {
  int width = 4;
  std::uint64_t pattern = poison_f32_bits;
  switch (t) {
    case dtype::f32:
      width = 4, pattern = poison_f32_bits;
      break;
    case dtype::f64:
      width = 8, pattern = poison_f64_bits;
      break;
    case dtype::f16:
    case dtype::bf16:
      width = 2, pattern = poison_16_bits;
      break;
    case dtype::i32:
      width = 1, pattern = poison_int_byte, numel *= 4;
      break;
    case dtype::i64:
      width = 1, pattern = poison_int_byte, numel *= 8;
      break;
    case dtype::u8:
    case dtype::boolean:
      width = 1, pattern = poison_int_byte;
      break;
  }
  KJ_CUDA_CHECK(detail::launch_fill_pattern(b.data, numel, width, pattern, m_stream.get()));
}

std::vector<guard_violation> cuda_backend::check_guards(const guarded_buffer& b) {
  std::vector<guard_violation> v;
  if (b.base == nullptr) return v;
  const auto* p = static_cast<const unsigned char*>(b.base);
  const cudaStream_t s = m_stream.get();
  KJ_CUDA_CHECK(cudaMemcpyAsync(m_guard_host.data(), p, guard_bytes, cudaMemcpyDeviceToHost, s));
  KJ_CUDA_CHECK(cudaMemcpyAsync(m_guard_host.data() + guard_bytes, p + guard_bytes + b.bytes, guard_bytes,
                                cudaMemcpyDeviceToHost, s));
  KJ_CUDA_CHECK(cudaStreamSynchronize(s));
  auto scan = [&](const unsigned char* zone, bool before) {
    std::size_t changed = 0, nearest = guard_bytes;
    for (std::size_t i = 0; i < guard_bytes; ++i) {
      if (zone[i] != canary_byte) {
        ++changed;
        nearest = std::min(nearest, before ? guard_bytes - i : i);  // bytes from the data edge
      }
    }
    if (changed) v.push_back(guard_violation{b.label, before ? "before" : "after", nearest, changed});
  };
  scan(m_guard_host.data(), true);
  scan(m_guard_host.data() + guard_bytes, false);
  return v;
}

void cuda_backend::flush_cache() {
  // Lines a call marked persisting survive an ordinary flush, and an access-policy window it left
  // on the judge's stream would mark the next call's inputs persisting (tests/redteam/cuda/
  // persisting_l2_softmax.cu): the window is cleared, the persisting lines reset to normal and
  // the set-aside for them returned to 0 before every cold sample.
  cudaStreamAttrValue no_window{};
  no_window.accessPolicyWindow.base_ptr = nullptr;
  no_window.accessPolicyWindow.num_bytes = 0;
  no_window.accessPolicyWindow.hitRatio = 0.0f;
  no_window.accessPolicyWindow.hitProp = cudaAccessPropertyNormal;
  no_window.accessPolicyWindow.missProp = cudaAccessPropertyStreaming;
  KJ_CUDA_CHECK(cudaStreamSetAttribute(m_stream.get(), cudaStreamAttributeAccessPolicyWindow, &no_window));
  KJ_CUDA_CHECK(cudaCtxResetPersistingL2Cache());
  // Devices without persisting L2 (before compute capability 8.0) refuse the limit: nothing to reset.
  if (const cudaError_t e = cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, 0);
      e == cudaErrorUnsupportedLimit || e == cudaErrorNotSupported)
    (void)cudaGetLastError();
  else
    KJ_CUDA_CHECK(e);
  // A different byte each time, so no layer can recognise an unchanged buffer.
  const int value = static_cast<int>((m_tag * 37u + 11u) & 0xffu);
  KJ_CUDA_CHECK(cudaMemsetAsync(m_flush.get(), value, m_flush.bytes(), m_stream.get()));
  KJ_CUDA_CHECK(cudaStreamSynchronize(m_stream.get()));
}

json cuda_backend::sm_clock(unsigned int tag) const {
  const clock_sample* a = m_probe_a.host<clock_sample>();
  const clock_sample* b = m_probe_b.host<clock_sample>();
  std::vector<double> mhz;
  std::vector<double> window_ns;
  for (int i = 0; i < detail::max_sm_slots; ++i) {
    if (a[i].tag != tag || b[i].tag != tag || b[i].ns <= a[i].ns) continue;
    const double dns = static_cast<double>(b[i].ns - a[i].ns);
    mhz.push_back(static_cast<double>(b[i].cycles - a[i].cycles) / dns * 1e3);
    window_ns.push_back(dns);
  }
  if (mhz.empty()) return json{{"sm_mhz", nullptr}, {"sm_probed", 0}};
  std::sort(mhz.begin(), mhz.end());
  std::sort(window_ns.begin(), window_ns.end());
  return json{{"sm_mhz", mhz[mhz.size() / 2]},
              {"sm_mhz_min", mhz.front()},
              {"sm_mhz_max", mhz.back()},
              {"sm_probed", mhz.size()},
              {"clock_window_us", window_ns[window_ns.size() / 2] * 1e-3}};
}

timed_call cuda_backend::time(const std::function<int()>& call) {
  timed_call t;
  const cudaStream_t s = m_stream.get();
  std::size_t free_before = 0, free_after = 0, total = 0;
  KJ_CUDA_CHECK(cudaMemGetInfo(&free_before, &total));
  const unsigned int tag = ++m_tag;
  volatile int* flag = m_hold.host<int>();
  flag[0] = 0;
  flag[1] = 0;
  const bool hold = m_blocking;
  if (hold)
    KJ_CUDA_CHECK(detail::launch_hold_stream(m_hold.device<int>(), m_hold.device<int>() + 1, hold_timeout_ns, s));
  KJ_CUDA_CHECK(detail::launch_clock_probe(m_probe_a.device<clock_sample>(), tag, m_prop.multiProcessorCount, s));
  KJ_CUDA_CHECK(cudaEventRecord(m_start.get(), s));
  const auto h0 = clock_type::now();
  t.rc = call();
  const cudaError_t recorded = cudaEventRecord(m_stop.get(), s);
  std::atomic_thread_fence(std::memory_order_seq_cst);
  flag[0] = 1;  // everything is queued: let the stream go
  KJ_CUDA_CHECK(recorded);
  KJ_CUDA_CHECK(detail::launch_clock_probe(m_probe_b.device<clock_sample>(), tag, m_prop.multiProcessorCount, s));
  KJ_CUDA_CHECK(cudaEventSynchronize(m_stop.get()));
  const auto h1 = clock_type::now();
  KJ_CUDA_CHECK(cudaStreamSynchronize(s));
  float ms = 0.0f;
  KJ_CUDA_CHECK(cudaEventElapsedTime(&ms, m_start.get(), m_stop.get()));
  KJ_CUDA_CHECK(cudaMemGetInfo(&free_after, &total));
  t.seconds = static_cast<double>(ms) * 1e-3;
  t.host_seconds = std::chrono::duration<double>(h1 - h0).count();
  json extra = sm_clock(tag);
  std::string hold_state = "off";
  if (hold) {
    const bool timed_out = flag[1] == detail::hold_timed_out;
    hold_state = timed_out ? "timed out" : "released";
    m_hold_timeouts = timed_out ? m_hold_timeouts + 1 : 0;
    if (m_hold_timeouts >= hold_timeouts_to_disable) m_blocking = false;
  }
  extra["hold"] = hold_state;
  if (hold_state == "timed out")
    extra["hold_note"] =
        "the stream was released after " + std::to_string(hold_timeout_ns / 1000000) +
        " ms before kj_run returned (it synchronised, or queued more than the launch queue holds): this "
        "sample includes host time between launches" +
        std::string(m_blocking ? "" : "; later samples are timed without the hold kernel");
  // Device memory the call kept (allocations not freed by its end: caches, library handles).
  extra["memory"] = {{"free_before", free_before},
                     {"free_after", free_after},
                     {"retained_bytes", static_cast<long long>(free_before) - static_cast<long long>(free_after)},
                     {"judge_buffers_bytes", m_live_bytes}};
  if (!m_tracing)
    m_last_peak = std::max<long long>(0, static_cast<long long>(free_before) - static_cast<long long>(free_after));
  t.extra = std::move(extra);
  return t;
}

bool cuda_backend::generate(guarded_buffer& b, const tensor_desc& d, std::string_view distribution, std::uint64_t seed,
                            int input_index, const std::optional<int_range>& range) {
  const bool integer = !is_float(d.type);
  if (d.type != dtype::f32 && d.type != dtype::bf16 && !integer) return false;
  if (d.type == dtype::f32 && is_matrix_profile(distribution)) return generate_profile(b, d, distribution, seed);
  detail::gen_params p;
  if (!parse_distribution(distribution, p.dist)) return false;
  // fill_distribution's key and per-distribution shape (inputs/distributions.cpp).
  const std::uint64_t key = mix_seed(seed, 0x6b6a7564ULL);
  p.k0 = static_cast<std::uint32_t>(key);
  p.k1 = static_cast<std::uint32_t>(key >> 32);
  if (integer) {
    // Labels, indices and masks: uniform over the range whatever the distribution (a 1e9-element
    // bool mask drawn on the host took ~14 s per call of an H200 A/A).
    const int_range r = range.value_or(default_int_range(d.type));
    if (!int_range_error(r, d.type).empty()) return false;  // the host draw reports it
    const std::uint64_t span = static_cast<std::uint64_t>(r.hi) - static_cast<std::uint64_t>(r.lo) + 1;
    KJ_CUDA_CHECK(detail::launch_generate_int(b.data, dtype_size(d.type), d.numel(), p, r.lo, span, m_stream.get()));
    return true;
  }
  switch (p.dist) {
    case detail::gen_dist::negative:
      p.negative = true;
      break;
    case detail::gen_dist::offset:
      // 1e4 plus noise of at least 16 ulps of 1e4 in the dtype (N(0,1) for f32, ~1250 for bf16).
      p.offset = static_cast<float>(input_index % 2 == 0 ? 1e4 : -1e4);
      p.scale = static_cast<float>(std::max(1.0, 1e4 * 32.0 * dtype_epsilon(d.type)));
      break;
    case detail::gen_dist::small:
      p.scale = static_cast<float>(1e-3);
      break;
    case detail::gen_dist::large:
      p.scale = static_cast<float>(1e3);
      break;
    default:
      break;
  }
  const std::size_t n = d.numel();
  if (d.type == dtype::f32)
    KJ_CUDA_CHECK(detail::launch_generate_f32(static_cast<float*>(b.data), n, p, m_stream.get()));
  else
    KJ_CUDA_CHECK(detail::launch_generate_bf16(static_cast<std::uint16_t*>(b.data), n, p, m_stream.get()));
  return true;
}

// A matrix profile (inputs/matrix_profiles.hpp) drawn where it is used: the host took ~20 ns per
// element (3.4 s for a 640 x 512 x 512 batch), and every timed sample of every party draws anew.
// The plan (labels, row and column factors) is fixed on the host; the normal draw and the noise
// go to temporaries, reshaped into b by the same element function as the host's. false (the
// host draws it) where the temporaries do not fit in free device memory.
bool cuda_backend::generate_profile(guarded_buffer& b, const tensor_desc& d, std::string_view profile,
                                    std::uint64_t seed) {
  matrix_profile_plan plan;
  try {
    plan = plan_matrix_profile(d, profile, seed);
  } catch (const usage_error&) {
    return false;  // the host draw reports it
  }
  const std::size_t numel = d.numel();
  if (numel == 0) return true;
  const std::size_t bytes = numel * sizeof(float);
  std::size_t free_bytes = 0, total_bytes = 0;
  KJ_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  const std::size_t margin = std::size_t{256} << 20;  // bytes left for the factors and the runtime
  if (bytes * (plan.needs_noise ? 2 : 1) + margin > free_bytes) return false;
  device_buffer z(bytes), e(plan.needs_noise ? bytes : 0);
  guarded_buffer zb{z.get(), bytes};
  if (!generate(zb, d, "normal", seed, 0, std::nullopt)) return false;
  if (plan.needs_noise) {
    guarded_buffer eb{e.get(), bytes};
    if (!generate(eb, d, "normal", plan.noise_seed, 0, std::nullopt)) return false;
  }
  // The factors, one vector after another (empty ones take no room), then the labels.
  std::vector<double> factors;
  const std::vector<double>* parts[] = {&plan.col_scale, &plan.row_scale, &plan.clustered_scale, &plan.diag_upper,
                                        &plan.diag_band};
  for (const auto* v : parts) factors.insert(factors.end(), v->begin(), v->end());
  const std::size_t factor_bytes = factors.size() * sizeof(double);
  device_buffer params(factor_bytes + plan.labels.size());
  auto* dev_factors = params.as<double>();
  if (factor_bytes > 0)
    KJ_CUDA_CHECK(cudaMemcpyAsync(dev_factors, factors.data(), factor_bytes, cudaMemcpyHostToDevice, m_stream.get()));
  auto* dev_labels = reinterpret_cast<profile_label*>(params.as<unsigned char>() + factor_bytes);
  KJ_CUDA_CHECK(
      cudaMemcpyAsync(dev_labels, plan.labels.data(), plan.labels.size(), cudaMemcpyHostToDevice, m_stream.get()));
  profile_shape shape = plan.view();
  const double** fields[] = {&shape.col_scale, &shape.row_scale, &shape.clustered_scale, &shape.diag_upper,
                             &shape.diag_band};
  std::size_t at = 0;
  for (std::size_t f = 0; f < std::size(parts); ++f) {
    *fields[f] = parts[f]->empty() ? nullptr : dev_factors + at;
    at += parts[f]->size();
  }
  KJ_CUDA_CHECK(detail::launch_shape_profile(z.as<float>(), e.as<float>(), static_cast<float*>(b.data), dev_labels,
                                             shape, plan.batch, m_stream.get()));
  // The temporaries and the host vectors live until the reshaping is done.
  KJ_CUDA_CHECK(cudaStreamSynchronize(m_stream.get()));
  return true;
}

bool cuda_backend::impose_structure(guarded_buffer& b, const tensor_desc& d, matrix_structure s) {
  const auto& sh = d.shape;
  if (sh.size() < 2 || sh[sh.size() - 1] != sh[sh.size() - 2]) return false;  // the host path reports it
  const int code = s == matrix_structure::upper       ? 1
                   : s == matrix_structure::lower     ? 2
                   : s == matrix_structure::symmetric ? 3
                                                      : 0;
  if (code == 0) return true;
  KJ_CUDA_CHECK(detail::launch_impose_structure(b.data, dtype_size(d.type), d.numel(),
                                                static_cast<std::size_t>(sh.back()), code, m_stream.get()));
  return true;
}

bool cuda_backend::widen_to_f64(const guarded_buffer& src, dtype from, guarded_buffer& dst, std::size_t numel) {
  detail::widen_src w{};
  switch (from) {
    case dtype::f32:
      w = detail::widen_src::f32;
      break;
    case dtype::f16:
      w = detail::widen_src::f16;
      break;
    case dtype::bf16:
      w = detail::widen_src::bf16;
      break;
    case dtype::i32:
      w = detail::widen_src::i32;
      break;
    case dtype::i64:
      w = detail::widen_src::i64;
      break;
    case dtype::u8:
      w = detail::widen_src::u8;
      break;
    case dtype::boolean:
      w = detail::widen_src::boolean;
      break;
    case dtype::f64:
      KJ_CUDA_CHECK(cudaMemcpyAsync(dst.data, src.data, numel * 8, cudaMemcpyDeviceToDevice, m_stream.get()));
      return true;
  }
  KJ_CUDA_CHECK(detail::launch_widen_to_f64(src.data, w, static_cast<double*>(dst.data), numel, m_stream.get()));
  return true;
}

bool cuda_backend::perturb_ulp_copy(const guarded_buffer& src, guarded_buffer& dst, dtype t, std::size_t numel,
                                    std::uint64_t seed) {
  int elem = 0;
  switch (t) {
    case dtype::f32:
      elem = 4;
      break;
    case dtype::f64:
      elem = 8;
      break;
    case dtype::bf16:
    case dtype::f16:
      elem = 2;
      break;
    default:  // integers stay as they are
      KJ_CUDA_CHECK(
          cudaMemcpyAsync(dst.data, src.data, numel * dtype_size(t), cudaMemcpyDeviceToDevice, m_stream.get()));
      return true;
  }
  KJ_CUDA_CHECK(
      detail::launch_perturb_ulp_copy(src.data, dst.data, numel, elem, t == dtype::bf16, seed, m_stream.get()));
  return true;
}

bool cuda_backend::round_tf32_copy(const guarded_buffer& src, guarded_buffer& dst, dtype t, std::size_t numel,
                                   std::uint64_t seed) {
  if (t != dtype::f32) {  // TF32 rounds f32 operands only
    KJ_CUDA_CHECK(cudaMemcpyAsync(dst.data, src.data, numel * dtype_size(t), cudaMemcpyDeviceToDevice, m_stream.get()));
    return true;
  }
  KJ_CUDA_CHECK(detail::launch_round_tf32_copy(static_cast<const float*>(src.data), static_cast<float*>(dst.data),
                                               numel, seed, m_stream.get()));
  return true;
}

void cuda_backend::detach_trace() {
  if (m_tracing) return;
  KJ_CUDA_CHECK(cudaDeviceSynchronize());
  activity_trace::instance().detach();
}

void cuda_backend::begin_trace() {
  if (!activity_trace::instance().available() && !activity_trace::instance().detached()) return;
  KJ_CUDA_CHECK(cudaDeviceSynchronize());
  std::size_t total = 0;
  KJ_CUDA_CHECK(cudaMemGetInfo(&m_free_before_trace, &total));
  activity_trace::instance().begin();
  m_threads_at_trace = count_threads();
  m_tracing = true;
}

json cuda_backend::end_trace() {
  if (!m_tracing) return nullptr;
  m_tracing = false;
  const int threads = count_threads();
  // Everything the call started, on any stream, is finished before the records are collected.
  KJ_CUDA_CHECK(cudaDeviceSynchronize());
  const auto records = activity_trace::instance().end();
  json j = summarize_trace(records, activity_trace::instance().stream_id(m_stream.get()), trace_listed_max);
  j["threads_before"] = m_threads_at_trace;
  j["threads_after"] = threads;
  m_last_peak = j.value("alloc_peak_bytes", 0LL);
  if (m_detach_each) activity_trace::instance().detach();  // after stream_id: CUPTI calls re-attach
  return j;
}

json cuda_backend::device_state() {
  json j = m_nvml->state();
  std::size_t free = 0, total = 0;
  if (cudaMemGetInfo(&free, &total) == cudaSuccess) j["device_free_bytes"] = free;
  return j;
}

}  // namespace

std::unique_ptr<backend> make_cuda_backend() {
  return std::make_unique<cuda_backend>();
}

}  // namespace kjudge::cuda
