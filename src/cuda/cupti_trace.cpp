#include "cuda/cupti_trace.hpp"

#include <cupti.h>
#include <cxxabi.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <stdexcept>

#include "cuda/check.hpp"

namespace kjudge::cuda {

namespace {

using json = nlohmann::json;

// 8 MiB per buffer holds ~20k kernel records; a checked call that overflows it is itself
// evidence (reported as dropped records).
constexpr std::size_t k_buffer_bytes = 8u << 20;
constexpr std::size_t k_align = 8;

void CUPTIAPI buffer_requested(std::uint8_t** buffer, std::size_t* size, std::size_t* max_records) {
  void* p = nullptr;
  if (::posix_memalign(&p, k_align, k_buffer_bytes) != 0) p = nullptr;
  *buffer = static_cast<std::uint8_t*>(p);
  *size = p ? k_buffer_bytes : 0;
  *max_records = 0;
}

void CUPTIAPI buffer_completed(CUcontext, std::uint32_t, std::uint8_t* buffer, std::size_t, std::size_t valid) {
  activity_trace::instance().take_buffer(buffer, valid);
  std::free(buffer);
}

std::string demangle(const char* name) {
  if (name == nullptr) return "?";
  int status = 0;
  char* d = abi::__cxa_demangle(name, nullptr, nullptr, &status);
  std::string s = (status == 0 && d != nullptr) ? d : name;
  std::free(d);
  return s;
}

const char* copy_kind(std::uint8_t k) {
  switch (k) {
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOD:
      return "HtoD";
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOH:
      return "DtoH";
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOD:
      return "DtoD";
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOH:
      return "HtoH";
    case CUPTI_ACTIVITY_MEMCPY_KIND_PTOP:
      return "PtoP";
    default:
      return "other";
  }
}

constexpr CUpti_ActivityKind k_kinds[] = {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY,
                                          CUPTI_ACTIVITY_KIND_MEMSET, CUPTI_ACTIVITY_KIND_MEMORY2};

}  // namespace

activity_trace& activity_trace::instance() {
  static activity_trace t;
  return t;
}

void activity_trace::init() {
  if (m_ready) return;
  const CUptiResult r = cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed);
  if (r != CUPTI_SUCCESS) {
    const char* s = nullptr;
    cuptiGetResultString(r, &s);
    m_error = std::string("cuptiActivityRegisterCallbacks: ") + (s ? s : "?");
    return;
  }
  m_ready = true;
}

void activity_trace::detach() {
  if (!m_ready || !m_used || m_on) return;
  KJ_CUDA_CHECK(cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED));
  KJ_CUDA_CHECK(cuptiFinalize());
  m_ready = false;
  m_used = false;
  m_detached = true;
}

void activity_trace::begin() {
  if (m_detached && !m_ready) {
    init();
    if (!m_ready) throw std::runtime_error("CUPTI could not be attached again after detaching: " + m_error);
  }
  if (!m_ready || m_on) return;
  {
    std::lock_guard<std::mutex> g(m_mutex);
    m_records.clear();
    m_dropped = 0;
  }
  for (const auto k : k_kinds) KJ_CUDA_CHECK(cuptiActivityEnable(k));
  m_on = true;
  m_used = true;
}

std::vector<trace_record> activity_trace::end() {
  if (!m_ready || !m_on) return {};
  KJ_CUDA_CHECK(cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED));
  for (const auto k : k_kinds) KJ_CUDA_CHECK(cuptiActivityDisable(k));
  m_on = false;
  std::lock_guard<std::mutex> g(m_mutex);
  return std::move(m_records);
}

std::uint32_t activity_trace::stream_id(cudaStream_t s) const {
  std::uint32_t id = 0;
  if (cuptiGetStreamIdEx(nullptr, reinterpret_cast<CUstream>(s), 0, &id) != CUPTI_SUCCESS) return 0;
  return id;
}

void activity_trace::take_buffer(std::uint8_t* buffer, std::size_t valid) {
  if (buffer == nullptr) return;
  std::vector<trace_record> got;
  CUpti_Activity* rec = nullptr;
  while (cuptiActivityGetNextRecord(buffer, valid, &rec) == CUPTI_SUCCESS) {
    trace_record t;
    switch (rec->kind) {
      case CUPTI_ACTIVITY_KIND_KERNEL:
      case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: {
        const auto* k = reinterpret_cast<const CUpti_ActivityKernel10*>(rec);
        t.what = trace_record::kind::kernel;
        t.name = demangle(k->name);
        t.stream = k->streamId;
        t.start = k->start;
        t.end = k->end;
        t.grid[0] = k->gridX, t.grid[1] = k->gridY, t.grid[2] = k->gridZ;
        t.block[0] = k->blockX, t.block[1] = k->blockY, t.block[2] = k->blockZ;
        t.registers = k->registersPerThread;
        t.shared_bytes = k->staticSharedMemory + k->dynamicSharedMemory;
        break;
      }
      case CUPTI_ACTIVITY_KIND_MEMCPY: {
        const auto* m = reinterpret_cast<const CUpti_ActivityMemcpy6*>(rec);
        t.what = trace_record::kind::memcpy;
        t.name = std::string("memcpy ") + copy_kind(m->copyKind);
        t.stream = m->streamId;
        t.start = m->start;
        t.end = m->end;
        t.bytes = m->bytes;
        break;
      }
      case CUPTI_ACTIVITY_KIND_MEMSET: {
        const auto* m = reinterpret_cast<const CUpti_ActivityMemset4*>(rec);
        t.what = trace_record::kind::memset;
        t.name = "memset";
        t.stream = m->streamId;
        t.start = m->start;
        t.end = m->end;
        t.bytes = m->bytes;
        break;
      }
      case CUPTI_ACTIVITY_KIND_MEMORY2: {
        const auto* m = reinterpret_cast<const CUpti_ActivityMemory4*>(rec);
        if (m->memoryKind != CUPTI_ACTIVITY_MEMORY_KIND_DEVICE) continue;
        if (m->memoryOperationType == CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_ALLOCATION)
          t.what = trace_record::kind::alloc;
        else if (m->memoryOperationType == CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_RELEASE)
          t.what = trace_record::kind::release;
        else
          continue;
        t.name = m->memoryPoolConfig.memoryPoolType != CUPTI_ACTIVITY_MEMORY_POOL_TYPE_INVALID ? "pool" : "cudaMalloc";
        t.stream = m->streamId;
        t.start = t.end = m->timestamp;
        t.bytes = m->bytes;
        t.address = m->address;
        break;
      }
      default:
        continue;
    }
    got.push_back(std::move(t));
  }
  std::size_t dropped = 0;
  cuptiActivityGetNumDroppedRecords(nullptr, 0, &dropped);
  std::lock_guard<std::mutex> g(m_mutex);
  if (m_on) {
    m_records.insert(m_records.end(), std::make_move_iterator(got.begin()), std::make_move_iterator(got.end()));
    m_dropped += dropped;
  }
}

json summarize_trace(const std::vector<trace_record>& records, std::uint32_t judge_stream, std::size_t max_listed) {
  // The window: after the first probe on the judge's stream, before the last one.
  std::uint64_t open = 0, close = std::numeric_limits<std::uint64_t>::max();
  std::vector<const trace_record*> probes;
  for (const auto& r : records)
    if (r.what == trace_record::kind::kernel && r.stream == judge_stream &&
        r.name.find(probe_kernel_name) != std::string::npos)
      probes.push_back(&r);
  std::sort(probes.begin(), probes.end(), [](auto* a, auto* b) { return a->start < b->start; });
  const bool have_window = probes.size() >= 2;
  if (have_window) {
    open = probes.front()->end;
    close = probes.back()->start;
  }
  const auto rel = [&](std::uint64_t t) -> json {
    if (!have_window) return json(t);
    return json(static_cast<double>(static_cast<std::int64_t>(t - open)));
  };
  json listed = json::array();
  std::size_t kernels = 0, other_stream = 0, after = 0, before = 0, copies = 0, sets = 0;
  std::uint64_t busy_first = std::numeric_limits<std::uint64_t>::max(), busy_last = 0;
  long long live = 0, peak = 0, allocated = 0;
  int allocs = 0, releases = 0;
  std::vector<std::string> kernel_names;
  std::vector<const trace_record*> sorted;
  for (const auto& r : records) sorted.push_back(&r);
  std::sort(sorted.begin(), sorted.end(), [](auto* a, auto* b) { return a->start < b->start; });
  for (const trace_record* r : sorted) {
    // The judge's own work: its probe and hold kernels, and the copies and the deferred-work
    // comparison it issues on its stream once the window closed (reading outputs and guard zones
    // back). Nothing of the call can be
    // on the judge's stream after the stop event: whatever the call queued there precedes it.
    const bool judge_kernel =
        r->stream == judge_stream && r->what == trace_record::kind::kernel &&
        (r->name.find(probe_kernel_name) != std::string::npos || r->name.find(hold_kernel_name) != std::string::npos ||
         (have_window && r->start >= close && r->name.find(compare_kernel_name) != std::string::npos));
    const bool judge_copy = r->stream == judge_stream && have_window && r->start >= close &&
                            (r->what == trace_record::kind::memcpy || r->what == trace_record::kind::memset);
    const bool judge = judge_kernel || judge_copy;
    if (r->what == trace_record::kind::alloc) {
      ++allocs;
      live += static_cast<long long>(r->bytes);
      allocated += static_cast<long long>(r->bytes);
      peak = std::max(peak, live);
    } else if (r->what == trace_record::kind::release) {
      ++releases;
      live -= static_cast<long long>(r->bytes);
    }
    const bool is_work = r->what == trace_record::kind::kernel || r->what == trace_record::kind::memcpy ||
                         r->what == trace_record::kind::memset;
    if (is_work && !judge) {
      if (r->what == trace_record::kind::kernel) {
        ++kernels;
        // Distinct names of the call's kernels (rule library_call compares them with the entry
        // functions compiled from the candidate's source).
        if (kernel_names.size() < 64 &&
            std::find(kernel_names.begin(), kernel_names.end(), r->name) == kernel_names.end())
          kernel_names.push_back(r->name);
      }
      if (r->what == trace_record::kind::memcpy) ++copies;
      if (r->what == trace_record::kind::memset) ++sets;
      if (r->stream != judge_stream) ++other_stream;
      if (have_window && r->end > close) ++after;
      if (have_window && r->start < open) ++before;
      busy_first = std::min(busy_first, r->start);
      busy_last = std::max(busy_last, r->end);
    }
    if (listed.size() >= max_listed) continue;
    json e{{"kind", r->what == trace_record::kind::kernel   ? "kernel"
                    : r->what == trace_record::kind::memcpy ? "memcpy"
                    : r->what == trace_record::kind::memset ? "memset"
                    : r->what == trace_record::kind::alloc  ? "alloc"
                                                            : "release"},
           {"name", r->name},
           {"stream", r->stream},
           {"start_ns", rel(r->start)},
           {"end_ns", rel(r->end)}};
    if (judge) e["judge"] = true;
    if (r->what == trace_record::kind::kernel) {
      e["grid"] = {r->grid[0], r->grid[1], r->grid[2]};
      e["block"] = {r->block[0], r->block[1], r->block[2]};
      e["registers"] = r->registers;
      e["shared_bytes"] = r->shared_bytes;
    } else {
      e["bytes"] = r->bytes;
    }
    listed.push_back(std::move(e));
  }
  json s{{"judge_stream", judge_stream},
         {"window_found", have_window},
         {"window_ns", have_window ? json(static_cast<double>(close - open)) : json(nullptr)},
         {"kernels", kernels},
         {"kernel_names", kernel_names},
         {"memcpys", copies},
         {"memsets", sets},
         {"on_other_streams", other_stream},
         {"ending_after_window", after},
         {"starting_before_window", before},
         {"work_span_ns", busy_last > 0 ? json(static_cast<double>(busy_last - busy_first)) : json(nullptr)},
         {"allocations", allocs},
         {"releases", releases},
         {"allocated_bytes", allocated},
         {"alloc_peak_bytes", peak},
         {"dropped_records", activity_trace::instance().dropped()},
         {"records", listed},
         {"records_total", records.size()}};
  return s;
}

}  // namespace kjudge::cuda
