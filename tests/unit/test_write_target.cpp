// The syscall monitor's reading of a file opened for writing (pool/detail/write_target.hpp).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>
#include <thread>

#include "pool/detail/write_target.hpp"

using namespace kjudge::detail;

TEST(WriteTarget, RelativePathsJoinTheirBaseAndNormalise) {
  EXPECT_EQ(joined_path("/scratch/w1", "out.bin"), "/scratch/w1/out.bin");
  EXPECT_EQ(joined_path("/scratch/w1", "../../proc/7/fd/3"), "/proc/7/fd/3");
  EXPECT_EQ(joined_path("/anything", "/proc//7/./fd/3/"), "/proc/7/fd/3");
  EXPECT_EQ(joined_path("/proc", "7/fd/1"), "/proc/7/fd/1");
}

TEST(WriteTarget, AnotherProcessesProcEntryIsNamedAndTheCallersOwnIsNot) {
  const auto threads_of_100 = [](pid_t n) { return n == 101 || n == 102; };
  EXPECT_TRUE(names_other_process("/proc/7/fd/3", 100, threads_of_100));
  EXPECT_TRUE(names_other_process("/proc/7", 100, threads_of_100));
  EXPECT_FALSE(names_other_process("/proc/100/fd/3", 100, threads_of_100));
  EXPECT_FALSE(names_other_process("/proc/101/comm", 100, threads_of_100));
  EXPECT_FALSE(names_other_process("/proc/self/fd/3", 100, threads_of_100));
  EXPECT_FALSE(names_other_process("/proc/thread-self/comm", 100, threads_of_100));
  EXPECT_FALSE(names_other_process("/proc/sys/kernel/ns_last_pid", 100, threads_of_100));
  EXPECT_FALSE(names_other_process("/procfoo/7/fd/3", 100, threads_of_100));
  EXPECT_FALSE(names_other_process("/scratch/7", 100, threads_of_100));
  EXPECT_FALSE(names_other_process("/proc/7x/fd", 100, threads_of_100));
}

TEST(WriteTarget, ReadsAStringAndTheThreadGroupOfAThread) {
  // Its own memory: process_vm_readv on oneself needs no privilege.
  static const char path[] = "/proc/12345/fd/3";
  const auto read = read_remote_string(::getpid(), reinterpret_cast<std::uint64_t>(path));
  ASSERT_TRUE(read.has_value());
  EXPECT_EQ(*read, path);
  EXPECT_FALSE(read_remote_string(::getpid(), 0).has_value());  // unmapped: no path, no guess
  pid_t other = 0;
  std::thread t([&] { other = ::gettid(); });
  t.join();
  EXPECT_NE(other, ::getpid());
  EXPECT_EQ(thread_group_of(::gettid()), ::getpid());
  EXPECT_EQ(thread_group_of(::getpid()), ::getpid());
}

TEST(WriteTarget, TheBaseOfARelativePathIsTheWorkingDirectoryOrTheDirectoryOfTheDescriptor) {
  char cwd[4096];
  ASSERT_NE(::getcwd(cwd, sizeof cwd), nullptr);
  EXPECT_EQ(base_directory(::gettid(), AT_FDCWD), std::string(cwd));
  const int fd = ::open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  EXPECT_EQ(base_directory(::gettid(), fd), "/proc");
  ::close(fd);
  EXPECT_FALSE(base_directory(::gettid(), 9999).has_value());
}
