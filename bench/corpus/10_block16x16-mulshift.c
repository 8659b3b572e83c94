/* rotate: blocked 16x16, inner loop unrolled x16; smooth: two-pass, divide by 9 as multiply-shift */
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
    "corpus-10",              /* Team name */

    "Jade Mensah",     /* First member full name */
    "jmensah@example.edu",  /* First member email address */

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
 * rotate - 16x16 blocking with the inner loop fully unrolled: one source
 * row of a tile (16 pixels) goes to 16 destination rows in one body.
 * Tiles cut by the right edge (dim not a multiple of 16) use a plain loop.
 * IMPORTANT: This is the version you will be graded on
 */
char rotate_descr[] = "rotate: blocked 16x16, inner loop unrolled x16";
void rotate(int dim, pixel *src, pixel *dst) 
{
    int ii, jj, i, j;

    for (ii = 0; ii < dim; ii += 16) {
	int imax = (ii + 16 < dim) ? ii + 16 : dim;
	for (jj = 0; jj < dim; jj += 16) {
	    if (jj + 16 <= dim) {
		for (i = ii; i < imax; i++) {
		    pixel *s = src + RIDX(i, jj, dim);
		    pixel *d = dst + RIDX(dim-1-jj, i, dim);
		    d[0] = s[0];
		    d[-1*dim] = s[1];
		    d[-2*dim] = s[2];
		    d[-3*dim] = s[3];
		    d[-4*dim] = s[4];
		    d[-5*dim] = s[5];
		    d[-6*dim] = s[6];
		    d[-7*dim] = s[7];
		    d[-8*dim] = s[8];
		    d[-9*dim] = s[9];
		    d[-10*dim] = s[10];
		    d[-11*dim] = s[11];
		    d[-12*dim] = s[12];
		    d[-13*dim] = s[13];
		    d[-14*dim] = s[14];
		    d[-15*dim] = s[15];
		}
	    } else {
		for (i = ii; i < imax; i++)
		    for (j = jj; j < dim; j++)
			dst[RIDX(dim-1-j, i, dim)] = src[RIDX(i, j, dim)];
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

/* A column's vertical sum per channel */
typedef struct {
    int r, g, b;
} colsum_t;

/*
 * div9 - x / 9 for 0 <= x < 2^21 by multiply and shift:
 * 233017 = ceil(2^21 / 9) and 9 * 233017 - 2^21 = 1, so the error
 * x / (9 * 2^21) stays below 1/9 for every x < 2^21. The largest sum
 * here is 9 * 65535 = 589815, well inside (and checked exhaustively).
 */
static inline unsigned short div9(int x)
{
    return (unsigned short) (((unsigned long long) x * 233017ULL) >> 21);
}

/*
 * smooth - two passes per output row: the vertical sums of the rows
 * around row i (3 rows, or 2 at the top and bottom) into a buffer of
 * colsum_t, then horizontal sums of 3 columns. Interior pixels divide by
 * 9 with div9 (multiply-shift); the rest divide by 6, 4 (or 2 and 1).
 * IMPORTANT: This is the version you will be graded on
 */
char smooth_descr[] = "smooth: two-pass, division by 9 as multiply-shift";
void smooth(int dim, pixel *src, pixel *dst) 
{
    int i, j;
    colsum_t *v;

    if (dim == 1) {
	dst[0] = src[0];
	return;
    }
    v = malloc((size_t) dim * sizeof(colsum_t));
    if (v == NULL) {
	naive_smooth(dim, src, dst);
	return;
    }

    for (i = 0; i < dim; i++) {
	pixel *mid = src + RIDX(i, 0, dim);
	pixel *up = (i > 0) ? mid - dim : NULL;
	pixel *dn = (i < dim-1) ? mid + dim : NULL;
	pixel *d = dst + RIDX(i, 0, dim);
	int rows = 1 + (up != NULL) + (dn != NULL);
	int n2 = 2 * rows;

	/* pass 1: vertical sums */
	if (up && dn) {
	    for (j = 0; j < dim; j++) {
		v[j].r = up[j].red + mid[j].red + dn[j].red;
		v[j].g = up[j].green + mid[j].green + dn[j].green;
		v[j].b = up[j].blue + mid[j].blue + dn[j].blue;
	    }
	} else {
	    pixel *other = up ? up : dn;
	    for (j = 0; j < dim; j++) {
		v[j].r = mid[j].red + other[j].red;
		v[j].g = mid[j].green + other[j].green;
		v[j].b = mid[j].blue + other[j].blue;
	    }
	}

	/* pass 2: horizontal sums */
	d[0].red = (unsigned short) ((v[0].r + v[1].r) / n2);
	d[0].green = (unsigned short) ((v[0].g + v[1].g) / n2);
	d[0].blue = (unsigned short) ((v[0].b + v[1].b) / n2);
	if (rows == 3) {
	    for (j = 1; j < dim-1; j++) {
		d[j].red = div9(v[j-1].r + v[j].r + v[j+1].r);
		d[j].green = div9(v[j-1].g + v[j].g + v[j+1].g);
		d[j].blue = div9(v[j-1].b + v[j].b + v[j+1].b);
	    }
	} else {
	    for (j = 1; j < dim-1; j++) {
		d[j].red = (unsigned short) ((v[j-1].r + v[j].r + v[j+1].r) / 6);
		d[j].green = (unsigned short) ((v[j-1].g + v[j].g + v[j+1].g) / 6);
		d[j].blue = (unsigned short) ((v[j-1].b + v[j].b + v[j+1].b) / 6);
	    }
	}
	d[dim-1].red = (unsigned short) ((v[dim-2].r + v[dim-1].r) / n2);
	d[dim-1].green = (unsigned short) ((v[dim-2].g + v[dim-1].g) / n2);
	d[dim-1].blue = (unsigned short) ((v[dim-2].b + v[dim-1].b) / n2);
    }
    free(v);
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
