/*
 * smooth_boundary_split.c - the border through the bounds-checked window,
 * the interior (where the window is always 3x3) without a branch and with a
 * division by the constant 9, which gcc turns into an exact multiply.
 */
#include "reference.h"

void ref_smooth_boundary_split(int dim, pixel *src, pixel *dst)
{
    ref_smooth_border(dim, src, dst);
    for (int i = 1; i < dim - 1; i++) {
        const pixel *above = src + RIDX(i-1, 0, dim);
        const pixel *row = src + RIDX(i, 0, dim);
        const pixel *below = src + RIDX(i+1, 0, dim);
        pixel *out = dst + RIDX(i, 0, dim);

        for (int j = 1; j < dim - 1; j++) {
            int red = 0, green = 0, blue = 0;
            for (int jj = j - 1; jj <= j + 1; jj++) {
                red += above[jj].red + row[jj].red + below[jj].red;
                green += above[jj].green + row[jj].green + below[jj].green;
                blue += above[jj].blue + row[jj].blue + below[jj].blue;
            }
            out[j].red = (unsigned short)(red / 9);
            out[j].green = (unsigned short)(green / 9);
            out[j].blue = (unsigned short)(blue / 9);
        }
    }
}
