/* The reference kernels in the driver's reference host, after the oracle and the
 * memcpy (src/host/reference_kernels.c), at the indices of reference_host.h. */
#include "defs.h"
#include "reference.h"
#include "reference_host.h"

extern int perflab_host_arg;

static void tile_from_call(int dim, pixel *src, pixel *dst) { ref_rotate_blocked_tile(dim, src, dst, perflab_host_arg); }

void perflab_register_reference_rotates(void) {
    add_rotate_function(ref_rotate_blocked, "reference blocked rotate");
    add_rotate_function(tile_from_call, "reference blocked rotate, tile edge from the call");
}

void perflab_register_reference_smooths(void) {
    add_smooth_function(ref_smooth_two_pass, "reference two-pass smooth");
}
