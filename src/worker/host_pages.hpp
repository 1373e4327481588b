// Host memory about to be page-locked for DMA (backend::pin_host_memory): its pages faulted in
// on several threads first. cudaHostRegister faults a fresh range one page at a time on one
// thread: a 19.3 GB arena took 7-8 s to pin on the H200 host.
#ifndef KJUDGE_WORKER_DETAIL_HOST_PAGES_HPP
#define KJUDGE_WORKER_DETAIL_HOST_PAGES_HPP

#include <cstddef>

namespace kjudge::detail {

// Faults [p, p + bytes) in, writable, on up to `threads` threads, leaving the contents as they
// are (madvise MADV_POPULATE_WRITE). p must be page-aligned. Returns false where the kernel
// cannot (before Linux 5.14): the pages are then faulted on first use, as without it.
bool populate_pages(void* p, std::size_t bytes, unsigned threads);

}  // namespace kjudge::detail

#endif
