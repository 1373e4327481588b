#include "judge/detail/context.hpp"

#include <algorithm>

#include "core/parallel.hpp"
#include "pool/failure_verdict.hpp"

namespace kjudge::detail {

double since(clock_type::time_point t0) {
  return std::chrono::duration<double>(clock_type::now() - t0).count();
}

std::string envelope_key(const call_spec& c) {
  json k{{"distribution", c.distribution}, {"scalars", c.scalars}};
  for (const auto& in : c.inputs)
    k["inputs"].push_back(json{{"shape", in.desc.shape}, {"dtype", std::string(dtype_name(in.desc.type))}});
  for (const auto& out : c.outputs)
    k["outputs"].push_back(json{{"shape", out.shape}, {"dtype", std::string(dtype_name(out.type))}});
  return k.dump();
}

bool evaluation_context::wants_full_envelope(const call_spec& c) const {
  return widened.count(envelope_key(c)) > 0;
}

call_spec evaluation_context::to_call(const planned_case& c) const {
  call_spec s;
  s.inputs = c.inputs;
  s.outputs = c.outputs;
  s.scalars = c.scalars;
  s.distribution = generate_input != nullptr ? generate_input_distribution(*generate_input, c) : c.distribution;
  s.seed = c.seed;
  return s;
}

host_tensor tensor_from_arena(shared_arena& a, const arena_slot& s, tensor_desc d, bool borrow) {
  if (borrow && s.bytes >= d.nbytes()) return host_tensor::borrowed(d, a.at(s.offset, s.bytes));
  host_tensor t(std::move(d));
  parallel_copy(t.data(), a.at(s.offset, s.bytes), std::min(s.bytes, t.nbytes()));
  return t;
}

}  // namespace kjudge::detail
