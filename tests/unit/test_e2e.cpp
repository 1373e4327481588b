// kjudge e2e's arithmetic and target table (src/e2e/e2e.hpp); the command itself is exercised
// through the CLI in tests/integration/test_e2e.cpp.
#include <gtest/gtest.h>

#include <stdexcept>

#include "e2e/e2e.hpp"

namespace kjudge::e2e {
namespace {

TEST(E2eAmdahl, MatchesTheFormula) {
  // s = 0.25, k = 2: 1 / (0.75 + 0.125) = 1 / 0.875.
  EXPECT_DOUBLE_EQ(amdahl(0.25, 2.0), 1.0 / 0.875);
  // The kernel the whole model: the kernel's own speedup; none of it: no change.
  EXPECT_DOUBLE_EQ(amdahl(1.0, 1.9), 1.9);
  EXPECT_DOUBLE_EQ(amdahl(0.0, 1.9), 1.0);
  // A slower kernel slows the model: s = 0.5, k = 0.5 gives 1 / 1.5.
  EXPECT_DOUBLE_EQ(amdahl(0.5, 0.5), 1.0 / 1.5);
  // However fast the kernel, the bound is 1 / (1 - s).
  EXPECT_NEAR(amdahl(0.1, 1e12), 1.0 / 0.9, 1e-9);
}

TEST(E2eAmdahl, RefusesWhatIsNotAShareOrASpeedup) {
  EXPECT_THROW(amdahl(-0.1, 2.0), std::invalid_argument);
  EXPECT_THROW(amdahl(1.1, 2.0), std::invalid_argument);
  EXPECT_THROW(amdahl(0.5, 0.0), std::invalid_argument);
}

TEST(E2eInferProblem, NamesTheSuiteProblemOfATarget) {
  EXPECT_EQ(infer_problem("RMSNorm"), "rmsnorm");
  EXPECT_EQ(infer_problem("torch.nn.functional.softmax"), "softmax");
  EXPECT_EQ(infer_problem("torch.softmax"), "softmax");
  EXPECT_EQ(infer_problem("LayerNorm"), "layernorm");
  EXPECT_EQ(infer_problem("torch.nn.functional.layer_norm"), "layernorm");
  EXPECT_EQ(infer_problem("GeluBiasResidual"), "gelu_bias_residual");
  EXPECT_EQ(infer_problem("Attention"), std::nullopt);
}

}  // namespace
}  // namespace kjudge::e2e
