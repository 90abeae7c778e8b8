#include <stdio.h>
#include <stdlib.h>
#include <time.h>
// Bulk pattern of the registration scenario: n objects of one size allocated, then all freed in a
// shuffled order (a hash table's slot order), repeated.
int main(int argc, char **argv) {
    size_t size = atoi(argv[1]); int n = 1000, reps = atoi(argv[2]);
    void **p = malloc(n * sizeof(void *)); int *order = malloc(n * sizeof(int));
    for (int i = 0; i < n; i++) order[i] = i;
    srand(1); for (int i = n - 1; i > 0; i--) { int j = rand() % (i + 1); int t = order[i]; order[i] = order[j]; order[j] = t; }
    struct timespec a, b; clock_gettime(CLOCK_MONOTONIC, &a);
    for (int r = 0; r < reps; r++) {
        for (int i = 0; i < n; i++) p[i] = malloc(size);
        for (int i = 0; i < n; i++) free(p[order[i]]);
    }
    clock_gettime(CLOCK_MONOTONIC, &b);
    printf("size %zu: %.1f ns per malloc+free\n", size, ((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec)) / (double)(n * reps));
    return 0;
}
