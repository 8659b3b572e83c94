#include "host_name.hpp"

#include <unistd.h>

namespace perflab {

std::string host_name() {
    char host[256] = "";
    gethostname(host, sizeof host - 1);
    return host;
}

}  // namespace perflab
