// The Python host of kjudge-worker-py (docs/python.md): an embedded CPython running one party
// (a PyTorch reference or baseline, or a Python candidate) behind the worker session's entry
// points (worker/worker.hpp hosted_program). Buffers reach torch zero-copy as DLPack capsules
// built here; results leave through torch's builtin DLPack export and a memcpy into the judge's
// guarded buffers. Neither path calls anything the party can redefine: the builtins are taken
// before the party's module is imported, and per call no Python function of ours runs.
#include "python/py_host.hpp"

#include <Python.h>
#include <dlfcn.h>

#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/dtype.hpp"
#include "protocol/messages.hpp"

namespace kjudge::py {

extern const char* const kjudge_host_source;  // kjudge_host.py, compiled in (python.cmake)

namespace {

// DLPack (dmlc/dlpack, the 0.x "dltensor" capsule ABI that every torch since 1.2 consumes).
struct DLDevice {
  int32_t device_type;
  int32_t device_id;
};
struct DLDataType {
  uint8_t code;
  uint8_t bits;
  uint16_t lanes;
};
struct DLTensor {
  void* data;
  DLDevice device;
  int32_t ndim;
  DLDataType dtype;
  int64_t* shape;
  int64_t* strides;
  uint64_t byte_offset;
};
struct DLManagedTensor {
  DLTensor dl_tensor;
  void* manager_ctx;
  void (*deleter)(DLManagedTensor*);
};
constexpr int32_t dl_cpu = 1, dl_cuda = 2;
constexpr uint8_t dl_int = 0, dl_uint = 1, dl_float = 2, dl_bfloat = 4, dl_bool = 6;

struct owned_dl {
  DLManagedTensor m{};
  int64_t shape[KJ_MAX_DIMS] = {};
  int64_t strides[KJ_MAX_DIMS] = {};
};

DLDataType dl_type(kj_dtype t) {
  switch (t) {
    case KJ_F32:
      return {dl_float, 32, 1};
    case KJ_F64:
      return {dl_float, 64, 1};
    case KJ_F16:
      return {dl_float, 16, 1};
    case KJ_BF16:
      return {dl_bfloat, 16, 1};
    case KJ_I32:
      return {dl_int, 32, 1};
    case KJ_I64:
      return {dl_int, 64, 1};
    case KJ_U8:
      return {dl_uint, 8, 1};
    case KJ_BOOL:
      return {dl_bool, 8, 1};
  }
  return {dl_float, 32, 1};
}

bool same_type(DLDataType a, kj_dtype t) {
  const DLDataType b = dl_type(t);
  if (a.bits == b.bits && a.lanes == 1 && a.code == b.code) return true;
  return t == KJ_BOOL && a.code == dl_uint && a.bits == 8;  // torch before DLPack 0.8
}

std::string dl_type_name(DLDataType d) {
  const char* c = d.code == dl_float    ? "float"
                  : d.code == dl_int    ? "int"
                  : d.code == dl_uint   ? "uint"
                  : d.code == dl_bfloat ? "bfloat"
                  : d.code == dl_bool   ? "bool"
                                        : "?";
  return std::string(c) + std::to_string(d.bits);
}

std::string shape_text(const int64_t* s, int n) {
  std::string r = "[";
  for (int i = 0; i < n; ++i) r += (i ? ", " : "") + std::to_string(s[i]);
  return r + "]";
}

void capsule_destructor(PyObject* cap) {
  // Unconsumed capsules own their tensor; consumed ones were renamed "used_dltensor".
  if (PyCapsule_IsValid(cap, "dltensor")) {
    auto* m = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(cap, "dltensor"));
    if (m != nullptr && m->deleter != nullptr) m->deleter(m);
  }
}

struct host_state {
  worker_role role = worker_role::candidate;
  bool cuda = false;
  int device_index = 0;
  PyObject* fn = nullptr;                // the party's callable
  PyObject* fn64 = nullptr;              // reference role: the float64 callable
  PyObject* gen = nullptr;               // GPU MODE: generate_input(**args, seed) into given tensors
  PyObject* check = nullptr;             // GPU MODE, reference role: check_implementation(data, output)
  PyObject* round_parameters = nullptr;  // reference role with a module: round(seed), see kjudge_host
  PyObject* tf32_native = nullptr;       // reference role, TF32 permitted: switch(on), see kjudge_host
  PyObject* from_dlpack = nullptr;       // torch._C._from_dlpack (builtin)
  PyObject* to_dlpack = nullptr;         // torch._C._to_dlpack (builtin)
  PyObject* tensor_type = nullptr;       // torch.Tensor (exact type required of results)
  PyObject* is_contiguous = nullptr;     // torch._C.TensorBase.is_contiguous (method descriptor)
  PyObject* contiguous = nullptr;        // torch._C.TensorBase.contiguous
  PyObject* glue = nullptr;              // kjudge_host (stats and messages only; never per call)
  PyObject* set_stream = nullptr;
  void* stream = nullptr;
  // Argument plan: positional entries ("tensor" i | "scalar" j with int/float) and kwargs.
  struct arg {
    bool tensor = true;
    int index = 0;
    bool as_int = false;
  };
  std::vector<arg> plan;
  std::vector<std::pair<std::string, int>> kwargs;  // name, scalar index
  // Calls prepared before the clock: inputs array -> (args, kwargs, the buffers they wrap).
  struct prepared_call {
    PyObject* args = nullptr;
    PyObject* kwargs = nullptr;
    std::vector<void*> data;
  };
  std::map<const kj_tensor*, prepared_call> prepared;
  std::vector<PyObject*> pending;  // results of the last call
  int (*cuda_memcpy_async)(void*, const void*, size_t, int, void*) = nullptr;
  std::string last_error;  // the last call's failure, for py_stats (warm-up reports it)
  PyObject* torch = nullptr;
  std::map<int, std::string> dtype_names{{KJ_F32, "float32"},   {KJ_F64, "float64"}, {KJ_F16, "float16"},
                                         {KJ_BF16, "bfloat16"}, {KJ_I32, "int32"},   {KJ_I64, "int64"},
                                         {KJ_U8, "uint8"},      {KJ_BOOL, "bool"}};
};

host_state g;

struct gil {
  PyGILState_STATE s;
  gil() : s(PyGILState_Ensure()) {}
  ~gil() { PyGILState_Release(s); }
  gil(const gil&) = delete;
  gil& operator=(const gil&) = delete;
};

// The current Python exception as one line (the exception and the traceback's last frame).
std::string python_error() {
  PyObject *type = nullptr, *value = nullptr, *tb = nullptr;
  PyErr_Fetch(&type, &value, &tb);
  PyErr_NormalizeException(&type, &value, &tb);
  std::string msg = "Python error";
  if (value != nullptr) {
    if (tb != nullptr) PyException_SetTraceback(value, tb);
    PyObject* r = g.glue ? PyObject_CallMethod(g.glue, "describe_exception", "O", value) : nullptr;
    if (r != nullptr && PyUnicode_Check(r)) {
      msg = PyUnicode_AsUTF8(r);
    } else {
      PyErr_Clear();
      PyObject* s = PyObject_Str(value);
      if (s != nullptr)
        msg = std::string(type ? reinterpret_cast<PyTypeObject*>(type)->tp_name : "?") + ": " + PyUnicode_AsUTF8(s);
      Py_XDECREF(s);
      PyErr_Clear();
    }
    Py_XDECREF(r);
  }
  Py_XDECREF(type);
  Py_XDECREF(value);
  Py_XDECREF(tb);
  return msg;
}

[[noreturn]] void throw_python(const std::string& what) {
  throw std::runtime_error(what + python_error());
}

PyObject* wrap_tensor(const kj_tensor& t, bool cuda) {
  auto* o = new owned_dl();
  o->m.dl_tensor.data = t.data;
  o->m.dl_tensor.device = {cuda ? dl_cuda : dl_cpu, cuda ? g.device_index : 0};
  o->m.dl_tensor.ndim = t.ndim;
  o->m.dl_tensor.dtype = dl_type(t.dtype);
  for (int i = 0; i < t.ndim && i < KJ_MAX_DIMS; ++i) {
    o->shape[i] = t.shape[i];
    o->strides[i] = t.stride[i];
  }
  o->m.dl_tensor.shape = o->shape;
  o->m.dl_tensor.strides = o->strides;
  o->m.dl_tensor.byte_offset = 0;
  o->m.manager_ctx = o;
  o->m.deleter = [](DLManagedTensor* m) { delete static_cast<owned_dl*>(m->manager_ctx); };
  PyObject* cap = PyCapsule_New(&o->m, "dltensor", capsule_destructor);
  if (cap == nullptr) {
    delete o;
    throw_python("cannot make a DLPack capsule: ");
  }
  PyObject* tensor = PyObject_CallOneArg(g.from_dlpack, cap);
  Py_DECREF(cap);
  if (tensor == nullptr) throw_python("torch cannot take the buffer: ");
  return tensor;
}

void drop_prepared() {
  for (auto& [k, v] : g.prepared) {
    Py_XDECREF(v.args);
    Py_XDECREF(v.kwargs);
  }
  g.prepared.clear();
}

void drop_pending() {
  for (auto* p : g.pending) Py_XDECREF(p);
  g.pending.clear();
}

int prepare_locked(const kj_args* a) {
  if (g.cuda && a->stream != g.stream && g.set_stream != nullptr) {
    PyObject* r = PyObject_CallFunction(
        g.set_stream, "Ki", static_cast<unsigned long long>(reinterpret_cast<uintptr_t>(a->stream)), g.device_index);
    if (r == nullptr) throw_python("cannot use the judge's stream: ");
    Py_DECREF(r);
    g.stream = a->stream;
  }
  std::vector<PyObject*> tensors;
  for (int i = 0; i < a->n_inputs; ++i) tensors.push_back(wrap_tensor(a->inputs[i], g.cuda));
  auto scalar = [&](int j, bool as_int) -> PyObject* {
    if (j < 0 || j >= a->n_scalars)
      throw std::runtime_error("the argument plan names scalar " + std::to_string(j) + ", the call has " +
                               std::to_string(a->n_scalars));
    return as_int ? PyLong_FromLongLong(static_cast<long long>(a->scalars[j])) : PyFloat_FromDouble(a->scalars[j]);
  };
  PyObject* args = nullptr;
  if (g.plan.empty()) {
    args = PyTuple_New(static_cast<Py_ssize_t>(tensors.size()));
    for (std::size_t i = 0; i < tensors.size(); ++i) PyTuple_SET_ITEM(args, static_cast<Py_ssize_t>(i), tensors[i]);
  } else {
    args = PyTuple_New(static_cast<Py_ssize_t>(g.plan.size()));
    for (std::size_t i = 0; i < g.plan.size(); ++i) {
      const auto& p = g.plan[i];
      PyObject* v = nullptr;
      if (p.tensor) {
        if (p.index < 0 || p.index >= static_cast<int>(tensors.size())) throw std::runtime_error("bad argument plan");
        v = tensors[static_cast<std::size_t>(p.index)];
        Py_INCREF(v);
      } else {
        v = scalar(p.index, p.as_int);
      }
      PyTuple_SET_ITEM(args, static_cast<Py_ssize_t>(i), v);
    }
    for (auto* t : tensors) Py_DECREF(t);
  }
  PyObject* kwargs = nullptr;
  if (!g.kwargs.empty()) {
    kwargs = PyDict_New();
    for (const auto& [name, j] : g.kwargs) {
      PyObject* v = scalar(j, false);
      PyDict_SetItemString(kwargs, name.c_str(), v);
      Py_DECREF(v);
    }
  }
  auto it = g.prepared.find(a->inputs);
  if (it != g.prepared.end()) {
    Py_XDECREF(it->second.args);
    Py_XDECREF(it->second.kwargs);
  }
  host_state::prepared_call pc{args, kwargs, {}};
  for (int i = 0; i < a->n_inputs; ++i) pc.data.push_back(a->inputs[i].data);
  g.prepared[a->inputs] = std::move(pc);
  return 0;
}

int call_locked(PyObject* fn, const kj_args* a) {
  auto it = g.prepared.find(a->inputs);
  bool current = it != g.prepared.end() && static_cast<int>(it->second.data.size()) == a->n_inputs;
  for (int i = 0; current && i < a->n_inputs; ++i)
    current = it->second.data[static_cast<std::size_t>(i)] == a->inputs[i].data;
  if (!current) {
    prepare_locked(a);
    it = g.prepared.find(a->inputs);
  }
  drop_pending();
  PyObject* r = PyObject_Call(fn, it->second.args, it->second.kwargs);
  if (r == nullptr) throw std::runtime_error(python_error());
  std::vector<PyObject*> items;
  if (Py_TYPE(r) == reinterpret_cast<PyTypeObject*>(g.tensor_type)) {
    items.push_back(r);
  } else if (PyTuple_Check(r) || PyList_Check(r)) {
    const Py_ssize_t n = PySequence_Size(r);
    for (Py_ssize_t i = 0; i < n; ++i) items.push_back(PySequence_GetItem(r, i));
    Py_DECREF(r);
  } else {
    const std::string tn = Py_TYPE(r)->tp_name;
    const bool subclass = PyObject_IsInstance(r, g.tensor_type) == 1;
    Py_DECREF(r);
    throw std::runtime_error(subclass ? "the call returned a " + tn +
                                            " (a torch.Tensor subclass); return plain torch.Tensor results"
                                      : "the call returned " + tn + ", expected a torch.Tensor or a tuple of " +
                                            std::to_string(a->n_outputs) + " tensors");
  }
  if (static_cast<int>(items.size()) != a->n_outputs) {
    for (auto* p : items) Py_XDECREF(p);
    throw std::runtime_error("the call returned " + std::to_string(items.size()) + " result(s), the problem has " +
                             std::to_string(a->n_outputs) + " output(s)");
  }
  for (std::size_t i = 0; i < items.size(); ++i) {
    PyObject* t = items[i];
    if (t == nullptr || Py_TYPE(t) != reinterpret_cast<PyTypeObject*>(g.tensor_type)) {
      const std::string tn = t ? Py_TYPE(t)->tp_name : "NULL";
      for (auto* p : items) Py_XDECREF(p);
      throw std::runtime_error("result " + std::to_string(i) + " is a " + tn + ", expected a plain torch.Tensor");
    }
    // Results are made contiguous inside the timed call: the copy into the judge's buffer after
    // the clock stopped is then a plain memcpy, never work the party left for later.
    PyObject* c = PyObject_CallOneArg(g.is_contiguous, t);
    if (c == nullptr) throw std::runtime_error(python_error());
    const bool contiguous = PyObject_IsTrue(c) == 1;
    Py_DECREF(c);
    if (!contiguous) {
      PyObject* cc = PyObject_CallOneArg(g.contiguous, t);
      if (cc == nullptr) throw std::runtime_error(python_error());
      Py_DECREF(t);
      items[i] = cc;
    }
  }
  g.pending = std::move(items);
  return 0;
}

int complete_locked(const kj_args* a) {
  struct cleanup {  // NOLINT(cppcoreguidelines-special-member-functions): a scope guard, never copied
    ~cleanup() {
      drop_pending();
      drop_prepared();
    }
  } c;
  if (static_cast<int>(g.pending.size()) != a->n_outputs) throw std::runtime_error("no results to complete");
  std::vector<bool> converted(static_cast<std::size_t>(a->n_outputs), false);
  for (int i = 0; i < a->n_outputs; ++i) {
    PyObject* cap = PyObject_CallOneArg(g.to_dlpack, g.pending[static_cast<std::size_t>(i)]);
    if (cap == nullptr)
      throw std::runtime_error("result " + std::to_string(i) + " cannot be exported: " + python_error());
    auto* m = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(cap, "dltensor"));
    if (m == nullptr) {
      Py_DECREF(cap);
      throw std::runtime_error("result " + std::to_string(i) + ": not a DLPack capsule");
    }
    PyCapsule_SetName(cap, "used_dltensor");
    struct release {  // NOLINT(cppcoreguidelines-special-member-functions): a scope guard, never copied
      DLManagedTensor* m;
      PyObject* cap;
      ~release() {
        if (m->deleter) m->deleter(m);
        Py_DECREF(cap);
      }
    } rel{m, cap};
    const DLTensor& t = m->dl_tensor;
    const kj_tensor& out = a->outputs[i];
    const std::string which = "output " + std::to_string(i);
    if (!same_type(t.dtype, out.dtype)) {
      if (g.role != worker_role::candidate && g.dtype_names.count(out.dtype) &&
          !converted[static_cast<std::size_t>(i)]) {
        // A trusted party (a torch baseline) whose function returns another dtype: converted
        // here, after the clock, as a caller would convert it; never for a candidate.
        PyObject* dt = PyObject_GetAttrString(g.torch, g.dtype_names.at(out.dtype).c_str());
        PyObject* conv = dt ? PyObject_CallMethod(g.pending[static_cast<std::size_t>(i)], "to", "O", dt) : nullptr;
        Py_XDECREF(dt);
        if (conv == nullptr) throw std::runtime_error(which + ": " + python_error());
        Py_DECREF(g.pending[static_cast<std::size_t>(i)]);
        g.pending[static_cast<std::size_t>(i)] = conv;
        converted[static_cast<std::size_t>(i)] = true;
        --i;
        continue;
      }
      throw std::runtime_error(which + " has dtype " + dl_type_name(t.dtype) + ", the problem's is " +
                               dl_type_name(dl_type(out.dtype)));
    }
    // Shape: equal, or a 0-dim result for a one-element output.
    bool shape_ok = t.ndim == out.ndim;
    for (int d = 0; shape_ok && d < t.ndim; ++d) shape_ok = t.shape[d] == out.shape[d];
    std::size_t numel = 1, out_numel = 1;
    for (int d = 0; d < t.ndim; ++d) numel *= static_cast<std::size_t>(t.shape[d]);
    for (int d = 0; d < out.ndim; ++d) out_numel *= static_cast<std::size_t>(out.shape[d]);
    if (!shape_ok && !(t.ndim == 0 && out_numel == 1))
      throw std::runtime_error(which + " has shape " + shape_text(t.shape, t.ndim) + ", the problem's is " +
                               shape_text(out.shape, out.ndim));
    if (t.strides != nullptr) {
      int64_t expect = 1;
      for (int d = t.ndim - 1; d >= 0; --d) {
        if (t.shape[d] != 1 && t.strides[d] != expect) throw std::runtime_error(which + " is not contiguous");
        expect *= t.shape[d];
      }
    }
    const bool on_cuda = t.device.device_type == dl_cuda;
    if (on_cuda != g.cuda)
      throw std::runtime_error(which + " is on " + (on_cuda ? "cuda" : "cpu") + ", the judge runs on " +
                               (g.cuda ? "cuda" : "cpu"));
    const std::size_t bytes = numel * dtype_size(static_cast<dtype>(out.dtype));
    const void* src = static_cast<const char*>(t.data) + t.byte_offset;
    if (bytes == 0) continue;
    // A candidate's result must be memory of its own: one that is (a view of) an input would have
    // its copy into the judge's buffer, the work an honest kernel does in the call, made here,
    // after the clock stopped.
    if (g.role == worker_role::candidate)
      for (int j = 0; j < a->n_inputs; ++j) {
        const kj_tensor& in = a->inputs[j];
        std::size_t in_numel = 1;
        for (int d = 0; d < in.ndim; ++d) in_numel *= static_cast<std::size_t>(in.shape[d]);
        const auto* lo = static_cast<const char*>(in.data);
        const auto* hi = lo + in_numel * dtype_size(static_cast<dtype>(in.dtype));
        const auto* s0 = static_cast<const char*>(src);
        if (s0 < hi && lo < s0 + bytes)
          throw std::runtime_error(which + " is (a view of) input " + std::to_string(j) +
                                   ": return a tensor of its own, computed in the call");
      }
    if (!g.cuda) {
      std::memcpy(out.data, src, bytes);
    } else {
      if (g.cuda_memcpy_async == nullptr) throw std::runtime_error("no CUDA runtime to copy results");
      constexpr int device_to_device = 3;
      if (g.cuda_memcpy_async(out.data, src, bytes, device_to_device, a->stream) != 0)
        throw std::runtime_error(which + ": cudaMemcpyAsync failed");
    }
  }
  return 0;
}

template <class F>
int recorded(F&& f) {
  try {
    return f();
  } catch (const std::exception& e) {
    g.last_error = e.what();
    throw;
  }
}
int run_entry(const kj_args* a) {
  gil l;
  return recorded([&] { return call_locked(g.fn, a); });
}
int run64_entry(const kj_args* a) {
  gil l;
  return recorded([&] {
    drop_prepared();  // the float64 call wraps the widened buffers, never the native ones
    prepare_locked(a);
    return call_locked(g.fn64, a);
  });
}
int prepare_entry(const kj_args* a) {
  gil l;
  return recorded([&] { return prepare_locked(a); });
}
int complete_entry(const kj_args* a) {
  gil l;
  return recorded([&] { return complete_locked(a); });
}

// GPU MODE inputs (hosted_program::generate): the glue's closure calls the problem's
// generate_input(**ARGS, seed=...) and copies its tensors into the judge's host buffers, which it
// receives as tensors aliasing them.
std::string generate_entry(const std::string& distribution, std::uint64_t seed, std::vector<kj_tensor>& inputs) {
  gil l;
  if (g.gen == nullptr) return "this party has no generate_input";
  const std::string prefix = "generate_input ";
  const std::string args = distribution.substr(std::min(distribution.size(), prefix.size()));
  try {
    PyObject* list = PyList_New(static_cast<Py_ssize_t>(inputs.size()));
    for (std::size_t i = 0; i < inputs.size(); ++i)
      PyList_SET_ITEM(list, static_cast<Py_ssize_t>(i), wrap_tensor(inputs[i], false));
    PyObject* r = PyObject_CallFunction(g.gen, "sKO", args.c_str(), static_cast<unsigned long long>(seed), list);
    Py_DECREF(list);
    if (r == nullptr) return python_error();
    Py_DECREF(r);
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

// hosted_program::round_parameters: the reference module's f32 parameters rounded to TF32 in a
// random direction (seed), or restored (0), by kjudge_host's _tf32_parameter_rounding.
std::string round_parameters_entry(std::uint64_t seed) {
  gil l;
  if (g.round_parameters == nullptr) return "this party has no parameters to round";
  PyObject* r = PyObject_CallFunction(g.round_parameters, "K", static_cast<unsigned long long>(seed));
  if (r == nullptr) return python_error();
  Py_DECREF(r);
  return "";
}

// hosted_program::set_tf32: torch's TF32 switched on or off (kjudge_host's _tf32_switch).
std::string set_tf32_entry(bool on) {
  gil l;
  if (g.tf32_native == nullptr) return "this party has no TF32 switch";
  PyObject* r = PyObject_CallFunction(g.tf32_native, "O", on ? Py_True : Py_False);
  if (r == nullptr) return python_error();
  const bool took = PyObject_IsTrue(r) == 1;
  Py_DECREF(r);
  return took ? "" : std::string("torch did not take TF32 ") + (on ? "on" : "off");
}

// The problem's check (hosted_program::check): check_implementation(data, output) on host tensors.
nlohmann::json check_entry(const std::vector<kj_tensor>& inputs, const std::vector<kj_tensor>& outputs) {
  gil l;
  if (g.check == nullptr) return {{"ok", false}, {"error", "this party has no check_implementation"}};
  auto tensors = [](const std::vector<kj_tensor>& ts) {
    PyObject* list = PyList_New(static_cast<Py_ssize_t>(ts.size()));
    for (std::size_t i = 0; i < ts.size(); ++i)
      PyList_SET_ITEM(list, static_cast<Py_ssize_t>(i), wrap_tensor(ts[i], false));
    return list;
  };
  PyObject* ins = tensors(inputs);
  PyObject* outs = tensors(outputs);
  PyObject* r = PyObject_CallFunctionObjArgs(g.check, ins, outs, nullptr);
  Py_DECREF(ins);
  Py_DECREF(outs);
  if (r == nullptr) return {{"ok", false}, {"error", python_error()}};
  nlohmann::json out{{"ok", false}, {"message", ""}};
  if (PyTuple_Check(r) && PyTuple_Size(r) == 2) {
    out["ok"] = PyObject_IsTrue(PyTuple_GetItem(r, 0)) == 1;
    PyObject* m = PyTuple_GetItem(r, 1);
    if (PyUnicode_Check(m)) out["message"] = PyUnicode_AsUTF8(m);
  }
  Py_DECREF(r);
  return out;
}

nlohmann::json handle_entry(const nlohmann::json& req) {
  gil l;
  const std::string type = req.value("type", "");
  if (type == "py_stats") {
    PyObject* r = PyObject_CallMethod(g.glue, "stats", nullptr);
    nlohmann::json out{{"type", "py_stats"}};
    if (r != nullptr && PyUnicode_Check(r)) {
      out["stats"] = nlohmann::json::parse(PyUnicode_AsUTF8(r), nullptr, false);
    } else {
      out["stats"] = {{"error", python_error()}};
    }
    Py_XDECREF(r);
    if (!g.last_error.empty()) out["stats"]["last_error"] = g.last_error;
    return out;
  }
  return nlohmann::json{{"type", "error"}, {"kind", "internal"}, {"message", "unknown request: " + type}};
}

std::string read_text(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw std::runtime_error("cannot read " + path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

PyObject* attr(PyObject* o, const char* name) {
  PyObject* r = PyObject_GetAttrString(o, name);
  if (r == nullptr) throw_python(std::string("missing attribute ") + name + ": ");
  return r;
}

}  // namespace

void start_interpreter(const std::string& python_executable) {
  // UTF-8 mode: problem and candidate files are read as UTF-8 whatever the locale. An isolated
  // interpreter neither coerces the C locale nor reads PYTHONUTF8, and on a machine without a
  // locale (the H200 image: LANG unset) open() decoded ASCII, so KernelBench level 1 #12, with a
  // "×" in a docstring, failed to import there.
  PyPreConfig pre;
  PyPreConfig_InitIsolatedConfig(&pre);
  pre.utf8_mode = 1;
  if (const PyStatus ps = Py_PreInitialize(&pre); PyStatus_Exception(ps))
    throw std::runtime_error(std::string("cannot start Python (") + python_executable +
                             "): " + (ps.err_msg ? ps.err_msg : "?"));
  PyConfig config;
  PyConfig_InitIsolatedConfig(&config);
  config.write_bytecode = 0;  // no __pycache__ next to problem or candidate files
  config.site_import = 1;     // the venv's site-packages and its .pth files
  config.user_site_directory = 0;
  config.install_signal_handlers = 0;
  config.parse_argv = 0;
  // The executable decides sys.prefix: a venv's python3 makes its site-packages importable.
  PyStatus st = PyConfig_SetBytesString(&config, &config.executable, python_executable.c_str());
  if (!PyStatus_Exception(st)) st = PyConfig_SetBytesString(&config, &config.program_name, python_executable.c_str());
  if (!PyStatus_Exception(st)) st = Py_InitializeFromConfig(&config);
  PyConfig_Clear(&config);
  if (PyStatus_Exception(st))
    throw std::runtime_error(std::string("cannot start Python (") + python_executable +
                             "): " + (st.err_msg ? st.err_msg : "?"));
  PyObject* code = Py_CompileString(kjudge_host_source, "<kjudge_host>", Py_file_input);
  if (code == nullptr) throw_python("kjudge_host does not compile: ");
  g.glue = PyImport_ExecCodeModule("kjudge_host", code);
  Py_DECREF(code);
  if (g.glue == nullptr) throw_python("kjudge_host: ");
}

std::string inspect(const std::string& python_executable, const std::string& request_json) {
  start_interpreter(python_executable);
  PyObject* r = PyObject_CallMethod(g.glue, "main_inspect", "s", request_json.c_str());
  if (r == nullptr) return nlohmann::json{{"ok", false}, {"bad_input", false}, {"error", python_error()}}.dump();
  std::string s = PyUnicode_Check(r) ? PyUnicode_AsUTF8(r) : "{}";
  Py_DECREF(r);
  return s;
}

namespace {

// The party description and role of this worker, kept from load_program for import_party.
nlohmann::json g_cfg;

// The party's files, imported inside the sandbox (hosted_program::import_party): the glue's load()
// imports them and returns what the entry points use.
std::string import_party(hosted_program& out) {
  const worker_role role = g.role;
  const nlohmann::json& cfg = g_cfg;
  gil l;
  PyObject* res = PyObject_CallMethod(g.glue, "load", "ss", cfg.dump().c_str(), worker_role_name(role).c_str());
  if (res == nullptr) {
    PyObject *type = nullptr, *value = nullptr, *tb = nullptr;
    PyErr_Fetch(&type, &value, &tb);
    PyObject* bad = PyObject_GetAttrString(g.glue, "BadInput");
    PyErr_Clear();
    const bool is_bad = bad != nullptr && type != nullptr && PyErr_GivenExceptionMatches(type, bad);
    Py_XDECREF(bad);
    PyErr_Restore(type, value, tb);
    const std::string msg = python_error();
    // The party's own file failing to load is bad input for a candidate, a fault for ours.
    return (role == worker_role::candidate || is_bad ? "bad_input: " : "internal: ") + msg;
  }
  try {
    g.fn = PyDict_GetItemString(res, "fn");
    Py_XINCREF(g.fn);
    PyObject* fn64 = PyDict_GetItemString(res, "fn64");
    if (fn64 != nullptr && fn64 != Py_None) {
      g.fn64 = fn64;
      Py_INCREF(g.fn64);
    }
    for (auto [key, slot] : {std::pair<const char*, PyObject**>{"gen", &g.gen},
                             {"check", &g.check},
                             {"round_parameters", &g.round_parameters},
                             {"tf32_native", &g.tf32_native}}) {
      PyObject* f = PyDict_GetItemString(res, key);
      if (f != nullptr && f != Py_None) {
        *slot = f;
        Py_INCREF(f);
      }
    }
    PyObject* info = PyDict_GetItemString(res, "info");
    if (info && PyUnicode_Check(info)) out.info = PyUnicode_AsUTF8(info);
    const auto plan = cfg.value("args", nlohmann::json::array());
    for (const auto& p : plan) {
      host_state::arg a;
      a.tensor = p.contains("tensor");
      a.index = a.tensor ? p["tensor"].get<int>() : p.at("scalar").get<int>();
      a.as_int = p.value("as", "float") == "int";
      g.plan.push_back(a);
    }
    for (const auto& k : cfg.value("kwargs", nlohmann::json::array()))
      g.kwargs.emplace_back(k.at("name").get<std::string>(), k.at("scalar").get<int>());
  } catch (const std::exception& e) {
    Py_DECREF(res);
    return std::string("internal: ") + e.what();
  }
  Py_DECREF(res);
  if (g.fn == nullptr) return "internal: the party has no callable";
  if (role == worker_role::reference && g.fn64 == nullptr) return "internal: the reference has no float64 callable";
  out.run = &run_entry;
  out.prepare = &prepare_entry;
  out.complete = &complete_entry;
  out.reference_f64 = g.fn64 ? &run64_entry : nullptr;
  out.handle = &handle_entry;
  if (g.gen != nullptr) out.generate = &generate_entry;
  if (g.check != nullptr) out.check = &check_entry;
  if (g.round_parameters != nullptr) out.round_parameters = &round_parameters_entry;
  if (g.tf32_native != nullptr) out.set_tf32 = &set_tf32_entry;
  return "";
}

}  // namespace

std::string load_program(const nlohmann::json& hello, hosted_program& out) {
  const std::string role_name = hello.value("role", "candidate");
  const auto parsed_role = parse_worker_role(role_name);
  if (!parsed_role) return "internal: hello: no role '" + role_name + "'";
  const worker_role role = *parsed_role;
  g.role = role;
  g.cuda = hello.value("backend", "cpu") == "cuda";
  try {
    g_cfg = nlohmann::json::parse(read_text(hello.at("library").get<std::string>()));
  } catch (const std::exception& e) {
    return std::string("internal: party description: ") + e.what();
  }
  const std::string python = g_cfg.value("python", "");
  try {
    start_interpreter(python);
  } catch (const std::exception& e) {
    return std::string("internal: ") + e.what();
  }
  // torch first, and its builtins taken before any code of the party's can touch anything.
  PyObject* torch = PyImport_ImportModule("torch");
  if (torch == nullptr)
    return "internal: cannot import torch with " + python + ": " + python_error() +
           " (install it with scripts/install-torch.sh, or set KJUDGE_PYTHON to a python3 that has torch)";
  try {
    PyObject* torch_c = attr(torch, "_C");
    g.from_dlpack = attr(torch_c, "_from_dlpack");
    g.to_dlpack = attr(torch_c, "_to_dlpack");
    g.tensor_type = attr(torch, "Tensor");
    PyObject* base = attr(torch_c, "TensorBase");
    g.is_contiguous = attr(base, "is_contiguous");
    g.contiguous = attr(base, "contiguous");
    g.set_stream = attr(g.glue, "set_stream");
    Py_DECREF(base);
    Py_DECREF(torch_c);
  } catch (const std::exception& e) {
    return std::string("internal: ") + e.what();
  }
  if (g.cuda) {
    // torch has loaded the CUDA runtime; results are copied with it on the judge's stream.
    for (const char* lib : {"libcudart.so.13", "libcudart.so.12", "libcudart.so"}) {
      void* h = ::dlopen(lib, RTLD_NOLOAD | RTLD_LAZY);
      if (h == nullptr) continue;
      g.cuda_memcpy_async = reinterpret_cast<decltype(g.cuda_memcpy_async)>(::dlsym(h, "cudaMemcpyAsync"));
      if (g.cuda_memcpy_async) break;
    }
  }
  // What the sandbox must let the party read (the interpreter, torch, the party's directory),
  // and the environment the glue reports, from torch's settings alone.
  PyObject* res = PyObject_CallMethod(g.glue, "prepare", "ss", g_cfg.dump().c_str(), worker_role_name(role).c_str());
  if (res == nullptr) return (role == worker_role::candidate ? "bad_input: " : "internal: ") + python_error();
  try {
    PyObject* env = PyDict_GetItemString(res, "env");
    if (env && PyUnicode_Check(env)) out.environment = nlohmann::json::parse(PyUnicode_AsUTF8(env));
    PyObject* read = PyDict_GetItemString(res, "read");
    for (Py_ssize_t i = 0; read && i < PyList_Size(read); ++i)
      out.sandbox_read.emplace_back(PyUnicode_AsUTF8(PyList_GetItem(read, i)));
  } catch (const std::exception& e) {
    Py_DECREF(res);
    return std::string("internal: ") + e.what();
  }
  Py_DECREF(res);
  g.torch = torch;  // kept: trusted parties' dtype conversions
  out.allow_subprocesses = true;
  out.import_party = &import_party;
  // From here on Python runs only inside the entry points (import_party included), each holding
  // the GIL.
  PyEval_SaveThread();
  return "";
}

}  // namespace kjudge::py
