/*
 * smooth_two_pass.c - the separable smooth: a vertical pass sums three
 * source rows into a scratch row of 32-bit sums, a horizontal pass adds
 * three neighbouring sums and divides by 9. Each source value is read three
 * times instead of nine, and the additions drop from 8 to 4 per channel.
 *
 * The scratch is one row, not an image: 12*dim bytes (6 KiB at dim 512)
 * that stay in L1d between the two passes. It is allocated per call so any
 * dimension works and concurrent calls share nothing.
 */
#include <stdlib.h>
#include "reference.h"

void ref_smooth_vertical_scalar(const unsigned short *above,
                                const unsigned short *row,
                                const unsigned short *below,
                                unsigned *sums, int n)
{
    for (int k = 0; k < n; k++)
        sums[k] = (unsigned)above[k] + row[k] + below[k];
}

void ref_smooth_horizontal_scalar(const unsigned *sums, unsigned short *out,
                                  int n)
{
    for (int k = 0; k < n; k++)
        out[k] = (unsigned short)((sums[k-3] + sums[k] + sums[k+3]) / 9);
}

void ref_smooth_two_pass_with(int dim, const pixel *src, pixel *dst,
                              ref_smooth_vertical_fn vertical,
                              ref_smooth_horizontal_fn horizontal)
{
    /* Channels of a row: pixel j's channel c is value 3*j + c. */
    const int width = 3 * dim;
    const unsigned short *in = (const unsigned short *)src;
    unsigned short *out = (unsigned short *)dst;
    unsigned *sums;

    ref_smooth_border(dim, src, dst);
    if (dim < 3)
        return;
    sums = malloc((size_t)width * sizeof *sums);
    if (!sums) {
        /* Out of memory: still produce the image, without scratch. */
        ref_smooth_boundary_split(dim, (pixel *)src, dst);
        return;
    }
    for (int i = 1; i < dim - 1; i++) {
        const unsigned short *row = in + (size_t)i * width;
        vertical(row - width, row, row + width, sums, width);
        /* Interior pixels 1..dim-2 are values 3 .. width-4. */
        horizontal(sums + 3, out + (size_t)i * width + 3, width - 6);
    }
    free(sums);
}

void ref_smooth_two_pass(int dim, pixel *src, pixel *dst)
{
    ref_smooth_two_pass_with(dim, src, dst, ref_smooth_vertical_scalar,
                             ref_smooth_horizontal_scalar);
}
