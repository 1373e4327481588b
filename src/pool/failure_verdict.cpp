#include "pool/failure_verdict.hpp"

#include <signal.h>

#include "core/error.hpp"
#include "guards/rules.hpp"
#include "protocol/log_markers.hpp"

namespace kjudge {

namespace {

using json = nlohmann::json;

verdict status_verdict(verdict_status s, std::vector<std::string> reasons, json evidence) {
  verdict v;
  v.status = s;
  v.reasons = std::move(reasons);
  v.evidence = std::move(evidence);
  return v;
}

}  // namespace

verdict rule_verdict(const std::string& rule_name, std::vector<std::string> reasons, json evidence) {
  verdict v;
  v.status = rule(rule_name).status;
  v.rule = rule_name;
  v.reasons = std::move(reasons);
  v.evidence = std::move(evidence);
  return v;
}

verdict verdict_of_failure(const worker_failure& f, const std::string& what) {
  if (f.role && *f.role != worker_role::candidate)
    throw usage_error("the " + worker_role_name(*f.role) +
                      " (the problem's own code, not the candidate) failed during " + what + ": " + f.message +
                      "; the candidate was not judged" +
                      (f.log_tail.empty() ? "" : "\n--- its log, last lines ---\n" + f.log_tail));
  json ev{{"during", what},
          {"signal", f.signal},
          {"exit_status", f.exit_status},
          {"max_rss_kib", f.max_rss_kb},
          {"worker_log_tail", f.log_tail}};
  const std::string msg = f.message + " (during " + what + ")";
  switch (f.kind) {
    case worker_fault::crash:
      // A write to a read-only input (or its guard zone) faults; the worker names the buffer in
      // its log before dying (protocol/log_markers.hpp).
      if (const auto w = parse_input_write(f.log_tail); w && f.signal == SIGSEGV) {
        const bool inside = w->region == "data";
        std::string name = w->buffer;
        if (name.rfind("input ", 0) == 0) name = name.substr(6);
        ev["input_write"] = json{{"buffer", w->buffer}, {"region", w->region}, {"offset", w->offset}};
        if (inside) {
          ev["input"] = name;
          ev["byte_offset"] = w->offset;
          return rule_verdict("input_modified",
                              {"the call wrote to input " + name + " (byte " + std::to_string(w->offset) +
                               "; inputs are read-only during a call) (during " + what + ")"},
                              ev);
        }
        const std::string side = w->region == "guard_before" ? "before" : "after";
        ev["guards"] = json::array({json{
            {"buffer", w->buffer}, {"side", side}, {"offset", w->offset}, {"bytes_changed", nullptr}, {"case", what}}});
        return rule_verdict("out_of_bounds_write",
                            {what + ": a write to the guard zone " + side + " " + w->buffer + ", " +
                             std::to_string(w->offset) + " byte(s) from its edge (inputs are read-only during a call)"},
                            ev);
      }
      // A write to the worker's sealed code: an attempt to patch its clock or its copies.
      if (const auto w = parse_sealed_write(f.log_tail); w && f.signal == SIGSEGV) {
        ev["sealed_write"] = json{{"region", w->buffer}, {"offset", w->offset}};
        return rule_verdict("timer_tamper",
                            {what + ": a write to the worker's sealed code (" + w->buffer + ", byte " +
                             std::to_string(w->offset) + "): the worker's clock and copies cannot be patched"},
                            ev);
      }
      // A write into an output the judge had already released: work still running after the call
      // returned (cpu backend; the buffer is gone, so the process faulted).
      if (const auto w = parse_late_write(f.log_tail); w && f.signal == SIGSEGV) {
        ev["deferred"] = json::array({json{{"buffer", w->buffer}, {"offset", w->offset}, {"after", "release"}}});
        return rule_verdict(
            "deferred_work",
            {what + ": " + w->buffer + " was written after the call returned and the judge released it (byte " +
             std::to_string(w->offset) + "; the write faulted)"},
            ev);
      }
      return status_verdict(verdict_status::crash, {msg}, ev);
    case worker_fault::timeout:
      return status_verdict(verdict_status::timeout, {msg}, ev);
    case worker_fault::resource_limit:
      return status_verdict(verdict_status::resource_limit, {msg}, ev);
    case worker_fault::sandbox_violation:
      return rule_verdict("sandbox_violation", {msg}, ev);
    case worker_fault::forged_message:
      return rule_verdict("forged_message", {msg}, ev);
    case worker_fault::early_exit:
      return rule_verdict("early_exit", {msg}, ev);
    case worker_fault::worker_error:
      if (f.error_kind == "bad_input") return status_verdict(verdict_status::bad_input, {f.message}, ev);
      if (f.error_kind == "resource_limit") return status_verdict(verdict_status::resource_limit, {msg}, ev);
      if (f.error_kind == "runtime_error") return status_verdict(verdict_status::runtime_error, {msg}, ev);
      // Any other kind ("internal") from the candidate's worker is the candidate's too: its code
      // runs in that process and can cause one (a kj_workspace_bytes that throws on the shapes it
      // fails) or forge one with the channel token it can read there. As the judge's own fault it
      // ended the evaluation without a verdict (exit 3), and `kjudge batch --retry` then judged
      // the candidate again with a fresh secret seed: a second draw of the hidden cases.
      ev["error_kind"] = f.error_kind;
      return status_verdict(verdict_status::runtime_error,
                            {"the candidate's worker reported an error of kind '" + f.error_kind + "': " + msg +
                             " (its process runs the candidate's code, so the error is the candidate's)"},
                            ev);
  }
  throw internal_error("unclassified worker failure");
}

}  // namespace kjudge
