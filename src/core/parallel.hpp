// Splits [0, n) into contiguous chunks processed on threads: the oracle's loops over the outputs
// of one call (67M elements for an 8192 x 8192 case, ~3 s on one core) are the controller's
// largest cost in a cuda evaluation. Chunks are fixed by n and the thread count alone, and
// results are merged in chunk order, so a verdict does not depend on scheduling.
#ifndef KJUDGE_CORE_PARALLEL_HPP
#define KJUDGE_CORE_PARALLEL_HPP

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <thread>
#include <vector>

namespace kjudge::detail {

// Below this many elements a single thread does the work (thread start-up is ~20 us).
inline constexpr std::size_t parallel_min_elements = std::size_t{1} << 20;

inline std::size_t oracle_threads(std::size_t n) {
  if (n < parallel_min_elements) return 1;
  const std::size_t hw = std::max(1u, std::thread::hardware_concurrency());
  return std::min<std::size_t>({hw, 16, n / (parallel_min_elements / 4)});
}

// fn(chunk, begin, end) for chunks [begin, end) of [0, n), boundaries multiples of `align`
// (rows stay whole when align is the row length).
template <class Fn>
std::size_t parallel_chunks(std::size_t n, std::size_t align, Fn&& fn) {
  align = std::max<std::size_t>(1, align);
  const std::size_t units = (n + align - 1) / align;
  const std::size_t t = std::max<std::size_t>(1, std::min(oracle_threads(n), units));
  const std::size_t per = (units + t - 1) / t;
  if (t == 1) {
    fn(std::size_t{0}, std::size_t{0}, n);
    return 1;
  }
  std::vector<std::thread> pool;
  pool.reserve(t);
  for (std::size_t c = 0; c < t; ++c) {
    const std::size_t b = std::min(n, c * per * align), e = std::min(n, (c + 1) * per * align);
    pool.emplace_back([&fn, c, b, e] { fn(c, b, e); });
  }
  for (auto& th : pool) th.join();
  return t;
}

// memcpy and memcmp of large buffers on the same threads: hundreds of MiB per recheck on
// device-sized cases, where one thread's copy and first-touch page faults cost more than the
// comparison itself. Chunk boundaries are multiples of 64 KiB.
inline void parallel_copy(void* dst, const void* src, std::size_t bytes) {
  parallel_chunks(bytes, std::size_t{1} << 16, [&](std::size_t, std::size_t b, std::size_t e) {
    std::memcpy(static_cast<std::byte*>(dst) + b, static_cast<const std::byte*>(src) + b, e - b);
  });
}

inline bool parallel_equal(const void* a, const void* b, std::size_t bytes) {
  std::vector<char> same(oracle_threads(bytes), 1);
  parallel_chunks(bytes, std::size_t{1} << 16, [&](std::size_t c, std::size_t lo, std::size_t hi) {
    same[c] = std::memcmp(static_cast<const std::byte*>(a) + lo, static_cast<const std::byte*>(b) + lo, hi - lo) == 0;
  });
  return std::all_of(same.begin(), same.end(), [](char x) { return x != 0; });
}

}  // namespace kjudge::detail

#endif
