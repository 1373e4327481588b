// Device ceilings for `kjudge doctor --device cuda`: copy bandwidth and cuBLAS matrix rates.
#pragma once

#include <nlohmann/json.hpp>

namespace kjudge::cuda {

// Measures the ceilings of CUDA device `device` (about 2 s on an H200) and returns them in the
// shape of timing/ceilings.hpp's device_ceilings::to_json ("schema": "kjudge.ceilings/1").
// Throws on CUDA errors.
nlohmann::json measure_ceilings(int device);

}  // namespace kjudge::cuda
