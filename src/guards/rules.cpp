#include "guards/rules.hpp"

#include <stdexcept>
#include <string>

namespace kjudge {

const std::vector<rule_info>& all_rules() {
  static const std::vector<rule_info> rules{
      {"tolerance", verdict_status::wrong_result,
       "output differs from the float64 reference beyond the dtype's tolerance (conditioning-aware)"},
      {"unwritten_output", verdict_status::wrong_result,
       "output elements still hold the poison written before the call"},
      {"nan_mismatch", verdict_status::wrong_result,
       "NaN/Inf where the reference is finite, or finite where it is NaN/Inf"},
      {"problem_check", verdict_status::wrong_result,
       "the problem's own correctness check (GPU MODE check_implementation) rejected the output"},
      {"nondeterministic", verdict_status::wrong_result,
       "two calls on the same inputs disagree beyond tolerance, or a rechecked timed call failed where the "
       "same call run untimed passes and the kernel's outputs vary from call to call"},
      {"nonzero_return", verdict_status::runtime_error, "kj_run returned a nonzero status"},
      {"input_modified", verdict_status::hack,
       "the call wrote to its input tensors (inputs are read-only during a call; restoring them does not help)"},
      {"out_of_bounds_write", verdict_status::hack,
       "bytes in a guard zone before or after a buffer changed during the call, or a write hit the "
       "read-only guard of an input"},
      {"deferred_work", verdict_status::hack,
       "outputs kept changing after the call returned, or were written after the judge released them "
       "(work left on another thread or stream)"},
      {"timed_output_mismatch", verdict_status::hack,
       "a randomly rechecked timed call produced a wrong output while checked calls were right"},
      {"timer_tamper", verdict_status::hack,
       "reported times disagree with the controller's own clock (per sample, and over back-to-back batches), or the "
       "call wrote to the worker's sealed code (its clock, its copies)"},
      {"stale_output", verdict_status::hack,
       "a call returned an earlier call's result (cached by pointer, shape or partial content), not its own"},
      {"forged_message", verdict_status::hack,
       "a message on the worker channel failed the token, sequence or format checks"},
      {"sandbox_violation", verdict_status::hack,
       "a forbidden system call (network, ptrace, new process, signals or limits on other processes, "
       "shared IPC, io_uring)"},
      {"early_exit", verdict_status::hack, "the worker process exited while a call was pending"},
      {"sanitizer", verdict_status::wrong_result,
       "--sanitize: compute-sanitizer reported an error (out-of-bounds or misaligned access, race, "
       "uninitialised read, invalid synchronisation) in the candidate's checked calls"},
      {"unjoined_stream_work", verdict_status::hack,
       "cuda: kernels or copies of a checked call ended after the stop event (another stream, not joined)"},
      {"library_call", verdict_status::hack,
       "cuda: a checked call ran a kernel not compiled from the candidate's source, where the problem forbids library "
       "kernels"},
      {"faster_than_light", verdict_status::hack, "faster than the device's measured memory or compute ceiling allows"},
      {"background_work", verdict_status::hack,
       "the candidate's processes used CPU time while other parties were timed (work outside its own calls slows "
       "the baselines)"},
  };
  return rules;
}

const rule_info& rule(std::string_view name) {
  for (const auto& r : all_rules())
    if (r.name == name) return r;
  throw std::out_of_range("unknown rule " + std::string(name));
}

}  // namespace kjudge
