/*
 * rotate_unrolled.c - the blocked rotate with restrict pointers and the
 * inner loop unrolled by four: restrict lets gcc keep loads ahead of stores
 * (src and dst never overlap in the lab's contract), and the unrolling turns
 * four strided index computations into one pointer bump.
 */
#include "reference.h"

void ref_rotate_tile_unrolled(int dim, const pixel *src, pixel *dst,
                              int i0, int j0, int rows, int cols)
{
    for (int j = j0; j < j0 + cols; j++) {
        pixel *restrict d = dst + RIDX(dim-1-j, i0, dim);
        const pixel *restrict s = src + RIDX(i0, j, dim);
        int i = 0;

        for (; i + 4 <= rows; i += 4, s += 4 * dim) {
            d[i] = s[0];
            d[i+1] = s[dim];
            d[i+2] = s[2 * dim];
            d[i+3] = s[3 * dim];
        }
        for (; i < rows; i++, s += dim)
            d[i] = *s;
    }
}

void ref_rotate_unrolled(int dim, pixel *src, pixel *dst)
{
    ref_rotate_tiled(dim, src, dst, REF_ROTATE_TILE, ref_rotate_tile_unrolled);
}
