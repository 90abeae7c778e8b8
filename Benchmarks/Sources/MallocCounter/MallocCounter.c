// Graft benchmarks — MIT License.
// Defines the allocation functions in the executable itself: the dynamic linker binds every
// library's calls (the Swift runtime's included) to these, which count and forward to glibc.
#define _GNU_SOURCE
#include "MallocCounter.h"
#include <stddef.h>
#include <malloc.h>

extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t count, size_t size);
extern void *__libc_realloc(void *pointer, size_t size);
extern void *__libc_memalign(size_t alignment, size_t size);
extern void __libc_free(void *pointer);

static _Atomic uint64_t allocations = 0;

uint64_t graft_malloc_count(void) { return allocations; }

uint64_t graft_heap_bytes_in_use(void) { return (uint64_t)mallinfo2().uordblks; }

void *malloc(size_t size) {
    allocations++;
    return __libc_malloc(size);
}

void *calloc(size_t count, size_t size) {
    allocations++;
    return __libc_calloc(count, size);
}

void *realloc(void *pointer, size_t size) {
    allocations++;
    return __libc_realloc(pointer, size);
}

void *memalign(size_t alignment, size_t size) {
    allocations++;
    return __libc_memalign(alignment, size);
}

void *aligned_alloc(size_t alignment, size_t size) {
    allocations++;
    return __libc_memalign(alignment, size);
}

int posix_memalign(void **result, size_t alignment, size_t size) {
    allocations++;
    void *pointer = __libc_memalign(alignment, size);
    if (pointer == NULL) return 12;  // ENOMEM
    *result = pointer;
    return 0;
}

void free(void *pointer) { __libc_free(pointer); }
