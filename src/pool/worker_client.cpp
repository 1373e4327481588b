#include "pool/worker_client.hpp"

#include <time.h>

#include "core/error.hpp"
#include "pool/failure_verdict.hpp"

namespace kjudge {

using json = nlohmann::json;

or_verdict<json> worker_client::expect(worker_reply&& r, std::string_view expected, const std::string& what) {
  if (std::holds_alternative<worker_failure>(r)) return verdict_of_failure(std::get<worker_failure>(r), what);
  json j = std::get<json>(std::move(r));
  if (j.value("type", "") == expected) return j;
  // A reply of another type than the request asks for: the channel's token and sequence held,
  // so the worker's own code wrote it (a party's forgery, or a bug of ours).
  worker_failure f;
  f.kind = worker_fault::forged_message;
  f.role = m_w->options().role;
  f.message = "expected '" + std::string(expected) + "', got '" + j.value("type", "?") + "'";
  return verdict_of_failure(f, what);
}

or_verdict<json> worker_client::ask(const json& request, std::string_view expected, double timeout_s,
                                    const std::string& what) {
  return expect(m_w->request(request, timeout_s), expected, what);
}

json worker_client::run_request(const call_spec& c, int repeats, bool trace) {
  return json{{"type", "run"}, {"call", to_json(c)}, {"repeats", repeats}, {"trace", trace}};
}

or_verdict<json> worker_client::run(const call_spec& c, int repeats, bool trace, double timeout_s,
                                    const std::string& what) {
  return ask(run_request(c, repeats, trace), "ran", timeout_s, what);
}

namespace {
json reference_request(const call_spec& c, bool full_envelope, bool tf32) {
  return json{{"type", "reference"}, {"call", to_json(c)}, {"envelope", full_envelope}, {"tf32", tf32}};
}
}  // namespace

or_verdict<json> worker_client::reference(const call_spec& c, bool full_envelope, bool tf32, double timeout_s,
                                          const std::string& what) {
  return ask(reference_request(c, full_envelope, tf32), "referenced", timeout_s, what);
}

bool worker_client::send_reference(const call_spec& c, bool full_envelope, bool tf32) {
  return m_w->send(reference_request(c, full_envelope, tf32));
}

or_verdict<json> worker_client::receive_reference(double timeout_s, const std::string& what) {
  return expect(m_w->receive(timeout_s), "referenced", what);
}

or_verdict<json> worker_client::check(const call_spec& c, double timeout_s, const std::string& what) {
  return ask(json{{"type", "check"}, {"call", to_json(c)}}, "checked", timeout_s, what);
}

or_verdict<json> worker_client::time_begin(const call_spec& c, std::string_view mode, double timeout_s,
                                           const std::string& what) {
  return ask(json{{"type", "time_begin"}, {"call", to_json(c)}, {"mode", mode}}, "time_ready", timeout_s, what);
}

or_verdict<sample_reply> worker_client::sample(std::uint64_t seed, bool trace, double timeout_s,
                                               const std::string& what) {
  // Armed: the worker draws the inputs and flushes the caches, says "armed" and waits; the
  // controller reads its clock and says "go".
  json req{{"type", "sample"}, {"seed", seed}, {"armed", true}};
  if (trace) req["trace"] = true;
  auto armed = ask(req, "armed", timeout_s, what);
  if (!armed.ok()) return armed.rejection();
  timespec go{};
  ::clock_gettime(CLOCK_MONOTONIC, &go);
  const long long go_ns = static_cast<long long>(go.tv_sec) * 1000000000LL + go.tv_nsec;
  const bool sent = m_w->send(json{{"type", "go"}});  // if not, the receive below says why
  auto r = expect(m_w->receive(timeout_s), "sampled", what);
  if (!sent && r.ok()) throw internal_error("a worker answered a 'go' that could not be sent");
  if (!r.ok()) return r.rejection();
  sample_reply s;
  s.doc = std::move(r.value());
  s.rc = s.doc.value("rc", 0);
  s.seconds = s.doc.value("seconds", -1.0);
  if (s.doc.contains("extra")) s.extra = s.doc["extra"];
  if (s.doc.contains("end_ns") && s.doc["end_ns"].is_number_integer())
    s.go_to_end_s = static_cast<double>(s.doc["end_ns"].get<long long>() - go_ns) * 1e-9;
  return s;
}

or_verdict<json> worker_client::discard(double timeout_s, const std::string& what) {
  return ask(json{{"type", "discard"}}, "discarded", timeout_s, what);
}

or_verdict<json> worker_client::keep(double timeout_s, const std::string& what) {
  return ask(json{{"type", "keep"}}, "kept", timeout_s, what);
}

or_verdict<json> worker_client::time_end(double timeout_s, const std::string& what) {
  return ask(json{{"type", "time_end"}}, "time_done", timeout_s, what);
}

or_verdict<json> worker_client::warm_batch(const call_spec& c, int count, int sets, double timeout_s,
                                           const std::string& what) {
  json req{{"type", "warm_batch"}, {"call", to_json(c)}, {"count", count}};
  if (sets > 0) req["sets"] = sets;
  return ask(req, "warm_done", timeout_s, what);
}

}  // namespace kjudge
