// kjudge-worker: loads ONE candidate, baseline or reference shared object and serves the
// controller's requests over its private channel (protocol/messages.hpp).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "kjudge/candidate.h"
#include "protocol/channel.hpp"
#include "worker/backend.hpp"

namespace kjudge {

// Backend factory used by the worker: "cpu" always; "cuda" only in kjudge-worker-cuda, which
// links the CUDA backend and registers it here.
using backend_factory = std::unique_ptr<backend> (*)();
void register_backend(const char* name, backend_factory f);

// Runs the worker protocol on (channel fd, arena fd); returns the process exit status.
int run_worker(int channel_fd, int arena_fd, std::size_t arena_bytes);

// A program the worker runs in place of a dlopen'ed shared object: kjudge-worker-py hosts a
// Python callable behind these entry points (docs/python.md). Everything else of the session —
// channel, arena, input generation, guarded buffers, poison, timer, checks — is the same.
struct hosted_program {
  int (*run)(const kj_args*) = nullptr;  // required; the timed call
  // Called before the timer starts, with the call's buffers in place (e.g. wraps them as
  // tensors), so that the timed call holds only what a user's call would. May be null.
  int (*prepare)(const kj_args*) = nullptr;
  int (*reference_f64)(const kj_args*) = nullptr;  // the reference role's float64 call
  // Called after `run` returned and the timer stopped, before the outputs are read: a program
  // that returns its results (a Python function) copies them into the output buffers here. Its
  // time is not part of the call's figure; `run` must leave the results complete (a returned
  // tensor that is not already contiguous is made so inside `run`).
  int (*complete)(const kj_args*) = nullptr;
  std::string info;
  nlohmann::json environment = nlohmann::json::object();  // merged into ready.env
  // Sandbox (worker/sandbox.hpp): compilers the program runs as children (inductor, Triton,
  // load_inline) need fork/exec; the children inherit landlock and seccomp.
  bool allow_subprocesses = false;
  std::vector<std::string> sandbox_read;  // extra read-only paths (the interpreter, the venv)
  // Inputs the program draws itself (GPU MODE's generate_input, docs/python.md): used for a call
  // whose distribution is "generate_input {ARGS}"; fills the host tensors `inputs` (the call's
  // shapes and dtypes) from (ARGS, seed). Returns "" or why it failed. May be null.
  std::string (*generate)(const std::string& distribution, std::uint64_t seed,
                          std::vector<kj_tensor>& inputs) = nullptr;
  // The problem's own correctness check (reference role; GPU MODE's check_implementation) of
  // outputs against the inputs they were computed from: {"ok": bool, "message": "..."}. May be null.
  nlohmann::json (*check)(const std::vector<kj_tensor>& inputs, const std::vector<kj_tensor>& outputs) = nullptr;
  // Reference role, TF32-permitted problems: rounds the program's own f32 parameters (a module's
  // weights and buffers, which a TF32 kernel rounds like its inputs) to a neighbouring TF32
  // value in a random direction drawn from `seed`, starting from their values before the first
  // such call; seed 0 restores those values. Returns "" or why it failed. May be null (no
  // parameters). The error envelope's runs (worker.cpp, round_to_tf32_random).
  std::string (*round_parameters)(std::uint64_t seed) = nullptr;
  // Reference role, TF32-permitted problems: switches the program's own TF32 mode on (as the
  // candidate and the baselines run: torch's allow_tf32) or off (the trusted same-dtype run).
  // The error envelope's last TF32 run is the reference computed that way (worker.cpp,
  // native_tf32). Returns "" or why it failed. May be null (a program without such a mode: the
  // envelope keeps its six draws).
  std::string (*set_tf32)(bool on) = nullptr;
  // Requests the session does not know ({type: ...}); returns the reply. May be null.
  nlohmann::json (*handle)(const nlohmann::json& request) = nullptr;
  // Required: loads the party (imports its files) inside the sandbox and fills the entry points
  // above; called once, after the loader and the sandbox.
  std::string (*import_party)(hosted_program& out) = nullptr;
};

// Prepares the program named by the hello message ("library" is the program's description)
// before the sandbox is applied: its trusted runtime only, no code of the party's. Fills
// `import_party`, which the session calls once the sandbox is on to load the party itself and fill
// the entry points. Both return an empty string on success, else "kind: message" with kind
// bad_input or internal.
using program_loader = std::string (*)(const nlohmann::json& hello, hosted_program& out);

// As run_worker, with the program loaded by `loader` instead of dlopen.
int run_hosted_worker(int channel_fd, int arena_fd, std::size_t arena_bytes, program_loader loader);

}  // namespace kjudge
