/*
 * rotate_simd.c - the SIMD rotates: blocks of pixels transposed in
 * registers, so loads and stores move runs of pixels instead of one 6-byte
 * pixel at a time. AVX-512 (VBMI) moves 8x8 blocks with byte permutes and
 * masked loads and stores; AVX2 moves 4x4 blocks; ref_rotate_simd picks the
 * best the CPU has, else the scalar tile code.
 *
 * The AVX2 path:
 *
 * A pixel is 6 bytes, which no shuffle works on; the block is moved with as
 * few shuffles as the lane structure allows (shuffles, not loads or stores,
 * are what limits it):
 *  1. Each source row's 4-pixel run (24 bytes) is read as two 16-byte loads,
 *     one starting 2 bytes before the run and one 10 bytes into it. That puts
 *     every pixel inside its own 64-bit lane without any shuffle (pixels 0
 *     and 2 at lane bytes 2..7, pixels 1 and 3 at bytes 0..5). Rows 0 and 2
 *     share a register (one per 128-bit half), as do rows 1 and 3, so
 *  2. a single 64-bit unpack yields [row0, row1 | row2, row3] of one column:
 *     the 4x4 transpose costs four unpacks and no cross-lane permute;
 *  3. one byte shuffle squeezes each half to 12 contiguous bytes; the low
 *     half is stored at the run and the high half 12 bytes on, each as a
 *     16-byte store whose last 4 bytes are junk landing on the next run of
 *     the same destination row.
 * The junk is harmless only because that next run is written later: blocks
 * go left to right along destination rows, and so do the tiles and the
 * scalar remainder strips after them. The last run of a row has no next run
 * (the junk would hit the previous row or run past dst), so it is packed
 * into 24 bytes exactly with one more permute.
 * The loads read 2 bytes outside the run, which is outside src only for the
 * block holding the first source pixel and the one holding the last; those
 * two blocks, and tile edges that are not multiples of 4, are copied by the
 * scalar tile code.
 */
#include <immintrin.h>
#include "reference.h"

#define AVX2 __attribute__((target("avx2")))

/* Two 16-byte loads, one per 128-bit half. */
AVX2 static __m256i load_pair(const char *low, const char *high)
{
    return _mm256_inserti128_si256(
        _mm256_castsi128_si256(_mm_loadu_si128((const __m128i *)low)),
        _mm_loadu_si128((const __m128i *)high), 1);
}

/* Each half of `lanes` holds two pixels of one destination run as 64-bit
 * lanes; gathers them to bytes 0..11 of each half. */
AVX2 static __m256i squeeze(__m256i lanes, int first_at)
{
    /* first_at: where the first pixel sits in its lane (2 or 0). */
    const __m256i at2 = _mm256_setr_epi8(
        2, 3, 4, 5, 6, 7, 10, 11, 12, 13, 14, 15, -1, -1, -1, -1,
        2, 3, 4, 5, 6, 7, 10, 11, 12, 13, 14, 15, -1, -1, -1, -1);
    const __m256i at0 = _mm256_setr_epi8(
        0, 1, 2, 3, 4, 5, 8, 9, 10, 11, 12, 13, -1, -1, -1, -1,
        0, 1, 2, 3, 4, 5, 8, 9, 10, 11, 12, 13, -1, -1, -1, -1);
    return _mm256_shuffle_epi8(lanes, first_at ? at2 : at0);
}

AVX2 static void store_run(pixel *run, __m256i lanes, int first_at, int last)
{
    __m256i halves = squeeze(lanes, first_at);
    char *out = (char *)run;

    if (!last) {
        _mm_storeu_si128((__m128i *)out, _mm256_castsi256_si128(halves));
        _mm_storeu_si128((__m128i *)(out + 12), _mm256_extracti128_si256(halves, 1));
    } else {
        /* Dwords 0-2 are run bytes 0..11, dwords 4-6 bytes 12..23: rebuild
         * [bytes 0..15 | bytes 8..23] and store two halves that overlap on
         * identical bytes. */
        const __m256i exact = _mm256_setr_epi32(0, 1, 2, 4, 2, 4, 5, 6);
        __m256i packed = _mm256_permutevar8x32_epi32(halves, exact);
        _mm_storeu_si128((__m128i *)out, _mm256_castsi256_si128(packed));
        _mm_storeu_si128((__m128i *)(out + 8), _mm256_extracti128_si256(packed, 1));
    }
}

/* Rotates the 4x4 block at source (i, j). */
AVX2 static void copy_block(int dim, const pixel *src, pixel *dst, int i, int j)
{
    const char *r0 = (const char *)(src + RIDX(i, j, dim));
    const char *r1 = r0 + 6 * dim, *r2 = r1 + 6 * dim, *r3 = r2 + 6 * dim;
    __m256i front02 = load_pair(r0 - 2, r2 - 2), front13 = load_pair(r1 - 2, r3 - 2);
    __m256i back02 = load_pair(r0 + 10, r2 + 10), back13 = load_pair(r1 + 10, r3 + 10);
    int last = i + 4 == dim;
    /* Source column j+c becomes destination row dim-1-j-c. */
    pixel *d = dst + RIDX(dim-1-j, i, dim);

    store_run(d, _mm256_unpacklo_epi64(front02, front13), 2, last);
    store_run(d - dim, _mm256_unpackhi_epi64(front02, front13), 0, last);
    store_run(d - 2 * dim, _mm256_unpacklo_epi64(back02, back13), 2, last);
    store_run(d - 3 * dim, _mm256_unpackhi_epi64(back02, back13), 0, last);
}

AVX2 static void copy_tile_avx2(int dim, const pixel *src, pixel *dst,
                                int i0, int j0, int rows, int cols)
{
    int rows4 = rows & ~3, cols4 = cols & ~3;

    for (int j = j0; j < j0 + cols4; j += 4)
        for (int i = i0; i < i0 + rows4; i += 4) {
            int reads_before_src = i == 0 && j == 0;
            int reads_after_src = i + 4 == dim && j + 4 == dim;
            if (reads_before_src || reads_after_src)
                ref_rotate_tile_unrolled(dim, src, dst, i, j, 4, 4);
            else
                copy_block(dim, src, dst, i, j);
        }
    if (rows4 < rows)
        ref_rotate_tile_unrolled(dim, src, dst, i0 + rows4, j0, rows - rows4, cols4);
    if (cols4 < cols)
        ref_rotate_tile_unrolled(dim, src, dst, i0, j0 + cols4, rows, cols - cols4);
}

/*
 * The AVX-512 rotate: 8x8 blocks moved with byte permutes (vpermt2b picks
 * any 64 of the 128 bytes of two registers, so 6-byte pixels are no
 * obstacle) and byte-masked loads and stores, which read and write exactly
 * the block's pixels. Masked-off bytes are never accessed, so the block at
 * either end of src needs no scalar stand-in, no junk lands in dst, and a
 * partial block at a tile edge is the same code with narrower masks.
 *  1. Loads: register pair[a][h] holds source rows 2a and 2a+1, pixels
 *     4h..4h+3 of the block (24 bytes each, at bytes 0 and 24). The second
 *     row is a merging load from 24 bytes before its run, so the loads do
 *     the first transpose stage (16 loads, no shuffle).
 *  2. One vpermt2b of pair[2g][h] and pair[2g+1][h] gathers two columns of
 *     rows 4g..4g+3: quad[g][p] = [column 2p, rows 4g.. | column 2p+1, ...].
 *  3. One vpermt2b of quad[0][p] and quad[1][p] gathers a whole column, the
 *     48 bytes of one destination run, stored with one masked store.
 * 16 loads, 16 permutes and 8 stores for 64 pixels.
 */
#define AVX512 __attribute__((target("avx512f,avx512bw,avx512vbmi")))
#define INLINE inline __attribute__((always_inline))

/* The bytes of a run of `pixels` pixels (0..8) starting at byte `at`. */
static INLINE __mmask64 run_mask(int pixels, int at)
{
    return pixels > 0 ? (~0ULL >> (64 - 6 * pixels)) << at : 0;
}

static int clamp4(int x) { return x < 0 ? 0 : x > 4 ? 4 : x; }

/* vpermt2b indices of step 2: output pixel s is column `first` + s/4 of
 * row s%4 of the quad; that row is in operand (s%4)/2 at byte 24*(s%2). */
#define QUAD_BYTE(first, s, b) \
    (((s) % 4 / 2) * 64 + ((s) % 2) * 24 + ((first) + (s) / 4) * 6 + (b))
/* Step 3: output pixel s is row s of the column; rows 4.. are operand 1. */
#define COLUMN_BYTE(odd, s, b) (((s) / 4) * 64 + (odd) * 24 + ((s) % 4) * 6 + (b))
#define PIXEL_BYTES(F, x, s) F(x, s, 0), F(x, s, 1), F(x, s, 2), F(x, s, 3), \
    F(x, s, 4), F(x, s, 5)
/* Bytes 48..63 of a result are never stored, so their indices stay 0. */
#define RUN_BYTES(F, x) { PIXEL_BYTES(F, x, 0), PIXEL_BYTES(F, x, 1), \
    PIXEL_BYTES(F, x, 2), PIXEL_BYTES(F, x, 3), PIXEL_BYTES(F, x, 4), \
    PIXEL_BYTES(F, x, 5), PIXEL_BYTES(F, x, 6), PIXEL_BYTES(F, x, 7) }

static const char quad_indices[2][64] __attribute__((aligned(64))) = {
    RUN_BYTES(QUAD_BYTE, 0), RUN_BYTES(QUAD_BYTE, 2)};
static const char column_indices[2][64] __attribute__((aligned(64))) = {
    RUN_BYTES(COLUMN_BYTE, 0), RUN_BYTES(COLUMN_BYTE, 1)};

/* Rotates the rows x cols block (each 1..8) at source (i, j). */
AVX512 static INLINE void copy_block_avx512(int dim, const pixel *src, pixel *dst,
                                            int i, int j, int rows, int cols)
{
    __m512i pair[4][2], quad[2][4];
    __m512i quad_index[2], column_index[2];

#pragma GCC unroll 2
    for (int k = 0; k < 2; k++) {
        quad_index[k] = _mm512_load_si512(quad_indices[k]);
        column_index[k] = _mm512_load_si512(column_indices[k]);
    }

    /* Fully unrolled, so the arrays live in registers, not on the stack. */
#pragma GCC unroll 4
    for (int a = 0; a < 4; a++)
#pragma GCC unroll 2
        for (int h = 0; h < 2; h++) {
            int pixels = clamp4(cols - 4 * h);
            /* Rows and columns past the block are never read (mask 0); any
             * pixel of the image does as their address. */
            int r = 2 * a < rows ? i + 2 * a : i, c = pixels ? j + 4 * h : j;
            const char *first = (const char *)(src + RIDX(r, c, dim));
            /* The next row's run minus 24 bytes: still inside src for
             * dim >= 4, which the dispatch guarantees. */
            const char *second = first + 6 * dim - 24;
            __m512i v = _mm512_maskz_loadu_epi8(
                2 * a < rows ? run_mask(pixels, 0) : 0, first);
            pair[a][h] = _mm512_mask_loadu_epi8(
                v, 2 * a + 1 < rows ? run_mask(pixels, 24) : 0, second);
        }
#pragma GCC unroll 2
    for (int g = 0; g < 2; g++)
#pragma GCC unroll 2
        for (int h = 0; h < 2; h++) {
            quad[g][2 * h] = _mm512_permutex2var_epi8(
                pair[2 * g][h], quad_index[0], pair[2 * g + 1][h]);
            quad[g][2 * h + 1] = _mm512_permutex2var_epi8(
                pair[2 * g][h], quad_index[1], pair[2 * g + 1][h]);
        }
#pragma GCC unroll 8
    for (int c = 0; c < cols; c++) {
        __m512i run = _mm512_permutex2var_epi8(
            quad[0][c / 2], column_index[c % 2],
            quad[1][c / 2]);
        /* Source column j+c becomes destination row dim-1-j-c. */
        _mm512_mask_storeu_epi8(dst + RIDX(dim-1-j-c, i, dim), run_mask(rows, 0), run);
    }
}

AVX512 static void copy_tile_avx512(int dim, const pixel *src, pixel *dst,
                                    int i0, int j0, int rows, int cols)
{
    for (int j = j0; j < j0 + cols; j += 8)
        for (int i = i0; i < i0 + rows; i += 8) {
            int r = i0 + rows - i, c = j0 + cols - j;
            /* The full block is the common case: constant masks. */
            if (r >= 8 && c >= 8)
                copy_block_avx512(dim, src, dst, i, j, 8, 8);
            else
                copy_block_avx512(dim, src, dst, i, j, r < 8 ? r : 8, c < 8 ? c : 8);
        }
}

static const ref_rotate_tile_fn tile_fns[] = {
    [REF_SIMD_SCALAR] = ref_rotate_tile_unrolled,
    [REF_SIMD_AVX2] = copy_tile_avx2,
    [REF_SIMD_AVX512] = copy_tile_avx512,
};

void ref_rotate_simd_dispatch(int dim, pixel *src, pixel *dst, int level)
{
    /* Below 4 the AVX-512 loads' addresses could point before src. */
    if (level == REF_SIMD_AVX512 && dim < 4)
        level = REF_SIMD_SCALAR;
    /* The AVX-512 blocks are big enough to need no tiles around them: one
     * image-wide tile is a walk of 8-column bands, each writing 8 whole dst
     * rows front to back, and the src lines a band reads in part (a 64-byte
     * line holds 10.7 pixels) wait in L1 or L2 for the next band. Measured
     * against 16..128-pixel tiles this was as fast or faster at every dim. */
    ref_rotate_tiled(dim, src, dst, level == REF_SIMD_AVX512 ? dim : REF_ROTATE_TILE,
                     tile_fns[level]);
}

void ref_rotate_simd(int dim, pixel *src, pixel *dst)
{
    ref_rotate_simd_dispatch(dim, src, dst, ref_simd_best_level());
}
