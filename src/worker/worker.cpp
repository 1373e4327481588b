#include "worker/worker.hpp"

#include <dlfcn.h>
#include <malloc.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <functional>
#include <map>
#include <new>
#include <thread>

#include "core/error.hpp"
#include "inputs/distributions.hpp"
#include "inputs/perturbation.hpp"
#include "inputs/poison.hpp"
#include "inputs/tf32.hpp"
#include "kjudge/candidate.h"
#include "protocol/messages.hpp"
#include "worker/detail/fault_report.hpp"
#include "worker/sandbox.hpp"

namespace kjudge {

namespace {

std::map<std::string, backend_factory>& factories() {
  static std::map<std::string, backend_factory> f{{"cpu", &make_cpu_backend}};
  return f;
}

using run_fn = int (*)(const kj_args*);
using ws_fn = size_t (*)(const kj_args*);
using info_fn = const char* (*)();
using abi_fn = int (*)();

// Delay before re-reading a call's outputs to catch work that finishes after the call returned
// (host threads, other streams), microseconds. Only on checked calls, never on timed ones.
constexpr int deferred_probe_us = 2000;

// Wall seconds spent in the parts of a reference request, summed per part: the reply's phases_s
// (printed by KJUDGE_TRACE_REQUESTS, summed over rechecks in the result), so that a slow
// reference can be taken apart (KernelBench level 2 #19: 32-36 s a request, 2026-12-05, H100).
class phase_laps {
 public:
  // Adds the time since the last lap (or construction) to `part`.
  void lap(const char* part) {
    const auto now = std::chrono::steady_clock::now();
    m_seconds[part] = m_seconds.value(part, 0.0) + std::chrono::duration<double>(now - m_last).count();
    m_last = now;
  }
  [[nodiscard]] const json& seconds() const { return m_seconds; }

 private:
  json m_seconds = json::object();
  std::chrono::steady_clock::time_point m_last = std::chrono::steady_clock::now();
};

// Moves every finite floating-point element one ulp up or down (random, from `seed`); integers and
// non-finite values stay.
void perturb_one_ulp(host_tensor& t, std::uint64_t seed) {
  const dtype ty = t.desc().type;
  if (!is_float(ty)) return;
  const std::size_t n = t.numel();
  std::uint64_t state = seed;
  for (std::size_t i = 0; i < n; ++i) {
    if (i % 64 == 0) state = mix_seed(seed, i);
    const bool up = (state >> (i % 64)) & 1u;
    switch (ty) {
      case dtype::f32: {
        float& v = static_cast<float*>(t.data())[i];
        if (std::isfinite(v)) v = std::nextafter(v, up ? INFINITY : -INFINITY);
        break;
      }
      case dtype::f64: {
        double& v = static_cast<double*>(t.data())[i];
        if (std::isfinite(v)) v = std::nextafter(v, up ? INFINITY : -INFINITY);
        break;
      }
      case dtype::bf16:
      case dtype::f16: {
        // 16-bit floats: the next representable value is one step of the integer encoding away
        // from zero or towards it.
        auto& bits = static_cast<std::uint16_t*>(t.data())[i];
        const double v = t.get(i);
        if (!std::isfinite(v)) break;
        const bool negative = bits & 0x8000u;
        const bool away = up != negative;  // up on a positive value moves away from zero
        if (away) {
          const std::uint16_t next = static_cast<std::uint16_t>(bits + 1);
          if (std::isfinite(ty == dtype::bf16 ? bf16_to_float(next) : f16_to_float(next))) bits = next;
        } else if ((bits & 0x7fffu) != 0) {
          bits = static_cast<std::uint16_t>(bits - 1);
        } else {
          bits = static_cast<std::uint16_t>(bits ^ 0x8000u) + 1;  // through zero
        }
        break;
      }
      default:
        break;
    }
  }
}

// Whether a reference request's envelope runs are TF32 draws (round_to_tf32_random on every f32
// input and parameter) rather than one-ulp perturbations: the problem permits TF32 and the run
// did not switch it off (the request's "tf32").
bool tf32_envelope(const json& m) {
  return m.value("tf32", false);
}

// Seed of the parameters' rounding in envelope run pr (never 0: 0 restores them).
std::uint64_t parameter_seed(std::uint64_t call_seed, int pr) {
  const std::uint64_t s = mix_seed(call_seed, 0x74663332ULL + static_cast<std::uint64_t>(pr));
  return s == 0 ? 1 : s;
}

// The parameters of a hosted reference (a Python module's weights) rounded for the envelope's
// TF32 runs (hosted_program::round_parameters), and restored before anything else runs: by
// restore(), or by the destructor on a path that leaves early. A program without parameters
// (a C++ reference: its weights are inputs) has nothing to round.
class parameter_rounding {
 public:
  explicit parameter_rounding(const hosted_program& program) : m_program(program) {}
  parameter_rounding(const parameter_rounding&) = delete;
  parameter_rounding& operator=(const parameter_rounding&) = delete;
  ~parameter_rounding() {
    if (m_rounded) (void)m_program.round_parameters(0);
  }
  bool round(std::uint64_t seed) { return call(seed); }
  bool restore() { return !m_rounded || call(0); }
  [[nodiscard]] const std::string& error() const { return m_error; }

 private:
  bool call(std::uint64_t seed) {
    if (m_program.round_parameters == nullptr) return true;
    m_error = m_program.round_parameters(seed);
    m_rounded = seed != 0 || !m_error.empty();
    return m_error.empty();
  }
  const hosted_program& m_program;
  bool m_rounded = false;
  std::string m_error;
};

// The envelope's last TF32 run with the reference's own TF32 mode on (hosted_program::set_tf32:
// torch's allow_tf32, as the candidate and the baselines run), switched off again before anything
// else runs: by off(), or by the destructor on a path that leaves early. Why a native run beside
// the draws: the draws show how rounding the operands to TF32 moves each element, and an algorithm
// whose error follows more than its own operands (a convolution transformed tile by tile, whose
// error follows the tile's largest value) errs beyond that; on KernelBench level 2 #46's `wide`
// inputs honest torch erred 14x beyond what six draws allowed (docs/notebook/2026-12-05-kernelbench-level2-h100.md).
class native_tf32 {
 public:
  explicit native_tf32(const hosted_program& program) : m_program(program) {}
  native_tf32(const native_tf32&) = delete;
  native_tf32& operator=(const native_tf32&) = delete;
  ~native_tf32() {
    if (m_on) (void)m_program.set_tf32(false);
  }
  bool on() { return call(true); }
  bool off() { return !m_on || call(false); }
  [[nodiscard]] const std::string& error() const { return m_error; }

 private:
  bool call(bool on) {
    m_error = m_program.set_tf32(on);
    m_on = on || !m_error.empty();
    return m_error.empty();
  }
  const hosted_program& m_program;
  bool m_on = false;
  std::string m_error;
};

// The worker's side of the protocol (protocol/messages.hpp): answers the controller's requests on
// the channel, one at a time, until it is told to stop or the channel closes.
class request_server {
 public:
  request_server(channel& ch, shared_arena& arena, program_loader loader = nullptr)
      : m_ch(ch), m_arena(arena), m_loader(loader) {}

  int serve();

 private:
  bool handle_hello(const json& m);
  // handle_hello's steps; each that fails tells the controller why and returns false.
  bool start_backend(const json& m);
  // A hosted program (m_loader) described by the hello, imported inside the sandbox.
  bool load_hosted(const json& m, bool sandbox_requested, json& sandbox_env);
  // A shared object, mapped inside the sandbox; info and abi: its optional exports.
  bool load_shared_object(const std::string& lib, bool sandbox_requested, json& sandbox_env, info_fn& info,
                          abi_fn& abi);
  void handle_run(const json& m);
  void handle_reference(const json& m);
  void handle_reference_device(const json& m);
  // handle_reference's phases on the host backend, each writing its outputs into the arena's
  // slots (layout) through outs and the call's arguments a. An envelope phase that fails tells the
  // controller why and returns false.
  bool host_envelope_draws(const call_spec& c, const std::vector<arena_slot>& layout,
                           const std::vector<host_tensor>& host, std::vector<host_tensor>& outs, kj_args& a,
                           int perturbations, bool tf32, phase_laps& laps);
  bool host_native_tf32_run(const std::vector<arena_slot>& layout, std::vector<host_tensor>& outs,
                            std::vector<kj_tensor>& in_views, kj_args& a, int perturbations, phase_laps& laps);
  // The float64 reference on inputs upcast on the host; returns its rc.
  int host_f64_run(const call_spec& c, const std::vector<arena_slot>& layout, const std::vector<host_tensor>& host,
                   kj_args& a, phase_laps& laps);
  void pin_envelope_slots(const std::vector<arena_slot>& layout);
  void handle_check(const json& m);
  void handle_doctor();
  void handle_time(const json& m);
  void handle_warm_batch(const json& m);
  void send_error(const std::string& kind, const std::string& msg) {
    m_ch.send(json{{"type", "error"}, {"kind", kind}, {"message", msg}});
  }
  // The envelope's moved-input runs a reference request makes: none unless asked, three one-ulp
  // moves, or with TF32 six draws.
  static int envelope_draws(const json& m) {
    if (!m.value("envelope", true)) return 0;
    return tf32_envelope(m) ? reference_tf32_draws : reference_perturbations;
  }
  // Whether the draws are followed by the reference's own TF32 run (native_tf32): TF32 draws of a
  // program with a TF32 mode. A program without one keeps six draws, not a seventh: one more draw
  // would loosen a C++ reference's envelope for no reason.
  [[nodiscard]] bool native_tf32_run(const json& m) const {
    return envelope_draws(m) > 0 && tf32_envelope(m) && m_hosted.set_tf32 != nullptr;
  }
  // Whether a request's arena slots fit the arena; when not, says so to the controller (the
  // controller sized the arena for its largest call: a mismatch is the judge's error).
  bool fits_arena(const std::vector<arena_slot>& layout) {
    if (layout_bytes(layout) <= m_arena.size()) return true;
    send_error("internal", "arena too small for this call");
    return false;
  }

  struct call_buffers {
    std::vector<guarded_buffer> inputs;
    std::vector<guarded_buffer> outputs;
    guarded_buffer workspace;
    std::vector<kj_tensor> in_views;
    std::vector<kj_tensor> out_views;
    kj_args args{};
  };
  // Inputs are drawn where the buffers live when the backend can (backend::generate), else on
  // the host with the same generator and uploaded: input i uses seed mix_seed(seed, i), as
  // generate_inputs does.
  void alloc_inputs(call_buffers& cb, const call_spec& c);
  // A call whose inputs the hosted program draws (hosted_program::generate).
  [[nodiscard]] bool program_draws(const call_spec& c) const {
    return m_hosted.generate != nullptr && c.distribution.rfind("generate_input ", 0) == 0;
  }
  // The call's inputs on the host: drawn by the program where it draws them, else by
  // generate_inputs; with the stale-output probe's perturbation applied.
  std::vector<host_tensor> host_inputs(const call_spec& c);
  void alloc_outputs(call_buffers& cb, const call_spec& c);
  void finish_args(call_buffers& cb, const call_spec& c);
  // kj_workspace_bytes on the call's shapes, with no data pointers.
  std::size_t query_workspace(const call_buffers& cb, const kj_args& a);
  void free_outputs(call_buffers& cb);
  void free_all(call_buffers& cb);
  int invoke(const kj_args& a);
  // A hosted program's untimed completion step (hosted_program::complete); 0 for shared objects.
  int complete(const kj_args& a) { return hosted_step(m_hosted.complete, a); }
  // A hosted program's untimed preparation step (hosted_program::prepare); 0 for shared objects.
  int prepare(const kj_args& a) { return hosted_step(m_hosted.prepare, a); }
  int hosted_step(int (*step)(const kj_args*), const kj_args& a) {
    if (step == nullptr) return 0;
    try {
      return step(&a);
    } catch (const std::exception& e) {
      m_last_exception = e.what();
      return -1000;
    }
  }
  // The outputs as the call returned: output i into the backend's snapshot i where it keeps one
  // (with `snapshot`), else into the arena. Returns which went to a snapshot.
  std::vector<char> take_outputs(call_buffers& cb, const std::vector<arena_slot>& layout, slot_kind out_kind,
                                 bool snapshot);
  // Copies outputs (and inputs as they are now) into the arena; returns guard and deferred-work
  // evidence as JSON. taken: the outputs were already taken when the call returned (timed
  // samples; take_outputs' result), and the deferred-work probe compares the buffers with those
  // copies; null: they are taken now.
  json export_call(call_buffers& cb, const call_spec& c, const std::vector<arena_slot>& layout, slot_kind out_kind,
                   bool export_inputs, bool probe_deferred, const std::vector<char>* taken = nullptr);
  // handle_reference_device's phases, each writing its outputs into the arena's slots (layout).
  // An envelope phase that fails calls release (the handler's device buffers), tells the
  // controller why and returns false.
  int device_same_run(const call_spec& c, const std::vector<arena_slot>& layout, call_buffers& cb, phase_laps& laps);
  bool device_envelope_draws(const call_spec& c, const std::vector<arena_slot>& layout, call_buffers& cb,
                             int perturbations, bool tf32, const std::function<void()>& release, phase_laps& laps);
  bool device_native_tf32_run(const call_spec& c, const std::vector<arena_slot>& layout, call_buffers& cb,
                              int perturbations, const std::function<void()>& release, phase_laps& laps);
  // The float64 reference on inputs widened on the device into in64, writing out64; returns its rc.
  int device_f64_run(const call_spec& c, const std::vector<arena_slot>& layout, call_buffers& cb,
                     std::vector<guarded_buffer>& in64, std::vector<guarded_buffer>& out64, phase_laps& laps);

  channel& m_ch;
  shared_arena& m_arena;
  std::size_t m_pinned_end = 0;  // the arena's bytes [0, m_pinned_end) are pinned (best effort)
  std::unique_ptr<backend> m_backend;
  void* m_lib = nullptr;
  run_fn m_run = nullptr;
  run_fn m_ref64 = nullptr;
  ws_fn m_ws = nullptr;
  worker_role m_role = worker_role::candidate;
  std::string m_last_exception;
  std::vector<std::byte> m_probe;  // the deferred-work probe's second copy of an output, reused
  std::vector<std::byte> m_workspace_poison;
  program_loader m_loader = nullptr;
  bool m_warmed_up = false;  // device backends: one untimed call before the first timed one
  hosted_program m_hosted;
};

int request_server::invoke(const kj_args& a) {
  // A C++ exception escaping the candidate is a runtime error, not a crash of the worker.
  try {
    return m_run(&a);
  } catch (const std::bad_alloc&) {
    m_last_exception = "std::bad_alloc";
    return -1001;
  } catch (const std::exception& e) {
    m_last_exception = e.what();
    return -1000;
  } catch (...) {
    m_last_exception = "unknown exception";
    return -1000;
  }
}

bool request_server::handle_hello(const json& m) {
  m_ch.set_token(m.at("tok").get<std::string>());
  const std::string role_name = m.value("role", "candidate");
  const auto role = parse_worker_role(role_name);
  if (!role) {
    send_error("internal", "hello: no role '" + role_name + "'");
    return false;
  }
  m_role = *role;
  if (!start_backend(m)) return false;
  if (m_role == worker_role::doctor) {
    // Measures the device ceilings only; loads no code.
    json env = m_backend->environment();
    m_ch.send(json{{"type", "ready"},
                   {"info", ""},
                   {"abi", KJ_ABI_VERSION},
                   {"has_workspace", false},
                   {"env", env},
                   {"pid", ::getpid()}});
    return true;
  }
  const std::string lib = m.at("library").get<std::string>();
  // A native candidate's memory from malloc/new is filled with 0x7f bytes (3.4e38 as f32 and
  // bf16) before it is handed out, in checked and timed calls alike (otherwise the fill would
  // tell them apart): a kernel that accumulates into scratch it never initialised fails instead
  // of passing on the zeros of fresh pages. The fill's cost falls on the candidate alone (it is
  // the untrusted party; allocating once, thread_local or in the workspace, avoids it), never on
  // the baselines, the reference or a Python host.
  if (m_role == worker_role::candidate && m_loader == nullptr) ::mallopt(M_PERTURB, 0x80);
  const bool sandbox_requested = m.value("sandbox", true);
  json sandbox_env{{"enabled", false}};
  // Descriptor 5 hands the sandbox's seccomp listener to the controller (worker/sandbox.cpp); a
  // worker without the sandbox has nothing to hand.
  if (!sandbox_requested) ::close(5);
  // Faults at the judge's own buffers are named in the log (with or without the sandbox).
  fault_report::install();
  info_fn info = nullptr;
  abi_fn abi = nullptr;
  const bool loaded = m_loader != nullptr ? load_hosted(m, sandbox_requested, sandbox_env)
                                          : load_shared_object(lib, sandbox_requested, sandbox_env, info, abi);
  if (!loaded) return false;
  if (m_run == nullptr) {
    send_error("bad_input", "the candidate exports no kj_run (declare it with KJ_EXPORT int kj_run(const kj_args*))");
    return false;
  }
  if (m_role == worker_role::reference && m_ref64 == nullptr) {
    send_error("bad_input", "the reference exports no kj_reference_f64");
    return false;
  }
  const int abi_version = abi ? abi() : -1;
  if (abi != nullptr && abi_version != KJ_ABI_VERSION) {
    send_error("bad_input", "the candidate was built for ABI version " + std::to_string(abi_version) +
                                ", this judge speaks " + std::to_string(KJ_ABI_VERSION));
    return false;
  }
  json env = m_backend->environment();
  if (m_loader != nullptr) env.update(m_hosted.environment);
  env["sandbox"] = sandbox_env;
  std::string info_str = m_hosted.info;
  if (info != nullptr) {
    const char* s = info();
    if (s != nullptr) info_str.assign(s, ::strnlen(s, 4096));
  }
  m_ch.send(json{{"type", "ready"},
                 {"info", info_str},
                 {"abi", abi_version},
                 {"has_workspace", m_ws != nullptr},
                 {"env", env},
                 {"pid", ::getpid()}});
  return true;
}

bool request_server::start_backend(const json& m) {
  const std::string backend_name = m.value("backend", "cpu");
  const auto it = factories().find(backend_name);
  if (it == factories().end()) {
    send_error("internal", "this worker has no '" + backend_name + "' backend");
    return false;
  }
  try {
    m_backend = it->second();
    // What the worker downloads goes into the arena: on a GPU that is a DMA once pinned. Only the
    // part the controller expects to be used (pin_bytes, from the start): pinning touches every
    // page, and KernelBench-sized arenas took tens of seconds to pin whole (the reference's
    // perturbed-run slots are used only when an output fails the narrower envelope; a baseline's
    // outputs stay in device snapshots). The rest is copied through the driver's staging.
    const std::size_t pin = std::min<std::size_t>(m.value("pin_bytes", m_arena.size()), m_arena.size());
    if (pin > 0) m_backend->pin_host_memory(m_arena.data(), pin);
    m_pinned_end = pin;
  } catch (const std::exception& e) {
    send_error("internal", std::string("backend start failed: ") + e.what());
    return false;
  }
  return true;
}

bool request_server::load_hosted(const json& m, bool sandbox_requested, json& sandbox_env) {
  // A hosted program (kjudge-worker-py): "library" describes it. The loader starts the
  // interpreter and the trusted runtime (torch) and says what the sandbox must let it read; the
  // party's own files are imported only once the sandbox is on, so that their import-time code,
  // any thread or process it starts, runs inside it like a shared object's constructors.
  std::string err = m_loader(m, m_hosted);
  if (err.empty()) {
    sandbox_options so;
    so.allow_subprocesses = m_hosted.allow_subprocesses;
    so.extra_read = m_hosted.sandbox_read;
    if (sandbox_requested) sandbox_env = apply_sandbox(m_backend->name(), so);
    err = m_hosted.import_party(m_hosted);
  }
  if (!err.empty()) {
    const auto colon = err.find(": ");
    const bool has_kind = colon != std::string::npos && colon < 20;
    send_error(has_kind ? err.substr(0, colon) : "bad_input", has_kind ? err.substr(colon + 2) : err);
    return false;
  }
  m_run = m_hosted.run;
  m_ref64 = m_hosted.reference_f64;
  return true;
}

bool request_server::load_shared_object(const std::string& lib, bool sandbox_requested, json& sandbox_env,
                                        info_fn& info, abi_fn& abi) {
  // A shared object is mapped only once the sandbox is on, so that its constructors, and any
  // thread they start, run inside it: capabilities and landlock apply per thread, and a thread
  // started before the sandbox would keep the worker's privileges (tests/redteam/cpu/
  // ctor_thread_escape.cpp).
  if (sandbox_requested) sandbox_env = apply_sandbox(m_backend->name());
  m_lib = ::dlopen(lib.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (m_lib == nullptr) {
    const char* e = ::dlerror();
    send_error("bad_input", std::string("cannot load the candidate: ") + (e ? e : "?"));
    return false;
  }
  m_run = reinterpret_cast<run_fn>(::dlsym(m_lib, "kj_run"));
  m_ws = reinterpret_cast<ws_fn>(::dlsym(m_lib, "kj_workspace_bytes"));
  info = reinterpret_cast<info_fn>(::dlsym(m_lib, "kj_info"));
  abi = reinterpret_cast<abi_fn>(::dlsym(m_lib, "kj_abi_version"));
  m_ref64 = reinterpret_cast<run_fn>(::dlsym(m_lib, "kj_reference_f64"));
  return true;
}

// Inputs drawn by the hosted program failed: the candidate's own process (a runtime error of the
// candidate, which may have patched it), else a fault of the judge's side.
struct generation_error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

std::vector<host_tensor> request_server::host_inputs(const call_spec& c) {
  std::vector<host_tensor> host;
  if (program_draws(c)) {
    std::vector<kj_tensor> views;
    for (const auto& in : c.inputs) host.emplace_back(in.desc);
    for (auto& h : host) views.push_back(h.view());
    const std::string err = m_hosted.generate(c.distribution, c.seed, views);
    if (!err.empty()) throw generation_error("drawing the inputs with generate_input: " + err);
  } else {
    host = generate_inputs(c.inputs, c.distribution, c.seed);
  }
  if (c.perturb != 0)
    for (std::size_t i = 0; i < host.size(); ++i)
      apply_perturbation(host[i], c.perturb, static_cast<int>(i), c.inputs[i].range, c.inputs[i].structure,
                         c.inputs[i].values);
  return host;
}

void request_server::alloc_inputs(call_buffers& cb, const call_spec& c) {
  std::vector<host_tensor> drawn;
  if (program_draws(c)) drawn = host_inputs(c);  // perturbed already
  for (std::size_t i = 0; i < c.inputs.size(); ++i) {
    const input_plan& in = c.inputs[i];
    auto b = m_backend->allocate(in.desc.nbytes(), "input " + in.desc.name);
    cb.inputs.push_back(b);
    const std::string_view dist =
        in.distribution.empty() ? std::string_view(c.distribution) : std::string_view(in.distribution);
    const std::uint64_t seed = mix_seed(c.seed, i);
    if (!drawn.empty()) {
      m_backend->upload(b, drawn[i].data(), drawn[i].nbytes());
    } else if (!in.values.empty() ||  // discrete float values: drawn on the host (no device path)
               !m_backend->generate(b, in.desc, dist, seed, static_cast<int>(i), in.range) ||
               (in.structure != matrix_structure::none && !m_backend->impose_structure(b, in.desc, in.structure))) {
      host_tensor h(in.desc);
      fill_distribution(h, dist, seed, static_cast<int>(i), in.range, in.values);
      apply_structure(h, in.structure);
      m_backend->upload(b, h.data(), h.nbytes());
    }
    if (c.perturb != 0 && drawn.empty()) {
      // The stale-output probe (inputs/perturbation.hpp): the same change the reference applies, to
      // its few elements in place (the whole input's round trip through the host took seconds
      // on KernelBench's 4 GiB inputs).
      const std::size_t es = dtype_size(in.desc.type);
      tensor_desc one = in.desc;
      one.shape = {1};
      host_tensor h(one);
      for (const std::size_t k : perturbed_indices(c.perturb, static_cast<int>(i), in.desc, in.structure)) {
        guarded_buffer e = b;
        e.data = static_cast<std::byte*>(b.data) + k * es;
        e.bytes = es;
        m_backend->download(e, h.data(), es);
        h.set(0, perturbed_value(h.get(0), in.desc.type, in.range, in.values));
        m_backend->upload(e, h.data(), es);
      }
    }
    // Inputs are const for the call: a write faults (rule input_modified), even one undone
    // before returning, which no comparison after the call could see.
    m_backend->make_read_only(b);
    cb.in_views.push_back(make_kj_tensor(c.inputs[i].desc, b.data));
  }
}

void request_server::alloc_outputs(call_buffers& cb, const call_spec& c) {
  cb.outputs.clear();
  cb.out_views.clear();
  for (const auto& d : c.outputs) {
    // The room for the outputs' snapshots (the deferred-work probe's copy as the call returned),
    // before any trace. The timed parties all take them, so that every party's timed samples are
    // followed by the same untimed work; the reference never does.
    if (m_role != worker_role::reference) m_backend->reserve_snapshot(cb.outputs.size(), d.nbytes());
    auto b = m_backend->allocate(d.nbytes(), "output " + d.name);
    m_backend->poison(b, d.type, d.numel());
    cb.outputs.push_back(b);
    cb.out_views.push_back(make_kj_tensor(d, b.data));
  }
}

void request_server::finish_args(call_buffers& cb, const call_spec& c) {
  kj_args& a = cb.args;
  a = kj_args{};
  a.inputs = cb.in_views.data();
  a.n_inputs = static_cast<int32_t>(cb.in_views.size());
  a.outputs = cb.out_views.data();
  a.n_outputs = static_cast<int32_t>(cb.out_views.size());
  a.scalars = c.scalars.data();
  a.n_scalars = static_cast<int32_t>(c.scalars.size());
  a.stream = m_backend->stream();
  if (m_ws != nullptr && m_role != worker_role::reference) {
    const std::size_t ws = query_workspace(cb, a);
    if (cb.workspace.base != nullptr && cb.workspace.bytes != ws) m_backend->release(cb.workspace);
    if (cb.workspace.base == nullptr && ws > 0) cb.workspace = m_backend->allocate(ws, "workspace");
    if (ws > 0) {
      // Poisoned before every call, checked or timed alike: all-ones bytes are NaN in every float
      // format, so a kernel reading scratch it never wrote fails instead of passing on the
      // zeros of a fresh mapping, and the contents cannot tell a timed call from a checked one.
      if (m_workspace_poison.size() < ws) m_workspace_poison.assign(ws, std::byte{0xff});
      m_backend->upload(cb.workspace, m_workspace_poison.data(), ws);
    }
    a.workspace = cb.workspace.data;
    a.workspace_bytes = ws;
  }
}

std::size_t request_server::query_workspace(const call_buffers& cb, const kj_args& a) {
  // Shapes, strides, dtypes and scalars only: every data pointer is null. The query is not timed
  // and runs before the cache flush, so a candidate handed the live buffers could compute the
  // whole call there and leave its timed call nothing to do (tests/redteam/cpu/
  // workspace_compute_softmax.cpp).
  std::vector<kj_tensor> ins = cb.in_views, outs = cb.out_views;
  for (auto& t : ins) t.data = nullptr;
  for (auto& t : outs) t.data = nullptr;
  kj_args shapes = a;
  shapes.inputs = ins.data();
  shapes.outputs = outs.data();
  shapes.workspace = nullptr;
  shapes.workspace_bytes = 0;
  return m_ws(&shapes);
}

void request_server::free_outputs(call_buffers& cb) {
  for (auto& b : cb.outputs) m_backend->release(b);
  cb.outputs.clear();
  cb.out_views.clear();
}

void request_server::free_all(call_buffers& cb) {
  free_outputs(cb);
  for (auto& b : cb.inputs) m_backend->release(b);
  cb.inputs.clear();
  cb.in_views.clear();
  if (cb.workspace.base != nullptr) m_backend->release(cb.workspace);
}

std::vector<char> request_server::take_outputs(call_buffers& cb, const std::vector<arena_slot>& layout,
                                               slot_kind out_kind, bool snapshot) {
  std::vector<char> snapped(cb.outputs.size(), 0);
  for (std::size_t i = 0; i < cb.outputs.size(); ++i) {
    m_backend->restore_access(cb.outputs[i]);
    if (snapshot && m_backend->snapshot(i, cb.outputs[i])) {
      snapped[i] = 1;
      continue;
    }
    const auto& s = find_slot(layout, out_kind, static_cast<int>(i));
    m_backend->download(cb.outputs[i], m_arena.at(s.offset, s.bytes), s.bytes);
  }
  return snapped;
}

json request_server::export_call(call_buffers& cb, const call_spec& c, const std::vector<arena_slot>& layout,
                                 slot_kind out_kind, bool export_inputs, bool probe_deferred,
                                 const std::vector<char>* taken) {
  json guards = json::array();
  json deferred = json::array();
  // A snapshot only where the probe will compare with it; otherwise straight into the arena.
  const std::vector<char> snapped = taken != nullptr ? *taken : take_outputs(cb, layout, out_kind, probe_deferred);
  if (probe_deferred) {
    std::this_thread::sleep_for(std::chrono::microseconds(deferred_probe_us));
    m_backend->synchronize_all();
    // m_probe is kept between calls (a fresh 256 MiB buffer per recheck cost its zero-fill and
    // page faults); a snapshot is compared where it lives.
    for (std::size_t i = 0; i < cb.outputs.size(); ++i) {
      const auto& s = find_slot(layout, out_kind, static_cast<int>(i));
      const byte_changes ch = snapped[i] != 0 ? m_backend->compare_with_snapshot(i, cb.outputs[i], s.bytes)
                                              : m_backend->compare_with_host(
                                                    cb.outputs[i], m_arena.at(s.offset, s.bytes), s.bytes, m_probe);
      if (ch.changed)
        deferred.push_back(json{{"buffer", cb.outputs[i].label},
                                {"bytes_changed", ch.changed},
                                {"first_byte", ch.first},
                                {"after_us", deferred_probe_us}});
    }
  }
  // What the controller judges: the outputs as the call returned.
  for (std::size_t i = 0; i < cb.outputs.size(); ++i)
    if (snapped[i] != 0) {
      const auto& s = find_slot(layout, out_kind, static_cast<int>(i));
      m_backend->download_snapshot(i, m_arena.at(s.offset, s.bytes), s.bytes);
    }
  if (export_inputs)
    for (std::size_t i = 0; i < cb.inputs.size(); ++i) {
      const auto& s = find_slot(layout, slot_kind::input_after, static_cast<int>(i));
      m_backend->download(cb.inputs[i], m_arena.at(s.offset, s.bytes), s.bytes);
    }
  auto add = [&](const guarded_buffer& b) {
    for (const auto& v : m_backend->check_guards(b))
      guards.push_back(
          json{{"buffer", v.buffer}, {"side", v.side}, {"offset", v.offset}, {"bytes_changed", v.bytes_changed}});
  };
  for (const auto& b : cb.outputs) add(b);
  for (const auto& b : cb.inputs) add(b);
  if (cb.workspace.base != nullptr) add(cb.workspace);
  (void)c;
  return json{{"guards", guards}, {"deferred", deferred}};
}

void request_server::handle_run(const json& m) {
  const call_spec c = call_from_json(m.at("call"));
  const int repeats = m.value("repeats", 1);
  const auto layout = candidate_layout(c, repeats);
  if (!fits_arena(layout)) return;
  call_buffers cb;
  alloc_inputs(cb, c);
  json rcs = json::array(), guards = json::array(), deferred = json::array(), secs = json::array();
  json extras = json::array();
  for (int r = 0; r < repeats; ++r) {
    alloc_outputs(cb, c);
    finish_args(cb, c);
    m_last_exception.clear();
    // Checked calls carry the backend's evidence (kernel trace, allocations); timed samples don't.
    const int rc_prep = prepare(cb.args);
    // "trace": false only for measuring what the trace costs (kjudge eval --no-trace).
    const bool trace = m.value("trace", true);
    if (trace) m_backend->begin_trace();
    timed_call t = rc_prep != 0 ? timed_call{rc_prep} : m_backend->time([&] { return invoke(cb.args); });
    if (t.rc == 0) t.rc = complete(cb.args);
    m_backend->synchronize();
    rcs.push_back(t.rc);
    secs.push_back(t.seconds);
    const bool last = r + 1 == repeats;
    json ev = export_call(cb, c, layout, r == 0 ? slot_kind::output : slot_kind::output_repeat, last, r == 0);
    // Taken after the outputs were read, so that work the call left running elsewhere is still
    // unfinished when the outputs are exported (and shows in the trace once it ends).
    json extra = t.extra.is_null() ? json::object() : t.extra;
    if (trace)
      if (json tr = m_backend->end_trace(); !tr.is_null()) extra["trace"] = std::move(tr);
    extras.push_back(std::move(extra));
    for (auto& g : ev["guards"]) guards.push_back(g);
    for (auto& d : ev["deferred"]) deferred.push_back(d);
    free_outputs(cb);
    if (t.rc == -1001) {
      free_all(cb);
      send_error("resource_limit", "the candidate threw std::bad_alloc");
      return;
    }
  }
  free_all(cb);
  m_ch.send(json{{"type", "ran"},
                 {"rc", rcs},
                 {"guards", guards},
                 {"deferred", deferred},
                 {"seconds", secs},
                 {"exception", m_last_exception},
                 {"extra", extras}});
}

void request_server::handle_reference(const json& m) {
  if (m_backend->device_resident()) {
    handle_reference_device(m);
    return;
  }
  const call_spec c = call_from_json(m.at("call"));
  const auto layout = reference_layout(c, tf32_envelope(m));
  if (!fits_arena(layout)) return;
  phase_laps laps;
  auto host = host_inputs(c);
  for (std::size_t i = 0; i < host.size(); ++i) {
    const auto& s = find_slot(layout, slot_kind::input_generated, static_cast<int>(i));
    std::memcpy(m_arena.at(s.offset, s.bytes), host[i].data(), s.bytes);
  }
  laps.lap("inputs");
  // Same-dtype reference: the reference's own kj_run on the native inputs.
  std::vector<kj_tensor> in_views, out_views;
  std::vector<host_tensor> outs;
  for (auto& h : host) in_views.push_back(h.view());
  for (const auto& d : c.outputs) {
    outs.emplace_back(d);
    poison_buffer(outs.back().data(), d.type, d.numel());
  }
  for (auto& o : outs) out_views.push_back(o.view());
  kj_args a{};
  a.inputs = in_views.data();
  a.n_inputs = static_cast<int32_t>(in_views.size());
  a.outputs = out_views.data();
  a.n_outputs = static_cast<int32_t>(out_views.size());
  a.scalars = c.scalars.data();
  a.n_scalars = static_cast<int32_t>(c.scalars.size());
  int rc_same = m_run(&a);
  if (rc_same == 0) rc_same = complete(a);
  laps.lap("same_run");
  for (std::size_t i = 0; i < outs.size(); ++i) {
    const auto& s = find_slot(layout, slot_kind::ref_same, static_cast<int>(i));
    std::memcpy(m_arena.at(s.offset, s.bytes), outs[i].data(), s.bytes);
  }
  laps.lap("downloads");  // the host backend's copies into the arena
  // The same-dtype reference on inputs moved by one ulp each (random direction), or with TF32
  // permitted rounded to TF32 in a random direction with its parameters: the oracle's estimate
  // of how large an honest kernel's error can be at each element. Only when asked: the
  // controller asks after an output failed the envelope of the exact run alone.
  const int perturbations = envelope_draws(m);
  const bool tf32 = tf32_envelope(m);
  if (!host_envelope_draws(c, layout, host, outs, a, perturbations, tf32, laps)) return;
  const bool native_run = native_tf32_run(m);
  if (native_run && !host_native_tf32_run(layout, outs, in_views, a, perturbations, laps)) return;
  const int rc64 = host_f64_run(c, layout, host, a, laps);
  m_ch.send(json{{"type", "referenced"},
                 {"rc", rc_same},
                 {"rc64", rc64},
                 {"envelope_runs", perturbations + (native_run ? 1 : 0)},
                 {"phases_s", laps.seconds()}});
}

bool request_server::host_envelope_draws(const call_spec& c, const std::vector<arena_slot>& layout,
                                         const std::vector<host_tensor>& host, std::vector<host_tensor>& outs,
                                         kj_args& a, int perturbations, bool tf32, phase_laps& laps) {
  parameter_rounding rounded(m_hosted);
  for (int pr = 0; pr < perturbations; ++pr) {
    std::vector<host_tensor> pert;
    std::vector<kj_tensor> pin;
    for (std::size_t i = 0; i < host.size(); ++i) {
      pert.push_back(host[i].converted(host[i].desc().type));
      const std::uint64_t seed = mix_seed(c.seed, 0x70657274ULL + static_cast<std::uint64_t>(pr) * 131 + i);
      if (tf32)
        round_to_tf32_random(pert.back(), seed);
      else
        perturb_one_ulp(pert.back(), seed);
    }
    if (tf32 && !rounded.round(parameter_seed(c.seed, pr))) {
      send_error("internal", "the reference could not round its parameters to TF32: " + rounded.error());
      return false;
    }
    for (auto& h : pert) pin.push_back(h.view());
    for (auto& o : outs) poison_buffer(o.data(), o.desc().type, o.numel());
    laps.lap("draw_inputs");
    a.inputs = pin.data();
    if (m_run(&a) != 0 || complete(a) != 0) {
      send_error("internal", "the reference failed on perturbed inputs");
      return false;
    }
    laps.lap("draw_runs");
    for (std::size_t i = 0; i < outs.size(); ++i) {
      const auto& s =
          find_slot(layout, slot_kind::ref_perturbed, pr * static_cast<int>(outs.size()) + static_cast<int>(i));
      std::memcpy(m_arena.at(s.offset, s.bytes), outs[i].data(), s.bytes);
    }
    laps.lap("downloads");
  }
  if (!rounded.restore()) {
    send_error("internal", "the reference could not restore its parameters: " + rounded.error());
    return false;
  }
  return true;
}

// The reference as the candidate's torch computes it: the inputs and parameters as they are,
// TF32 on; into the slot after the draws'.
bool request_server::host_native_tf32_run(const std::vector<arena_slot>& layout, std::vector<host_tensor>& outs,
                                          std::vector<kj_tensor>& in_views, kj_args& a, int perturbations,
                                          phase_laps& laps) {
  native_tf32 native(m_hosted);
  if (!native.on()) {
    send_error("internal", "the reference could not switch TF32 on: " + native.error());
    return false;
  }
  for (auto& o : outs) poison_buffer(o.data(), o.desc().type, o.numel());
  a.inputs = in_views.data();
  const int rc = m_run(&a) != 0 ? -1 : complete(a);
  if (!native.off() || rc != 0) {
    send_error("internal", rc != 0 ? "the reference failed with TF32 on"
                                   : "the reference could not switch TF32 off: " + native.error());
    return false;
  }
  laps.lap("tf32_run");
  for (std::size_t i = 0; i < outs.size(); ++i) {
    const auto& s = find_slot(layout, slot_kind::ref_perturbed,
                              perturbations * static_cast<int>(outs.size()) + static_cast<int>(i));
    std::memcpy(m_arena.at(s.offset, s.bytes), outs[i].data(), s.bytes);
  }
  laps.lap("downloads");
  return true;
}

int request_server::host_f64_run(const call_spec& c, const std::vector<arena_slot>& layout,
                                 const std::vector<host_tensor>& host, kj_args& a, phase_laps& laps) {
  std::vector<host_tensor> in64, out64;
  std::vector<kj_tensor> in_views, out_views;
  for (const auto& h : host) in64.push_back(h.converted(dtype::f64));
  for (const auto& d : c.outputs) {
    tensor_desc d64 = d;
    d64.type = dtype::f64;
    out64.emplace_back(d64);
  }
  for (auto& h : in64) in_views.push_back(h.view());
  for (auto& o : out64) out_views.push_back(o.view());
  a.inputs = in_views.data();
  a.outputs = out_views.data();
  laps.lap("f64_inputs");
  int rc64 = m_ref64(&a);
  if (rc64 == 0) rc64 = complete(a);
  laps.lap("f64_run");
  for (std::size_t i = 0; i < out64.size(); ++i) {
    const auto& s = find_slot(layout, slot_kind::ref64, static_cast<int>(i));
    std::memcpy(m_arena.at(s.offset, s.bytes), out64[i].data(), s.bytes);
  }
  laps.lap("downloads");
  return rc64;
}

// The problem's own check (hosted_program::check) of a candidate's outputs, which the controller
// wrote into this worker's arena where the same-dtype reference outputs go (reference_layout):
// the inputs are drawn again here from the call, never taken from the candidate's side.
void request_server::handle_check(const json& m) {
  if (m_hosted.check == nullptr) {
    send_error("internal", "this worker has no problem check");
    return;
  }
  const call_spec c = call_from_json(m.at("call"));
  const auto layout = reference_layout(c, tf32_envelope(m));
  if (!fits_arena(layout)) return;
  auto host = host_inputs(c);
  std::vector<host_tensor> outs;
  std::vector<kj_tensor> in_views, out_views;
  for (std::size_t i = 0; i < c.outputs.size(); ++i) {
    outs.emplace_back(c.outputs[i]);
    const auto& s = find_slot(layout, slot_kind::ref_same, static_cast<int>(i));
    std::memcpy(outs.back().data(), m_arena.at(s.offset, s.bytes), std::min(s.bytes, outs.back().nbytes()));
  }
  for (auto& h : host) in_views.push_back(h.view());
  for (auto& o : outs) out_views.push_back(o.view());
  json r = m_hosted.check(in_views, out_views);
  r["type"] = "checked";
  m_ch.send(r);
}

// The envelope runs' slots are left out of the reference's pinned arena at start (pin_bytes):
// most problems never need them, and pinning touches every page. Once a request asks for them
// they are pinned, so that every later request downloads them by DMA rather than through the
// driver's staging (on a TF32 problem every request after the first does: six outputs of up to
// 2.2 GB each on KernelBench level 2). Not beyond a quarter of the machine's memory in all.
void request_server::pin_envelope_slots(const std::vector<arena_slot>& layout) {
  std::size_t end = 0;
  for (const auto& s : layout)
    if (s.kind == slot_kind::ref_perturbed) end = std::max(end, s.offset + s.bytes);
  end = std::min(end, m_arena.size());
  constexpr std::size_t page = 4096;
  // Whole pages after those already registered (the first region's last page is the driver's).
  const std::size_t begin = (m_pinned_end + page - 1) / page * page;
  if (end <= begin) return;
  const long pages = ::sysconf(_SC_PHYS_PAGES), page_size = ::sysconf(_SC_PAGE_SIZE);
  const std::size_t budget =
      pages > 0 && page_size > 0 ? static_cast<std::size_t>(pages) * static_cast<std::size_t>(page_size) / 4 : 0;
  if (end > budget) return;  // stays staged
  m_backend->pin_host_memory(m_arena.at(begin, end - begin), end - begin);
  m_pinned_end = end;
}

// The reference role on a device backend: inputs drawn on the device (the same values a
// candidate's worker draws for this seed), the reference's kj_run on device buffers (the trusted
// same-dtype reference), then its kj_reference_f64 on float64 copies widened on the device. The
// arena receives the inputs as drawn, the same-dtype outputs and the float64 outputs.
void request_server::handle_reference_device(const json& m) {
  const call_spec c = call_from_json(m.at("call"));
  const auto layout = reference_layout(c, tf32_envelope(m));
  if (!fits_arena(layout)) return;
  call_buffers cb;
  std::vector<guarded_buffer> in64, out64;
  const std::function<void()> release_all = [&] {
    free_all(cb);
    for (auto& b : in64) m_backend->release(b);
    for (auto& b : out64) m_backend->release(b);
  };
  phase_laps laps;
  try {
    const int rc_same = device_same_run(c, layout, cb, laps);
    // The same-dtype reference on inputs moved by one ulp each (or TF32 draws), as in
    // handle_reference (the oracle's error envelope), one-ulp moves on the device when the
    // backend can; only when asked.
    const int perturbations = envelope_draws(m);
    const bool tf32 = tf32_envelope(m);
    if (perturbations > 0) pin_envelope_slots(layout);
    laps.lap("pin");
    if (!device_envelope_draws(c, layout, cb, perturbations, tf32, release_all, laps)) return;
    const bool native_run = native_tf32_run(m);
    if (native_run && !device_native_tf32_run(c, layout, cb, perturbations, release_all, laps)) return;
    const int rc64 = device_f64_run(c, layout, cb, in64, out64, laps);
    release_all();
    laps.lap("downloads");
    m_ch.send(json{{"type", "referenced"},
                   {"rc", rc_same},
                   {"rc64", rc64},
                   {"envelope_runs", perturbations + (native_run ? 1 : 0)},
                   {"phases_s", laps.seconds()}});
  } catch (...) {
    release_all();
    throw;
  }
}

// The inputs drawn on the device and downloaded, then the reference's kj_run on them.
int request_server::device_same_run(const call_spec& c, const std::vector<arena_slot>& layout, call_buffers& cb,
                                    phase_laps& laps) {
  alloc_inputs(cb, c);
  laps.lap("inputs");
  for (std::size_t i = 0; i < cb.inputs.size(); ++i) {
    const auto& s = find_slot(layout, slot_kind::input_generated, static_cast<int>(i));
    m_backend->download(cb.inputs[i], m_arena.at(s.offset, s.bytes), s.bytes);
  }
  laps.lap("downloads");
  alloc_outputs(cb, c);
  finish_args(cb, c);
  int rc_same = invoke(cb.args);
  if (rc_same == 0) rc_same = complete(cb.args);
  m_backend->synchronize();
  laps.lap("same_run");
  for (std::size_t i = 0; i < cb.outputs.size(); ++i) {
    const auto& s = find_slot(layout, slot_kind::ref_same, static_cast<int>(i));
    m_backend->download(cb.outputs[i], m_arena.at(s.offset, s.bytes), s.bytes);
  }
  laps.lap("downloads");
  return rc_same;
}

bool request_server::device_envelope_draws(const call_spec& c, const std::vector<arena_slot>& layout, call_buffers& cb,
                                           int perturbations, bool tf32, const std::function<void()>& release,
                                           phase_laps& laps) {
  parameter_rounding rounded(m_hosted);
  for (int pr = 0; pr < perturbations; ++pr) {
    std::vector<guarded_buffer> pert;
    std::vector<kj_tensor> pin;
    for (std::size_t i = 0; i < c.inputs.size(); ++i) {
      const tensor_desc& d = c.inputs[i].desc;
      const std::uint64_t seed = mix_seed(c.seed, 0x70657274ULL + static_cast<std::uint64_t>(pr) * 131 + i);
      pert.push_back(m_backend->allocate(d.nbytes(), "input " + d.name + " (perturbed)"));
      // On the device where the backend can: through the host, a draw of KernelBench's 537M
      // f32 inputs was a 2 GB download, a single-threaded pass and a 2 GB upload.
      const bool on_device = tf32 ? m_backend->round_tf32_copy(cb.inputs[i], pert.back(), d.type, d.numel(), seed)
                                  : m_backend->perturb_ulp_copy(cb.inputs[i], pert.back(), d.type, d.numel(), seed);
      if (!on_device) {
        host_tensor h(d);
        m_backend->download(cb.inputs[i], h.data(), h.nbytes());
        if (tf32)
          round_to_tf32_random(h, seed);
        else
          perturb_one_ulp(h, seed);
        m_backend->upload(pert.back(), h.data(), h.nbytes());
      }
      pin.push_back(make_kj_tensor(d, pert.back().data));
    }
    if (tf32 && !rounded.round(parameter_seed(c.seed, pr))) {
      for (auto& b : pert) m_backend->release(b);
      release();
      send_error("internal", "the reference could not round its parameters to TF32: " + rounded.error());
      return false;
    }
    for (std::size_t i = 0; i < cb.outputs.size(); ++i)
      m_backend->poison(cb.outputs[i], c.outputs[i].type, c.outputs[i].numel());
    m_backend->synchronize();
    laps.lap("draw_inputs");
    kj_args a = cb.args;
    a.inputs = pin.data();
    int rc = invoke(a);
    if (rc == 0) rc = complete(a);
    m_backend->synchronize();
    laps.lap("draw_runs");
    for (auto& b : pert) m_backend->release(b);
    if (rc != 0) {
      release();
      send_error("internal", "the reference failed on perturbed inputs");
      return false;
    }
    for (std::size_t i = 0; i < cb.outputs.size(); ++i) {
      const auto& s =
          find_slot(layout, slot_kind::ref_perturbed, pr * static_cast<int>(cb.outputs.size()) + static_cast<int>(i));
      m_backend->download(cb.outputs[i], m_arena.at(s.offset, s.bytes), s.bytes);
    }
    laps.lap("downloads");
  }
  if (!rounded.restore()) {
    release();
    send_error("internal", "the reference could not restore its parameters: " + rounded.error());
    return false;
  }
  return true;
}

// The reference as the candidate's torch computes it: the generated inputs and the parameters as
// they are, TF32 on; into the slot after the draws'. The inputs are the same-dtype run's, which
// the f64 widening reads too (a reference does not write its inputs: the same run would already
// have changed them).
bool request_server::device_native_tf32_run(const call_spec& c, const std::vector<arena_slot>& layout, call_buffers& cb,
                                            int perturbations, const std::function<void()>& release, phase_laps& laps) {
  native_tf32 native(m_hosted);
  if (!native.on()) {
    release();
    send_error("internal", "the reference could not switch TF32 on: " + native.error());
    return false;
  }
  for (std::size_t i = 0; i < cb.outputs.size(); ++i)
    m_backend->poison(cb.outputs[i], c.outputs[i].type, c.outputs[i].numel());
  int rc = invoke(cb.args);
  if (rc == 0) rc = complete(cb.args);
  m_backend->synchronize();
  if (!native.off() || rc != 0) {
    release();
    send_error("internal", rc != 0 ? "the reference failed with TF32 on"
                                   : "the reference could not switch TF32 off: " + native.error());
    return false;
  }
  laps.lap("tf32_run");
  for (std::size_t i = 0; i < cb.outputs.size(); ++i) {
    const auto& s = find_slot(layout, slot_kind::ref_perturbed,
                              perturbations * static_cast<int>(cb.outputs.size()) + static_cast<int>(i));
    m_backend->download(cb.outputs[i], m_arena.at(s.offset, s.bytes), s.bytes);
  }
  laps.lap("downloads");
  return true;
}

int request_server::device_f64_run(const call_spec& c, const std::vector<arena_slot>& layout, call_buffers& cb,
                                   std::vector<guarded_buffer>& in64, std::vector<guarded_buffer>& out64,
                                   phase_laps& laps) {
  std::vector<kj_tensor> in_views, out_views;
  for (std::size_t i = 0; i < c.inputs.size(); ++i) {
    tensor_desc d64 = c.inputs[i].desc;
    d64.type = dtype::f64;
    in64.push_back(m_backend->allocate(d64.nbytes(), "input " + d64.name + " (f64)"));
    if (!m_backend->widen_to_f64(cb.inputs[i], c.inputs[i].desc.type, in64.back(), d64.numel()))
      throw internal_error("the " + std::string(m_backend->name()) + " backend cannot widen " +
                           std::string(dtype_name(c.inputs[i].desc.type)) + " to f64");
    in_views.push_back(make_kj_tensor(d64, in64.back().data));
  }
  for (const auto& d : c.outputs) {
    tensor_desc d64 = d;
    d64.type = dtype::f64;
    out64.push_back(m_backend->allocate(d64.nbytes(), "output " + d64.name + " (f64)"));
    m_backend->poison(out64.back(), dtype::f64, d64.numel());
    out_views.push_back(make_kj_tensor(d64, out64.back().data));
  }
  m_backend->synchronize();
  laps.lap("f64_inputs");
  kj_args a = cb.args;
  a.inputs = in_views.data();
  a.outputs = out_views.data();
  int rc64 = 0;
  try {
    rc64 = m_ref64(&a);
    if (rc64 == 0) rc64 = complete(a);
  } catch (const std::exception& e) {
    m_last_exception = e.what();
    rc64 = -1000;
  }
  m_backend->synchronize();
  laps.lap("f64_run");
  for (std::size_t i = 0; i < out64.size(); ++i) {
    const auto& s = find_slot(layout, slot_kind::ref64, static_cast<int>(i));
    m_backend->download(out64[i], m_arena.at(s.offset, s.bytes), s.bytes);
  }
  return rc64;
}

void request_server::handle_doctor() {
  const json d = m_backend->doctor();
  if (d.is_null()) {
    send_error("bad_input", "the " + std::string(m_backend->name()) + " backend measures no ceilings");
    return;
  }
  m_ch.send(json{{"type", "doctor_done"}, {"ceilings", d}});
}

void request_server::handle_time(const json& m) {
  const call_spec c = call_from_json(m.at("call"));
  const std::string mode = m.value("mode", "cold");
  const auto layout = candidate_layout(c, 1);
  // Whatever the checked calls' tracing left in this process goes before any timed call (the
  // candidate's calls were traced, a baseline's mostly not: the same code then timed differently).
  m_backend->detach_trace();
  if (m_backend->device_resident() && !m_warmed_up) {
    // DESIGN.md §4 warm-up: a baseline's first call may load modules and create library handles
    // (a cuBLAS handle takes ~100 ms); one untimed call on this case's shape does that first.
    call_buffers cb;
    alloc_inputs(cb, c);
    alloc_outputs(cb, c);
    finish_args(cb, c);
    if (prepare(cb.args) == 0 && invoke(cb.args) == 0) (void)complete(cb.args);
    m_backend->synchronize_all();
    free_all(cb);
    m_warmed_up = true;
  }
  m_ch.send(json{{"type", "time_ready"}});
  const auto forever = std::chrono::steady_clock::now() + std::chrono::hours(24);
  for (;;) {
    json req;
    if (m_ch.receive(req, forever) != recv_status::ok) return;
    const std::string type = req.value("type", "");
    if (type == "time_end") {
      json done{{"type", "time_done"}};
      const json state = m_backend->device_state();
      if (!state.is_null()) done["device_state"] = state;
      m_ch.send(done);
      return;
    }
    if (type != "sample") {
      send_error("internal", "unexpected message in timing: " + type);
      return;
    }
    call_spec sc = c;
    sc.seed = req.at("seed").get<std::uint64_t>();
    call_buffers cb;
    alloc_inputs(cb, sc);
    alloc_outputs(cb, sc);
    finish_args(cb, sc);
    m_last_exception.clear();
    const int rc_prep = prepare(cb.args);
    if (mode == "cold") m_backend->flush_cache();
    // "trace": the controller asks for the backend's evidence on this sample (chosen before the
    // call, so it may set the sample aside: tracing perturbs the time slightly).
    const bool trace = req.value("trace", false);
    if (trace) m_backend->begin_trace();
    // "armed": the controller reads its own clock as it says "go", so that where the call started
    // is known without trusting anything in this process (the timer's first reading lives in
    // memory the candidate's code can reach: tests/redteam/cpu/timer_stack_start_rmsnorm.cpp).
    if (req.value("armed", false)) {
      m_ch.send(json{{"type", "armed"}});
      json go;
      if (m_ch.receive(go, forever) != recv_status::ok) return;
      if (go.value("type", "") != "go") {
        send_error("internal", "expected 'go' in timing, got " + go.value("type", std::string("?")));
        return;
      }
    }
    timed_call t = rc_prep != 0 ? timed_call{rc_prep} : m_backend->time([&] { return invoke(cb.args); });
    if (t.rc == 0) t.rc = complete(cb.args);
    m_backend->synchronize();
    // Every sample's outputs are copied as the call returned (a snapshot on the device where the
    // backend keeps one, else into the arena), before the controller decides whether to recheck
    // it: a recheck then judges what the call had produced by its return, and work still running
    // after it (a thread or stream finishing the output later) is caught by the deferred-work
    // probe. Untimed, and the same for every sample and every timed party.
    const std::vector<char> taken = take_outputs(cb, layout, slot_kind::output, true);
    json reply{{"type", "sampled"}, {"rc", t.rc}, {"seconds", t.seconds}, {"host_seconds", t.host_seconds}};
    if (t.end_ns != 0) reply["end_ns"] = t.end_ns;
    if (!t.extra.is_null()) reply["extra"] = t.extra;
    if (trace)
      if (json tr = m_backend->end_trace(); !tr.is_null()) reply["extra"]["trace"] = std::move(tr);
    m_ch.send(reply);
    json decision;
    if (m_ch.receive(decision, forever) != recv_status::ok) return;
    // Buffers are freed before answering, so that this worker is quiet on the device while the
    // controller times the next party.
    if (decision.value("type", "") == "keep") {
      json ev = export_call(cb, sc, layout, slot_kind::output, true, true, &taken);
      ev["type"] = "kept";
      free_all(cb);
      m_ch.send(ev);
    } else {
      free_all(cb);
      m_ch.send(json{{"type", "discarded"}});
    }
  }
}

void request_server::handle_warm_batch(const json& m) {
  // `count` calls back to back, timed as a whole with the backend's timer; the controller compares
  // two batches' difference with its own clock (rule timer_tamper). The calls cycle through
  // `sets` distinct input/output sets drawn before the clock starts (seeds mix_seed(seed, k)), so
  // that a batch does not replay one pointer and one input over and over.
  const call_spec c = call_from_json(m.at("call"));
  const int count = std::max(1, m.value("count", 10));
  const int nsets = std::clamp(m.value("sets", 1), 1, count);
  std::vector<call_buffers> sets(static_cast<std::size_t>(nsets));
  // The call specs live as long as the sets: kj_args.scalars points into them. (A spec local to
  // the loop left every warm batch reading freed memory for its scalars: torch.compile'd
  // baselines saw a garbage eps on each warm-up call and recompiled for every value.)
  std::vector<call_spec> specs(static_cast<std::size_t>(nsets), c);
  for (int k = 0; k < nsets; ++k) {
    call_spec& sk = specs[static_cast<std::size_t>(k)];
    sk.seed = mix_seed(c.seed, static_cast<std::uint64_t>(k));
    alloc_inputs(sets[static_cast<std::size_t>(k)], sk);
    alloc_outputs(sets[static_cast<std::size_t>(k)], sk);
    finish_args(sets[static_cast<std::size_t>(k)], sk);
  }
  int rc_prep = 0;
  for (auto& cb : sets)
    if (rc_prep == 0) rc_prep = prepare(cb.args);
  timed_call t = m_backend->time([&] {
    int rc = rc_prep;
    for (int i = 0; i < count && rc == 0; ++i) rc = invoke(sets[static_cast<std::size_t>(i % nsets)].args);
    return rc;
  });
  if (t.rc == 0) t.rc = complete(sets[static_cast<std::size_t>((count - 1) % nsets)].args);
  m_backend->synchronize();
  for (auto& cb : sets) free_all(cb);
  m_ch.send(json{{"type", "warm_done"}, {"rc", t.rc}, {"seconds_total", t.seconds}});
}

int request_server::serve() {
  const auto hello_deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  json hello;
  if (m_ch.receive(hello, hello_deadline) != recv_status::ok || hello.value("type", "") != "hello") return 3;
  if (!handle_hello(hello)) return 0;
  const auto forever = std::chrono::steady_clock::now() + std::chrono::hours(24);
  for (;;) {
    json m;
    const auto st = m_ch.receive(m, forever);
    if (st != recv_status::ok) return st == recv_status::closed ? 0 : 3;
    const std::string type = m.value("type", "");
    try {
      if (type == "run")
        handle_run(m);
      else if (type == "reference")
        handle_reference(m);
      else if (type == "check")
        handle_check(m);
      else if (type == "time_begin")
        handle_time(m);
      else if (type == "warm_batch")
        handle_warm_batch(m);
      else if (type == "doctor")
        handle_doctor();
      else if (type == "bye")
        return 0;
      else if (m_hosted.handle != nullptr)
        m_ch.send(m_hosted.handle(m));
      else
        send_error("internal", "unknown request: " + type);
    } catch (const device_fault& f) {
      // The loaded code faulted the device: data for a verdict. After a sticky fault the context
      // is unusable, so the worker answers and exits; the controller starts a fresh one.
      send_error(f.kind(), f.what());
      if (f.fatal()) return 0;
    } catch (const generation_error& e) {
      send_error(m_role == worker_role::candidate ? "runtime_error" : "internal", e.what());
    } catch (const std::bad_alloc&) {
      send_error("resource_limit", "out of memory while preparing or running a call");
    } catch (const std::exception& e) {
      send_error("internal", e.what());
    }
  }
}

}  // namespace

void register_backend(const char* name, backend_factory f) {
  factories()[name] = f;
}

int run_worker(int channel_fd, int arena_fd, std::size_t arena_bytes) {
  channel ch(channel_fd);
  shared_arena arena = shared_arena::attach(arena_fd, arena_bytes);
  request_server s(ch, arena);
  return s.serve();
}

int run_hosted_worker(int channel_fd, int arena_fd, std::size_t arena_bytes, program_loader loader) {
  channel ch(channel_fd);
  shared_arena arena = shared_arena::attach(arena_fd, arena_bytes);
  request_server s(ch, arena, loader);
  return s.serve();
}

}  // namespace kjudge
