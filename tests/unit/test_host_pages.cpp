// detail::populate_pages: the pages of a fresh arena faulted in on several threads before a
// device backend pins it, contents unchanged.
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstring>
#include <vector>

#include "protocol/channel.hpp"
#include "worker/host_pages.hpp"

namespace kjudge {
namespace {

std::size_t resident_pages(const std::byte* base, std::size_t bytes) {
  const std::size_t page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  std::vector<unsigned char> v((bytes + page - 1) / page);
  if (::mincore(const_cast<std::byte*>(base), bytes, v.data()) != 0) return 0;
  std::size_t n = 0;
  for (unsigned char c : v) n += c & 1;
  return n;
}

TEST(HostPages, PopulateFaultsAnArenasPagesInAndKeepsTheContents) {
  const std::size_t bytes = std::size_t{64} << 20, page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  shared_arena a = shared_arena::create(bytes);
  a.data()[5000] = std::byte{0x5a};
  a.data()[std::size_t{40} << 20] = std::byte{0xa5};
  const std::size_t populated = std::size_t{48} << 20;
  EXPECT_LT(resident_pages(a.data(), bytes), 16u) << "a fresh memfd arena should be mostly holes";
  if (!detail::populate_pages(a.data(), populated, 4)) GTEST_SKIP() << "this kernel has no MADV_POPULATE_WRITE (Linux < 5.14)";
  EXPECT_EQ(resident_pages(a.data(), populated), populated / page);
  EXPECT_LT(resident_pages(a.data() + populated, bytes - populated), 16u) << "only the first bytes are populated";
  EXPECT_EQ(a.data()[5000], std::byte{0x5a});
  EXPECT_EQ(a.data()[std::size_t{40} << 20], std::byte{0xa5});
  EXPECT_EQ(a.data()[4999], std::byte{0});
  // Populating again, on another thread count, is harmless.
  EXPECT_TRUE(detail::populate_pages(a.data(), bytes, 3));
  EXPECT_EQ(resident_pages(a.data(), bytes), bytes / page);
}

}  // namespace
}  // namespace kjudge
