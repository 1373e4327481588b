// The trace summary's arithmetic on hand-made CUPTI records (no GPU needed): the window between
// the judge's probes, the judge's own work left out, other-stream and late work counted, and the
// peak of the call's live allocations; the kernel census read from a summary.
#include <gtest/gtest.h>

#include "cuda/cupti_trace.hpp"
#include "judge/kernel_census.hpp"

namespace {

using kjudge::cuda::trace_record;
using kind = trace_record::kind;

trace_record rec(kind k, const char* name, std::uint32_t stream, std::uint64_t start, std::uint64_t end,
                 std::uint64_t bytes = 0) {
  trace_record r;
  r.what = k;
  r.name = name;
  r.stream = stream;
  r.start = start;
  r.end = end;
  r.bytes = bytes;
  return r;
}

TEST(trace_summary, counts_the_call_s_work_against_the_window) {
  constexpr std::uint32_t judge = 5, other = 9;
  const std::vector<trace_record> records = {
      rec(kind::kernel, "kjudge::cuda::detail::kj_hold_stream(int const volatile*, int*, unsigned long long)", judge, 50, 99),
      rec(kind::kernel, "kjudge::cuda::detail::kj_clock_probe(kjudge::cuda::detail::clock_sample*, unsigned int)", judge, 100, 110),
      rec(kind::kernel, "void softmax<float>(float const*, float*, long, long)", judge, 120, 200),
      rec(kind::kernel, "late_kernel()", other, 130, 400),
      rec(kind::alloc, "cudaMalloc", 0, 150, 150, 64u << 20),
      rec(kind::release, "cudaMalloc", 0, 180, 180, 64u << 20),
      rec(kind::alloc, "cudaMalloc", 0, 190, 190, 1u << 20),
      rec(kind::kernel, "kjudge::cuda::detail::kj_clock_probe(kjudge::cuda::detail::clock_sample*, unsigned int)", judge, 210, 220),
      rec(kind::memcpy, "memcpy DtoH", judge, 230, 300, 4096),  // the judge reading outputs back
  };
  const auto s = kjudge::cuda::summarize_trace(records, judge, 100);
  EXPECT_TRUE(s["window_found"].get<bool>());
  EXPECT_DOUBLE_EQ(s["window_ns"].get<double>(), 100.0);
  EXPECT_EQ(s["kernels"].get<int>(), 2);
  EXPECT_EQ(s["memcpys"].get<int>(), 0);
  EXPECT_EQ(s["on_other_streams"].get<int>(), 1);
  EXPECT_EQ(s["ending_after_window"].get<int>(), 1);
  EXPECT_EQ(s["starting_before_window"].get<int>(), 0);
  EXPECT_EQ(s["allocations"].get<int>(), 2);
  EXPECT_EQ(s["releases"].get<int>(), 1);
  EXPECT_EQ(s["alloc_peak_bytes"].get<long long>(), 64LL << 20);
  ASSERT_EQ(s["records"].size(), records.size());
  EXPECT_DOUBLE_EQ(s["records"][0]["start_ns"].get<double>(), -60.0);  // relative to the window's opening
  EXPECT_TRUE(s["records"][0].value("judge", false));
  EXPECT_FALSE(s["records"][2].value("judge", false));
}

// The deferred-work probe's comparison kernel is the judge's only on the judge's stream after the
// window closed; the same name inside the window or on another stream is the call's work.
TEST(trace_summary, the_probe_comparison_counts_as_the_judge_s_only_after_the_window) {
  constexpr std::uint32_t judge = 5, other = 9;
  const char* probe = "kjudge::cuda::detail::kj_clock_probe(kjudge::cuda::detail::clock_sample*, unsigned int)";
  const char* cmp = "kjudge::cuda::detail::kj_count_changed(uint4 const*, uint4 const*, unsigned long, unsigned char const*, "
                    "unsigned char const*, unsigned long, unsigned long long*)";
  const std::vector<trace_record> records = {
      rec(kind::kernel, probe, judge, 100, 110),
      rec(kind::kernel, cmp, judge, 120, 130),   // inside the window: the call's
      rec(kind::kernel, probe, judge, 210, 220),
      rec(kind::kernel, cmp, judge, 300, 310),   // after the window on the judge's stream: the judge's
      rec(kind::kernel, cmp, other, 320, 330),   // on another stream: the call's, late
  };
  const auto s = kjudge::cuda::summarize_trace(records, judge, 100);
  EXPECT_EQ(s["kernels"].get<int>(), 2);
  EXPECT_EQ(s["on_other_streams"].get<int>(), 1);
  EXPECT_EQ(s["ending_after_window"].get<int>(), 1);
  EXPECT_FALSE(s["records"][1].value("judge", false));
  EXPECT_TRUE(s["records"][3].value("judge", false));
  EXPECT_FALSE(s["records"][4].value("judge", false));
}

TEST(trace_summary, without_both_probes_there_is_no_window) {
  const std::vector<trace_record> records = {rec(kind::kernel, "k()", 3, 10, 20)};
  const auto s = kjudge::cuda::summarize_trace(records, 3, 10);
  EXPECT_FALSE(s["window_found"].get<bool>());
  EXPECT_EQ(s["kernels"].get<int>(), 1);
  EXPECT_EQ(s["ending_after_window"].get<int>(), 0);
}

// The kernel census (judge/kernel_census.hpp) reads what summarize_trace writes: the call's own
// kernels by name with their device times, the judge's probe and hold kernels left out.
TEST(trace_summary, the_kernel_census_reads_the_summary_s_records) {
  constexpr std::uint32_t judge = 5;
  const char* probe = "kjudge::cuda::detail::kj_clock_probe(kjudge::cuda::detail::clock_sample*, unsigned int)";
  const std::vector<trace_record> records = {
      rec(kind::kernel, "kjudge::cuda::detail::kj_hold_stream(int const volatile*, int*, unsigned long long)", judge,
          50, 99),
      rec(kind::kernel, probe, judge, 100, 110),
      rec(kind::kernel, "dgrad_engine_7()", judge, 120, 1120),
      rec(kind::alloc, "cudaMalloc", 0, 130, 130, 1u << 20),
      rec(kind::kernel, "reduce()", judge, 1130, 1330),
      rec(kind::kernel, "dgrad_engine_7()", judge, 1340, 2340),
      rec(kind::kernel, probe, judge, 2400, 2410),
  };
  const auto s = kjudge::cuda::summarize_trace(records, judge, 100);
  const auto e = kjudge::census_entry(s, 2.29e-6);
  EXPECT_EQ(e["kernels"].get<int>(), 3) << e.dump(1);
  EXPECT_DOUBLE_EQ(e["kernel_ns"].get<double>(), 2200.0);
  EXPECT_DOUBLE_EQ(e["window_ns"].get<double>(), 2290.0);
  ASSERT_EQ(e["by_name"].size(), 2u);
  EXPECT_EQ(e["by_name"][0]["name"], "dgrad_engine_7()");
  EXPECT_EQ(e["by_name"][0]["count"].get<int>(), 2);
  EXPECT_TRUE(e["complete"].get<bool>());
  // A listing cut at fewer records than the call had: the census says its sums are partial.
  EXPECT_FALSE(kjudge::census_entry(kjudge::cuda::summarize_trace(records, judge, 3), 0)["complete"].get<bool>());
}

}  // namespace
