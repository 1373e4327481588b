// kjudge-oracle-bench: the host-side oracle's two passes over a device-sized output, on the
// machine's threads as a recheck runs them (core/parallel.hpp): the error envelope
// (float64 reference against the same-dtype run) and the comparison of an output with it.
// A recheck of KernelBench's 1.6e9-element outputs spends its time here; this separates the
// oracle's own speed from the arenas and workers around it. Prints ns per element and GB/s
// read (8 bytes of reference + 4 of output per element; the envelope reads the same-dtype
// run instead of the output).
// --runs R: the envelope over R same-dtype runs (4: the full envelope of a widened check, the
// same-dtype run and the three one-ulp-perturbed runs; their bytes count in its GB/s).
// Usage: kjudge-oracle-bench [--elements N] [--rows R] [--reps K] [--runs R]   (default 268435456, 4096, 3, 1)
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "core/tensor.hpp"
#include "core/parallel.hpp"
#include "oracle/oracle.hpp"
#include "problem/spec.hpp"

namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

int main(int argc, char** argv) {
  using namespace kjudge;
  std::int64_t elements = std::int64_t{1} << 28, rows = 4096;
  int reps = 3, runs = 1;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i];
    const long long v = std::atoll(argv[i + 1]);
    if (a == "--elements")
      elements = v;
    else if (a == "--rows")
      rows = v;
    else if (a == "--reps")
      reps = static_cast<int>(v);
    else if (a == "--runs")
      runs = static_cast<int>(v);
    else {
      std::fprintf(stderr, "kjudge-oracle-bench: unknown option %s\n", a.c_str());
      return 2;
    }
  }
  if (rows <= 0 || elements < rows || reps <= 0 || runs < 1 || runs > 8) {
    std::fprintf(stderr, "kjudge-oracle-bench: need --elements >= --rows > 0, --reps > 0 and --runs in [1, 8]\n");
    return 2;
  }
  const std::int64_t cols = elements / rows;
  const tensor_desc d{"y", dtype::f32, {rows, cols}}, d64{"y", dtype::f64, {rows, cols}};
  host_tensor ref64(d64), same(d), out(d);
  const std::size_t n = ref64.numel();
  auto* r = static_cast<double*>(ref64.data());
  auto* s = static_cast<float*>(same.data());
  auto* o = static_cast<float*>(out.data());
  // A sigmoid of a deterministic spread of arguments, the output one float ulp off the
  // same-dtype run on every 7th element; filled on the oracle's threads (first touch there).
  detail::parallel_chunks(n, 1, [&](std::size_t, std::size_t b, std::size_t e) {
    for (std::size_t i = b; i < e; ++i) {
      const double x = std::sin(static_cast<double>(i) * 0.618) * 6.0;
      r[i] = 1.0 / (1.0 + std::exp(-x));
      s[i] = static_cast<float>(r[i]);
      o[i] = i % 7 == 0 ? std::nextafter(s[i], 2.0f) : s[i];
    }
  });
  // Perturbed runs: the same-dtype run one float ulp up on every 3rd, 5th, ... element.
  std::vector<host_tensor> extra;
  for (int k = 1; k < runs; ++k) {
    extra.emplace_back(d);
    auto* pk = static_cast<float*>(extra.back().data());
    const std::size_t stride = static_cast<std::size_t>(2 * k + 1);
    detail::parallel_chunks(n, 1, [&](std::size_t, std::size_t b, std::size_t e) {
      for (std::size_t i = b; i < e; ++i) pk[i] = i % stride == 0 ? std::nextafter(s[i], 2.0f) : s[i];
    });
  }
  std::vector<const host_tensor*> run_ptrs{&same};
  for (const auto& t : extra) run_ptrs.push_back(&t);
  const tolerance tol{1e-5, 1e-6};
  std::printf("kjudge-oracle-bench: %zu elements (%lld x %lld), %zu oracle threads of %u hardware threads\n", n,
              static_cast<long long>(rows), static_cast<long long>(cols), detail::oracle_threads(n),
              std::thread::hardware_concurrency());
  const double gb = static_cast<double>(n) * 12.0 / 1e9;
  const double gb_env = static_cast<double>(n) * (8.0 + 4.0 * runs) / 1e9;
  bool pass = true;
  for (int rep = 0; rep < reps; ++rep) {
    auto t0 = std::chrono::steady_clock::now();
    const envelope_values env = error_envelope(ref64, run_ptrs);
    const double te = seconds_since(t0);
    t0 = std::chrono::steady_clock::now();
    const compare_result cr = compare_output_envelope(out, ref64, same, env, tol, 2.0);
    const double tc = seconds_since(t0);
    pass = pass && cr.pass;
    std::printf("rep %d: envelope over %d run(s) %.3f s (%.2f ns/elem, %.1f GB/s), compare %.3f s (%.2f ns/elem, %.1f GB/s), %s\n",
                rep + 1, runs, te, te / static_cast<double>(n) * 1e9, gb_env / te, tc, tc / static_cast<double>(n) * 1e9, gb / tc,
                cr.pass ? "pass" : ("FAIL: " + cr.reason).c_str());
  }
  return pass ? 0 : 1;
}
