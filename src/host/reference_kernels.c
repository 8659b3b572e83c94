/* The reference host's "kernels file": what the driver times on its own behalf,
 * at the indices of reference_host.h. Built with PERFLAB_WITH_REFERENCES where the
 * build ships the reference kernels (the repository); the student handout's has
 * only the oracle and memcpy. */
#include "defs.h"
#include "oracle.h"
#include "reference_host.h"

#ifdef PERFLAB_WITH_REFERENCES
#include "reference.h"

extern int perflab_host_arg;

static void tile_from_call(int dim, pixel *src, pixel *dst) { ref_rotate_blocked_tile(dim, src, dst, perflab_host_arg); }
#endif

team_t team = {"perflab", "the driver's reference host", "", 0, 0};

void rotate(int dim, pixel *src, pixel *dst) { oracle_rotate(dim, src, dst); }
void smooth(int dim, pixel *src, pixel *dst) { oracle_smooth(dim, src, dst); }

void register_rotate_functions(void) {
    add_rotate_function(oracle_rotate, "naive oracle");
    add_rotate_function(speed_of_light_copy, "memcpy: speed of light");
#ifdef PERFLAB_WITH_REFERENCES
    add_rotate_function(ref_rotate_blocked, "reference blocked rotate");
    add_rotate_function(tile_from_call, "reference blocked rotate, tile edge from the call");
#endif
}

void register_smooth_functions(void) {
    add_smooth_function(oracle_smooth, "naive oracle");
    add_smooth_function(speed_of_light_copy, "memcpy: speed of light");
#ifdef PERFLAB_WITH_REFERENCES
    add_smooth_function(ref_smooth_two_pass, "reference two-pass smooth");
#endif
}
