/* The driver's own kernel host: the oracle, the memcpy speed of light and (where
 * the build has them) the reference kernels, registered as a kernels file would
 * register them, at these fixed indices. The driver times them in this host,
 * never beside a student's code, exactly as it times the student's. */
#ifndef PERFLAB_REFERENCE_HOST_H
#define PERFLAB_REFERENCE_HOST_H

enum perflab_reference_index {
    PERFLAB_REF_ORACLE = 0,          /* rotate and smooth */
    PERFLAB_REF_SPEED_OF_LIGHT = 1,  /* rotate and smooth: a memcpy of the image */
    PERFLAB_REF_ROTATE_BLOCKED = 2,  /* square tiles of the default edge */
    PERFLAB_REF_ROTATE_TILE = 3,     /* the same, tile edge = the call's argument */
    PERFLAB_REF_SMOOTH_TWO_PASS = 2
};

#endif
