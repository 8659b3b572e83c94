/* The kernel host: the small program that runs a kernels.c's functions for the
 * trusted driver, which never maps student code itself. It is linked (statically)
 * with one kernels file and provides the C surface defs.h promises:
 * add_rotate_function, add_smooth_function and main. Every other name here is
 * static or carries the perflab_host_ prefix, so no name a student picks collides.
 *
 *   kernel-host --fd N --images M    serve the driver through the control block on fd N,
 *                                     receiving the images' memory on the socket M
 *   kernel-host --simulate K:V:D:N:A  call variant V of kernel K (0 rotate, 1 smooth)
 *                                     N times at dimension D (A: the extra argument),
 *                                     for the cache simulation under valgrind; its
 *                                     one line on stdout says where the images are
 *   kernel-host --model K:V:D:A       the model's run (docs/model.md): src's D*D pixels from
 *                                     stdin, one call of variant V of kernel K through
 *                                     perflab_host_modelled_call, dst's pixels out on fd 3
 *
 * Nothing here is trusted by the driver: it is the student's process. It only has
 * to be convenient for an honest kernels.c: guard pages around the images, and a
 * note of the fatal signal that ends it. */
#define _GNU_SOURCE
#include <alloca.h>
#include <inttypes.h>
#include <linux/futex.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "defs.h"
#include "host_protocol.h"

/* The extra argument of the current call, for a trusted host's own functions. */
int perflab_host_arg;

/* What mk/link-host.sh records about the kernels file (weak: a host linked
 * without it reports nothing). */
extern const char perflab_build_kernels_path[] __attribute__((weak));
extern const char perflab_build_kernels_sha256[] __attribute__((weak));
extern const char perflab_build_kcflags[] __attribute__((weak));
extern const long perflab_build_time __attribute__((weak));

struct host_variant {
    int kernel;
    lab_test_func fn;
    const char *description;
};

static struct host_variant host_variants[PERFLAB_HOST_MAX_VARIANTS];
static int host_variant_count, host_dropped;
static volatile struct perflab_host_control *host_control;

static void host_add(int kernel, lab_test_func fn, const char *description) {
    if (host_variant_count == PERFLAB_HOST_MAX_VARIANTS) {
        ++host_dropped;
        return;
    }
    host_variants[host_variant_count].kernel = kernel;
    host_variants[host_variant_count].fn = fn;
    host_variants[host_variant_count].description = description;
    ++host_variant_count;
}

void add_rotate_function(lab_test_func fn, char *description) { host_add(0, fn, description); }
void add_smooth_function(lab_test_func fn, char *description) { host_add(1, fn, description); }

static void host_nothing(int dim, pixel *src, pixel *dst) {
    (void)dim, (void)src, (void)dst;
}

/* PERFLAB_HOST_READ_SRC (host_protocol.h): the lfences keep the reads inside the
 * two TSC reads, and the last one waits for every read to complete. */
static uint64_t host_read_src(int dim, const pixel *src, long long limit) {
    size_t bytes = (size_t)dim * (size_t)dim * sizeof(pixel);
    if (limit > 0 && (size_t)limit < bytes) bytes = (size_t)limit;
    const volatile unsigned char *in = (const volatile unsigned char *)src;
    __builtin_ia32_lfence();
    const uint64_t start = __builtin_ia32_rdtsc();
    __builtin_ia32_lfence();
    for (size_t at = 0; at < bytes; at += 64) (void)in[at];
    __builtin_ia32_lfence();
    const uint64_t end = __builtin_ia32_rdtsc();
    __builtin_ia32_lfence();
    return end - start;
}

static lab_test_func host_lookup(int kernel, int variant, long long arg) {
    if (variant == PERFLAB_HOST_NOTHING) return host_nothing;
    /* The driver found this function in the executable's symbol table, with the
     * kernels' signature in its debug information. */
    if (variant == PERFLAB_HOST_AT_ADDRESS) return (lab_test_func)(uintptr_t)arg;
    if (variant == PERFLAB_HOST_GRADED) return kernel == 0 ? rotate : smooth;
    for (int i = 0, seen = 0; i < host_variant_count; ++i)
        if (host_variants[i].kernel == kernel && seen++ == variant) return host_variants[i].fn;
    return NULL;
}

static void host_text(volatile struct perflab_host_text *out, const char *text) {
    out->present = text != NULL;
    if (!text) return;
    size_t n = strnlen(text, PERFLAB_HOST_TEXT_MAX);
    out->cut = n == PERFLAB_HOST_TEXT_MAX;
    if (out->cut) n = PERFLAB_HOST_TEXT_MAX - 1;
    memcpy((char *)out->text, text, n);
    out->text[n] = '\0';
}

/* ---- images: guard pages around, huge pages inside, pixels at the back ---- */

struct host_image {
    unsigned char *map;
    size_t map_bytes;
    unsigned char *usable;
    size_t usable_bytes;
    pixel *pixels;
};

static size_t round_up(size_t n, size_t to) { return (n + to - 1) / to * to; }

/* The image's region from `fd` at `offset` (the driver's shared memory), or
 * anonymous memory when fd < 0 (the simulation's run, which has no driver). */
static int host_image_make(struct host_image *im, int dim, int fd, off_t offset) {
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size_t bytes = (size_t)dim * (size_t)dim * sizeof(pixel);
    if (im->map) munmap(im->map, im->map_bytes);
    memset(im, 0, sizeof *im);
    /* Whole huge pages (host_protocol.h): with 4 KiB pages a naive rotate at 512
     * swings by 2x with the page colouring. */
    im->usable_bytes = perflab_host_region_bytes(bytes, page);
    im->map_bytes = im->usable_bytes + 2 * PERFLAB_HOST_HUGE_PAGE;
    void *p = mmap(NULL, im->map_bytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) return -1;
    im->map = p;
    im->usable = (unsigned char *)round_up((uintptr_t)im->map + page, PERFLAB_HOST_HUGE_PAGE);
    if (fd >= 0 ? mmap(im->usable, im->usable_bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, offset) ==
                      MAP_FAILED
                : mprotect(im->usable, im->usable_bytes, PROT_READ | PROT_WRITE) != 0)
        return -1;
    madvise(im->usable, im->usable_bytes, MADV_HUGEPAGE);
    im->pixels = (pixel *)(uintptr_t)perflab_host_pixels_at((uintptr_t)(im->usable + im->usable_bytes), bytes);
    /* Touch every page now, so the first timed call does not pay for faults. One
     * store per page does it (anonymous memory is already zero), and unlike a
     * memset it adds a few thousand accesses, not millions, to the cache
     * simulation's and the access trace's runs. */
    for (size_t at = 0; at < im->usable_bytes; at += page) ((volatile unsigned char *)im->usable)[at] = 0;
    return 0;
}

/* One byte of every page the pixels lie on (PERFLAB_HOST_OP_TOUCH), and of the page
 * before, where the driver's canaries begin. */
static void host_image_touch(const struct host_image *im) {
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size_t first = ((size_t)((unsigned char *)im->pixels - im->usable) / page) * page;
    if (first >= page) first -= page;
    for (size_t at = first; at < im->usable_bytes; at += page) (void)((volatile unsigned char *)im->usable)[at];
}

/* What a CALL reads before the function (host_protocol.h). */
static uint64_t host_image_first_words(const struct host_image *im, int dim) {
    uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
    return perflab_host_first_words((const unsigned char *)im->pixels, (uint64_t)dim * (uint64_t)dim * sizeof(pixel),
                                    (uint64_t)(uintptr_t)im->pixels % page, page);
}

/* The memfd the driver sends with a LAYOUT command, or -1. */
static int host_receive_fd(int socket) {
    char data;
    struct iovec iov = {.iov_base = &data, .iov_len = 1};
    union {
        struct cmsghdr header;
        char bytes[CMSG_SPACE(sizeof(int))];
    } control;
    struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = control.bytes,
                         .msg_controllen = sizeof control.bytes};
    if (recvmsg(socket, &msg, MSG_CMSG_CLOEXEC) != 1) return -1;
    struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
    if (!c || c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS || c->cmsg_len != CMSG_LEN(sizeof(int)))
        return -1;
    int fd;
    memcpy(&fd, CMSG_DATA(c), sizeof fd);
    return fd;
}

static void host_image_report(const struct host_image *im, volatile struct perflab_host_image *out) {
    out->region = (uint64_t)(uintptr_t)im->usable;
    out->region_bytes = im->usable_bytes;
    out->pixels = (uint64_t)(uintptr_t)im->pixels;
}

/* ---- the fatal signal that ends a kernel, noted for the driver's message ---- */

static void host_on_fatal(int sig, siginfo_t *info, void *context) {
    (void)context;
    if (host_control) {
        host_control->fault_signal = sig;
        host_control->fault_code = info ? info->si_code : 0;
        host_control->fault_address = info ? (uint64_t)(uintptr_t)info->si_addr : 0;
    }
    signal(sig, SIG_DFL);
    raise(sig);
}

static void host_catch_fatal_signals(void) {
    /* A kernel that overruns its stack can only be noted from another stack. */
    static char alt_stack[1 << 16];
    stack_t ss = {.ss_sp = alt_stack, .ss_size = sizeof alt_stack};
    sigaltstack(&ss, NULL);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = host_on_fatal;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESETHAND;
    sigemptyset(&sa.sa_mask);
    int fatal[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
    for (size_t i = 0; i < sizeof fatal / sizeof fatal[0]; ++i) sigaction(fatal[i], &sa, NULL);
}

/* ---- serving the driver ---- */

static long host_futex(volatile uint32_t *word, int op, uint32_t value) {
    return syscall(SYS_futex, word, op, value, NULL, NULL, 0);
}

static void host_register(volatile struct perflab_host_control *c) {
    register_rotate_functions();
    register_smooth_functions();
    const char *fields[5] = {team.team, team.name1, team.email1, team.name2, team.email2};
    for (int i = 0; i < 5; ++i) host_text(&c->team[i], fields[i]);
    host_text(&c->kernels_path, perflab_build_kernels_path);
    host_text(&c->kernels_sha256, perflab_build_kernels_sha256);
    host_text(&c->kcflags, perflab_build_kcflags);
    c->build_time = &perflab_build_time ? perflab_build_time : 0;
    for (int i = 0; i < host_variant_count; ++i) {
        c->variants[i].kernel = host_variants[i].kernel;
        c->variants[i].address = (uint64_t)(uintptr_t)host_variants[i].fn;
        host_text(&c->variants[i].description, host_variants[i].description);
    }
    c->graded_address[0] = (uint64_t)(uintptr_t)rotate;
    c->graded_address[1] = (uint64_t)(uintptr_t)smooth;
    c->variant_count = host_variant_count;
    c->dropped_variants = host_dropped;
    c->registered = 1;
}

static int host_carry_out(volatile struct perflab_host_control *c, int images, struct host_image *src,
                          struct host_image *dst) {
    switch (c->op) {
        case PERFLAB_HOST_OP_LAYOUT: {
            int fd = c->dim > 0 ? host_receive_fd(images) : -1;
            if (fd < 0) return 1;
            /* dst's region follows src's in the file. */
            int failed = host_image_make(src, c->dim, fd, 0) != 0 ||
                         host_image_make(dst, c->dim, fd, (off_t)src->usable_bytes) != 0;
            close(fd);
            if (failed) return 1;
            host_image_report(src, &c->src);
            host_image_report(dst, &c->dst);
            return 0;
        }
        case PERFLAB_HOST_OP_TOUCH:
            if (!src->pixels) return 1;
            host_image_touch(src);
            host_image_touch(dst);
            return 0;
        case PERFLAB_HOST_OP_CALL: {
            const int reads = c->variant == PERFLAB_HOST_READ_SRC;
            lab_test_func fn = reads ? NULL : host_lookup(c->kernel, c->variant, c->arg);
            if ((!reads && !fn) || (!src->pixels && c->variant != PERFLAB_HOST_NOTHING)) return 1;
            perflab_host_arg = (int)c->arg;
            c->touched = src->pixels ? host_image_first_words(src, c->dim) ^ host_image_first_words(dst, c->dim) : 0;
            c->self_ticks = reads ? host_read_src(c->dim, src->pixels, c->arg) : 0;
            if (!reads) fn(c->dim, src->pixels, dst->pixels);
            return 0;
        }
        case PERFLAB_HOST_OP_QUIT:
            fflush(stdout);  /* a last line without its newline; still no destructor runs */
            _exit(0);
    }
    return 1;
}

/* Sequentially consistent, with the driver's side: either it sees the reply before
 * it sleeps, or this sees that it sleeps and wakes it. */
static void host_reply(volatile struct perflab_host_control *c, uint32_t done) {
    __atomic_store_n(&c->reply, done, __ATOMIC_SEQ_CST);
    if (__atomic_load_n(&c->driver_asleep, __ATOMIC_SEQ_CST)) host_futex(&c->reply, FUTEX_WAKE, 1);
}

static int host_serve(int fd, int images) {
    void *p = mmap(NULL, sizeof(struct perflab_host_control), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED) {
        fprintf(stderr, "kernel-host: no control block on fd %d: run ./driver, which starts this program\n", fd);
        return 2;
    }
    volatile struct perflab_host_control *c = p;
    if (c->magic != PERFLAB_HOST_MAGIC || c->version != PERFLAB_HOST_VERSION) {
        fprintf(stderr, "kernel-host: this driver speaks another protocol: rebuild with make\n");
        return PERFLAB_HOST_EXIT_OTHER_VERSION;
    }
    host_control = c;
    host_catch_fatal_signals();
    /* What kernels.c prints goes out line by line, as on a terminal: fully buffered
     * into a pipe or a file, it waited for an exit that never flushes, and a
     * student's debugging lines vanished from `./driver | less` and the grader's
     * feedback. */
    setvbuf(stdout, NULL, _IOLBF, 0);
    host_register(c);
    struct host_image src = {0}, dst = {0};
    /* The driver's first request, already there, is this registration. */
    uint32_t done = __atomic_load_n(&c->request, __ATOMIC_ACQUIRE);
    host_reply(c, done);
    for (;;) {
        uint32_t request;
        while ((request = __atomic_load_n(&c->request, __ATOMIC_ACQUIRE)) == done)
            host_futex(&c->request, FUTEX_WAIT, done);
        c->status = host_carry_out(c, images, &src, &dst);
        done = request;
        host_reply(c, done);
    }
}

/* ---- the cache simulation's run: no driver, deterministic images ---- */

/* The one call the machine model counts: callgrind collects from this function's
 * entry to its return (--toggle-collect), the kernel's callees included. Not
 * inlined, and the empty asm keeps the kernel's call from becoming a jump, after
 * which the collection would end at the kernel's return, not here. */
__attribute__((noinline, noipa)) static void perflab_host_modelled_call(lab_test_func fn, int dim, pixel *src,
                                                                        pixel *dst) {
    fn(dim, src, dst);
    __asm__ volatile("" ::: "memory");
}

static int host_transfer(int fd, unsigned char *at, size_t bytes, int writing) {
    while (bytes > 0) {
        ssize_t n = writing ? write(fd, at, bytes) : read(fd, at, bytes);
        if (n <= 0) return -1;
        at += n, bytes -= (size_t)n;
    }
    return 0;
}

/* Any full-range values will do for the cache simulation: rotate and smooth touch
 * memory the same way whatever the pixels hold. Two 64-bit Weyl sequences, 64 bytes
 * a step in four 16-byte stores: under lackey every executed instruction is a line
 * of the trace (and a write() of valgrind's), and a word-at-a-time xorshift fill made
 * a third of a blocked rotate's trace at 256. */
static void host_fill_weyl(unsigned char *out, size_t bytes) {
    typedef uint64_t lanes __attribute__((vector_size(16)));
    const lanes step = {0x9e3779b97f4a7c15u, 0xd1b54a32d192ed03u};
    lanes x = step;
    size_t i = 0;
    for (; i + 64 <= bytes; i += 64) {
        const lanes a = x + step, b = a + step, c = b + step, d = c + step;
        memcpy(out + i, &a, 16), memcpy(out + i + 16, &b, 16), memcpy(out + i + 32, &c, 16), memcpy(out + i + 48, &d, 16);
        x = d;
    }
    for (; i < bytes; ++i) out[i] = (unsigned char)(x[0] >>= 8);
}

/* Everything --simulate and --model do once their arguments are read. The model's
 * run takes its input from the driver (the policy's seed) and gives its output back,
 * so the driver can check that the kernel computed under the simulator what it
 * computes on the machine. */
__attribute__((noinline)) static int host_simulate_run(int kernel, int variant, int dim, int calls, long long arg,
                                                       int model) {
    register_rotate_functions();
    register_smooth_functions();
    lab_test_func fn = host_lookup(kernel, variant, arg);
    struct host_image src = {0}, dst = {0};
    if (!fn || host_image_make(&src, dim, -1, 0) != 0 || host_image_make(&dst, dim, -1, 0) != 0) {
        fprintf(stderr, "kernel-host: no variant %d of kernel %d, or no memory for dimension %d\n", variant, kernel,
                dim);
        return 2;
    }
    size_t bytes = (size_t)dim * (size_t)dim * sizeof(pixel);
    if (model) {
        if (host_transfer(0, (unsigned char *)src.pixels, bytes, 0) != 0) {
            fprintf(stderr, "kernel-host: --model wants %zu bytes of input on stdin\n", bytes);
            return 2;
        }
    } else {
        /* Where the images are, for the trace's reader: the kernel's own stack can take
         * more stores than dst (the stock smooth's avg() does), so no guess from the
         * trace tells the images apart from it. */
        printf("perflab-simulate src=%#" PRIxPTR " dst=%#" PRIxPTR "\n", (uintptr_t)src.pixels, (uintptr_t)dst.pixels);
        fflush(stdout);
        host_fill_weyl((unsigned char *)src.pixels, bytes);
    }
    /* The driver times a call with the images in the outer caches but not in L1
     * (it walks a buffer of twice the L1d first): read 1 MiB, more than any L1d
     * and less than any LL, so the simulated call starts the same way. The run
     * without the call does the same, and the difference cancels it. */
    static volatile unsigned char evict[1 << 20]; /* volatile: the reads must happen */
    /* A line a read, four reads a step and one store at the end: few instructions
     * for lackey to write out, as in the fill. */
    unsigned char seen = 0;
    for (size_t k = 0; k < sizeof evict; k += 256)
        seen ^= evict[k] ^ evict[k + 64] ^ evict[k + 128] ^ evict[k + 192];
    volatile unsigned char sink = seen;
    (void)sink;
    perflab_host_arg = (int)arg;
    if (model) {
        perflab_host_modelled_call(fn, dim, src.pixels, dst.pixels);
        fflush(stdout);
        return host_transfer(3, (unsigned char *)dst.pixels, bytes, 1) != 0 ? 2 : 0;
    }
    for (int c = 0; c < calls; ++c) fn(dim, src.pixels, dst.pixels);
    return 0;
}

static int host_simulate(const char *spec, int model) {
    int kernel, variant, dim, calls = 1;
    long long arg;
    int parsed = model ? sscanf(spec, "%d:%d:%d:%lli", &kernel, &variant, &dim, &arg)
                       : sscanf(spec, "%d:%d:%d:%d:%lli", &kernel, &variant, &dim, &calls, &arg);
    if (parsed != (model ? 4 : 5) || dim <= 0) {
        fprintf(stderr, "kernel-host: %s wants %s, not '%s'\n", model ? "--model" : "--simulate",
                model ? "KERNEL:VARIANT:DIM:ARG" : "KERNEL:VARIANT:DIM:CALLS:ARG", spec);
        return 2;
    }
    /* The environment and the path the host was started by lie above its stack, so
     * from one shell or directory to the next the run's frames would start elsewhere,
     * in other sets of the simulated caches: a TA's figures for a hand-in differed
     * from its student's by a miss or two. The run starts at the same offset within
     * 2 MiB (all of a simulated LL's sets, at most) wherever the stack lies, and ends
     * at once, before exit's own work on the old stack. */
    const uintptr_t here = (uintptr_t)__builtin_frame_address(0);
    volatile unsigned char *pad = alloca(here % PERFLAB_HOST_HUGE_PAGE + 64);
    pad[0] = 0;
    _exit(host_simulate_run(kernel, variant, dim, calls, arg, model));
}

int main(int argc, char **argv) {
    if (argc == 3 && strcmp(argv[1], "--simulate") == 0) return host_simulate(argv[2], 0);
    if (argc == 3 && strcmp(argv[1], "--model") == 0) return host_simulate(argv[2], 1);
    if (argc == 5 && strcmp(argv[1], "--fd") == 0 && strcmp(argv[3], "--images") == 0)
        return host_serve(atoi(argv[2]), atoi(argv[4]));
    fprintf(stderr, "usage: kernel-host --fd N --images M (started by ./driver) | kernel-host --simulate K:V:D:N:A | "
                    "kernel-host --model K:V:D:A\n");
    return 2;
}
