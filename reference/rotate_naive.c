/*
 * rotate_naive.c - the classic loop, kept as the reference's own baseline so
 * the reference driver can show every other variant's speedup from it.
 */
#include "reference.h"

void ref_rotate_naive(int dim, pixel *src, pixel *dst)
{
    int i, j;

    for (i = 0; i < dim; i++)
        for (j = 0; j < dim; j++)
            dst[RIDX(dim-1-j, i, dim)] = src[RIDX(i, j, dim)];
}
