/*
 * defs.h - the Performance Lab interface between kernels.c and the driver.
 *
 * This is the classic CS:APP header, unchanged in meaning: any kernels.c
 * written for the classic handout compiles against it. It deliberately
 * defines nothing a student file commonly defines itself (pixel_sum, min,
 * max, COPY, avg), so those files keep compiling.
 */
#ifndef _DEFS_H_
#define _DEFS_H_

#include <stdlib.h>

#ifdef __cplusplus
extern "C" {
#endif

#define RIDX(i,j,n) ((i)*(n)+(j))

typedef struct {
  char *team;
  char *name1, *email1;
  char *name2, *email2;
} team_t;

extern team_t team;

typedef struct {
   unsigned short red;
   unsigned short green;
   unsigned short blue;
} pixel;

typedef void (*lab_test_func) (int, pixel*, pixel*);

void smooth(int, pixel *, pixel *);
void rotate(int, pixel *, pixel *);

void register_rotate_functions(void);
void register_smooth_functions(void);
void add_smooth_function(lab_test_func, char*);
void add_rotate_function(lab_test_func, char*);

#ifdef __cplusplus
}
#endif

#endif /* _DEFS_H_ */
