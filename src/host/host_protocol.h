/* The kernel host's side of the conversation with the trusted driver, in C so that
 * the host (linked with the student's kernels.c) and the driver (C++) read the same
 * layout. The driver creates a small memfd holding one perflab_host_control, passes
 * its descriptor to the host (kernel-host --fd N --images M) and drives the host with
 * commands.
 *
 * Nothing the host writes here is trusted: the driver reads the registration only
 * to name things, checks every result itself, and measures time from outside (the
 * host's CPU-time clock). The images are shared memory the driver makes: for each
 * LAYOUT it sends one sealed memfd (src at offset 0, dst at offset region_bytes) on
 * the socket M, and writes and reads the pixels with plain stores and loads, which
 * leave them in this CPU's caches as a one-process caller's freshly written images
 * are (the kernel's own copy into another process left a blocked rotate at 512 1.5x
 * its one-process CPE). */
#ifndef PERFLAB_HOST_PROTOCOL_H
#define PERFLAB_HOST_PROTOCOL_H

#include <stdint.h>

#define PERFLAB_HOST_MAGIC 0x70686f73u /* "phos" */
#define PERFLAB_HOST_VERSION 7u
/* The host's exit status when the driver speaks another version: a stale build. */
#define PERFLAB_HOST_EXIT_OTHER_VERSION 78

#define PERFLAB_HOST_MAX_VARIANTS 256
#define PERFLAB_HOST_TEXT_MAX 512 /* bytes, with the terminating NUL */

/* What the driver asks. */
enum perflab_host_op {
    PERFLAB_HOST_OP_NONE = 0,
    PERFLAB_HOST_OP_LAYOUT = 1, /* map the images for `dim` the driver sent, report where they are */
    PERFLAB_HOST_OP_CALL = 2,   /* call (kernel, variant) on the images once */
    PERFLAB_HOST_OP_QUIT = 3,
    /* Read one byte of every page the pixels of either image lie on. The driver
     * asks for it before it writes a call's input, untimed, so that every host has
     * just run, over the same pages, when its call comes; the CALL's own reads (below)
     * then cover a TLB emptied by the switch since. With those reads alone, calls in
     * the kernels' hosts and empty calls in the driver's stopped agreeing: kernels
     * at 64 fell inside the call's noise and at 128 read below their one-process
     * CPE. The images hold no input yet: the host never runs untimed with the input
     * in reach. */
    PERFLAB_HOST_OP_TOUCH = 4
};

/* Which function a CALL runs: an index among the kernel's registered variants, or
 * one of these. A trusted host (the driver's own reference host) understands more. */
#define PERFLAB_HOST_GRADED (-2)   /* rotate() or smooth() themselves */
#define PERFLAB_HOST_NOTHING (-5)  /* return at once: the cost of the call itself */
#define PERFLAB_HOST_AT_ADDRESS (-6) /* the function at address `arg`: one --explain found unregistered */
/* Read one byte of every cache line of src, or of its first `arg` bytes when `arg` is
 * positive, as every correct kernel reads them all, and report that reading's own TSC
 * time in `self_ticks`: the driver's empty calls (Runner::EmptyCalls), which it takes
 * in its own reference host only, the one host whose report of its own time it can
 * believe. */
#define PERFLAB_HOST_READ_SRC (-7)

/* Where an image of `bytes` bytes lies: in a region of whole 2 MiB huge pages, mapped
 * at a huge-page boundary (so a physically indexed cache sees the same placement on
 * every run where the memory is in huge pages), its pixels as close to the region's
 * end - the back guard page - as 32-byte alignment allows. Both sides compute the
 * region's size and the pixels' offset in it from these, so the driver never relies
 * on what the host reports. make bench-engine places its in-process images by the
 * same rule: where an image sits within its huge page alone moved the AVX-512
 * rotate's CPE at 64 by 1.5x. */
#define PERFLAB_HOST_HUGE_PAGE ((uint64_t)2 << 20)
#define PERFLAB_HOST_IMAGE_ALIGNMENT ((uint64_t)32)
static inline uint64_t perflab_host_region_bytes(uint64_t bytes, uint64_t page) {
    return (bytes + PERFLAB_HOST_IMAGE_ALIGNMENT + page + PERFLAB_HOST_HUGE_PAGE - 1) / PERFLAB_HOST_HUGE_PAGE *
           PERFLAB_HOST_HUGE_PAGE;
}
static inline uint64_t perflab_host_pixels_at(uint64_t region_end, uint64_t bytes) {
    return (region_end - bytes) & ~(PERFLAB_HOST_IMAGE_ALIGNMENT - 1);
}

/* What a CALL does first, before the function: read the first 8 bytes of the pixels
 * on every page an image's pixels lie on, of src then dst, and report their XOR in
 * `touched`. Every switch between driver and host may empty the TLB (a CPU without
 * PCID does so at each switch of address space, and these VMs vary): a one-process
 * caller's kernel finds the images' pages in the TLB, a host's would walk the page
 * tables for each again (the AVX-512 rotate read 1.15-1.22x its one-process CPE at
 * 128-256). The reads are timed with the call and with the empty calls subtracted
 * from it, so they cost a kernel nothing; the driver checks the XOR, so a host that
 * skipped them to be charged less is caught. `pixels` starts `offset_in_page` bytes
 * into a page. */
static inline uint64_t perflab_host_first_words(const unsigned char *pixels, uint64_t bytes, uint64_t offset_in_page,
                                                uint64_t page) {
    uint64_t digest = 0;
    for (uint64_t at = 0; at + 8 <= bytes; at += page - (offset_in_page + at) % page) {
        uint64_t word;
        __builtin_memcpy(&word, pixels + at, 8);
        digest ^= word;
    }
    return digest;
}

struct perflab_host_image {
    uint64_t region;       /* first writable byte around the image (host address) */
    uint64_t region_bytes; /* writable bytes from `region`; guard pages lie outside */
    uint64_t pixels;       /* the image's first pixel (host address) */
};

struct perflab_host_text {
    int32_t present; /* 0: the student's pointer was NULL */
    int32_t cut;     /* 1: the text was longer than fits, and ends where it was cut */
    char text[PERFLAB_HOST_TEXT_MAX];
};

struct perflab_host_variant {
    int32_t kernel;   /* 0 rotate, 1 smooth */
    uint64_t address; /* the function's address in the host: tells which variant rotate() is */
    struct perflab_host_text description;
};

struct perflab_host_control {
    uint32_t magic;
    uint32_t version;
    /* Futex words. The driver bumps `request` after filling in a command; the host
     * copies it to `reply` when the command is done. */
    uint32_t request;
    uint32_t reply;
    /* Nonzero while the driver sleeps on `reply`; the host wakes it only then. A
     * driver waiting its turn on the shared CPU instead runs again once the host
     * sleeps, so a call's CPU time holds no system call to wake it. */
    uint32_t driver_asleep;
    int32_t op;
    int32_t kernel;
    int32_t variant;
    int32_t dim;
    int64_t arg;      /* PERFLAB_HOST_AT_ADDRESS: the function; a trusted host's: the tile edge of a sweep */
    int32_t status;   /* 0: done; else the command could not be carried out */
    uint64_t touched; /* after CALL: perflab_host_first_words of src ^ of dst, 0 before a LAYOUT */
    uint64_t self_ticks; /* after a PERFLAB_HOST_READ_SRC CALL: the TSC ticks its reading took, else 0 */

    struct perflab_host_image src, dst; /* after LAYOUT */

    /* Written by the host's fatal-signal handler just before it dies. */
    int32_t fault_signal;
    int32_t fault_code; /* si_code: tells an integer division by zero from a float trap */
    uint64_t fault_address;

    /* Filled once, before the host's first reply. */
    int32_t registered; /* 1 once the registration functions returned */
    struct perflab_host_text team[5]; /* team, name1, email1, name2, email2 */
    struct perflab_host_text kernels_path, kernels_sha256, kcflags;
    int64_t build_time;
    uint64_t graded_address[2]; /* rotate, smooth */
    int32_t variant_count;
    int32_t dropped_variants; /* registered past PERFLAB_HOST_MAX_VARIANTS */
    struct perflab_host_variant variants[PERFLAB_HOST_MAX_VARIANTS];
};

#endif
