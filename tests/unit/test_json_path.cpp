// core/json_path.hpp and core/utc.hpp: the one reader of "a.b.c" paths in lenient documents, and
// the one UTC clock text.
#include <gtest/gtest.h>

#include <regex>

#include "core/json_path.hpp"
#include "core/utc.hpp"

namespace kjudge {
namespace {

using json = nlohmann::json;

TEST(JsonPath, WalksObjectsAndStopsAtMissingNullOrNonObjectSteps) {
  const json j = json::parse(R"({"a": {"b": {"c": 3.5, "s": "x", "n": null, "l": [1, 2]}}, "top": 1})");
  ASSERT_NE(json_at(j, {"a", "b", "c"}), nullptr);
  EXPECT_EQ(*json_at(j, {"a", "b", "c"}), 3.5);
  EXPECT_EQ(json_at(j, {"a", "x", "c"}), nullptr);
  EXPECT_EQ(json_at(j, {"a", "b", "n"}), nullptr);       // null reads as absent
  EXPECT_EQ(json_at(j, {"top", "b"}), nullptr);          // a number has no keys
  EXPECT_EQ(json_at(j, {"a", "b", "l", "0"}), nullptr);  // nor an array
  EXPECT_EQ(json_at(json(), {}), nullptr);
  EXPECT_EQ(json_at(j, {}), &j);
  EXPECT_EQ(number_at(j, {"a", "b", "c"}), 3.5);
  EXPECT_FALSE(number_at(j, {"a", "b", "s"}).has_value());
  EXPECT_EQ(string_at(j, {"a", "b", "s"}), "x");
  EXPECT_FALSE(string_at(j, {"a", "b", "c"}).has_value());
  EXPECT_EQ(array_at(j, {"a", "b", "l"}).size(), 2u);
  EXPECT_TRUE(array_at(j, {"a", "b", "s"}).empty());
  EXPECT_TRUE(array_at(j, {"missing"}).empty());
}

TEST(Utc, NowIsIso8601WithAZ) {
  EXPECT_TRUE(std::regex_match(utc_now(), std::regex(R"(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z)"))) << utc_now();
}

}  // namespace
}  // namespace kjudge
