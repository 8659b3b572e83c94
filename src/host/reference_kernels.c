/* The reference host's "kernels file": what the driver times on its own behalf, at
 * the indices of reference_host.h - the oracle and the memcpy here, and where the
 * build has them (the repository; not the student handout) the reference kernels,
 * which reference/reference_registration.c registers after these. */
#include "defs.h"
#include "oracle.h"
#include "reference_host.h"

team_t team = {"perflab", "the driver's reference host", "", 0, 0};

void rotate(int dim, pixel *src, pixel *dst) { oracle_rotate(dim, src, dst); }
void smooth(int dim, pixel *src, pixel *dst) { oracle_smooth(dim, src, dst); }

/* Weak: absent from a build without the reference kernels. */
extern void perflab_register_reference_rotates(void) __attribute__((weak));
extern void perflab_register_reference_smooths(void) __attribute__((weak));

void register_rotate_functions(void) {
    add_rotate_function(oracle_rotate, "naive oracle");
    add_rotate_function(speed_of_light_copy, "memcpy: speed of light");
    if (perflab_register_reference_rotates) perflab_register_reference_rotates();
}

void register_smooth_functions(void) {
    add_smooth_function(oracle_smooth, "naive oracle");
    add_smooth_function(speed_of_light_copy, "memcpy: speed of light");
    if (perflab_register_reference_smooths) perflab_register_reference_smooths();
}
