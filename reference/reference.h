/*
 * reference.h - perflab's reference kernels for rotate and smooth.
 *
 * Each kernel has the classic signature void f(int dim, pixel *src, pixel *dst),
 * is compiled as C with the student's flags (no -march: SIMD code is confined to
 * target("avx2") and target("avx512...") functions behind a runtime CPU check)
 * and is registered by
 * solutions.c through add_rotate_function/add_smooth_function, so the driver
 * times it exactly like student code. Every exported name starts with ref_ so
 * none can collide with a student's kernels.c.
 *
 * Largest supported dimension: 46340. The classic RIDX index is an int, so
 * dim*dim must fit in an int (46340^2 < 2^31 <= 46341^2). Scratch buffers are
 * allocated per call from dim, so no other limit applies.
 */
#ifndef PERFLAB_REFERENCE_H
#define PERFLAB_REFERENCE_H

#include "defs.h"

#ifdef __cplusplus
extern "C" {
#endif

#define REF_MAX_DIM 46340

/*
 * The instruction sets the SIMD kernels choose between. The *_dispatch entry
 * points take one explicitly, so the tests can run every path a machine
 * supports; a level the CPU lacks must not be requested.
 */
enum ref_simd_level {
    REF_SIMD_SCALAR = 0,
    REF_SIMD_AVX2 = 1,
    /* AVX-512 F, BW and VBMI (vpermb/vpermt2b and byte-masked loads/stores). */
    REF_SIMD_AVX512 = 2
};

/* The best level this CPU (and OS) supports. */
static inline int ref_simd_best_level(void)
{
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
        __builtin_cpu_supports("avx512vbmi"))
        return REF_SIMD_AVX512;
    return __builtin_cpu_supports("avx2") ? REF_SIMD_AVX2 : REF_SIMD_SCALAR;
}

/* ---- rotate (90 degrees counter-clockwise) ---- */

/*
 * Default tile edge, in pixels. A tile reads T source rows and writes T
 * destination rows of 6T bytes each; with the partial lines at both ends a
 * T=32 tile touches 2*32*4 = 256 lines = 16 KiB, a third of the 48 KiB L1d,
 * which leaves ways free for the conflict misses that power-of-two row strides
 * cause. T=64 would touch 2*64*7 lines = 56 KiB, more than L1d itself, and a
 * smaller T pays the per-tile loop overhead and partial lines more often.
 */
#define REF_ROTATE_TILE 32

void ref_rotate_naive(int dim, pixel *src, pixel *dst);
void ref_rotate_blocked(int dim, pixel *src, pixel *dst);
/* The blocked rotate with any tile edge >= 1 (the --explain sweep). */
void ref_rotate_blocked_tile(int dim, pixel *src, pixel *dst, int tile);
void ref_rotate_unrolled(int dim, pixel *src, pixel *dst);
void ref_rotate_simd(int dim, pixel *src, pixel *dst);
/* ref_rotate_simd with the CPU check made by the caller: `level` is an
 * enum ref_simd_level (REF_SIMD_SCALAR runs the fallback of a machine
 * without AVX2). */
void ref_rotate_simd_dispatch(int dim, pixel *src, pixel *dst, int level);

/*
 * Building blocks shared by the tiled rotates. A tile function copies the
 * rows x cols block of src whose top-left pixel is (i0, j0) to its rotated
 * place in dst; ref_rotate_tiled walks the image tile by tile.
 */
typedef void (*ref_rotate_tile_fn)(int dim, const pixel *src, pixel *dst,
                                   int i0, int j0, int rows, int cols);
void ref_rotate_tiled(int dim, const pixel *src, pixel *dst, int tile,
                      ref_rotate_tile_fn copy_tile);
void ref_rotate_tile_unrolled(int dim, const pixel *src, pixel *dst,
                              int i0, int j0, int rows, int cols);

/* ---- smooth (3x3 window average clipped to the image) ---- */

void ref_smooth_naive(int dim, pixel *src, pixel *dst);
void ref_smooth_boundary_split(int dim, pixel *src, pixel *dst);
void ref_smooth_two_pass(int dim, pixel *src, pixel *dst);
void ref_smooth_simd(int dim, pixel *src, pixel *dst);
/* ref_smooth_simd with the CPU check made by the caller (an enum
 * ref_simd_level, as for rotate). */
void ref_smooth_simd_dispatch(int dim, pixel *src, pixel *dst, int level);

/* The clipped-window average of one pixel, bounds checked: the definition. */
pixel ref_smooth_window(int dim, const pixel *src, int i, int j);
/* Writes the first and last rows and columns of dst with ref_smooth_window. */
void ref_smooth_border(int dim, const pixel *src, pixel *dst);

/*
 * The two-pass interior works on a row as a flat array of 3*dim channel
 * values. The vertical pass sums three source rows into 32-bit sums; the
 * horizontal pass writes out[k] = (sums[k-3] + sums[k] + sums[k+3]) / 9 for
 * k in [0, n) (neighbouring pixels are 3 channels apart).
 */
typedef void (*ref_smooth_vertical_fn)(const unsigned short *above,
                                       const unsigned short *row,
                                       const unsigned short *below,
                                       unsigned *sums, int n);
typedef void (*ref_smooth_horizontal_fn)(const unsigned *sums,
                                         unsigned short *out, int n);
void ref_smooth_vertical_scalar(const unsigned short *above,
                                const unsigned short *row,
                                const unsigned short *below,
                                unsigned *sums, int n);
void ref_smooth_horizontal_scalar(const unsigned *sums, unsigned short *out,
                                  int n);
void ref_smooth_two_pass_with(int dim, const pixel *src, pixel *dst,
                              ref_smooth_vertical_fn vertical,
                              ref_smooth_horizontal_fn horizontal);

/*
 * x / 9 as a multiply and a shift, exact for 0 <= x <= 9*65535 (proof in
 * smooth_simd.c; the tests check every such x).
 */
#define REF_DIV9_MULTIPLIER 233017u
#define REF_DIV9_SHIFT 21

#ifdef __cplusplus
}
#endif

#endif
