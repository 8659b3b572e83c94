// The reference kernels as the driver's catalog; linked only into builds that
// ship solutions (see src/driver/reference_catalog.hpp).
#include "reference_catalog.hpp"

#include "reference.h"

namespace perflab {

const ReferenceCatalog* reference_catalog() {
    static const ReferenceCatalog catalog{ref_rotate_blocked,
                                          ref_rotate_blocked_tile,
                                          REF_ROTATE_TILE,
                                          ref_smooth_two_pass,
                                          "reference blocked rotate",
                                          "reference two-pass smooth"};
    return &catalog;
}

}  // namespace perflab
