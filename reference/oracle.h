/*
 * oracle.h - the driver's own naive kernels: the bit-exact definition every
 * result is checked against, and the same-run baseline every speedup is
 * measured from. They are compiled as C with the student's flags and linked
 * into the driver with every symbol made local, so a kernels.c that defines
 * its own naive_rotate still links.
 */
#ifndef PERFLAB_ORACLE_H
#define PERFLAB_ORACLE_H

#include "defs.h"

#ifdef __cplusplus
extern "C" {
#endif

void oracle_rotate(int dim, pixel *src, pixel *dst);
void oracle_smooth(int dim, pixel *src, pixel *dst);

/* The speed of light: copying the image's bytes, never scored. */
void speed_of_light_copy(int dim, pixel *src, pixel *dst);

#ifdef __cplusplus
}
#endif

#endif
