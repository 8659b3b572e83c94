/*
 * smooth_simd.c - the two-pass smooth with SIMD row passes, AVX-512 (16
 * channel values per instruction) or AVX2 (8) as the CPU allows, else the
 * scalar passes; sums widened to 32 bits (three rows of 65535 already
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

/*
 * The AVX-512 passes: 16 values per instruction. The division keeps the
 * same multiply and shift, with the multiplier pre-shifted by 11 so that the
 * quotient is the high dword of each 64-bit product, floor(x*M*2^11 / 2^32)
 * = floor(x*M / 2^21), and a dword permute, not shifts and a blend, collects
 * the two halves.
 */
#define AVX512 __attribute__((target("avx512f,avx512bw")))

AVX512 static __m512i widen16(const unsigned short *values)
{
    return _mm512_cvtepu16_epi32(_mm256_loadu_si256((const __m256i *)values));
}

AVX512 static void vertical_avx512(const unsigned short *above,
                                   const unsigned short *row,
                                   const unsigned short *below,
                                   unsigned *sums, int n)
{
    if (n < 16) {
        ref_smooth_vertical_scalar(above, row, below, sums, n);
        return;
    }
    /* The last chunk ends at n, overlapping the one before it (rewriting
     * equal sums) rather than leaving up to 15 values to scalar code, which
     * at dim 64 would be a tenth of each row. */
    for (int k = 0;; k += 16) {
        if (k > n - 16)
            k = n - 16;
        __m512i sum = _mm512_add_epi32(_mm512_add_epi32(widen16(above + k), widen16(row + k)),
                                       widen16(below + k));
        _mm512_storeu_si512(sums + k, sum);
        if (k == n - 16)
            break;
    }
}

/* x / 9 in each dword, the quotient in the low word of the dword. */
AVX512 static __m512i div9_512(__m512i x)
{
    const __m512i multiplier = _mm512_set1_epi32((int)(REF_DIV9_MULTIPLIER << (32 - REF_DIV9_SHIFT)));
    /* Dword i of the result: the high dword of product i, which is dword i+1
     * of the even products (i even) or dword i of the odd ones (16 + i). */
    const __m512i high_dwords = _mm512_setr_epi32(1, 17, 3, 19, 5, 21, 7, 23,
                                                  9, 25, 11, 27, 13, 29, 15, 31);
    __m512i even = _mm512_mul_epu32(x, multiplier);
    __m512i odd = _mm512_mul_epu32(_mm512_srli_epi64(x, 32), multiplier);
    return _mm512_permutex2var_epi32(even, high_dwords, odd);
}

AVX512 static __m512i window_sum512(const unsigned *sums)
{
    __m512i left = _mm512_loadu_si512(sums - 3);
    __m512i centre = _mm512_loadu_si512(sums);
    __m512i right = _mm512_loadu_si512(sums + 3);
    return _mm512_add_epi32(_mm512_add_epi32(left, centre), right);
}

AVX512 static void horizontal_avx512(const unsigned *sums, unsigned short *out, int n)
{
    /* The low words of 32 dwords, in order: word 2w of the pair. */
    const __m512i low_words = _mm512_setr_epi32(
        0x00020000, 0x00060004, 0x000A0008, 0x000E000C, 0x00120010, 0x00160014,
        0x001A0018, 0x001E001C, 0x00220020, 0x00260024, 0x002A0028, 0x002E002C,
        0x00320030, 0x00360034, 0x003A0038, 0x003E003C);

    if (n < 32) {
        ref_smooth_horizontal_scalar(sums, out, n);
        return;
    }
    /* The last chunk overlaps, as in vertical_avx512. */
    for (int k = 0;; k += 32) {
        if (k > n - 32)
            k = n - 32;
        __m512i packed = _mm512_permutex2var_epi16(div9_512(window_sum512(sums + k)), low_words,
                                                   div9_512(window_sum512(sums + k + 16)));
        _mm512_storeu_si512(out + k, packed);
        if (k == n - 32)
            break;
    }
}

static const ref_smooth_vertical_fn vertical_fns[] = {
    [REF_SIMD_SCALAR] = ref_smooth_vertical_scalar,
    [REF_SIMD_AVX2] = vertical_avx2,
    [REF_SIMD_AVX512] = vertical_avx512,
};
static const ref_smooth_horizontal_fn horizontal_fns[] = {
    [REF_SIMD_SCALAR] = ref_smooth_horizontal_scalar,
    [REF_SIMD_AVX2] = horizontal_avx2,
    [REF_SIMD_AVX512] = horizontal_avx512,
};

void ref_smooth_simd_dispatch(int dim, pixel *src, pixel *dst, int level)
{
    ref_smooth_two_pass_with(dim, src, dst, vertical_fns[level], horizontal_fns[level]);
}

void ref_smooth_simd(int dim, pixel *src, pixel *dst)
{
    ref_smooth_simd_dispatch(dim, src, dst, ref_simd_best_level());
}
