// kjudge-worker: loads ONE candidate, baseline or reference shared object and serves the
// controller's requests over its private channel (protocol/messages.hpp).
#pragma once

#include <memory>

#include "protocol/channel.hpp"
#include "worker/backend.hpp"

namespace kjudge {

// Backend factory used by the worker: "cpu" always; "cuda" only in kjudge-worker-cuda, which
// links the CUDA backend and registers it here.
using backend_factory = std::unique_ptr<backend> (*)();
void register_backend(const char* name, backend_factory f);

// Runs the worker protocol on (channel fd, arena fd); returns the process exit status.
int run_worker(int channel_fd, int arena_fd, std::size_t arena_bytes);

}  // namespace kjudge
