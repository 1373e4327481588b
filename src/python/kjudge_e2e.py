# kjudge e2e's runtime (docs/e2e.md): a kjudge candidate (a shared object exporting kj_run, built
# by the judge's builder) called from PyTorch through the candidate ABI, registered as a torch
# custom op (one opaque call for torch.compile), and put in a model in place of a module class or
# a function. Compiled into the kjudge binary and written beside the generated ModelNew file;
# it runs only inside kjudge-worker-py, in the candidate's role.
import ctypes
import importlib.util
import os
import statistics
import sys

import torch

_KJ_DTYPES = {torch.float32: 0, torch.float64: 1, torch.float16: 2, torch.bfloat16: 3, torch.int32: 4,
              torch.int64: 5, torch.uint8: 6, torch.bool: 7}
_KJ_MAX_DIMS = 8


class _Tensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("dtype", ctypes.c_int), ("ndim", ctypes.c_int32),
                ("shape", ctypes.c_int64 * _KJ_MAX_DIMS), ("stride", ctypes.c_int64 * _KJ_MAX_DIMS)]


class _Args(ctypes.Structure):
    _fields_ = [("inputs", ctypes.POINTER(_Tensor)), ("n_inputs", ctypes.c_int32),
                ("outputs", ctypes.POINTER(_Tensor)), ("n_outputs", ctypes.c_int32),
                ("scalars", ctypes.POINTER(ctypes.c_double)), ("n_scalars", ctypes.c_int32),
                ("stream", ctypes.c_void_p), ("workspace", ctypes.c_void_p), ("workspace_bytes", ctypes.c_size_t)]


def _describe(t):
    if t.dtype not in _KJ_DTYPES:
        raise TypeError(f"kjudge e2e: dtype {t.dtype} has no kj_dtype")
    d = _Tensor()
    d.data = t.data_ptr()
    d.dtype = _KJ_DTYPES[t.dtype]
    d.ndim = t.dim()
    for i, (n, s) in enumerate(zip(t.shape, t.stride())):
        d.shape[i], d.stride[i] = n, s
    return d


class Kernel:
    """One candidate library: kj_run called with the problem's inputs (2-D rows of the last
    dimension, as the suite's problems take them), one output shaped as the first input."""

    def __init__(self, library):
        self.lib = ctypes.CDLL(library)
        self.run = self.lib.kj_run
        self.run.argtypes = [ctypes.POINTER(_Args)]
        self.run.restype = ctypes.c_int
        self.ws = getattr(self.lib, "kj_workspace_bytes", None)
        if self.ws is not None:
            self.ws.argtypes = [ctypes.POINTER(_Args)]
            self.ws.restype = ctypes.c_size_t

    def __call__(self, inputs, scalars):
        n = inputs[0].shape[-1]
        rows = [t.reshape(-1, n).contiguous() if t.dim() > 1 else t.contiguous() for t in inputs]
        out = torch.empty_like(rows[0])
        ins = (_Tensor * len(rows))(*[_describe(t) for t in rows])
        outs = (_Tensor * 1)(_describe(out))
        sc = (ctypes.c_double * max(1, len(scalars)))(*scalars)
        a = _Args(ins, len(rows), outs, 1, sc, len(scalars), None, None, 0)
        if out.is_cuda:
            a.stream = torch.cuda.current_stream(out.device).cuda_stream
        workspace = None
        if self.ws is not None:
            nbytes = int(self.ws(ctypes.byref(a)))
            if nbytes:
                workspace = torch.empty(nbytes, dtype=torch.uint8, device=out.device)
                a.workspace, a.workspace_bytes = workspace.data_ptr(), nbytes
        rc = self.run(ctypes.byref(a))
        if rc != 0:
            raise RuntimeError(f"kjudge e2e: kj_run returned {rc}")
        return out.reshape(inputs[0].shape)


# The suite problems' scalars by name (problems/<name>/problem.toml), for a Python candidate.
_SCALAR_NAMES = {"softmax": [], "rmsnorm": ["eps"], "layernorm": ["eps"], "gelu_bias_residual": []}


class PyKernel:
    """A Python candidate for the suite problem, as `kjudge eval` takes one: kernel(*inputs,
    **scalars), or a module class ModelNew() called so; given the same rows as Kernel, its output
    reshaped to the first input's shape."""

    def __init__(self, path, problem):
        mod = _import(path, "kjudge_e2e_candidate_py")
        fn = getattr(mod, "kernel", None)
        if fn is None:
            cls = getattr(mod, "ModelNew", None)
            if not isinstance(cls, type):
                raise ValueError(f"kjudge e2e: {os.path.basename(path)} defines neither kernel(...) nor ModelNew")
            fn = cls()
        self.fn, self.names = fn, _SCALAR_NAMES[problem]

    def __call__(self, inputs, scalars):
        n = inputs[0].shape[-1]
        rows = [t.reshape(-1, n).contiguous() if t.dim() > 1 else t.contiguous() for t in inputs]
        if isinstance(self.fn, torch.nn.Module):
            self.fn = self.fn.to(rows[0].device)
        out = self.fn(*rows, **dict(zip(self.names, scalars))).reshape(inputs[0].shape)
        # A custom op's output may not alias its inputs (torch.library's rule).
        if any(out.untyped_storage().data_ptr() == t.untyped_storage().data_ptr() for t in inputs + rows):
            out = out.clone()
        return out


def load_kernel(path, problem):
    """The candidate: a shared object through the ABI, or a .py file."""
    return PyKernel(path, problem) if path.endswith(".py") else Kernel(path)


def _attr(module, names, default=None):
    for n in names:
        v = getattr(module, n, None)
        if v is not None:
            return v
    return default


def _eps(module, default):
    v = _attr(module, ("eps", "variance_epsilon", "epsilon"), default)
    return float(v[0] if isinstance(v, (tuple, list)) else v)


def _ones(x):
    return torch.ones(x.shape[-1], dtype=x.dtype, device=x.device)


def _zeros(x):
    return torch.zeros(x.shape[-1], dtype=x.dtype, device=x.device)


def _last_dim(dim, x):
    if dim is not None and dim not in (-1, x.dim() - 1):
        raise ValueError(f"kjudge e2e: softmax over dim {dim}; the suite's softmax is over the last dimension")


def _softmax_module(m, x):
    _last_dim(getattr(m, "dim", -1), x)
    return [x], []


def _rmsnorm_module(m, x):
    w = _attr(m, ("weight", "scale", "g"))
    return [x, w if w is not None else _ones(x)], [_eps(m, 1e-6)]


def _layernorm_module(m, x):
    w, b = _attr(m, ("weight",)), _attr(m, ("bias",))
    return [x, w if w is not None else _ones(x), b if b is not None else _zeros(x)], [_eps(m, 1e-5)]


def _gelu_module(m, x, *rest):
    # forward(x, bias, residual), or forward(x, residual) with the module's own bias.
    bias, residual = (rest[0], rest[1]) if len(rest) == 2 else (_attr(m, ("bias",)), rest[0])
    return [x, bias, residual], []


def _softmax_fn(x, dim=None, *_, **kw):
    _last_dim(kw.get("dim", dim), x)
    return [x], []


def _layernorm_fn(x, normalized_shape, weight=None, bias=None, eps=1e-5):
    return [x, weight if weight is not None else _ones(x), bias if bias is not None else _zeros(x)], [float(eps)]


def _rmsnorm_fn(x, normalized_shape, weight=None, eps=None):
    return [x, weight if weight is not None else _ones(x)], [float(eps if eps is not None else 1e-6)]


_OPS = {}

# problem -> (module adapter, function adapter): how a call of the replaced target becomes the
# problem's inputs and scalars (its signature's order, problems/<name>/problem.toml).
ADAPTERS = {"softmax": (_softmax_module, _softmax_fn), "rmsnorm": (_rmsnorm_module, _rmsnorm_fn),
            "layernorm": (_layernorm_module, _layernorm_fn), "gelu_bias_residual": (_gelu_module, None)}


def make_op(problem, library, kernel=None):
    """The candidate as torch custom op kjudge_e2e::<problem>: opaque to torch.compile (its fake
    gives the output's shape and dtype, the first input's). One library per problem and process."""
    if problem in _OPS:
        return _OPS[problem]
    kernel = kernel or load_kernel(library, problem)

    @torch.library.custom_op(f"kjudge_e2e::{problem}", mutates_args=())
    def op(inputs: list[torch.Tensor], scalars: list[float]) -> torch.Tensor:
        _calls[0] += 1
        _in_candidate[0] = True
        try:
            return kernel(inputs, scalars)
        finally:
            _in_candidate[0] = False

    @op.register_fake
    def _(inputs, scalars):
        return torch.empty_like(inputs[0])

    _OPS[problem] = op
    return op


# Calls of the candidate's op, counted in its body: torch.compile never traces it (the op is
# opaque), so the count is no state of the compiled graph. Counted in the traced forward instead,
# Dynamo would guard on its value and recompile the model at every call, until its recompile limit
# sent the frame back to eager.
_calls = [0]
# True while the candidate runs: a Python candidate that calls the replaced function (its own
# torch.softmax) gets the original, not itself.
_in_candidate = [False]


class Replaced(torch.nn.Module):
    """Holds the replaced module (its parameters, in their place in the model's order) and calls
    the candidate's op instead of its forward."""

    def __init__(self, inner, op, adapter):
        super().__init__()
        self.inner = inner
        self._kj = (op, adapter)

    def forward(self, *args):
        op, adapter = self._kj
        ins, scalars = adapter(self.inner, *args)
        return op(list(ins), [float(s) for s in scalars])


def _replace_modules(model, cls_name, op, adapter):
    n = 0
    for parent in list(model.modules()):
        for name, child in list(parent.named_children()):
            if type(child).__name__ == cls_name:
                setattr(parent, name, Replaced(child, op, adapter))
                n += 1
    return n


def _patch_function(dotted, op, adapter, namespaces):
    """Replaces the function `dotted` (torch.softmax, torch.nn.functional.layer_norm) in its module
    and wherever the model's module bound it by name."""
    mod_name, _, fn_name = dotted.rpartition(".")
    owner = importlib.import_module(mod_name)
    original = getattr(owner, fn_name, None)
    if original is None:
        raise ValueError(f"kjudge e2e: {dotted} does not exist")

    def replaced(*args, **kwargs):
        if _in_candidate[0]:
            return original(*args, **kwargs)
        ins, scalars = adapter(*args, **kwargs)
        return op(list(ins), [float(s) for s in scalars])

    setattr(owner, fn_name, replaced)
    for ns in namespaces:
        for k, v in list(vars(ns).items()):
            if v is original:
                setattr(ns, k, replaced)
    return replaced


def _import(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


def model_new(directory, cfg, kernel=None):
    """ModelNew for the imported model problem: the model's own class (same parameters, drawn in
    the same order under the judge's seed) with the target replaced by the candidate's op, and
    compiled with cfg["compile"] when given."""
    model_mod = _import(os.path.join(directory, cfg["model"]), "kjudge_e2e_model")
    problem, target = cfg["problem"], cfg["target"]
    module_adapter, fn_adapter = ADAPTERS[problem]
    op = make_op(problem, os.path.join(directory, cfg["library"]), kernel)
    is_function = "." in target
    if is_function:
        if fn_adapter is None:
            raise ValueError(f"kjudge e2e: {problem} replaces a module class, not a function")
        _patch_function(target, op, fn_adapter, [model_mod])
    mode = cfg.get("compile")

    class ModelNew(model_mod.Model):
        def __init__(self, *args):
            super().__init__(*args)
            if not is_function and _replace_modules(self, target, op, module_adapter) == 0:
                raise ValueError(f"kjudge e2e: the model has no module of class {target}")
            self._kj_forward = torch.compile(super().forward, mode=mode, dynamic=False) if mode else super().forward

        def forward(self, *args):
            out = self._kj_forward(*args)
            if _calls[0] == 0:
                # A target the forward never reaches would leave the model unchanged: not a judgement.
                raise ValueError(f"kjudge e2e: the model's forward never called {target}")
            return out

    return ModelNew


def _device_time(evt, cuda):
    if not cuda:
        return evt.cpu_time_total
    return getattr(evt, "device_time_total", None) or getattr(evt, "cuda_time_total", 0)


def _compiled_graphs():
    from torch._dynamo.utils import counters
    return counters["stats"].get("unique_graphs", 0)


PROFILED_STEPS = 7


def _step_shares(prof, cuda):
    """Each profiled step's (share, the target's seconds): the kjudge_e2e_target ranges inside that
    step's range over the step (device time on cuda, cpu time on cpu; the profiler's microseconds);
    None where a step has no time, or on cuda no kernel linked to a target range."""
    events = prof.events()
    steps = [e for e in events if e.name == "kjudge_e2e_step"]
    targets = [e for e in events if e.name == "kjudge_e2e_target"]
    shares = []
    for st in steps:
        lo, hi = st.time_range.start, st.time_range.end
        inside = sum(_device_time(t, cuda) for t in targets
                     if lo <= t.time_range.start and t.time_range.end <= hi)
        whole = _device_time(st, cuda)
        if not whole or (cuda and not inside):
            return None
        shares.append((min(1.0, inside / whole), inside / 1e6))
    return shares or None


def _profiled_share(model, inputs, cuda, steps=PROFILED_STEPS):
    """The target's share of a step: the median over `steps` profiled steps (after two warm-up
    ones) of each step's share (_step_shares), so that a step slowed by the machine's other work
    moves the figure less than an aggregate would. Returns (median or None, [min, max] or None,
    the median of the target's seconds a step or None, graphs torch.compile compiled during the
    profiled steps: 0 unless the model recompiles, which would make the share a compiler's)."""
    from torch.profiler import ProfilerActivity, profile, record_function
    with torch.no_grad():
        for _ in range(2):
            model(*inputs)
        if cuda:
            torch.cuda.synchronize()
        graphs = _compiled_graphs()
        acts = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if cuda else [])
        with profile(activities=acts) as prof:
            for _ in range(steps):
                with record_function("kjudge_e2e_step"):
                    model(*inputs)
                if cuda:
                    torch.cuda.synchronize()
        graphs = _compiled_graphs() - graphs
    per_step = _step_shares(prof, cuda)
    if not per_step:
        return None, None, None, graphs
    shares = [s for s, _ in per_step]
    return statistics.median(shares), [min(shares), max(shares)], statistics.median(t for _, t in per_step), graphs


def _annotate_target(model_mod, model, target):
    """Wraps every call of the target (the model's original) in record_function ranges."""
    from torch.profiler import record_function

    def wrap(fn):
        def annotated(*args, **kwargs):
            with record_function("kjudge_e2e_target"):
                return fn(*args, **kwargs)
        return annotated

    if "." in target:
        mod_name, _, fn_name = target.rpartition(".")
        owner = importlib.import_module(mod_name)
        original = getattr(owner, fn_name)
        annotated = wrap(original)
        setattr(owner, fn_name, annotated)
        for k, v in list(vars(model_mod).items()):
            if v is original:
                setattr(model_mod, k, annotated)
        return 1
    n = 0
    for m in model.modules():
        if type(m).__name__ == target:
            m.forward = wrap(m.forward)
            n += 1
    return n


def profile(cfg):
    """The replaced target's share of a step: in the model eager (its own op, the range around its
    call); and in the model with the candidate in it, eager and compiled per mode, the candidate's
    op (the range inside the op's body, which torch.compile leaves opaque: the same range in both,
    so these two shares are measured alike)."""
    cuda = cfg.get("device") == "cuda"
    device = torch.device("cuda" if cuda else "cpu")
    torch.set_grad_enabled(False)
    if cfg.get("threads"):
        torch.set_num_threads(int(cfg["threads"]))
    model_mod = _import(cfg["model_path"], "kjudge_e2e_profiled")
    init = model_mod.get_init_inputs()
    torch.manual_seed(int(cfg.get("seed", 42)))
    inputs = [x.to(device) if isinstance(x, torch.Tensor) else x for x in model_mod.get_inputs()]
    model = model_mod.Model(*init).to(device)
    if _annotate_target(model_mod, model, cfg["target"]) == 0:
        raise ValueError(f"kjudge e2e: the model has no module of class {cfg['target']}")
    eager, eager_range, eager_s, _ = _profiled_share(model, inputs, cuda)
    out = {"eager": eager, "compiled_with_candidate": {}, "graphs_compiled_in_steps": {},
           "range": {"eager": eager_range, "compiled_with_candidate": {}},
           "target_s": {"eager": eager_s, "compiled_with_candidate": {}},
           "method": "torch.profiler, " + ("device" if cuda else "cpu") +
                     f" time, the median of {PROFILED_STEPS} steps' shares after 2 warm-up steps"}
    from torch.profiler import record_function
    kernel = load_kernel(cfg["library"], cfg["problem"])

    def annotated(inputs_, scalars):
        with record_function("kjudge_e2e_target"):
            return kernel(inputs_, scalars)

    for mode in [None] + list(cfg.get("compile_modes") or []):
        new_cfg = dict(cfg, compile=mode, model=os.path.basename(cfg["model_path"]),
                       library=os.path.basename(cfg["library"]))
        mn = model_new(os.path.dirname(cfg["model_path"]), new_cfg, kernel=annotated)
        torch.manual_seed(int(cfg.get("seed", 42)))
        share, spread, seconds, graphs = _profiled_share(mn(*init).to(device), inputs, cuda)
        if mode is None:
            out["eager_with_candidate"] = share
            out["range"]["eager_with_candidate"] = spread
            out["target_s"]["eager_with_candidate"] = seconds
        else:
            out["compiled_with_candidate"][mode] = share
            out["range"]["compiled_with_candidate"][mode] = spread
            out["target_s"]["compiled_with_candidate"][mode] = seconds
            out["graphs_compiled_in_steps"][mode] = graphs
    return out
