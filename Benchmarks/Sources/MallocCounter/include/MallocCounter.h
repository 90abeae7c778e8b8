// Counts heap allocations of the whole process, so a benchmark can show a path allocates nothing.
#ifndef GRAFT_MALLOC_COUNTER_H
#define GRAFT_MALLOC_COUNTER_H

#include <stdint.h>

/// Allocations (malloc, calloc, realloc, aligned variants) made since the process started.
uint64_t graft_malloc_count(void);

/// Bytes the allocator has handed out and not taken back (glibc's `mallinfo2`).
uint64_t graft_heap_bytes_in_use(void);

#endif
