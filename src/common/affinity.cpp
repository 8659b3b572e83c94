#include "affinity.hpp"

#include <pthread.h>
#include <sched.h>

#include <cerrno>
#include <cstring>
#include <fmt/format.h>

namespace perflab {

namespace {

bool allowed_cpus(cpu_set_t& allowed) {
    CPU_ZERO(&allowed);
    return sched_getaffinity(0, sizeof allowed, &allowed) == 0;
}

int last_of(const cpu_set_t& allowed) {
    for (int c = CPU_SETSIZE - 1; c >= 0; --c)
        if (CPU_ISSET(c, &allowed)) return c;
    return -1;
}

}  // namespace

bool pin_this_thread(int cpu) {
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(cpu, &one);
    return pthread_setaffinity_np(pthread_self(), sizeof one, &one) == 0;
}

int last_allowed_cpu() {
    cpu_set_t allowed;
    return allowed_cpus(allowed) ? last_of(allowed) : -1;
}

Pinning pin_to_one_cpu(std::optional<int> cpu) {
    cpu_set_t allowed;
    if (!allowed_cpus(allowed)) return {-1, fmt::format("sched_getaffinity: {}", std::strerror(errno)), {}};
    int chosen = -1;
    if (cpu) {
        if (*cpu < 0 || *cpu >= CPU_SETSIZE || !CPU_ISSET(*cpu, &allowed))
            return {-1, fmt::format("CPU {} is not one this process may run on", *cpu), {}};
        chosen = *cpu;
    } else {
        chosen = last_of(allowed);
    }
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(chosen, &one);
    std::vector<int> before;
    for (int c = 0; c < CPU_SETSIZE; ++c)
        if (CPU_ISSET(c, &allowed)) before.push_back(c);
    if (sched_setaffinity(0, sizeof one, &one) != 0)
        return {-1, fmt::format("sched_setaffinity({}): {}", chosen, std::strerror(errno)), before};
    return {chosen, {}, before};
}

}  // namespace perflab
