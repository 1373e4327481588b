// The QR oracle's kernels for any CPU of the target (no -march beyond the compiler's default).
#define KJ_QR_ISA baseline
#define KJ_QR_ISA_NAME "baseline"
#include "oracle/detail/qr_kernels_impl.hpp"
