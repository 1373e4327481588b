// compute-sanitizer's report as --sanitize reads it (judge/evaluate.hpp): the summary's error
// count for each tool's format, the first error named, and a report without a summary (the tool
// did not finish) told apart from a clean one.
#include <gtest/gtest.h>

#include "judge/evaluate.hpp"

using kjudge::parse_sanitizer_report;

TEST(SanitizerReport, CleanMemcheckHasZeroErrors) {
  const auto s = parse_sanitizer_report("========= COMPUTE-SANITIZER\n========= ERROR SUMMARY: 0 errors\n");
  EXPECT_TRUE(s.found_summary);
  EXPECT_EQ(s.errors, 0);
  EXPECT_TRUE(s.first_error.empty());
}

TEST(SanitizerReport, MemcheckOutOfBoundsReadIsCountedAndNamed) {
  const auto s = parse_sanitizer_report(
      "========= COMPUTE-SANITIZER\n"
      "========= Invalid __global__ read of size 4 bytes\n"
      "=========     at softmax_kernel(const float *, float *, int)+0x1f0 in cand.cu:12\n"
      "=========     by thread (255,0,0) in block (3,0,0)\n"
      "=========     Address 0x7f2a00001000 is out of bounds\n"
      "========= \n"
      "========= ERROR SUMMARY: 2 errors\n");
  EXPECT_TRUE(s.found_summary);
  EXPECT_EQ(s.errors, 2);
  EXPECT_EQ(s.first_error, "Invalid __global__ read of size 4 bytes");
  EXPECT_NE(s.excerpt.find("out of bounds"), std::string::npos);
}

TEST(SanitizerReport, RacecheckSummaryCountsErrors) {
  const auto s = parse_sanitizer_report(
      "========= COMPUTE-SANITIZER\n"
      "========= Error: Race reported between Write access at reduce(float *)+0x90 in cand.cu:20\n"
      "=========     and Read access at reduce(float *)+0xd0 in cand.cu:22 [128 hazards]\n"
      "========= \n"
      "========= RACECHECK SUMMARY: 1 hazard displayed (1 error, 0 warnings)\n");
  EXPECT_TRUE(s.found_summary);
  EXPECT_EQ(s.errors, 1);
  EXPECT_NE(s.first_error.find("Race reported"), std::string::npos);
}

TEST(SanitizerReport, InitcheckUninitialisedRead) {
  const auto s = parse_sanitizer_report(
      "========= COMPUTE-SANITIZER\n"
      "========= Uninitialized __global__ memory read of size 4 bytes\n"
      "=========     at k(float *)+0x40 in cand.cu:9\n"
      "========= ERROR SUMMARY: 1 error\n");
  EXPECT_EQ(s.errors, 1);
  EXPECT_EQ(s.first_error, "Uninitialized __global__ memory read of size 4 bytes");
}

TEST(SanitizerReport, NoSummaryIsNotClean) {
  const auto s = parse_sanitizer_report("========= COMPUTE-SANITIZER\n========= Error: process didn't terminate successfully\n");
  EXPECT_FALSE(s.found_summary);
  const auto empty = parse_sanitizer_report("");
  EXPECT_FALSE(empty.found_summary);
}
