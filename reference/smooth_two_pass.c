/*
 * smooth_two_pass.c - the separable smooth: a vertical pass sums three
 * source rows into a scratch row of 32-bit sums, a horizontal pass adds
 * three neighbouring sums and divides by 9. Each source value is read three
 * times instead of nine, and the additions drop from 8 to 4 per channel.
 *
 * The border pixels come from the same row sums with divisors 6 and 4.
 *
 * The scratch is one row, not an image: 12*dim bytes (6 KiB at dim 512)
 * that stay in L1d between the two passes. Each thread keeps its own, so
 * concurrent calls share nothing, grown when a larger dimension needs it.
 * It starts a page: where malloc put it moved its offset from the images
 * within a page, and with it how often its stores and the rows' loads
 * falsely alias (4 KiB apart) and whether its 64-byte accesses split cache
 * lines, by up to 12% of the call at 64 from one process to another.
 */
#include <stdlib.h>
#include "reference.h"

static _Thread_local unsigned *scratch;
static _Thread_local size_t scratch_bytes;

/* The thread's scratch of at least `bytes`, or NULL without memory. */
static unsigned *scratch_row(size_t bytes)
{
    if (bytes > scratch_bytes) {
        size_t size = (bytes + 4095) / 4096 * 4096;
        unsigned *row = aligned_alloc(4096, size);
        if (!row)
            return NULL;
        free(scratch);
        scratch = row;
        scratch_bytes = size;
    }
    return scratch;
}

void ref_smooth_vertical_scalar(const unsigned short *restrict above,
                                const unsigned short *restrict row,
                                const unsigned short *restrict below,
                                unsigned *restrict sums, int n)
{
    for (int k = 0; k < n; k++)
        sums[k] = (unsigned)above[k] + row[k] + below[k];
}

void ref_smooth_horizontal_scalar(const unsigned *restrict sums,
                                  unsigned short *restrict out, int n)
{
    for (int k = 0; k < n; k++)
        out[k] = (unsigned short)((sums[k-3] + sums[k] + sums[k+3]) / 9);
}

/* Sums of the two rows a first or last image row's window covers. */
static void two_rows(const unsigned short *restrict a,
                     const unsigned short *restrict b, unsigned *restrict sums,
                     int n)
{
    for (int k = 0; k < n; k++)
        sums[k] = (unsigned)a[k] + b[k];
}

/* The first and last pixels of a row, whose windows are two columns wide:
 * `rows` is how many rows the sums cover, so the count is 2 * rows. */
static void row_ends(const unsigned *restrict sums, unsigned short *restrict out,
                     int width, int rows)
{
    unsigned count = 2u * (unsigned)rows;

    for (int c = 0; c < 3; c++) {
        out[c] = (unsigned short)((sums[c] + sums[c+3]) / count);
        out[width-3+c] = (unsigned short)((sums[width-6+c] + sums[width-3+c]) / count);
    }
}

/* A first or last image row: 6 pixels per window inside, 4 at the corners. */
static void edge_row(const unsigned short *restrict a,
                     const unsigned short *restrict b, unsigned *restrict sums,
                     unsigned short *restrict out, int width)
{
    two_rows(a, b, sums, width);
    row_ends(sums, out, width, 2);
    for (int k = 3; k < width - 3; k++)
        out[k] = (unsigned short)((sums[k-3] + sums[k] + sums[k+3]) / 6);
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

    /* Below 3 every pixel is a border pixel, some with windows of 1 or 2
     * pixels that the edge code below does not cover. */
    if (dim < 3) {
        ref_smooth_border(dim, src, dst);
        return;
    }
    sums = scratch_row((size_t)width * sizeof *sums);
    if (!sums) {
        /* Out of memory: still produce the image, without scratch. */
        ref_smooth_boundary_split(dim, (pixel *)src, dst);
        return;
    }
    /* The border comes out of the same sums with divisors 4 and 6, so it
     * costs no more per pixel than the interior. */
    edge_row(in, in + width, sums, out, width);
    for (int i = 1; i < dim - 1; i++) {
        const unsigned short *row = in + (size_t)i * width;
        unsigned short *out_row = out + (size_t)i * width;
        vertical(row - width, row, row + width, sums, width);
        /* Interior pixels 1..dim-2 are values 3 .. width-4. */
        horizontal(sums + 3, out_row + 3, width - 6);
        row_ends(sums, out_row, width, 3);
    }
    edge_row(in + (size_t)(dim - 2) * width, in + (size_t)(dim - 1) * width, sums,
             out + (size_t)(dim - 1) * width, width);
}

void ref_smooth_two_pass(int dim, pixel *src, pixel *dst)
{
    ref_smooth_two_pass_with(dim, src, dst, ref_smooth_vertical_scalar,
                             ref_smooth_horizontal_scalar);
}
