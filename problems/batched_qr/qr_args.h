// The argument check every batched_qr kernel of this directory makes (the C++ and CUDA
// references, the cuBLAS and cuSOLVER baselines): one input A[B,n,n], outputs H[B,n,n] and
// tau[B,n], all contiguous. Host code, for g++ and nvcc alike.
#ifndef KJUDGE_PROBLEMS_BATCHED_QR_QR_ARGS_H
#define KJUDGE_PROBLEMS_BATCHED_QR_QR_ARGS_H

#include "kjudge/candidate.h"
#include "kjudge/reference_util.h"

namespace qr_args {

struct dims {
  int64_t b = 0, n = 0;
};

// kjref::status_ok, or the status a kj_run returns for these arguments.
inline int check(const kj_args* a, dims* d) {
  if (a == nullptr || a->n_inputs != 1 || a->n_outputs != 2) return kjref::status_bad_args;
  const kj_tensor& A = a->inputs[0];
  const kj_tensor& H = a->outputs[0];
  const kj_tensor& tau = a->outputs[1];
  if (A.ndim != 3 || A.shape[1] != A.shape[2] || A.shape[0] < 0 || A.shape[1] < 0) return kjref::status_bad_args;
  d->b = A.shape[0];
  d->n = A.shape[1];
  if (H.ndim != 3 || H.shape[0] != d->b || H.shape[1] != d->n || H.shape[2] != d->n) return kjref::status_bad_args;
  if (tau.ndim != 2 || tau.shape[0] != d->b || tau.shape[1] != d->n) return kjref::status_bad_args;
  if (!kjref::all_contiguous(a)) return kjref::status_bad_layout;
  return kjref::status_ok;
}

}  // namespace qr_args

#endif
