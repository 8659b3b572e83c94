// This machine's name, as records and batch states name the host that measured.
#pragma once

#include <string>

namespace perflab {

// gethostname's answer; "" when it has none.
std::string host_name();

}  // namespace perflab
