#include "cuda/check.hpp"

#include <cstdio>
#include <string>

#include "core/error.hpp"
#include "worker/device_fault.hpp"

namespace kjudge::cuda {

namespace {

std::string where(const char* call, const char* file, int line) {
  return std::string(file) + ":" + std::to_string(line) + ": " + call;
}

// cuGetErrorString lives in libcuda, which this program never links: fetch it through the
// runtime's driver entry point (the runtime has loaded the driver by the time an error exists).
std::string cu_error_string(CUresult e) {
  using fn_t = CUresult (*)(CUresult, const char**);
  void* fn = nullptr;
  cudaDriverEntryPointQueryResult q{};
  if (cudaGetDriverEntryPointByVersion("cuGetErrorString", &fn, 12000, cudaEnableDefault, &q) == cudaSuccess &&
      q == cudaDriverEntryPointSuccess && fn != nullptr) {
    const char* s = nullptr;
    if (reinterpret_cast<fn_t>(fn)(e, &s) == CUDA_SUCCESS && s != nullptr) return s;
  }
  return "CUresult " + std::to_string(static_cast<int>(e));
}

}  // namespace

bool is_sticky(cudaError_t e) {
  switch (e) {
    case cudaErrorIllegalAddress:
    case cudaErrorLaunchTimeout:
    case cudaErrorHardwareStackError:
    case cudaErrorIllegalInstruction:
    case cudaErrorMisalignedAddress:
    case cudaErrorInvalidAddressSpace:
    case cudaErrorInvalidPc:
    case cudaErrorLaunchFailure:
    case cudaErrorAssert:
    case cudaErrorECCUncorrectable:
    case cudaErrorContextIsDestroyed:
      return true;
    default:
      return false;
  }
}

std::string describe(cudaError_t e) {
  return std::string(cudaGetErrorName(e)) + ": " + cudaGetErrorString(e);
}

namespace detail {

void throw_cuda(cudaError_t e, const char* call, const char* file, int line) {
  const std::string msg = where(call, file, line) + " failed: " + describe(e);
  if (is_sticky(e))
    throw device_fault("GPU fault (sticky; the worker's CUDA context is unusable): " + msg, "runtime_error", true);
  if (e == cudaErrorMemoryAllocation) throw device_fault("out of device memory: " + msg, "resource_limit", false);
  throw internal_error(msg);
}

void throw_cu(CUresult e, const char* call, const char* file, int line) {
  throw internal_error(where(call, file, line) + " failed: " + cu_error_string(e));
}

void throw_cublas(cublasStatus_t e, const char* call, const char* file, int line) {
  throw internal_error(where(call, file, line) + " failed: " + cublasGetStatusName(e) + ": " +
                       cublasGetStatusString(e));
}

void throw_cupti(CUptiResult e, const char* call, const char* file, int line) {
  const char* s = nullptr;
  cuptiGetResultString(e, &s);
  throw internal_error(where(call, file, line) +
                       " failed: " + (s ? s : "CUptiResult " + std::to_string(static_cast<int>(e))));
}

}  // namespace detail

device_buffer::device_buffer(std::size_t bytes) : m_bytes(bytes) {
  if (bytes > 0) KJ_CUDA_CHECK(cudaMalloc(&m_ptr, bytes));
}

void device_buffer::reset() noexcept {
  if (m_ptr != nullptr) cudaFree(m_ptr);
  m_ptr = nullptr;
  m_bytes = 0;
}

mapped_host_buffer::mapped_host_buffer(std::size_t bytes) : m_bytes(bytes) {
  KJ_CUDA_CHECK(cudaHostAlloc(&m_host, bytes, cudaHostAllocMapped));
  KJ_CUDA_CHECK(cudaHostGetDevicePointer(&m_device, m_host, 0));
}

mapped_host_buffer::~mapped_host_buffer() {
  if (m_host != nullptr) cudaFreeHost(m_host);
}

stream::stream() {
  KJ_CUDA_CHECK(cudaStreamCreateWithFlags(&m_stream, cudaStreamDefault));
}
stream::~stream() {
  if (m_stream != nullptr) cudaStreamDestroy(m_stream);
}

event::event() {
  KJ_CUDA_CHECK(cudaEventCreateWithFlags(&m_event, cudaEventDefault));
}
event::~event() {
  if (m_event != nullptr) cudaEventDestroy(m_event);
}

cublas_handle::cublas_handle() {
  KJ_CUDA_CHECK(cublasCreate(&m_handle));
}
cublas_handle::~cublas_handle() {
  if (m_handle != nullptr) cublasDestroy(m_handle);
}

}  // namespace kjudge::cuda
