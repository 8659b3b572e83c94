#include "affinity.hpp"

#include <sched.h>

#include <cerrno>
#include <cstring>
#include <fmt/format.h>

namespace perflab {

Pinning pin_to_one_cpu(std::optional<int> cpu) {
    cpu_set_t allowed;
    CPU_ZERO(&allowed);
    if (sched_getaffinity(0, sizeof allowed, &allowed) != 0)
        return {-1, fmt::format("sched_getaffinity: {}", std::strerror(errno))};
    int chosen = -1;
    if (cpu) {
        if (*cpu < 0 || *cpu >= CPU_SETSIZE || !CPU_ISSET(*cpu, &allowed))
            return {-1, fmt::format("CPU {} is not one this process may run on", *cpu)};
        chosen = *cpu;
    } else {
        for (int c = CPU_SETSIZE - 1; c >= 0 && chosen < 0; --c)
            if (CPU_ISSET(c, &allowed)) chosen = c;
    }
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(chosen, &one);
    if (sched_setaffinity(0, sizeof one, &one) != 0)
        return {-1, fmt::format("sched_setaffinity({}): {}", chosen, std::strerror(errno))};
    return {chosen, {}};
}

}  // namespace perflab
