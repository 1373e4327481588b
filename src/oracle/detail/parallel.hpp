// Splits [0, n) into contiguous chunks processed on threads: the oracle's loops over the outputs
// of one call (67M elements for an 8192 x 8192 case, ~3 s on one core) are the controller's
// largest cost in a cuda evaluation. Chunks are fixed by n and the thread count alone, and
// results are merged in chunk order, so a verdict does not depend on scheduling.
#ifndef KJUDGE_ORACLE_DETAIL_PARALLEL_HPP
#define KJUDGE_ORACLE_DETAIL_PARALLEL_HPP

#include <algorithm>
#include <cstddef>
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

}  // namespace kjudge::detail

#endif
