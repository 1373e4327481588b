/* kjudge candidate ABI (DESIGN.md §2.1).
 *
 * A candidate is one source file (.cpp for the cpu backend, .cu for cuda) that includes this
 * header and exports `kj_run`, and optionally `kj_workspace_bytes` and `kj_info`.
 * Breaking changes to any struct or signature below bump KJ_ABI_VERSION; the worker refuses a
 * candidate built against another version (it reads `kj_abi_version`, emitted by KJ_EXPORT_ABI).
 */
#ifndef KJUDGE_CANDIDATE_H
#define KJUDGE_CANDIDATE_H

#include <stddef.h>
#include <stdint.h>

#define KJ_ABI_VERSION 1

#ifdef __cplusplus
#define KJ_EXTERN_C extern "C"
#else
#define KJ_EXTERN_C
#endif
#define KJ_EXPORT KJ_EXTERN_C __attribute__((visibility("default")))

typedef enum { KJ_F32, KJ_F64, KJ_F16, KJ_BF16, KJ_I32, KJ_I64, KJ_U8, KJ_BOOL } kj_dtype;

#define KJ_MAX_DIMS 8

typedef struct {
  void* data; /* host pointer (cpu) or device pointer (cuda) */
  kj_dtype dtype;
  int32_t ndim;
  int64_t shape[KJ_MAX_DIMS];
  int64_t stride[KJ_MAX_DIMS]; /* in elements */
} kj_tensor;

typedef struct {
  const kj_tensor* inputs;
  int32_t n_inputs; /* order and names: the problem's signature */
  kj_tensor* outputs;
  int32_t n_outputs;
  const double* scalars;
  int32_t n_scalars; /* e.g. eps */
  void* stream;      /* cudaStream_t on cuda, NULL on cpu */
  void* workspace;
  size_t workspace_bytes;
} kj_args;

/* The ABI version the candidate was compiled against; the worker checks it after dlopen. */
KJ_EXPORT int kj_abi_version(void);
#ifndef KJ_NO_ABI_DEFINITION
/* Defined once per candidate translation unit (the candidate is a single source file). */
KJ_EXTERN_C __attribute__((visibility("default"), weak)) int kj_abi_version(void) {
  return KJ_ABI_VERSION;
}
#endif

/* Required. Returns 0 on success; any other value is reported as a runtime_error verdict.
 * All work of a call must be complete when the call returns (cpu) or when `stream` completes
 * (cuda). */
KJ_EXPORT int kj_run(const kj_args* a);
/* Optional. Bytes of scratch memory the candidate needs for these arguments; the judge
 * allocates it, passes it in kj_args.workspace and counts it in the peak memory. */
KJ_EXPORT size_t kj_workspace_bytes(const kj_args* a);
/* Optional. "family=...;notes=..." used by the search loop. */
KJ_EXPORT const char* kj_info(void);

/* Reference implementations (problems/<name>/reference.cpp) also export this: the same
 * computation on float64 copies of the inputs (every kj_tensor has dtype KJ_F64). The oracle
 * compares candidates against it. */
KJ_EXPORT int kj_reference_f64(const kj_args* a);

#endif /* KJUDGE_CANDIDATE_H */
