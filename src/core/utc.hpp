// Wall-clock times as the documents write them (docs/result-schema.md: Times).
#pragma once

#include <string>

namespace kjudge {

// Now, ISO 8601 UTC to the second with a Z suffix: "2026-12-02T10:00:00Z".
std::string utc_now();

}  // namespace kjudge
