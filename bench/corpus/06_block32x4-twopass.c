/* rotate: blocked 32x32, inner loop unrolled x4; smooth: two-pass (vertical 3-row sums into a row buffer, then horizontal) */
/********************************************************
 * Kernels to be optimized for the CS:APP Performance Lab
 ********************************************************/

#include <stdio.h>
#include <stdlib.h>
#include "defs.h"

/* 
 * Please fill in the following team struct 
 */
team_t team = {
    "corpus-06",              /* Team name */

    "Farah Haddad",     /* First member full name */
    "fhaddad@example.edu",  /* First member email address */

    "",                   /* Second member full name (leave blank if none) */
    ""                    /* Second member email addr (leave blank if none) */
};

/***************
 * ROTATE KERNEL
 ***************/

/******************************************************
 * Your different versions of the rotate kernel go here
 ******************************************************/

/* 
 * naive_rotate - The naive baseline version of rotate 
 */
char naive_rotate_descr[] = "naive_rotate: Naive baseline implementation";
void naive_rotate(int dim, pixel *src, pixel *dst) 
{
    int i, j;

    for (i = 0; i < dim; i++)
	for (j = 0; j < dim; j++)
	    dst[RIDX(dim-1-j, i, dim)] = src[RIDX(i, j, dim)];
}

/*
 * rotate - 32x32 blocking with the inner (column) loop unrolled by 4;
 * a scalar tail finishes the columns a partial tile leaves.
 * IMPORTANT: This is the version you will be graded on
 */
char rotate_descr[] = "rotate: blocked 32x32, inner loop unrolled x4";
void rotate(int dim, pixel *src, pixel *dst) 
{
    int ii, jj, i, j;

    for (ii = 0; ii < dim; ii += 32) {
	int imax = (ii + 32 < dim) ? ii + 32 : dim;
	for (jj = 0; jj < dim; jj += 32) {
	    int jmax = (jj + 32 < dim) ? jj + 32 : dim;
	    for (i = ii; i < imax; i++) {
		pixel *s = src + RIDX(i, 0, dim);
		for (j = jj; j + 3 < jmax; j += 4) {
		    dst[RIDX(dim-1-j, i, dim)] = s[j];
		    dst[RIDX(dim-2-j, i, dim)] = s[j+1];
		    dst[RIDX(dim-3-j, i, dim)] = s[j+2];
		    dst[RIDX(dim-4-j, i, dim)] = s[j+3];
		}
		for (; j < jmax; j++)
		    dst[RIDX(dim-1-j, i, dim)] = s[j];
	    }
	}
    }
}

/*********************************************************************
 * register_rotate_functions - Register all of your different versions
 *     of the rotate kernel with the driver by calling the
 *     add_rotate_function() for each test function. When you run the
 *     driver program, it will test and report the performance of each
 *     registered test function.  
 *********************************************************************/

void register_rotate_functions(void) 
{
    add_rotate_function(&naive_rotate, naive_rotate_descr);   
    add_rotate_function(&rotate, rotate_descr);   
    /* ... Register additional test functions here */
}


/***************
 * SMOOTH KERNEL
 **************/

/***************************************************************
 * Various typedefs and helper functions for the smooth function
 * You may modify these any way you like.
 **************************************************************/

/* A struct used to compute averaged pixel value */
typedef struct {
    int red;
    int green;
    int blue;
    int num;
} pixel_sum;

/* Compute min and max of two integers, respectively */
static int min(int a, int b) { return (a < b ? a : b); }
static int max(int a, int b) { return (a > b ? a : b); }

/* 
 * initialize_pixel_sum - Initializes all fields of sum to 0 
 */
static void initialize_pixel_sum(pixel_sum *sum) 
{
    sum->red = sum->green = sum->blue = 0;
    sum->num = 0;
    return;
}

/* 
 * accumulate_sum - Accumulates field values of p in corresponding 
 * fields of sum 
 */
static void accumulate_sum(pixel_sum *sum, pixel p) 
{
    sum->red += (int) p.red;
    sum->green += (int) p.green;
    sum->blue += (int) p.blue;
    sum->num++;
    return;
}

/* 
 * assign_sum_to_pixel - Computes averaged pixel value in current_pixel 
 */
static void assign_sum_to_pixel(pixel *current_pixel, pixel_sum sum) 
{
    current_pixel->red = (unsigned short) (sum.red/sum.num);
    current_pixel->green = (unsigned short) (sum.green/sum.num);
    current_pixel->blue = (unsigned short) (sum.blue/sum.num);
    return;
}

/* 
 * avg - Returns averaged pixel value at (i,j) 
 */
static pixel avg(int dim, int i, int j, pixel *src) 
{
    int ii, jj;
    pixel_sum sum;
    pixel current_pixel;

    initialize_pixel_sum(&sum);
    for(ii = max(i-1, 0); ii <= min(i+1, dim-1); ii++) 
	for(jj = max(j-1, 0); jj <= min(j+1, dim-1); jj++) 
	    accumulate_sum(&sum, src[RIDX(ii, jj, dim)]);

    assign_sum_to_pixel(&current_pixel, sum);
    return current_pixel;
}

/******************************************************
 * Your different versions of the smooth kernel go here
 ******************************************************/

/*
 * naive_smooth - The naive baseline version of smooth 
 */
char naive_smooth_descr[] = "naive_smooth: Naive baseline implementation";
void naive_smooth(int dim, pixel *src, pixel *dst) 
{
    int i, j;

    for (i = 0; i < dim; i++)
	for (j = 0; j < dim; j++)
	    dst[RIDX(i, j, dim)] = avg(dim, i, j, src);
}

/*
 * smooth - two passes per output row: first the vertical sums of the
 * (up to) 3 source rows around row i into a temporary row buffer, one
 * per channel, then the horizontal sums of 3 (or 2 at the ends) buffer
 * entries, divided by rows * columns.
 * IMPORTANT: This is the version you will be graded on
 */
char smooth_descr[] = "smooth: two-pass, vertical sums into a row buffer";
void smooth(int dim, pixel *src, pixel *dst) 
{
    int i, j, ii;
    int *vr = malloc(3 * (size_t) dim * sizeof(int));
    int *vg, *vb;

    if (vr == NULL) {
	naive_smooth(dim, src, dst);
	return;
    }
    vg = vr + dim;
    vb = vg + dim;

    for (i = 0; i < dim; i++) {
	int ilo = max(i-1, 0), ihi = min(i+1, dim-1);
	int rows = ihi - ilo + 1;
	pixel *d = dst + RIDX(i, 0, dim);

	/* pass 1: vertical sums */
	for (j = 0; j < dim; j++) {
	    int r = 0, g = 0, b = 0;
	    for (ii = ilo; ii <= ihi; ii++) {
		pixel p = src[RIDX(ii, j, dim)];
		r += p.red;
		g += p.green;
		b += p.blue;
	    }
	    vr[j] = r;
	    vg[j] = g;
	    vb[j] = b;
	}

	/* pass 2: horizontal sums */
	if (dim == 1) {
	    d[0].red = (unsigned short) vr[0];
	    d[0].green = (unsigned short) vg[0];
	    d[0].blue = (unsigned short) vb[0];
	    continue;
	}
	{
	    int n2 = rows * 2, n3 = rows * 3;
	    d[0].red = (unsigned short) ((vr[0] + vr[1]) / n2);
	    d[0].green = (unsigned short) ((vg[0] + vg[1]) / n2);
	    d[0].blue = (unsigned short) ((vb[0] + vb[1]) / n2);
	    for (j = 1; j < dim-1; j++) {
		d[j].red = (unsigned short) ((vr[j-1] + vr[j] + vr[j+1]) / n3);
		d[j].green = (unsigned short) ((vg[j-1] + vg[j] + vg[j+1]) / n3);
		d[j].blue = (unsigned short) ((vb[j-1] + vb[j] + vb[j+1]) / n3);
	    }
	    d[dim-1].red = (unsigned short) ((vr[dim-2] + vr[dim-1]) / n2);
	    d[dim-1].green = (unsigned short) ((vg[dim-2] + vg[dim-1]) / n2);
	    d[dim-1].blue = (unsigned short) ((vb[dim-2] + vb[dim-1]) / n2);
	}
    }
    free(vr);
}


/********************************************************************* 
 * register_smooth_functions - Register all of your different versions
 *     of the smooth kernel with the driver by calling the
 *     add_smooth_function() for each test function.  When you run the
 *     driver program, it will test and report the performance of each
 *     registered test function.  
 *********************************************************************/

void register_smooth_functions(void) {
    add_smooth_function(&smooth, smooth_descr);
    add_smooth_function(&naive_smooth, naive_smooth_descr);
    /* ... Register additional test functions here */
}
