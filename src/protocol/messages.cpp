#include "protocol/messages.hpp"

#include <cstdio>

#include "core/error.hpp"

namespace kjudge {

namespace {

json desc_to_json(const tensor_desc& d) {
  return json{{"name", d.name}, {"dtype", std::string(dtype_name(d.type))}, {"shape", d.shape}};
}

tensor_desc desc_from_json(const json& j) {
  tensor_desc d;
  d.name = j.at("name").get<std::string>();
  const auto t = parse_dtype(j.at("dtype").get<std::string>());
  if (!t) throw internal_error("protocol: unknown dtype " + j.at("dtype").dump());
  d.type = *t;
  d.shape = j.at("shape").get<std::vector<std::int64_t>>();
  return d;
}

constexpr std::size_t slot_align = 64;  // bytes; keeps every slot cache-line aligned

void push(std::vector<arena_slot>& v, std::size_t& off, slot_kind k, int i, std::size_t bytes) {
  v.push_back(arena_slot{k, i, off, bytes});
  off += (bytes + slot_align - 1) / slot_align * slot_align;
}

}  // namespace

json to_json(const call_spec& c) {
  json in = json::array();
  for (const auto& p : c.inputs) {
    json e = desc_to_json(p.desc);
    e["distribution"] = p.distribution;
    if (p.range) e["range"] = json::array({p.range->lo, p.range->hi});
    if (!p.values.empty()) e["values"] = p.values;
    if (p.structure != matrix_structure::none) e["structure"] = structure_name(p.structure);
    in.push_back(std::move(e));
  }
  json out = json::array();
  for (const auto& d : c.outputs) out.push_back(desc_to_json(d));
  json j{{"inputs", in}, {"outputs", out}, {"scalars", c.scalars}, {"distribution", c.distribution}, {"seed", c.seed}};
  if (c.perturb != 0) j["perturb"] = c.perturb;
  return j;
}

call_spec call_from_json(const json& j) {
  try {
    call_spec c;
    for (const auto& e : j.at("inputs")) {
      input_plan p;
      p.desc = desc_from_json(e);
      p.distribution = e.value("distribution", "");
      if (e.contains("range"))
        p.range = int_range{e["range"].at(0).get<std::int64_t>(), e["range"].at(1).get<std::int64_t>()};
      if (e.contains("values")) p.values = e["values"].get<std::vector<double>>();
      if (e.contains("structure")) {
        const auto st = parse_structure(e["structure"].get<std::string>());
        if (!st) throw internal_error("protocol: unknown structure " + e["structure"].dump());
        p.structure = *st;
      }
      c.inputs.push_back(std::move(p));
    }
    for (const auto& e : j.at("outputs")) c.outputs.push_back(desc_from_json(e));
    c.scalars = j.at("scalars").get<std::vector<double>>();
    c.distribution = j.at("distribution").get<std::string>();
    c.seed = j.at("seed").get<std::uint64_t>();
    c.perturb = j.value("perturb", std::uint64_t{0});
    return c;
  } catch (const json::exception& e) {
    throw internal_error(std::string("protocol: malformed call: ") + e.what());
  }
}

std::vector<arena_slot> candidate_layout(const call_spec& c, int repeats) {
  std::vector<arena_slot> v;
  std::size_t off = 0;
  for (std::size_t i = 0; i < c.outputs.size(); ++i)
    push(v, off, slot_kind::output, static_cast<int>(i), c.outputs[i].nbytes());
  if (repeats > 1)
    for (std::size_t i = 0; i < c.outputs.size(); ++i)
      push(v, off, slot_kind::output_repeat, static_cast<int>(i), c.outputs[i].nbytes());
  for (std::size_t i = 0; i < c.inputs.size(); ++i)
    push(v, off, slot_kind::input_after, static_cast<int>(i), c.inputs[i].desc.nbytes());
  return v;
}

std::vector<arena_slot> reference_layout(const call_spec& c, bool tf32) {
  std::vector<arena_slot> v;
  std::size_t off = 0;
  for (std::size_t i = 0; i < c.outputs.size(); ++i)
    push(v, off, slot_kind::ref64, static_cast<int>(i), c.outputs[i].numel() * sizeof(double));
  for (std::size_t i = 0; i < c.outputs.size(); ++i)
    push(v, off, slot_kind::ref_same, static_cast<int>(i), c.outputs[i].nbytes());
  for (std::size_t i = 0; i < c.inputs.size(); ++i)
    push(v, off, slot_kind::input_generated, static_cast<int>(i), c.inputs[i].desc.nbytes());
  for (int p = 0; p < envelope_runs(tf32); ++p)
    for (std::size_t i = 0; i < c.outputs.size(); ++i)
      push(v, off, slot_kind::ref_perturbed, p * static_cast<int>(c.outputs.size()) + static_cast<int>(i),
           c.outputs[i].nbytes());
  return v;
}

std::size_t layout_bytes(const std::vector<arena_slot>& slots) {
  std::size_t end = 0;
  for (const auto& s : slots) end = std::max(end, s.offset + s.bytes);
  return end;
}

const arena_slot& find_slot(const std::vector<arena_slot>& slots, slot_kind k, int index) {
  for (const auto& s : slots)
    if (s.kind == k && s.index == index) return s;
  throw internal_error("arena slot missing");
}

std::string seed_hex(std::uint64_t seed) {
  char buf[19];
  std::snprintf(buf, sizeof buf, "0x%016llx", static_cast<unsigned long long>(seed));
  return buf;
}

std::string worker_role_name(worker_role r) {
  switch (r) {
    case worker_role::candidate:
      return "candidate";
    case worker_role::baseline:
      return "baseline";
    case worker_role::reference:
      return "reference";
    case worker_role::doctor:
      return "doctor";
  }
  return "candidate";
}

std::optional<worker_role> parse_worker_role(const std::string& name) {
  for (const auto r : {worker_role::candidate, worker_role::baseline, worker_role::reference, worker_role::doctor})
    if (worker_role_name(r) == name) return r;
  return std::nullopt;
}

}  // namespace kjudge
