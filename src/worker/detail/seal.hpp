// Sealing the worker's own code before the candidate's runs (Linux mseal, 6.10+). In-process code
// can otherwise make any page writable and patch the judge: the clock the worker times with
// (tests/redteam/cpu/timer_patch_scale_rmsnorm.cpp patched libstdc++'s steady_clock::now), or the
// memcpy that reads a call's outputs after the clock stopped (a patched copy could compute the
// result there, outside the clock). A sealed mapping cannot be made writable, remapped or
// unmapped, so the worker's executable (the timer, the session, its import table, made read-only
// by full RELRO), the C and C++ runtime libraries and the vDSO keep the bytes they were loaded
// with. A write to a sealed page faults and is reported as an attempt on the clock
// (fault_report.hpp, rule timer_tamper).
#pragma once

#include <nlohmann/json.hpp>

namespace kjudge {

// Seals every mapping of the worker's executable, of the runtime libraries it calls on the timed
// path (libc, libstdc++, libm, libgcc_s), of the dynamic loader's code, and the vDSO/vvar pages,
// as they are mapped now; registers each with the fault reporter. Returns what was sealed, or why
// not ({"enabled": false, "reason": ...} where the kernel has no mseal).
nlohmann::json seal_worker_code();

}  // namespace kjudge
