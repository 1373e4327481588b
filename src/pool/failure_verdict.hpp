// What a worker's failure means for the verdict (contract §2.3: a candidate's failure is data):
// the candidate's death, hang, exhausted memory, forged message or refused system call becomes
// its verdict, named by the rule its evidence shows (a write to a read-only input is
// input_modified, not a crash). The reference's or a baseline's failure is never a verdict about
// the candidate.
#pragma once

#include <string>

#include "guards/verdict.hpp"
#include "pool/worker_process.hpp"

namespace kjudge {

// The verdict of the candidate's worker failing during `what` ("case public-0", say). Throws
// usage_error when the failed worker is the reference's or a baseline's (failure.role): the
// problem's code or a size the machine cannot hold; the candidate is then not judged (exit 2).
verdict verdict_of_failure(const worker_failure& failure, const std::string& what);

// A verdict for one of the named rules (guards/rules.hpp), with its status.
verdict rule_verdict(const std::string& rule_name, std::vector<std::string> reasons, nlohmann::json evidence = nullptr);

}  // namespace kjudge
