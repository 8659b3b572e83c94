/*
 * rotate_blocked.c - the blocked rotate: square tiles small enough that the
 * source lines a tile reads stay in L1d until all their pixels are used.
 */
#include "reference.h"

static void copy_tile(int dim, const pixel *src, pixel *dst,
                      int i0, int j0, int rows, int cols)
{
    /* Destination rows outside so each write run is contiguous. */
    for (int j = j0; j < j0 + cols; j++) {
        pixel *d = dst + RIDX(dim-1-j, 0, dim);
        for (int i = i0; i < i0 + rows; i++)
            d[i] = src[RIDX(i, j, dim)];
    }
}

void ref_rotate_blocked_tile(int dim, pixel *src, pixel *dst, int tile)
{
    ref_rotate_tiled(dim, src, dst, tile, copy_tile);
}

void ref_rotate_blocked(int dim, pixel *src, pixel *dst)
{
    ref_rotate_tiled(dim, src, dst, REF_ROTATE_TILE, copy_tile);
}
