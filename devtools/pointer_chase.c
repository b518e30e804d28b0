/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The cost of one cache miss on this machine: a pointer chase over a
 * shuffled array (one 8-byte link per 64-byte line, a random cycle through
 * all lines, transparent huge pages asked for), timed with the thread's
 * CPU time and the TSC. docs/guides/twheel.md compares the wheel's cost
 * per expired timer with it.
 *
 *   cc -O2 -o /tmp/pointer_chase devtools/pointer_chase.c
 *   taskset -c 0 /tmp/pointer_chase 16 64 256     (array sizes in MB)
 */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
#include <x86intrin.h>

static uint64_t
rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static void
chase(size_t mb)
{
	size_t n = mb * 1024 * 1024 / 64;
	size_t steps = 20000000;
	uint64_t *a = aligned_alloc(1 << 21, n * 64);
	uint32_t *perm = malloc(n * sizeof(*perm));
	struct timespec t0, t1;
	uint64_t s = 42, c0, c1;
	uint64_t *p;
	size_t i;
	double ns;

	if (a == NULL || perm == NULL) {
		fprintf(stderr, "out of memory\n");
		exit(1);
	}
	madvise(a, n * 64, MADV_HUGEPAGE);
	for (i = 0; i < n; i++)
		perm[i] = i;
	for (i = n - 1; i > 0; i--) {
		size_t j = rnd(&s) % (i + 1);
		uint32_t t = perm[i];

		perm[i] = perm[j];
		perm[j] = t;
	}
	for (i = 0; i < n; i++)
		a[(size_t)perm[i] * 8] =
			(uint64_t)(uintptr_t)&a[(size_t)perm[(i + 1) % n] * 8];
	p = &a[(size_t)perm[0] * 8];
	for (i = 0; i < n; i++) /* warm the TLB, fault the pages */
		p = (uint64_t *)(uintptr_t)*p;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
	c0 = __rdtsc();
	for (i = 0; i < steps; i++)
		p = (uint64_t *)(uintptr_t)*p;
	c1 = __rdtsc();
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t1);
	ns = ((t1.tv_sec - t0.tv_sec) * 1e9 + (t1.tv_nsec - t0.tv_nsec)) /
		steps;
	printf("%zu MB: %.1f ns of CPU time per load, %.0f TSC cycles per "
		"load (wall) [%p]\n", mb, ns, (double)(c1 - c0) / steps,
		(void *)p);
	free(perm);
	free(a);
}

int
main(int argc, char **argv)
{
	int i;

	if (argc < 2) {
		chase(64);
		return 0;
	}
	for (i = 1; i < argc; i++)
		chase(strtoul(argv[i], NULL, 0));
	return 0;
}
