// The controller's requests of one worker, typed (the protocol of protocol/messages.hpp and
// src/worker/worker.cpp): each method sends one request and returns the worker's reply, or the
// verdict its failure means (pool/failure_verdict.hpp) -- a death, a hang, a reply of another type
// than the request asks for (forged_message). `what` names the request in that verdict ("case
// public-0"). The reference's or a baseline's failure throws usage_error instead: never the
// candidate's verdict.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "guards/verdict.hpp"
#include "pool/worker_process.hpp"
#include "protocol/messages.hpp"

namespace kjudge {

// One timed call's reply ("sampled").
struct sample_reply {
  int rc = 0;
  double seconds = -1;   // the worker's clock; < 0: none reported
  nlohmann::json extra;  // backend evidence: SM clock, stream hold, trace
  // The controller's clock from its "go" to the worker's end reading (cpu; CLOCK_MONOTONIC is one
  // clock for every process), seconds: the call started after the go, so the worker's figure can
  // be at most this, and it falls short of it by the worker's start latency only; < 0: unknown.
  double go_to_end_s = -1;
  nlohmann::json doc;  // the whole reply
};

// The requests the timed rounds make of a party (timing/rounds.hpp): a worker's client, or a
// test's fake.
class timing_client {
 public:
  timing_client() = default;
  timing_client(const timing_client&) = default;
  timing_client& operator=(const timing_client&) = default;
  timing_client(timing_client&&) = default;
  timing_client& operator=(timing_client&&) = default;
  virtual ~timing_client() = default;
  virtual or_verdict<nlohmann::json> time_begin(const call_spec& c, std::string_view mode, double timeout_s,
                                                const std::string& what) = 0;
  virtual or_verdict<sample_reply> sample(std::uint64_t seed, bool trace, double timeout_s,
                                          const std::string& what) = 0;
  virtual or_verdict<nlohmann::json> discard(double timeout_s, const std::string& what) = 0;
  virtual or_verdict<nlohmann::json> time_end(double timeout_s, const std::string& what) = 0;
};

class worker_client : public timing_client {
 public:
  explicit worker_client(worker_process& w) : m_w(&w) {}

  [[nodiscard]] worker_process& process() const { return *m_w; }

  // The reply to a request sent some other way (a worker under compute-sanitizer, whose failure is
  // weighed against the tool's report first): the reply of type `expected`, or the verdict its
  // failure or another type means.
  or_verdict<nlohmann::json> expect(worker_reply&& r, std::string_view expected, const std::string& what);
  // A "run" request, as run() sends it.
  static nlohmann::json run_request(const call_spec& c, int repeats, bool trace);

  // Correctness: `repeats` calls on the call's inputs ("ran": rc, guards, deferred, seconds, ...).
  or_verdict<nlohmann::json> run(const call_spec& c, int repeats, bool trace, double timeout_s,
                                 const std::string& what);
  // The reference's outputs for a call ("referenced"), in one request or split in two so that
  // other work overlaps the reference's run (send_reference, then receive_reference).
  // full_envelope: the perturbed runs of the error envelope too; tf32: its draws are TF32 ones.
  or_verdict<nlohmann::json> reference(const call_spec& c, bool full_envelope, bool tf32, double timeout_s,
                                       const std::string& what);
  [[nodiscard]] bool send_reference(const call_spec& c, bool full_envelope, bool tf32);
  or_verdict<nlohmann::json> receive_reference(double timeout_s, const std::string& what);
  // A problem's own check of outputs written into the reference's arena ("checked").
  or_verdict<nlohmann::json> check(const call_spec& c, double timeout_s, const std::string& what);

  // Timing: begin a case, one timed call at a time, each then kept (rechecked) or discarded,
  // end the case ("time_done": the device's state after).
  or_verdict<nlohmann::json> time_begin(const call_spec& c, std::string_view mode, double timeout_s,
                                        const std::string& what) override;
  or_verdict<sample_reply> sample(std::uint64_t seed, bool trace, double timeout_s, const std::string& what) override;
  or_verdict<nlohmann::json> discard(double timeout_s, const std::string& what) override;
  or_verdict<nlohmann::json> keep(double timeout_s, const std::string& what);
  or_verdict<nlohmann::json> time_end(double timeout_s, const std::string& what) override;
  // Untimed calls back to back ("warm_done"); `sets` > 0 asks for that many timed sets of them.
  or_verdict<nlohmann::json> warm_batch(const call_spec& c, int count, int sets, double timeout_s,
                                        const std::string& what);

 private:
  or_verdict<nlohmann::json> ask(const nlohmann::json& request, std::string_view expected, double timeout_s,
                                 const std::string& what);

  worker_process* m_w;
};

}  // namespace kjudge
