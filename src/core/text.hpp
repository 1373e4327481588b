// Text that comes from a party's process (a candidate's kj_info, an exception message, the tail
// of its log, a process name): it lands in the verdict, the result document and the store, so it
// is bounded, made printable, and stripped of the run's secrets before it is kept.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace kjudge {

// At most max_bytes of `s` (cut at a character boundary, "..." appended when cut); control bytes
// other than newline and tab, and bytes that are not valid UTF-8, become '?'; every registered
// secret is replaced by "[redacted]".
std::string untrusted_text(std::string_view s, std::size_t max_bytes);

// A value that must never appear in untrusted text the judge keeps (the run's secret seed, in
// each form it is written). Process-wide.
void register_secret(const std::string& secret);

}  // namespace kjudge
