/*
 * rotate_simd.c - the AVX2 rotate: 4x4 blocks of pixels transposed in
 * registers, so loads and stores move runs of pixels instead of one 6-byte
 * pixel at a time.
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

void ref_rotate_simd_dispatch(int dim, pixel *src, pixel *dst, int avx2)
{
    ref_rotate_tiled(dim, src, dst, REF_ROTATE_TILE,
                     avx2 ? copy_tile_avx2 : ref_rotate_tile_unrolled);
}

void ref_rotate_simd(int dim, pixel *src, pixel *dst)
{
    ref_rotate_simd_dispatch(dim, src, dst, __builtin_cpu_supports("avx2"));
}
