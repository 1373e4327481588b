// Text from a party's process (kj_info, exceptions, logs) is bounded, printable and never carries
// a registered secret (core/text.hpp).
#include <gtest/gtest.h>

#include <string>

#include "core/text.hpp"

namespace kjudge {
namespace {

TEST(UntrustedText, IsBoundedPrintableAndRedacted) {
  EXPECT_EQ(untrusted_text("family=rowwise;notes=one pass", 512), "family=rowwise;notes=one pass");
  // Control bytes become '?', newlines and tabs stay, valid UTF-8 stays, invalid bytes do not.
  EXPECT_EQ(untrusted_text(std::string("a\x01"
                                       "b\nc\td\x1b[31m",
                                       12),
                           100),
            "a?b\nc\td?[31m");
  EXPECT_EQ(untrusted_text("caf\xc3\xa9 \xff", 100), "caf\xc3\xa9 ?");
  // Cut at a character boundary, with a mark.
  EXPECT_EQ(untrusted_text(std::string(100, 'x'), 10), std::string(10, 'x') + "...");
  EXPECT_EQ(untrusted_text("\xc3\xa9\xc3\xa9", 3), "\xc3\xa9...");
  register_secret("0x5eed5eed5eed5eed");
  EXPECT_EQ(untrusted_text("the seed is 0x5eed5eed5eed5eed!", 100), "the seed is [redacted]!");
}

}  // namespace
}  // namespace kjudge
