// The student handout's reference catalog: the handout ships no reference
// solutions, so --explain has none to compare with (see reference_catalog.hpp).
// The repository links reference/catalog.cpp instead.
#include "reference_catalog.hpp"

namespace perflab {

const ReferenceCatalog* reference_catalog() { return nullptr; }

}  // namespace perflab
