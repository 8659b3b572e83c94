/*
 * smooth_window.c - the clipped 3x3 average of a single pixel, with bounds
 * checks: the naive smooth applies it everywhere, the boundary-split smooth
 * (and the two-pass ones below dim 3) only on the border, where the window
 * is clipped and the divisor is not 9.
 */
#include "reference.h"

static int max_int(int a, int b) { return a > b ? a : b; }
static int min_int(int a, int b) { return a < b ? a : b; }

pixel ref_smooth_window(int dim, const pixel *src, int i, int j)
{
    int red = 0, green = 0, blue = 0, count = 0;
    pixel out;

    for (int ii = max_int(i-1, 0); ii <= min_int(i+1, dim-1); ii++)
        for (int jj = max_int(j-1, 0); jj <= min_int(j+1, dim-1); jj++) {
            const pixel *p = &src[RIDX(ii, jj, dim)];
            red += p->red;
            green += p->green;
            blue += p->blue;
            count++;
        }
    out.red = (unsigned short)(red / count);
    out.green = (unsigned short)(green / count);
    out.blue = (unsigned short)(blue / count);
    return out;
}

void ref_smooth_border(int dim, const pixel *src, pixel *dst)
{
    for (int j = 0; j < dim; j++) {
        dst[RIDX(0, j, dim)] = ref_smooth_window(dim, src, 0, j);
        dst[RIDX(dim-1, j, dim)] = ref_smooth_window(dim, src, dim-1, j);
    }
    for (int i = 1; i < dim - 1; i++) {
        dst[RIDX(i, 0, dim)] = ref_smooth_window(dim, src, i, 0);
        dst[RIDX(i, dim-1, dim)] = ref_smooth_window(dim, src, i, dim-1);
    }
}
