/*
 * reference_timing.c - a stand-alone timer for the reference kernels, used to
 * tune them before the driver exists and to check the performance targets:
 * each variant's time against naive and against a memcpy of the same bytes
 * (the speed of light for a kernel that must read and write the image once).
 *
 * Usage: reference_timing [--tiles] dim...   (make bench-reference-timing: LAB_DIMS)
 * --tiles sweeps ref_rotate_blocked_tile over a few tile edges instead.
 * Pin it (taskset -c 1): the machine is shared and noisy, so every figure is
 * the minimum over many samples, each taken after walking a 16 KiB buffer
 * as the classic driver does. Images sit in transparent huge pages, as the
 * driver's do: with 4 KiB pages a rotate's column walk is TLB bound.
 */
#define _DEFAULT_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include "reference.h"

typedef struct {
    const char *name;
    lab_test_func run;
    /* For the SIMD kernels' forced paths: the level needed, else 0. */
    int level;
} variant;

/* Each SIMD path through the classic kernel signature, so the paths a CPU
 * does not pick can be compared with the one it does. */
static void rotate_avx2(int dim, pixel *src, pixel *dst)
{
    ref_rotate_simd_dispatch(dim, src, dst, REF_SIMD_AVX2);
}
static void rotate_avx512(int dim, pixel *src, pixel *dst)
{
    ref_rotate_simd_dispatch(dim, src, dst, REF_SIMD_AVX512);
}
static void smooth_avx2(int dim, pixel *src, pixel *dst)
{
    ref_smooth_simd_dispatch(dim, src, dst, REF_SIMD_AVX2);
}
static void smooth_avx512(int dim, pixel *src, pixel *dst)
{
    ref_smooth_simd_dispatch(dim, src, dst, REF_SIMD_AVX512);
}

static const variant rotates[] = {
#define REF_ROTATE(fn, name, description) {"rotate " name, fn, 0},
#define REF_SMOOTH(fn, name, description)
#include "variants.def"
    {"rotate simd AVX2", rotate_avx2, REF_SIMD_AVX2},
    {"rotate simd AVX-512", rotate_avx512, REF_SIMD_AVX512},
};

static const variant smooths[] = {
#define REF_ROTATE(fn, name, description)
#define REF_SMOOTH(fn, name, description) {"smooth " name, fn, 0},
#include "variants.def"
    {"smooth simd AVX2", smooth_avx2, REF_SIMD_AVX2},
    {"smooth simd AVX-512", smooth_avx512, REF_SIMD_AVX512},
};

#define COUNT(a) ((int)(sizeof a / sizeof a[0]))

static char cache_walk[16 * 1024];

/* A 2 MiB-aligned image in huge pages where the kernel grants them. */
static pixel *alloc_image(size_t bytes)
{
    const size_t huge = 2u << 20;
    size_t whole = (bytes + huge - 1) & ~(huge - 1);
    pixel *image = aligned_alloc(huge, whole);

    if (image)
        madvise(image, whole, MADV_HUGEPAGE);
    return image;
}

static double now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e9 + t.tv_nsec;
}

/* The tile edge of the sweep, passed around the classic kernel signature. */
static int sweep_tile;
static void blocked_sweep(int dim, pixel *src, pixel *dst)
{
    ref_rotate_blocked_tile(dim, src, dst, sweep_tile);
}

static void copy_bytes(int dim, pixel *src, pixel *dst)
{
    memcpy(dst, src, (size_t)dim * dim * sizeof(pixel));
}

/* Minimum over at least 15 samples and 50 ms of sampling. */
static double time_ns(lab_test_func f, int dim, pixel *src, pixel *dst)
{
    double best = 1e30, spent = 0;

    for (int n = 0; n < 15 || spent < 50e6; n++) {
        for (size_t k = 0; k < sizeof cache_walk; k += 64)
            cache_walk[k]++;
        double t0 = now_ns();
        f(dim, src, dst);
        double t = now_ns() - t0;
        spent += t;
        if (t < best)
            best = t;
    }
    return best;
}

static void report(const variant *vs, int count, int dim, pixel *src, pixel *dst,
                   double copy)
{
    double naive = 0;

    for (int v = 0; v < count; v++) {
        if (vs[v].level > ref_simd_best_level())
            continue;
        double t = time_ns(vs[v].run, dim, src, dst);
        if (v == 0)
            naive = t;
        printf("%5d  %-24s %10.1f us %7.2f ns/px  naive/x %6.2f  x/memcpy %6.2f\n",
               dim, vs[v].name, t / 1e3, t / ((double)dim * dim), naive / t, t / copy);
    }
}

int main(int argc, char **argv)
{
    int tiles = argc > 1 && strcmp(argv[1], "--tiles") == 0;
    int first = 1 + tiles, ndims = argc - first;

    if (ndims == 0) {
        fprintf(stderr, "usage: %s [--tiles] dim...   (make bench-reference-timing gives the lab's dims)\n", argv[0]);
        return 1;
    }
    for (int a = 0; a < ndims; a++) {
        int dim = atoi(argv[first + a]);
        if (dim < 1 || dim > REF_MAX_DIM) {
            fprintf(stderr, "%s: dimension must be 1..%d\n", argv[0], REF_MAX_DIM);
            return 1;
        }
        size_t bytes = (size_t)dim * dim * sizeof(pixel);
        pixel *src = alloc_image(bytes), *dst = alloc_image(bytes);
        if (!src || !dst) {
            fprintf(stderr, "%s: out of memory at dim %d\n", argv[0], dim);
            return 1;
        }
        for (size_t k = 0; k < (size_t)dim * dim; k++)
            src[k] = (pixel){rand() & 0xffff, rand() & 0xffff, rand() & 0xffff};

        double copy = time_ns(copy_bytes, dim, src, dst);
        printf("%5d  %-24s %10.1f us %7.2f ns/px\n", dim, "memcpy", copy / 1e3,
               copy / ((double)dim * dim));
        if (tiles) {
            for (int t = 4; t <= 128; t *= 2) {
                char name[32];
                snprintf(name, sizeof name, "blocked tile %d", t);
                sweep_tile = t;
                variant v = {name, blocked_sweep, 0};
                report(&v, 1, dim, src, dst, copy);
            }
        } else {
            report(rotates, COUNT(rotates), dim, src, dst, copy);
            report(smooths, COUNT(smooths), dim, src, dst, copy);
        }
        free(src);
        free(dst);
    }
    return 0;
}
