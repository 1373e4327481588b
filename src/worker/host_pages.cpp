#include "worker/host_pages.hpp"

#include <sys/mman.h>

#include <algorithm>
#include <cerrno>
#include <thread>
#include <vector>

namespace kjudge::detail {

bool populate_pages(void* p, std::size_t bytes, unsigned threads) {
#ifndef MADV_POPULATE_WRITE
  constexpr int MADV_POPULATE_WRITE = 23;  // Linux 5.14; older C libraries lack the name
#endif
  if (p == nullptr || bytes == 0) return true;
  auto* base = static_cast<std::byte*>(p);
  // Chunks of whole 2 MiB (a multiple of every page size in use), so that every chunk start is
  // page-aligned when p is.
  constexpr std::size_t grain = std::size_t{2} << 20;
  const std::size_t units = (bytes + grain - 1) / grain;
  const std::size_t t = std::max<std::size_t>(1, std::min<std::size_t>(threads, units));
  const std::size_t per = (units + t - 1) / t;
  std::vector<int> failed(t, 0);
  std::vector<std::thread> pool;
  for (std::size_t c = 0; c < t; ++c) {
    const std::size_t b = std::min(bytes, c * per * grain), e = std::min(bytes, (c + 1) * per * grain);
    if (b >= e) continue;
    pool.emplace_back([base, b, e, c, &failed] {
      if (::madvise(base + b, e - b, MADV_POPULATE_WRITE) != 0) failed[c] = errno;
    });
  }
  for (auto& th : pool) th.join();
  return std::all_of(failed.begin(), failed.end(), [](int e) { return e == 0; });
}

}  // namespace kjudge::detail
