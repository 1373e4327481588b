#include <array>
#include <cstddef>
#include <span>

#include "oracle/detail/qr_kernels.hpp"

namespace kjudge::detail {

extern const qr_kernels qr_kernels_baseline;
#if defined(KJ_QR_KERNELS_X86_64)
extern const qr_kernels qr_kernels_x86_64_v3;
extern const qr_kernels qr_kernels_x86_64_v4;
#endif

namespace {

#if defined(KJ_QR_KERNELS_X86_64)
// The levels' features (GCC names the levels themselves; clang, before 15, only the features).
bool runs_x86_64_v3() {
#if defined(__clang__)
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && __builtin_cpu_supports("bmi") &&
         __builtin_cpu_supports("bmi2");
#else
  return __builtin_cpu_supports("x86-64-v3");
#endif
}

bool runs_x86_64_v4() {
#if defined(__clang__)
  return runs_x86_64_v3() && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
         __builtin_cpu_supports("avx512cd") && __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl");
#else
  return __builtin_cpu_supports("x86-64-v4");
#endif
}
#endif

struct runnable {
  std::array<const qr_kernels*, 3> list{};
  std::size_t count = 0;
  runnable() {
#if defined(KJ_QR_KERNELS_X86_64)
    __builtin_cpu_init();
    if (runs_x86_64_v4()) list[count++] = &qr_kernels_x86_64_v4;
    if (runs_x86_64_v3()) list[count++] = &qr_kernels_x86_64_v3;
#endif
    list[count++] = &qr_kernels_baseline;
  }
};

}  // namespace

std::span<const qr_kernels* const> runnable_qr_kernels() {
  static const runnable r;
  return {r.list.data(), r.count};
}

const qr_kernels& select_qr_kernels() {
  return *runnable_qr_kernels().front();
}

}  // namespace kjudge::detail
