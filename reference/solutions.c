/*
 * solutions.c - the reference kernels as a student's kernels.c: linked as the
 * "student" file of the reference driver, so the reference variants are
 * registered, checked and timed through exactly the path a hand-in takes.
 */
#include "defs.h"
#include "reference.h"

team_t team = {
    "perflab-reference",                /* Team name */

    "perflab reference kernels",        /* First member full name */
    "perflab@localhost",                /* First member email address */

    "",                                 /* Second member full name */
    ""                                  /* Second member email address */
};

/* The graded versions: the fastest variant of each kernel. */
void rotate(int dim, pixel *src, pixel *dst)
{
    ref_rotate_simd(dim, src, dst);
}

void smooth(int dim, pixel *src, pixel *dst)
{
    ref_smooth_simd(dim, src, dst);
}

/* The tile edge is spelled out so the descriptions follow REF_ROTATE_TILE. */
#define STR(x) #x
#define TILE_NAME(t) STR(t) "x" STR(t)

void register_rotate_functions(void)
{
    add_rotate_function(&ref_rotate_naive, "rotate: naive, the classic loop");
    add_rotate_function(&ref_rotate_blocked,
                        "rotate: blocked " TILE_NAME(REF_ROTATE_TILE) " tiles");
    add_rotate_function(&ref_rotate_unrolled,
                        "rotate: blocked " TILE_NAME(REF_ROTATE_TILE)
                        " tiles, inner loop unrolled x4, restrict");
    add_rotate_function(&ref_rotate_simd,
                        "rotate: AVX-512 8x8 vpermt2b transposes, masked stores, 8-column"
                        " bands (else AVX2 4x4 in " TILE_NAME(REF_ROTATE_TILE)
                        " tiles, else scalar)");
}

void register_smooth_functions(void)
{
    add_smooth_function(&ref_smooth_naive,
                        "smooth: naive, bounds-checked 3x3 window per pixel");
    add_smooth_function(&ref_smooth_boundary_split,
                        "smooth: border apart, branch-free interior / 9");
    add_smooth_function(&ref_smooth_two_pass,
                        "smooth: two-pass, vertical 3-row sums then horizontal");
    add_smooth_function(&ref_smooth_simd,
                        "smooth: AVX-512 (else AVX2, else scalar) two-pass, 32-bit sums,"
                        " exact multiply-shift / 9");
}
