/*
 * rotate_tiled.c - the tile walk shared by the blocked, unrolled and SIMD
 * rotates; they differ only in how they copy one tile.
 */
#include "reference.h"

static int min_int(int a, int b) { return a < b ? a : b; }

void ref_rotate_tiled(int dim, const pixel *src, pixel *dst, int tile,
                      ref_rotate_tile_fn copy_tile)
{
    /* Source column bands outside: each band fills a band of whole
     * destination rows, so dst is written as one stream while src is read
     * as `tile` parallel row streams the prefetcher can follow. */
    for (int j0 = 0; j0 < dim; j0 += tile) {
        int cols = min_int(tile, dim - j0);
        for (int i0 = 0; i0 < dim; i0 += tile)
            copy_tile(dim, src, dst, i0, j0, min_int(tile, dim - i0), cols);
    }
}
