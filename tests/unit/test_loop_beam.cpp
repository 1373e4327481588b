// The loop's beam: K best correct candidates with family diversity, near-misses, retirement with
// reasons, plateau and the request sent to the proposer (src/loop/beam.hpp).
#include <gtest/gtest.h>

#include <algorithm>

#include "loop/beam.hpp"

namespace kl = kjudge::loop;

namespace {

kl::scored_candidate cand(const std::string& id, const std::string& family, double median, double halfwidth = 0.05,
                          int iteration = 1) {
  kl::scored_candidate c;
  c.id = id;
  c.sha256 = "sha-" + id;
  c.family = family;
  c.median = median;
  c.lo = median - halfwidth;
  c.hi = median + halfwidth;
  c.time_s = 1e-3 / median;
  c.iteration = iteration;
  return c;
}

std::vector<std::string> ids(const std::vector<kl::beam_member>& b) {
  std::vector<std::string> out;
  for (const auto& m : b) out.push_back(m.c.id);
  return out;
}

int count_family(const std::vector<kl::beam_member>& b, const std::string& f) {
  return static_cast<int>(std::count_if(b.begin(), b.end(), [&](const kl::beam_member& m) { return m.c.family == f; }));
}

}  // namespace

TEST(LoopBeam, KeepsTheKBestInOrder) {
  kl::beam_params p;
  p.k = 3;
  const auto b =
      kl::select_beam({cand("a", "x", 1.0), cand("b", "y", 3.0), cand("c", "z", 2.0), cand("d", "w", 0.5)}, p);
  EXPECT_EQ(ids(b), (std::vector<std::string>{"b", "c", "a"}));
  EXPECT_EQ(b[0].rank, 1);
  EXPECT_EQ(b[2].rank, 3);
  EXPECT_FALSE(b[0].near_miss);
}

TEST(LoopBeam, NoFamilyHoldsMoreThanHalfWhileOthersAreAvailable) {
  kl::beam_params p;
  p.k = 4;
  p.near_miss_margin = 0.0;
  // Family x has the four best candidates; y and z are slower but must get the other slots.
  const auto b = kl::select_beam({cand("x1", "x", 5.0), cand("x2", "x", 4.9), cand("x3", "x", 4.8),
                                  cand("x4", "x", 4.7), cand("y1", "y", 1.0), cand("z1", "z", 0.5)},
                                 p);
  ASSERT_EQ(b.size(), 4u);
  EXPECT_EQ(count_family(b, "x"), 2);
  EXPECT_EQ(count_family(b, "y"), 1);
  EXPECT_EQ(count_family(b, "z"), 1);
  EXPECT_EQ(b[0].c.id, "x1");
}

TEST(LoopBeam, ACappedFamilyFillsTheBeamWhenNoOtherIsAvailable) {
  kl::beam_params p;
  p.k = 4;
  const auto b =
      kl::select_beam({cand("x1", "x", 5.0), cand("x2", "x", 4.0), cand("x3", "x", 3.0), cand("y1", "y", 1.0)}, p);
  ASSERT_EQ(b.size(), 4u);
  EXPECT_EQ(count_family(b, "x"), 3);
  EXPECT_EQ(count_family(b, "y"), 1);
  // One family alone takes every slot.
  const auto solo = kl::select_beam({cand("x1", "x", 5.0), cand("x2", "x", 4.0), cand("x3", "x", 3.0)}, p);
  EXPECT_EQ(solo.size(), 3u);
}

TEST(LoopBeam, KeepsANearMissOfAFamilyThatWouldBeDropped) {
  kl::beam_params p;
  p.k = 2;  // one slot per family
  p.near_miss_margin = 0.15;
  // z at 0.9x the best is within 15%; w at 0.5x is not.
  const auto b =
      kl::select_beam({cand("x1", "x", 2.0), cand("y1", "y", 1.95), cand("z1", "z", 1.8), cand("w1", "w", 1.0)}, p);
  ASSERT_EQ(b.size(), 3u);
  EXPECT_EQ(b[2].c.id, "z1");
  EXPECT_TRUE(b[2].near_miss);
  EXPECT_EQ(count_family(b, "w"), 0);
}

TEST(LoopBeam, TiesGoToTheHigherLowerBoundThenTheEarlierCandidate) {
  kl::beam_params p;
  p.k = 1;
  auto a = cand("a", "x", 2.0, 0.5, 2);
  auto b = cand("b", "y", 2.0, 0.1, 3);
  EXPECT_EQ(kl::select_beam({a, b}, p)[0].c.id, "b");
  auto c = cand("c", "x", 2.0, 0.1, 1);
  EXPECT_EQ(kl::select_beam({b, c}, p)[0].c.id, "c");
}

TEST(LoopBeam, EmptyPoolGivesEmptyBeam) {
  EXPECT_TRUE(kl::select_beam({}, kl::beam_params{}).empty());
}

TEST(LoopFamilies, OneWeakAttemptDoesNotRetireAFamily) {
  kl::beam_params p;
  p.k = 1;  // one slot: y stays outside the beam
  std::map<std::string, kl::family_record> fam;
  std::vector<kl::scored_candidate> pool{cand("x1", "x", 3.0), cand("x2", "x", 2.9), cand("y1", "y", 0.5)};
  auto beam = kl::select_beam(pool, p);
  auto changes = kl::update_families(
      fam, {{"x1", "x", "ok_faster", 1}, {"x2", "x", "ok_faster", 1}, {"y1", "y", "ok_not_faster", 1}}, pool, beam, p,
      1);
  EXPECT_TRUE(changes.empty());
  EXPECT_FALSE(fam["y"].retired);
  EXPECT_FALSE(fam["y"].in_beam);
  EXPECT_EQ(fam["y"].attempts, 1);
  // A second attempt, still far behind: now retired, with the figures in the reason.
  pool.push_back(cand("y2", "y", 0.6, 0.05, 2));
  beam = kl::select_beam(pool, p);
  changes = kl::update_families(fam, {{"y2", "y", "ok_not_faster", 2}}, pool, beam, p, 2);
  ASSERT_EQ(changes, (std::vector<std::string>{"retired:y"}));
  EXPECT_TRUE(fam["y"].retired);
  EXPECT_EQ(fam["y"].retired_at, 2);
  EXPECT_NE(fam["y"].retired_reason.find("0.6x (y2)"), std::string::npos) << fam["y"].retired_reason;
  EXPECT_NE(fam["y"].retired_reason.find("3x (x1)"), std::string::npos) << fam["y"].retired_reason;
  EXPECT_NE(fam["y"].retired_reason.find("2 attempts"), std::string::npos) << fam["y"].retired_reason;
}

TEST(LoopFamilies, AllRejectedFamilyIsRetiredWithTheVerdicts) {
  kl::beam_params p;
  std::map<std::string, kl::family_record> fam;
  std::vector<kl::scored_candidate> pool{cand("x1", "x", 3.0)};
  const auto beam = kl::select_beam(pool, p);
  kl::update_families(
      fam, {{"x1", "x", "ok_faster", 1}, {"c1", "cheat", "wrong_result", 1}, {"c2", "cheat", "compile_error", 1}}, pool,
      beam, p, 1);
  EXPECT_TRUE(fam["cheat"].retired);
  EXPECT_EQ(fam["cheat"].rejected, 2);
  EXPECT_NE(fam["cheat"].retired_reason.find("all 2 attempts rejected"), std::string::npos);
  EXPECT_NE(fam["cheat"].retired_reason.find("wrong_result x1"), std::string::npos) << fam["cheat"].retired_reason;
  EXPECT_FALSE(fam["x"].retired);
  EXPECT_TRUE(fam["x"].in_beam);
}

TEST(LoopFamilies, ARetiredFamilyIsRevivedWhenItEntersTheBeam) {
  kl::beam_params p;
  p.k = 1;
  p.retire_after = 1;
  std::map<std::string, kl::family_record> fam;
  std::vector<kl::scored_candidate> pool{cand("x1", "x", 3.0), cand("y1", "y", 1.0)};
  kl::update_families(fam, {{"x1", "x", "ok_faster", 1}, {"y1", "y", "ok_faster", 1}}, pool, kl::select_beam(pool, p),
                      p, 1);
  ASSERT_TRUE(fam["y"].retired);
  pool.push_back(cand("y2", "y", 9.0, 0.1, 2));
  const auto ch = kl::update_families(fam, {{"y2", "y", "ok_faster", 2}}, pool, kl::select_beam(pool, p), p, 2);
  EXPECT_FALSE(fam["y"].retired);
  EXPECT_TRUE(fam["y"].retired_reason.empty());
  EXPECT_NE(std::find(ch.begin(), ch.end(), "revived:y"), ch.end());
  EXPECT_NE(std::find(ch.begin(), ch.end(), "retired:x"), ch.end());
}

TEST(LoopPlateau, ImprovementMustLeaveThePreviousBestsCI) {
  const auto prev = cand("a", "x", 2.0, 0.2);  // CI [1.8, 2.2]
  EXPECT_TRUE(kl::improves_beyond_noise(std::nullopt, prev));
  EXPECT_FALSE(kl::improves_beyond_noise(prev, cand("b", "x", 2.1)));
  EXPECT_TRUE(kl::improves_beyond_noise(prev, cand("c", "x", 2.3)));
  // The same source judged again is never an improvement, whatever its new figures.
  auto again = cand("d", "x", 5.0);
  again.sha256 = prev.sha256;
  EXPECT_FALSE(kl::improves_beyond_noise(prev, again));
}

// Estimates without a CI (fewer than six rounds): the new candidate's own CI must clear the
// previous estimate; two estimates never show an improvement beyond noise.
TEST(LoopPlateau, AnEstimateWithoutACiShowsNoImprovementBeyondNoise) {
  auto estimate = [](const std::string& id, double median) {
    auto c = cand(id, "x", median, 0.0);
    c.with_ci = false;
    return c;
  };
  const auto prev = estimate("a", 2.0);
  EXPECT_FALSE(kl::improves_beyond_noise(prev, estimate("b", 3.0)));
  EXPECT_TRUE(kl::improves_beyond_noise(prev, cand("c", "x", 2.3, 0.2)));   // CI [2.1, 2.5]
  EXPECT_FALSE(kl::improves_beyond_noise(prev, cand("d", "x", 2.1, 0.2)));  // CI [1.9, 2.3]
  EXPECT_FALSE(kl::improves_beyond_noise(cand("e", "x", 2.0, 0.2), estimate("f", 2.1)));
  // The flag survives the journal's form.
  EXPECT_FALSE(kl::scored_from_json(kl::to_json(prev)).with_ci);
  EXPECT_TRUE(kl::scored_from_json(kl::to_json(cand("g", "x", 2.0))).with_ci);
}

TEST(LoopRequest, InitialThenFixThenImprove) {
  std::map<std::string, kl::family_record> fam;
  kl::plateau_state ps;
  EXPECT_EQ(kl::choose_request(1, {}, fam, ps, 3, "", "").kind, "initial");
  const auto fix = kl::choose_request(2, {}, fam, ps, 3, "i0001-p00", "cheat");
  EXPECT_EQ(fix.kind, "fix");
  EXPECT_EQ(fix.target_id, "i0001-p00");
  kl::beam_params p;
  const auto beam = kl::select_beam({cand("a", "x", 3.0), cand("b", "y", 2.0), cand("c", "z", 1.0)}, p);
  // Even iterations: the best; odd: the others in turn.
  EXPECT_EQ(kl::choose_request(2, beam, fam, ps, 0, "", "").target_id, "a");
  EXPECT_EQ(kl::choose_request(4, beam, fam, ps, 0, "", "").target_id, "a");
  const auto r1 = kl::choose_request(1, beam, fam, ps, 0, "", "");
  const auto r3 = kl::choose_request(3, beam, fam, ps, 0, "", "");
  EXPECT_EQ(r1.kind, "improve");
  EXPECT_NE(r1.target_id, "a");
  EXPECT_NE(r3.target_id, "a");
  EXPECT_NE(r1.target_id, r3.target_id);
}

TEST(LoopRequest, ActiveFamiliesOutsideTheBeamGetAnotherAttempt) {
  kl::beam_params p;
  p.k = 1;
  std::map<std::string, kl::family_record> fam;
  std::vector<kl::scored_candidate> pool{cand("a", "x", 3.0), cand("b", "y", 1.0)};
  const auto beam = kl::select_beam(pool, p);
  kl::update_families(fam, {{"a", "x", "ok_faster", 1}, {"b", "y", "ok_faster", 1}}, pool, beam, p, 1);
  ASSERT_FALSE(fam["y"].retired);
  const auto r = kl::choose_request(3, beam, fam, kl::plateau_state{}, 0, "", "");
  EXPECT_EQ(r.target_id, "b");
  EXPECT_EQ(r.family, "y");
}

TEST(LoopRequest, PlateauAsksForANewFamilyThenCountsAgain) {
  kl::beam_params p;
  std::map<std::string, kl::family_record> fam;
  fam["x"].name = "x";
  const auto beam = kl::select_beam({cand("a", "x", 3.0)}, p);
  kl::plateau_state ps;
  ps.last_improvement = 1;
  // Iterations 2 and 3 brought nothing: with P = 2 iteration 4 asks for a new family.
  EXPECT_EQ(kl::choose_request(3, beam, fam, ps, 2, "", "").kind, "improve");
  const auto r = kl::choose_request(4, beam, fam, ps, 2, "", "");
  EXPECT_EQ(r.kind, "new_family");
  EXPECT_EQ(r.avoid_families, (std::vector<std::string>{"x"}));
  EXPECT_NE(r.reason.find("plateau"), std::string::npos);
  ps.last_new_family_request = 4;
  EXPECT_EQ(kl::choose_request(5, beam, fam, ps, 2, "", "").kind, "improve");
  EXPECT_EQ(kl::choose_request(7, beam, fam, ps, 2, "", "").kind, "new_family");
  // P = 0 never asks.
  EXPECT_EQ(kl::choose_request(40, beam, fam, ps, 0, "", "").kind, "improve");
}

TEST(LoopRequest, RoundTripsThroughJson) {
  kl::request r;
  r.kind = "new_family";
  r.avoid_families = {"x", "y"};
  r.reason = "plateau";
  const auto back = kl::request::from_json(r.to_json());
  EXPECT_EQ(back.kind, r.kind);
  EXPECT_EQ(back.avoid_families, r.avoid_families);
  EXPECT_EQ(back.reason, r.reason);
}

TEST(LoopInfo, ParsesFamilyAndNotes) {
  auto f = kl::parse_info("family=online;notes=one pass; 8 lanes");
  EXPECT_EQ(f.family, "online");
  EXPECT_EQ(f.notes, "one pass; 8 lanes");
  EXPECT_EQ(kl::parse_info("notes=x").family, "unknown");
  EXPECT_EQ(kl::parse_info("").family, "unknown");
  EXPECT_EQ(kl::parse_info(" family = tiled ").family, "tiled");
}

TEST(LoopInfo, FamilyFromSourceForCandidatesThatDidNotLoad) {
  EXPECT_EQ(kl::family_from_source("KJ_EXPORT const char* kj_info(void) { return \"family=tiled_16;notes=x\"; }"),
            "tiled_16");
  EXPECT_EQ(kl::family_from_source("int kj_run() { syntax error"), "unknown");
}
