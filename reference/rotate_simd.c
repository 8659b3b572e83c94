/*
 * rotate_simd.c - the AVX2 rotate: 4x4 blocks of pixels transposed in
 * registers, so every load and store moves a whole 24-byte run of 4 pixels
 * instead of one 6-byte pixel.
 *
 * A pixel is 6 bytes, which no shuffle works on, so each block goes:
 *  1. load a 4-pixel run of each source row as [bytes 0..15 | bytes 8..23]
 *     (two 16-byte loads that stay inside the run) and byte-shuffle it so
 *     every pixel sits in its own 64-bit lane;
 *  2. transpose the 4x4 matrix of 64-bit lanes (unpack + 128-bit permutes);
 *  3. squeeze each column back to 24 bytes (byte shuffle, then a dword
 *     permute to [bytes 0..15 | bytes 8..23]) and store it as two 16-byte
 *     stores that overlap on identical bytes: no byte outside the run is
 *     read or written, so blocks need no ordering and no tail padding.
 * Tile edges that are not multiples of 4 go through the scalar tile copy.
 */
#include <immintrin.h>
#include "reference.h"

#define AVX2 __attribute__((target("avx2")))

AVX2 static __m256i load_run(const pixel *run)
{
    const __m128i *bytes = (const __m128i *)run;
    __m256i both = _mm256_inserti128_si256(
        _mm256_castsi128_si256(_mm_loadu_si128(bytes)),
        _mm_loadu_si128((const __m128i *)((const char *)run + 8)), 1);
    /* Low lane holds pixels 0,1 at bytes 0 and 6; high lane, which starts
     * at byte 8, holds pixels 2,3 at its bytes 4 and 10. */
    const __m256i spread = _mm256_setr_epi8(
        0, 1, 2, 3, 4, 5, -1, -1, 6, 7, 8, 9, 10, 11, -1, -1,
        4, 5, 6, 7, 8, 9, -1, -1, 10, 11, 12, 13, 14, 15, -1, -1);
    return _mm256_shuffle_epi8(both, spread);
}

AVX2 static void store_run(pixel *run, __m256i lanes)
{
    const __m256i squeeze = _mm256_setr_epi8(
        0, 1, 2, 3, 4, 5, 8, 9, 10, 11, 12, 13, -1, -1, -1, -1,
        0, 1, 2, 3, 4, 5, 8, 9, 10, 11, 12, 13, -1, -1, -1, -1);
    /* Dwords 0-2 are run bytes 0..11, dwords 4-6 bytes 12..23. */
    const __m256i halves = _mm256_setr_epi32(0, 1, 2, 4, 2, 4, 5, 6);
    __m256i packed = _mm256_permutevar8x32_epi32(
        _mm256_shuffle_epi8(lanes, squeeze), halves);
    _mm_storeu_si128((__m128i *)run, _mm256_castsi256_si128(packed));
    _mm_storeu_si128((__m128i *)((char *)run + 8),
                     _mm256_extracti128_si256(packed, 1));
}

/* Rotates the 4x4 block at source (i, j). */
AVX2 static void copy_block(int dim, const pixel *src, pixel *dst, int i, int j)
{
    const pixel *s = src + RIDX(i, j, dim);
    __m256i r0 = load_run(s);
    __m256i r1 = load_run(s + dim);
    __m256i r2 = load_run(s + 2 * dim);
    __m256i r3 = load_run(s + 3 * dim);
    __m256i t0 = _mm256_unpacklo_epi64(r0, r1);
    __m256i t1 = _mm256_unpackhi_epi64(r0, r1);
    __m256i t2 = _mm256_unpacklo_epi64(r2, r3);
    __m256i t3 = _mm256_unpackhi_epi64(r2, r3);
    /* Source column j+c becomes destination row dim-1-j-c. */
    pixel *d = dst + RIDX(dim-1-j, i, dim);
    store_run(d, _mm256_permute2x128_si256(t0, t2, 0x20));
    store_run(d - dim, _mm256_permute2x128_si256(t1, t3, 0x20));
    store_run(d - 2 * dim, _mm256_permute2x128_si256(t0, t2, 0x31));
    store_run(d - 3 * dim, _mm256_permute2x128_si256(t1, t3, 0x31));
}

AVX2 static void copy_tile_avx2(int dim, const pixel *src, pixel *dst,
                                int i0, int j0, int rows, int cols)
{
    int rows4 = rows & ~3, cols4 = cols & ~3;

    for (int j = j0; j < j0 + cols4; j += 4)
        for (int i = i0; i < i0 + rows4; i += 4)
            copy_block(dim, src, dst, i, j);
    if (cols4 < cols)
        ref_rotate_tile_unrolled(dim, src, dst, i0, j0 + cols4, rows, cols - cols4);
    if (rows4 < rows)
        ref_rotate_tile_unrolled(dim, src, dst, i0 + rows4, j0, rows - rows4, cols4);
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
