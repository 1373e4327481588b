// The QR oracle's kernels for x86-64-v4 (AVX-512): compiled with -march=x86-64-v4 (CMakeLists.txt).
#if defined(KJ_QR_KERNELS_X86_64)
#define KJ_QR_ISA x86_64_v4
#define KJ_QR_ISA_NAME "x86-64-v4"
#include "oracle/detail/qr_kernels_impl.hpp"
#endif
