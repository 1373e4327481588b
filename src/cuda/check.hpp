// The one CUDA check macro and the RAII owners of the cuda backend (nvbench style).
//
// KJ_CUDA_CHECK(call) evaluates `call` once; on failure it throws with file:line, the call's
// text and the library's own error string. It takes cudaError_t, CUresult, cublasStatus_t and
// CUptiResult. A cudaError_t that leaves the context unusable (illegal address, launch failure,
// device assert, ...) or that reports exhausted device memory becomes a kjudge::device_fault:
// within a worker the only code that can cause those is the candidate's, so it is a verdict, not
// a bug of the judge. Everything else throws kjudge::internal_error.
//
// Only host translation units include this (it pulls in the worker's exception types); kernels
// live in .cu files whose launch wrappers return cudaError_t for the caller to check.
#pragma once

#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda.h>
#include <cuda_runtime.h>
#include <cupti.h>

#include <cstddef>
#include <string>
#include <utility>

namespace kjudge::cuda {

namespace detail {
[[noreturn]] void throw_cuda(cudaError_t e, const char* call, const char* file, int line);
[[noreturn]] void throw_cu(CUresult e, const char* call, const char* file, int line);
[[noreturn]] void throw_cublas(cublasStatus_t e, const char* call, const char* file, int line);
[[noreturn]] void throw_cupti(CUptiResult e, const char* call, const char* file, int line);

inline void check(cudaError_t e, const char* call, const char* file, int line) {
  if (e != cudaSuccess) throw_cuda(e, call, file, line);
}
inline void check(CUresult e, const char* call, const char* file, int line) {
  if (e != CUDA_SUCCESS) throw_cu(e, call, file, line);
}
inline void check(cublasStatus_t e, const char* call, const char* file, int line) {
  if (e != CUBLAS_STATUS_SUCCESS) throw_cublas(e, call, file, line);
}
inline void check(CUptiResult e, const char* call, const char* file, int line) {
  if (e != CUPTI_SUCCESS) throw_cupti(e, call, file, line);
}
}  // namespace detail

#define KJ_CUDA_CHECK(call) ::kjudge::cuda::detail::check((call), #call, __FILE__, __LINE__)

// True for the errors after which the CUDA context cannot be used again (sticky errors).
bool is_sticky(cudaError_t e);

// "cudaErrorIllegalAddress: an illegal memory access was encountered"
std::string describe(cudaError_t e);

// Device memory with ownership; copy deleted.
class device_buffer {
 public:
  device_buffer() = default;
  explicit device_buffer(std::size_t bytes);
  device_buffer(const device_buffer&) = delete;
  device_buffer& operator=(const device_buffer&) = delete;
  device_buffer(device_buffer&& o) noexcept
      : m_ptr(std::exchange(o.m_ptr, nullptr)), m_bytes(std::exchange(o.m_bytes, 0)) {}
  device_buffer& operator=(device_buffer&& o) noexcept {
    if (this != &o) {
      reset();
      m_ptr = std::exchange(o.m_ptr, nullptr);
      m_bytes = std::exchange(o.m_bytes, 0);
    }
    return *this;
  }
  ~device_buffer() { reset(); }
  void reset() noexcept;
  [[nodiscard]] void* get() const { return m_ptr; }
  template <class T>
  [[nodiscard]] T* as() const {
    return static_cast<T*>(m_ptr);
  }
  [[nodiscard]] std::size_t bytes() const { return m_bytes; }

 private:
  void* m_ptr = nullptr;
  std::size_t m_bytes = 0;
};

// Page-locked host memory mapped into the device's address space (the blocking kernel's flag,
// staging of small results); copy deleted.
class mapped_host_buffer {
 public:
  mapped_host_buffer() = default;
  explicit mapped_host_buffer(std::size_t bytes);
  mapped_host_buffer(const mapped_host_buffer&) = delete;
  mapped_host_buffer& operator=(const mapped_host_buffer&) = delete;
  mapped_host_buffer(mapped_host_buffer&& o) noexcept
      : m_host(std::exchange(o.m_host, nullptr)),
        m_device(std::exchange(o.m_device, nullptr)),
        m_bytes(std::exchange(o.m_bytes, 0)) {}
  mapped_host_buffer& operator=(mapped_host_buffer&&) = delete;
  ~mapped_host_buffer();
  template <class T>
  [[nodiscard]] T* host() const {
    return static_cast<T*>(m_host);
  }
  template <class T>
  [[nodiscard]] T* device() const {
    return static_cast<T*>(m_device);
  }
  [[nodiscard]] std::size_t bytes() const { return m_bytes; }

 private:
  void* m_host = nullptr;
  void* m_device = nullptr;
  std::size_t m_bytes = 0;
};

class stream {
 public:
  // Blocking with respect to the legacy default stream on purpose: a candidate that launches on
  // stream 0 instead of kj_args.stream is still ordered between the judge's start and stop events.
  stream();
  stream(const stream&) = delete;
  stream& operator=(const stream&) = delete;
  ~stream();
  [[nodiscard]] cudaStream_t get() const { return m_stream; }

 private:
  cudaStream_t m_stream = nullptr;
};

class event {
 public:
  event();  // timing enabled, blocking sync off (the host spins briefly, lowest wake-up latency)
  event(const event&) = delete;
  event& operator=(const event&) = delete;
  ~event();
  [[nodiscard]] cudaEvent_t get() const { return m_event; }

 private:
  cudaEvent_t m_event = nullptr;
};

class cublas_handle {
 public:
  cublas_handle();
  cublas_handle(const cublas_handle&) = delete;
  cublas_handle& operator=(const cublas_handle&) = delete;
  ~cublas_handle();
  [[nodiscard]] cublasHandle_t get() const { return m_handle; }

 private:
  cublasHandle_t m_handle = nullptr;
};

}  // namespace kjudge::cuda
