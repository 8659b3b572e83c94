/* rotate: strip-mined 32 source rows, copied column by column; smooth: border apart, interior sliding window of running column sums */
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
    "corpus-08",              /* Team name */

    "Hana Kobayashi",     /* First member full name */
    "hkobayashi@example.edu",  /* First member email address */

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
 * rotate - strip mining: take 32 source rows at a time and copy them
 * column by column, so each destination row segment of 32 pixels is
 * written contiguously while the 32 source lines stay in L1.
 * IMPORTANT: This is the version you will be graded on
 */
char rotate_descr[] = "rotate: strip-mined 32 source rows, column by column";
void rotate(int dim, pixel *src, pixel *dst) 
{
    int ii, i, j;

    for (ii = 0; ii < dim; ii += 32) {
	int imax = (ii + 32 < dim) ? ii + 32 : dim;
	for (j = 0; j < dim; j++) {
	    pixel *d = dst + RIDX(dim-1-j, 0, dim);
	    pixel *s = src + j;
	    for (i = ii; i < imax; i++)
		d[i] = s[i*dim];
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
 * edge_pixel - the average at (i,j) with the window clipped to the image;
 * only called for pixels on the border.
 */
static void edge_pixel(int dim, int i, int j, pixel *src, pixel *dst)
{
    int ilo = i > 0 ? i-1 : 0, ihi = i < dim-1 ? i+1 : dim-1;
    int jlo = j > 0 ? j-1 : 0, jhi = j < dim-1 ? j+1 : dim-1;
    int num = (ihi - ilo + 1) * (jhi - jlo + 1);
    int r = 0, g = 0, b = 0, ii, jj;

    for (ii = ilo; ii <= ihi; ii++)
	for (jj = jlo; jj <= jhi; jj++) {
	    pixel p = src[RIDX(ii, jj, dim)];
	    r += p.red;
	    g += p.green;
	    b += p.blue;
	}
    dst[RIDX(i, j, dim)].red = (unsigned short) (r / num);
    dst[RIDX(i, j, dim)].green = (unsigned short) (g / num);
    dst[RIDX(i, j, dim)].blue = (unsigned short) (b / num);
}

/* do_border - the first and last rows and columns, via edge_pixel */
static void do_border(int dim, pixel *src, pixel *dst)
{
    int i, j;

    for (j = 0; j < dim; j++) {
	edge_pixel(dim, 0, j, src, dst);
	if (dim > 1)
	    edge_pixel(dim, dim-1, j, src, dst);
    }
    for (i = 1; i < dim-1; i++) {
	edge_pixel(dim, i, 0, src, dst);
	edge_pixel(dim, i, dim-1, src, dst);
    }
}

/*
 * smooth - border apart (edge_pixel); each interior row keeps running
 * column sums: the sums of 3 pixels in columns j-1, j and j+1 are kept
 * in registers and slid one column right per output pixel, so each
 * pixel costs one new column sum (3 loads) instead of 9 loads.
 * IMPORTANT: This is the version you will be graded on
 */
char smooth_descr[] = "smooth: border apart, sliding window of column sums";
void smooth(int dim, pixel *src, pixel *dst) 
{
    int i, j;

    do_border(dim, src, dst);
    for (i = 1; i < dim-1; i++) {
	pixel *a = src + RIDX(i-1, 0, dim);
	pixel *b = a + dim;
	pixel *c = b + dim;
	pixel *d = dst + RIDX(i, 0, dim);
	int r0 = a[0].red + b[0].red + c[0].red;
	int g0 = a[0].green + b[0].green + c[0].green;
	int b0 = a[0].blue + b[0].blue + c[0].blue;
	int r1 = a[1].red + b[1].red + c[1].red;
	int g1 = a[1].green + b[1].green + c[1].green;
	int b1 = a[1].blue + b[1].blue + c[1].blue;
	for (j = 1; j < dim-1; j++) {
	    int r2 = a[j+1].red + b[j+1].red + c[j+1].red;
	    int g2 = a[j+1].green + b[j+1].green + c[j+1].green;
	    int b2 = a[j+1].blue + b[j+1].blue + c[j+1].blue;
	    d[j].red = (unsigned short) ((r0 + r1 + r2) / 9);
	    d[j].green = (unsigned short) ((g0 + g1 + g2) / 9);
	    d[j].blue = (unsigned short) ((b0 + b1 + b2) / 9);
	    r0 = r1; g0 = g1; b0 = b1;
	    r1 = r2; g1 = g2; b1 = b2;
	}
    }
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
