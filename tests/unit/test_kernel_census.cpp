// The kernel census (judge/kernel_census.hpp): a traced call's summary reduced to its kernels by
// name, the comparison of two parties running the same code, and its console lines. The traces
// here are written in the form of the cuda backend's end_trace() (cuda/cupti_trace.cpp,
// summarize_trace): the census itself runs only on a GPU.
#include <gtest/gtest.h>

#include <string>

#include "judge/kernel_census.hpp"
#include "report/report.hpp"

using nlohmann::json;
using namespace kjudge;

namespace {

json kernel(const std::string& name, double start_ns, double end_ns, bool judge = false) {
  json k{{"kind", "kernel"},    {"name", name},         {"stream", 7},     {"start_ns", start_ns}, {"end_ns", end_ns},
         {"grid", {132, 1, 1}}, {"block", {256, 1, 1}}, {"registers", 32}, {"shared_bytes", 0}};
  if (judge) k["judge"] = true;
  return k;
}

// A call of `names` (each `ns` long, back to back) bracketed by the judge's probe and hold kernels,
// with an allocation and a copy that are not kernels.
json trace_of(const std::vector<std::string>& names, double ns, double window_ns) {
  json records = json::array();
  records.push_back(kernel("kj_hold_stream", -2000, -1000, true));
  records.push_back(
      json{{"kind", "alloc"}, {"name", "alloc"}, {"stream", 0}, {"start_ns", 0}, {"end_ns", 0}, {"bytes", 1 << 20}});
  double t = 100;
  for (const auto& n : names) {
    records.push_back(kernel(n, t, t + ns));
    t += ns + 50;
  }
  records.push_back(
      json{{"kind", "memcpy"}, {"name", "DtoD"}, {"stream", 7}, {"start_ns", t}, {"end_ns", t + 500}, {"bytes", 4096}});
  records.push_back(kernel("kj_clock_probe", window_ns, window_ns + 100, true));
  return json{{"window_found", true}, {"window_ns", window_ns},          {"kernels", names.size()},
              {"records", records},   {"records_total", records.size()}, {"dropped_records", 0}};
}

}  // namespace

TEST(KernelCensus, AnEntryCountsTheCallsOwnKernelsByNameLongestFirst) {
  const json e = census_entry(trace_of({"gemm", "reduce", "gemm"}, 1000, 4000), 4.2e-6);
  EXPECT_EQ(e["kernels"], 3);  // the judge's hold and probe kernels, the allocation and the copy are not counted
  EXPECT_DOUBLE_EQ(e["kernel_ns"].get<double>(), 3000.0);
  EXPECT_DOUBLE_EQ(e["window_ns"].get<double>(), 4000.0);
  ASSERT_EQ(e["by_name"].size(), 2u);
  EXPECT_EQ(e["by_name"][0]["name"], "gemm");
  EXPECT_EQ(e["by_name"][0]["count"], 2);
  EXPECT_DOUBLE_EQ(e["by_name"][0]["ns"].get<double>(), 2000.0);
  EXPECT_EQ(e["by_name"][0]["grid"], json({132, 1, 1}));
  EXPECT_EQ(e["by_name"][1]["name"], "reduce");
  EXPECT_TRUE(e["complete"].get<bool>());
  EXPECT_DOUBLE_EQ(e["seconds"].get<double>(), 4.2e-6);
}

TEST(KernelCensus, AnEntryFromACutListingSaysItsSumsArePartial) {
  json t = trace_of({"gemm"}, 1000, 2000);
  t["records_total"] = 9000;  // the backend lists at most a bounded number of records
  EXPECT_FALSE(census_entry(t, 0)["complete"].get<bool>());
  json d = trace_of({"gemm"}, 1000, 2000);
  d["dropped_records"] = 3;
  EXPECT_FALSE(census_entry(d, 0)["complete"].get<bool>());
  const json none = census_entry(json::object(), 0);
  EXPECT_EQ(none["kernels"], 0);
  EXPECT_TRUE(none["by_name"].empty());
}

TEST(KernelCensus, SameKernelsMeansTheSameNamesAsManyTimes) {
  const json a = census_entry(trace_of({"gemm", "reduce"}, 1000, 3000), 0);
  const json b = census_entry(trace_of({"reduce", "gemm"}, 1100, 3300), 0);  // order and times do not matter
  const json c = census_entry(trace_of({"gemm", "reduce", "reduce"}, 1000, 3000), 0);
  const json d = census_entry(trace_of({"gemm", "splitk_reduce"}, 1000, 3000), 0);
  EXPECT_TRUE(same_kernels(a, b));
  EXPECT_FALSE(same_kernels(a, c));
  EXPECT_FALSE(same_kernels(a, d));
}

TEST(KernelCensus, TheSameCodesComparisonNamesWhatEachRanBeyondTheOther) {
  const json cand = census_entry(trace_of({"dgrad_algo1", "reduce", "reduce"}, 35000, 71000), 0);
  const json base = census_entry(trace_of({"dgrad_algo0", "reduce"}, 33000, 67000), 0);
  const json c = compare_same_code(cand, base, 2, "bench-0", "torch:eager");
  EXPECT_EQ(c["set"], 2);
  EXPECT_EQ(c["case"], "bench-0");
  EXPECT_EQ(c["baseline"], "torch:eager");
  EXPECT_FALSE(c["same_kernels"].get<bool>());
  EXPECT_EQ(c["only_candidate"], json({"dgrad_algo1", "reduce"}));
  EXPECT_EQ(c["only_baseline"], json({"dgrad_algo0"}));
  EXPECT_DOUBLE_EQ(c["candidate_kernel_ns"].get<double>(), 105000.0);
  EXPECT_DOUBLE_EQ(c["baseline_kernel_ns"].get<double>(), 66000.0);
  EXPECT_TRUE(c["complete"].get<bool>());

  const json same = compare_same_code(cand, cand, 1, "bench-0", "torch:eager");
  EXPECT_TRUE(same["same_kernels"].get<bool>());
  EXPECT_TRUE(same["only_candidate"].empty());
  EXPECT_TRUE(same["only_baseline"].empty());

  const json failed = compare_same_code(json{{"error", "unavailable: the worker's backend returned no trace"}}, base, 1,
                                        "bench-0", "torch:eager");
  EXPECT_FALSE(failed.contains("same_kernels"));
  EXPECT_EQ(failed["error"], "candidate: unavailable: the worker's backend returned no trace");
}

TEST(KernelCensus, TheConsoleLinesSayWhichOfKernelsTimesOrWindowsDiffer) {
  const json cand = census_entry(trace_of({"dgrad_algo1"}, 35'500'000, 35'600'000), 0);
  const json base = census_entry(trace_of({"dgrad_algo0"}, 33'500'000, 33'600'000), 0);
  json census{{"same_code", json::array({compare_same_code(cand, base, 1, "bench-0", "torch:eager"),
                                         compare_same_code(base, base, 2, "bench-0", "torch:eager"),
                                         compare_same_code(json{{"error", "time_begin: the worker is gone"}}, base, 3,
                                                           "bench-0", "torch:eager")})}};
  const auto lines = kernel_census_lines(census);
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0],
            "kernels, set 1, bench-0: the candidate and torch:eager (the same code) launched different kernels: the "
            "candidate "
            "also dgrad_algo1; torch:eager also dgrad_algo0; in kernels 35.500 ms against 33.500 ms, windows 35.600 ms "
            "against "
            "33.600 ms");
  EXPECT_EQ(
      lines[1],
      "kernels, set 2, bench-0: the candidate and torch:eager (the same code) launched the same kernels; in kernels "
      "33.500 ms against 33.500 ms, windows 33.600 ms against 33.600 ms");
  EXPECT_EQ(lines[2], "kernels, set 3, bench-0: no census (candidate: time_begin: the worker is gone)");
  EXPECT_TRUE(kernel_census_lines(json::object()).empty());
  EXPECT_TRUE(kernel_census_lines(json{{"same_code", json::array()}}).empty());
}
