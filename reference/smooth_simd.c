/*
 * smooth_simd.c - the two-pass smooth with AVX2 row passes: 8 channel values
 * per instruction, sums widened to 32 bits (three rows of 65535 already
 * overflow 16 bits, nine reach 589815).
 *
 * AVX2 has no integer division, so the horizontal pass divides by 9 as
 * x * M >> S with M = 233017 and S = 21, which is exact for every sum:
 *   9 * M = 2^21 + 1, so x * M / 2^21 = x/9 + x / (9 * 2^21).
 *   Write x = 9q + r with 0 <= r <= 8. Then x * M / 2^21 = q + (r + x/2^21)/9,
 *   and for x <= 589815 < 2^21 the fraction (r + x/2^21)/9 < (8 + 1)/9 = 1,
 *   so the floor is exactly q.
 * The product needs 38 bits (589815 * 233017 < 2^38), so it is formed with
 * the 32x32->64-bit multiply on even and odd lanes separately.
 */
#include <immintrin.h>
#include "reference.h"

#define AVX2 __attribute__((target("avx2")))

AVX2 static __m256i widen(const unsigned short *values)
{
    return _mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)values));
}

AVX2 static void vertical_avx2(const unsigned short *above,
                               const unsigned short *row,
                               const unsigned short *below,
                               unsigned *sums, int n)
{
    int k = 0;

    for (; k + 8 <= n; k += 8) {
        __m256i sum = _mm256_add_epi32(_mm256_add_epi32(widen(above + k), widen(row + k)),
                                       widen(below + k));
        _mm256_storeu_si256((__m256i *)(sums + k), sum);
    }
    ref_smooth_vertical_scalar(above + k, row + k, below + k, sums + k, n - k);
}

AVX2 static __m256i div9(__m256i x)
{
    const __m256i multiplier = _mm256_set1_epi32((int)REF_DIV9_MULTIPLIER);
    __m256i even = _mm256_srli_epi64(_mm256_mul_epu32(x, multiplier), REF_DIV9_SHIFT);
    /* Shifting the odd products left by 32-S leaves the quotient in the high
     * dword, where the blend takes it from. */
    __m256i odd = _mm256_slli_epi64(
        _mm256_mul_epu32(_mm256_srli_epi64(x, 32), multiplier), 32 - REF_DIV9_SHIFT);
    return _mm256_blend_epi32(even, odd, 0xAA);
}

AVX2 static __m256i window_sum(const unsigned *sums)
{
    __m256i left = _mm256_loadu_si256((const __m256i *)(sums - 3));
    __m256i centre = _mm256_loadu_si256((const __m256i *)sums);
    __m256i right = _mm256_loadu_si256((const __m256i *)(sums + 3));
    return _mm256_add_epi32(_mm256_add_epi32(left, centre), right);
}

AVX2 static void horizontal_avx2(const unsigned *sums, unsigned short *out, int n)
{
    int k = 0;

    for (; k + 16 <= n; k += 16) {
        /* packus interleaves the 128-bit halves; the permute restores order. */
        __m256i packed = _mm256_packus_epi32(div9(window_sum(sums + k)),
                                             div9(window_sum(sums + k + 8)));
        _mm256_storeu_si256((__m256i *)(out + k),
                            _mm256_permute4x64_epi64(packed, 0xD8));
    }
    ref_smooth_horizontal_scalar(sums + k, out + k, n - k);
}

void ref_smooth_simd_dispatch(int dim, pixel *src, pixel *dst, int level)
{
    if (level >= REF_SIMD_AVX2)
        ref_smooth_two_pass_with(dim, src, dst, vertical_avx2, horizontal_avx2);
    else
        ref_smooth_two_pass(dim, src, dst);
}

void ref_smooth_simd(int dim, pixel *src, pixel *dst)
{
    ref_smooth_simd_dispatch(dim, src, dst, ref_simd_best_level());
}
