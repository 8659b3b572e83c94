/*
 * smooth_naive.c - the classic per-pixel smooth: every pixel pays for the
 * bounds checks and the division by a variable count. The reference's own
 * baseline.
 */
#include "reference.h"

void ref_smooth_naive(int dim, pixel *src, pixel *dst)
{
    for (int i = 0; i < dim; i++)
        for (int j = 0; j < dim; j++)
            dst[RIDX(i, j, dim)] = ref_smooth_window(dim, src, i, j);
}
