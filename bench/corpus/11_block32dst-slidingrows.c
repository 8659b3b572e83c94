/* rotate: blocked 32x32, destination rows inside the tile; smooth: sliding window on every row, border columns apart */
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
    "corpus-11",              /* Team name */

    "Kofi Asante",     /* First member full name */
    "kasante@example.edu",  /* First member email address */

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
 * rotate - 32x32 blocking, but inside a tile the destination is walked
 * row by row (j outer, i inner): each of the tile's 32 destination row
 * segments is written contiguously.
 * IMPORTANT: This is the version you will be graded on
 */
char rotate_descr[] = "rotate: blocked 32x32, destination rows inside the tile";
void rotate(int dim, pixel *src, pixel *dst) 
{
    int ii, jj, i, j;

    for (ii = 0; ii < dim; ii += 32) {
	int imax = (ii + 32 < dim) ? ii + 32 : dim;
	for (jj = 0; jj < dim; jj += 32) {
	    int jmax = (jj + 32 < dim) ? jj + 32 : dim;
	    for (j = jj; j < jmax; j++) {
		pixel *d = dst + RIDX(dim-1-j, 0, dim);
		for (i = ii; i < imax; i++)
		    d[i] = src[RIDX(i, j, dim)];
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
 * col_sum - the sum per channel of column j over `rows` rows from top
 */
static inline void col_sum(pixel *top, int rows, int dim, int j, int *r, int *g, int *b)
{
    int k;

    *r = *g = *b = 0;
    for (k = 0; k < rows; k++) {
	pixel p = top[k*dim + j];
	*r += p.red;
	*g += p.green;
	*b += p.blue;
    }
}

/*
 * smooth - a sliding window on every row, the top and bottom rows
 * included (their column sums cover 2 rows instead of 3); the first and
 * last columns of each row, whose window has 2 columns, are done apart
 * from the sliding loop.
 * IMPORTANT: This is the version you will be graded on
 */
char smooth_descr[] = "smooth: sliding window on every row, border columns apart";
void smooth(int dim, pixel *src, pixel *dst) 
{
    int i, j;

    if (dim == 1) {
	dst[0] = src[0];
	return;
    }
    for (i = 0; i < dim; i++) {
	int ilo = i > 0 ? i-1 : 0, ihi = i < dim-1 ? i+1 : dim-1;
	int rows = ihi - ilo + 1;
	int n2 = rows * 2, n3 = rows * 3;
	pixel *top = src + RIDX(ilo, 0, dim);
	pixel *d = dst + RIDX(i, 0, dim);
	int r0, g0, b0, r1, g1, b1, r2, g2, b2;

	col_sum(top, rows, dim, 0, &r0, &g0, &b0);
	col_sum(top, rows, dim, 1, &r1, &g1, &b1);
	/* first column */
	d[0].red = (unsigned short) ((r0 + r1) / n2);
	d[0].green = (unsigned short) ((g0 + g1) / n2);
	d[0].blue = (unsigned short) ((b0 + b1) / n2);
	/* the sliding window */
	for (j = 1; j < dim-1; j++) {
	    col_sum(top, rows, dim, j+1, &r2, &g2, &b2);
	    d[j].red = (unsigned short) ((r0 + r1 + r2) / n3);
	    d[j].green = (unsigned short) ((g0 + g1 + g2) / n3);
	    d[j].blue = (unsigned short) ((b0 + b1 + b2) / n3);
	    r0 = r1; g0 = g1; b0 = b1;
	    r1 = r2; g1 = g2; b1 = b2;
	}
	/* last column: (r0, r1) now hold columns dim-2 and dim-1 */
	d[dim-1].red = (unsigned short) ((r0 + r1) / n2);
	d[dim-1].green = (unsigned short) ((g0 + g1) / n2);
	d[dim-1].blue = (unsigned short) ((b0 + b1) / n2);
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
