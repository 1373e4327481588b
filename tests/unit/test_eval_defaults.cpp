// The defaults an evaluation takes where the user gives none (judge/evaluate.hpp).
#include <gtest/gtest.h>

#include "judge/evaluate.hpp"

namespace kjudge {
namespace {

// cuda: three sets of workers (one set's CI proved too narrow on the H200, docs/design.md
// 2026-12-03, H200), never more than one per round; cpu: one set.
TEST(EvalDefaults, WorkerEpochsAreThreeOnCudaAtMostOnePerRoundAndOneOnCpu) {
  EXPECT_EQ(default_worker_epochs("cuda", 10), 3);
  EXPECT_EQ(default_worker_epochs("cuda", 3), 3);
  EXPECT_EQ(default_worker_epochs("cuda", 2), 2);
  EXPECT_EQ(default_worker_epochs("cuda", 1), 1);
  EXPECT_EQ(default_worker_epochs("cpu", 10), 1);
  EXPECT_EQ(default_worker_epochs("cpu", 1), 1);
  // An evaluation asks for the default unless told otherwise.
  EXPECT_EQ(eval_options{}.worker_epochs, 0);
}

}  // namespace
}  // namespace kjudge
