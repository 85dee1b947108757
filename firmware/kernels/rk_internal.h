/*
** rk_internal.h — helpers shared by the kernel sources (not installed,
** not part of the API): argument checks, the int8 dot products, the final
** requantize-offset-clamp step and scratch carving.
**
** Accumulation: TFLite accumulates in int32 and an overflow there is
** undefined; here every sum is taken in uint32_t, which is exact whenever
** the true sum fits int32 (always, for K = k_h k_w c_in <= 2^16 and any
** bias that keeps the total in range) and wraps like compiled TFLite
** otherwise, without undefined behaviour.
*/
#ifndef RK_INTERNAL_H
#define RK_INTERNAL_H

#include <string.h>

#include "rk_dsp.h"
#include "rk_requantize_inline.h"
#include "rk_types.h"

#define RK_MAX_SCALARS ((int64_t)INT32_MAX)

static inline bool rk_act_ok(rk_act a)
{
    return a.min >= -128 && a.max <= 127 && a.min <= a.max;
}

static inline bool rk_dims_ok(rk_dims d)
{
    return d.h >= 1 && d.w >= 1 && d.c >= 1 && (int64_t)d.h * d.w * d.c <= RK_MAX_SCALARS;
}

/* The element count of a shape, or -1 when its rank is outside
** [1, RK_MAX_RANK], an extent is below 1 or the count reaches 2^31. */
static inline int64_t rk_shape_count(rk_shape s)
{
    if (s.rank < 1 || s.rank > RK_MAX_RANK)
        return -1;
    int64_t n = 1;
    for (int32_t i = 0; i < s.rank; i++) {
        if (s.d[i] < 1)
            return -1;
        n *= s.d[i];
        if (n > RK_MAX_SCALARS)
            return -1;
    }
    return n;
}

/* a b <= RK_MAX_SCALARS, for a, b >= 1.  On ARMv6-M (RK_THUMB1) a 64-bit
** product is a call to __aeabi_lmul, so factors below 2^16 (whose product
** fits uint32_t) are checked in 32 bits; the answer is the same. */
static inline bool rk_product_ok(int32_t a, int32_t b)
{
#if RK_THUMB1
    if ((a | b) < 65536)
        return (uint32_t)a * (uint32_t)b <= (uint32_t)RK_MAX_SCALARS;
#endif
    return (int64_t)a * b <= RK_MAX_SCALARS;
}

/* Output extent of one axis, or -1 when the dilated kernel does not fit. */
static inline int64_t rk_out_extent(int64_t n, int64_t k, int64_t s, int64_t d, int64_t lo, int64_t hi)
{
    const int64_t keff = d * (k - 1) + 1;
    const int64_t np = n + lo + hi;
    if (np < keff)
        return -1;
    /* Every kernel call checks its extents: a 64-bit division is a library
    ** call on M-profile cores (about 60-100 instructions) and tens of cycles
    ** on x86, a visible share of a one-pixel layer.  s = 1 needs none, and
    ** the usual sizes fit a 32-bit one (one instruction on the M33). */
    const int64_t span = np - keff;
    if (s == 1)
        return span + 1;
    if (span <= INT32_MAX && s <= INT32_MAX)
        return (int64_t)((int32_t)span / (int32_t)s) + 1;
    return span / s + 1;
}

/*
** Whether shift[0 .. n) all lie in [-31, 30]: (uint32_t)(s + 31) <= 61,
** four channels a step (one test a channel and a quarter of the loop's
** tests: a 672-channel layer's check was 7 instructions a channel on the
** M33, about 3% of a 2 x 2 depthwise layer).
*/
static inline bool rk_shifts_ok(const int32_t *shift, int32_t n)
{
    int32_t i = 0;
    for (; i + 4 <= n; i += 4) {
        const uint32_t a = (uint32_t)shift[i] + 31u, b = (uint32_t)shift[i + 1] + 31u;
        const uint32_t c = (uint32_t)shift[i + 2] + 31u, d = (uint32_t)shift[i + 3] + 31u;
        if (a > 61u || b > 61u || c > 61u || d > 61u)
            return false;
    }
    for (; i < n; i++)
        if ((uint32_t)shift[i] + 31u > 61u)
            return false;
    return true;
}

/*
** Check a convolution (depthwise too: depthwise sets cout_per_group) and its
** tensors: every field in range, out.h/out.w the output extents of in, the
** quantization arrays present with shifts in [-31, 30].  Returns RK_OK or
** RK_ARG.  q may be NULL when no requantization is involved.
*/
static inline rk_status rk_conv_check(const rk_conv_params *p, const rk_quant *q, rk_dims in, rk_dims out)
{
    if (p == NULL || !rk_dims_ok(in) || !rk_dims_ok(out) || !rk_act_ok(p->act))
        return RK_ARG;
    if (p->k_h < 1 || p->k_w < 1 || p->s_h < 1 || p->s_w < 1 || p->d_h < 1 || p->d_w < 1 ||
        p->p_top < 0 || p->p_bottom < 0 || p->p_left < 0 || p->p_right < 0)
        return RK_ARG;
    if (p->input_offset < -127 || p->input_offset > 128 || p->output_offset < -128 || p->output_offset > 127)
        return RK_ARG;
    const int64_t h_p = (int64_t)in.h + p->p_top + p->p_bottom, w_p = (int64_t)in.w + p->p_left + p->p_right;
    if (h_p * w_p * in.c > RK_MAX_SCALARS || (int64_t)p->k_h * p->k_w * in.c > RK_MAX_SCALARS)
        return RK_ARG;
    if (rk_out_extent(in.h, p->k_h, p->s_h, p->d_h, p->p_top, p->p_bottom) != out.h ||
        rk_out_extent(in.w, p->k_w, p->s_w, p->d_w, p->p_left, p->p_right) != out.w)
        return RK_ARG;
    if (q != NULL) {
        if (q->multiplier == NULL || q->shift == NULL || !rk_shifts_ok(q->shift, out.c))
            return RK_ARG;
    }
    return RK_OK;
}

/* Requantize a wrapped accumulator, add the output zero point, clamp. */
static inline int8_t rk_finish(uint32_t acc, int32_t multiplier, int32_t shift, int32_t output_offset, rk_act act)
{
#if RK_THUMB1
    /* The same clamp in 32 bits (64-bit compares cost a dozen Thumb-1
    ** instructions): r + output_offset < act.min exactly when r < act.min -
    ** output_offset, and the bounds, in [-255, 255], do not overflow. */
    int32_t r = rk_requantize_inline((int32_t)acc, multiplier, shift);
    const int32_t lo = act.min - output_offset, hi = act.max - output_offset;
    if (r < lo)
        r = lo;
    if (r > hi)
        r = hi;
    return (int8_t)(r + output_offset);
#else
    int64_t v = (int64_t)rk_requantize_inline((int32_t)acc, multiplier, shift) + output_offset;
    if (v < act.min)
        v = act.min;
    if (v > act.max)
        v = act.max;
    return (int8_t)v;
#endif
}

/*
** rk_finish with the channel's constants prepared once (rk_rq_of) and the
** two roundings of rk_requantize_inline folded into one 64-bit shift, for
** the host's widened loops, which finish two pixels per channel.  With p =
** (acc << left) * m, TFLite's value is floor((floor((p + 2^30) / 2^31) + h -
** s) / 2^e), h = 2^(e-1) and s = 1 when the inner quotient is negative and
** e > 0 (rounding half away from zero), else 0; nested floors of exact
** divisions fold: floor((p + 2^30 + (h - s) 2^31) / 2^(31 + e)), and the
** inner quotient is negative exactly when p < -2^30.  No term reaches 2^63.
** The one case rk_doubling_high_mul saturates (acc << left and m both
** INT32_MIN, inner quotient 2^31) then gives 2^31 >> e, which differs from
** the saturated (2^31 - 1) >> e only at e = 0, where both are far above
** the clamp: the int8 result is the same for every input (a test in
** tests/test_kernels.c compares both on random and extreme operands).
*/
typedef struct rk_rq {
    int64_t k, lim;   /* 2^30 + h 2^31; -2^30 when e > 0, else INT64_MIN (s never 1) */
    int32_t m, left, sh;
} rk_rq;

static inline rk_rq rk_rq_of(int32_t multiplier, int32_t shift)
{
    const int32_t e = shift > 0 ? 0 : -shift;
    const int64_t h = e > 0 ? (int64_t)1 << (e - 1) : 0;
    rk_rq r = {.k = ((int64_t)1 << 30) + h * ((int64_t)1 << 31), .lim = e > 0 ? -((int64_t)1 << 30) : INT64_MIN,
               .m = multiplier, .left = shift > 0 ? shift : 0, .sh = 31 + e};
    return r;
}

static inline int8_t rk_finish_rq(uint32_t acc, rk_rq r, int32_t output_offset, rk_act act)
{
    const int64_t p = (int64_t)(int32_t)(acc << r.left) * r.m;
    /* >> on a negative int64_t is arithmetic on every compiler we target */
    int64_t v = ((p + r.k - (p < r.lim ? (int64_t)1 << 31 : 0)) >> r.sh) + output_offset;
    if (v < act.min)
        v = act.min;
    if (v > act.max)
        v = act.max;
    return (int8_t)v;
}
/* ARMv6-M: the per-output finishing step inlined where a compiler would
** call it (its prologue and epilogue cost more than half the step). */
#if RK_THUMB1
#define RK_FINISH_INLINE inline __attribute__((always_inline))
#else
#define RK_FINISH_INLINE
#endif

/* sum (x[i] + offset) * w[i], i < n, wrapped: the form TFLite writes.  offset is
** an input offset, in [-127, 128] (rk_conv_check and every caller check
** it), so x + offset lies in [-255, 255] and is held in 16 bits: the
** product is then a 16 x 16 -> 32 bit multiply, which a compiler
** vectorizes far better than a full 32-bit one. */
#if RK_THUMB1 && !defined(__clang__)
/* ARMv6-M (RK_THUMB1, rk_requantize_inline.h), GCC: the same two functions in
** hand-scheduled Thumb-1 (clang keeps r7 as its frame pointer and cannot
** give the asm its eight low registers; it compiles the C loops).  GCC 12 spills the C loop's pointers and
** re-zeroes its index registers (6 instructions per product at four
** channels); here the index counts up from -n to 0 over pointers moved to
** the ends of their rows (ldrsb takes only a register offset), the
** accumulators and the offset live in high registers, so a product costs
** a load, a multiply and an add: 4 instructions per product at four
** channels.  The sums are the same wrapped int32 sums, in the same order. */
static inline uint32_t rk_dot_off(const int8_t *x, const int8_t *w, int32_t n, int32_t offset)
{
    uint32_t a = 0;
    if (n <= 0)
        return a;
    const int8_t *xe = x + n, *we = w + n;
    int32_t i = -n, t, u;
    __asm__(".syntax unified\n"
            "1:\n\t"
            "ldrsb %[t], [%[x], %[i]]\n\t"
            "add %[t], %[off]\n\t"
            "ldrsb %[u], [%[w], %[i]]\n\t"
            "muls %[u], %[t], %[u]\n\t"
            "add %[a], %[u]\n\t"
            "adds %[i], #1\n\t"
            "bne 1b"
            : [i] "+l"(i), [t] "=&l"(t), [u] "=&l"(u), [a] "+h"(a)
            : [x] "l"(xe), [w] "l"(we), [off] "h"(offset)
            : "cc", "memory");
    return a;
}

static inline void rk_dot4_off_acc(const int8_t *x, const int8_t *w, ptrdiff_t stride, int32_t n, int32_t offset,
                                   uint32_t acc[4])
{
    if (n <= 0)
        return;
    const int8_t *xe = x + n, *w0 = w + n, *w1 = w0 + stride, *w2 = w1 + stride, *w3 = w2 + stride;
    int32_t i = -n, t, u;
    uint32_t a0 = acc[0], a1 = acc[1], a2 = acc[2], a3 = acc[3];
    __asm__(".syntax unified\n"
            "1:\n\t"
            "ldrsb %[t], [%[x], %[i]]\n\t"
            "add %[t], %[off]\n\t"
            "ldrsb %[u], [%[w0], %[i]]\n\t"
            "muls %[u], %[t], %[u]\n\t"
            "add %[a0], %[u]\n\t"
            "ldrsb %[u], [%[w1], %[i]]\n\t"
            "muls %[u], %[t], %[u]\n\t"
            "add %[a1], %[u]\n\t"
            "ldrsb %[u], [%[w2], %[i]]\n\t"
            "muls %[u], %[t], %[u]\n\t"
            "add %[a2], %[u]\n\t"
            "ldrsb %[u], [%[w3], %[i]]\n\t"
            "muls %[u], %[t], %[u]\n\t"
            "add %[a3], %[u]\n\t"
            "adds %[i], #1\n\t"
            "bne 1b"
            : [i] "+l"(i), [t] "=&l"(t), [u] "=&l"(u), [a0] "+h"(a0), [a1] "+h"(a1), [a2] "+h"(a2), [a3] "+h"(a3)
            : [x] "l"(xe), [w0] "l"(w0), [w1] "l"(w1), [w2] "l"(w2), [w3] "l"(w3), [off] "h"(offset)
            : "cc", "memory");
    acc[0] = a0;
    acc[1] = a1;
    acc[2] = a2;
    acc[3] = a3;
}
#else
static inline uint32_t rk_dot_off(const int8_t *x, const int8_t *w, int32_t n, int32_t offset)
{
    uint32_t acc = 0;
    for (int32_t i = 0; i < n; i++) {
        const int16_t xi = (int16_t)((int32_t)x[i] + offset);
        acc += (uint32_t)((int32_t)xi * (int32_t)w[i]);
    }
    return acc;
}

/* acc[k] += sum (x[i] + offset) * w[k * stride + i], i < n, k < 4, wrapped:
** rk_dot_off for four filter rows stride bytes apart, x loaded once
** (offset in [-127, 128] as there). */
static inline void rk_dot4_off_acc(const int8_t *x, const int8_t *w, ptrdiff_t stride, int32_t n, int32_t offset,
                                   uint32_t acc[4])
{
    const int8_t *w0 = w, *w1 = w + stride, *w2 = w + 2 * stride, *w3 = w + 3 * stride;
    uint32_t a0 = 0, a1 = 0, a2 = 0, a3 = 0;
    for (int32_t i = 0; i < n; i++) {
        const int16_t xi = (int16_t)((int32_t)x[i] + offset);
        a0 += (uint32_t)((int32_t)xi * w0[i]);
        a1 += (uint32_t)((int32_t)xi * w1[i]);
        a2 += (uint32_t)((int32_t)xi * w2[i]);
        a3 += (uint32_t)((int32_t)xi * w3[i]);
    }
    acc[0] += a0;
    acc[1] += a1;
    acc[2] += a2;
    acc[3] += a3;
}
#endif

/* acc[k] += sum (x0[i] + offset) w[k * stride + i] and acc[4 + k] += the
** same for x1, i < n, k < 4, wrapped: two pixels against four filter rows,
** so every filter byte loaded serves two pixels and every input byte four
** channels (offset in [-127, 128] as for rk_dot_off: the 16-bit form is
** what lets a compiler use a 16 x 16 -> 32 bit multiply-add). */
static inline void rk_dot2x4_off_acc(const int8_t *x0, const int8_t *x1, const int8_t *w, ptrdiff_t stride,
                                     int32_t n, int32_t offset, uint32_t acc[8])
{
    const int8_t *w0 = w, *w1 = w + stride, *w2 = w + 2 * stride, *w3 = w + 3 * stride;
    uint32_t a0 = 0, a1 = 0, a2 = 0, a3 = 0, b0 = 0, b1 = 0, b2 = 0, b3 = 0;
    for (int32_t i = 0; i < n; i++) {
        const int16_t xi = (int16_t)((int32_t)x0[i] + offset), xj = (int16_t)((int32_t)x1[i] + offset);
        a0 += (uint32_t)((int32_t)xi * w0[i]);
        a1 += (uint32_t)((int32_t)xi * w1[i]);
        a2 += (uint32_t)((int32_t)xi * w2[i]);
        a3 += (uint32_t)((int32_t)xi * w3[i]);
        b0 += (uint32_t)((int32_t)xj * w0[i]);
        b1 += (uint32_t)((int32_t)xj * w1[i]);
        b2 += (uint32_t)((int32_t)xj * w2[i]);
        b3 += (uint32_t)((int32_t)xj * w3[i]);
    }
    acc[0] += a0;
    acc[1] += a1;
    acc[2] += a2;
    acc[3] += a3;
    acc[4] += b0;
    acc[5] += b1;
    acc[6] += b2;
    acc[7] += b3;
}

/* sum over r < runs of rk_dot_off(x + r * xs, w + r * n, n, offset):
** one pixel's taps given as runs rows of n bytes, xs apart. */
static inline uint32_t rk_runs_dot_off(const int8_t *x, ptrdiff_t xs, int32_t runs, const int8_t *w, int32_t n,
                                       int32_t offset)
{
    uint32_t acc = 0;
    for (int32_t r = 0; r < runs; r++)
        acc += rk_dot_off(x + r * xs, w + (ptrdiff_t)r * n, n, offset);
    return acc;
}

/* The accumulator start of channel oc: its bias, or 0. */
static inline uint32_t rk_bias0(const int32_t *bias, int32_t oc)
{
    return bias != NULL ? (uint32_t)bias[oc] : 0u;
}

/* Scratch layout of the gathering convolutions: cout uint32 constants
** (aligned inside the scratch, whatever its own alignment), then the
** receptive field of one pixel.  The size reserves the alignment slack. */
static inline size_t rk_gather_scratch_size(int64_t cout, int64_t depth)
{
    return (size_t)(sizeof(uint32_t) - 1 + (size_t)cout * sizeof(uint32_t) + (size_t)depth);
}

static inline uint32_t *rk_gather_pre(int8_t *scratch)
{
    const uintptr_t a = (uintptr_t)scratch, al = (uintptr_t)_Alignof(uint32_t);
    return (uint32_t *)(void *)(scratch + ((al - a % al) % al));
}

/* n bytes from src to dst (not overlapping): by words, four at a time,
** when both are 4-aligned and n is a multiple of 4, since the Cortex-M
** memcpy (picolibc, -Os) moves one byte per iteration.  On the Cortex-M
** targets a multiple of 16 bytes (Thumb-1: M0) or of 32 (Thumb-2: M33)
** goes by LDM/STM of 4 or 8 registers, 16 bytes in four instructions on
** the M0 and 64 in six on the M33: GCC's own loop for the 16-byte step
** took 11 instructions (register pressure), which made the in-place 1x1's
** pixel copy at gap 0 75 instructions a 64-byte pixel on the M0.  (An LDM
** of n registers takes 1 + n cycles: the copy is cheaper in cycles too,
** not only in instructions.) */
static inline void rk_copy_bytes(int8_t *dst, const int8_t *src, size_t n)
{
    if ((((uintptr_t)dst | (uintptr_t)src | (uintptr_t)n) & 3u) != 0) {
        memcpy(dst, src, n);
        return;
    }
#if defined(__arm__) && defined(__thumb2__)
    if (n >= 32 && n % 32 == 0) {
        /* an odd 32-byte block first, then 64 bytes a step */
        __asm__ volatile("tst %[n], #32\n\t"
                         "beq 2f\n\t"
                         "ldmia %[s]!, {r3, r4, r5, r6, r8, r9, r10, r12}\n\t"
                         "stmia %[d]!, {r3, r4, r5, r6, r8, r9, r10, r12}\n\t"
                         "subs %[n], %[n], #32\n\t"
                         "beq 3f\n"
                         "2:\n\t"
                         "ldmia %[s]!, {r3, r4, r5, r6, r8, r9, r10, r12}\n\t"
                         "stmia %[d]!, {r3, r4, r5, r6, r8, r9, r10, r12}\n\t"
                         "ldmia %[s]!, {r3, r4, r5, r6, r8, r9, r10, r12}\n\t"
                         "stmia %[d]!, {r3, r4, r5, r6, r8, r9, r10, r12}\n\t"
                         "subs %[n], %[n], #64\n\t"
                         "bne 2b\n"
                         "3:"
                         : [s] "+r"(src), [d] "+r"(dst), [n] "+r"(n)
                         :
                         : "r3", "r4", "r5", "r6", "r8", "r9", "r10", "r12", "cc", "memory");
        return;
    }
#elif defined(__arm__) && RK_THUMB1
    if (n >= 16 && n % 16 == 0) {
        /* CMP against the end: GCC assembles Thumb-1 inline asm in the
        ** divided syntax, where SUBS has no spelling the unified one shares */
        const int8_t *end = src + n;
        __asm__ volatile("1:\n\t"
                         "ldmia %[s]!, {r3, r4, r5, r6}\n\t"
                         "stmia %[d]!, {r3, r4, r5, r6}\n\t"
                         "cmp %[s], %[e]\n\t"
                         "bne 1b"
                         : [s] "+l"(src), [d] "+l"(dst)
                         : [e] "l"(end)
                         : "r3", "r4", "r5", "r6", "cc", "memory");
        return;
    }
#endif
    int8_t *d = __builtin_assume_aligned(dst, 4);
    const int8_t *x = __builtin_assume_aligned(src, 4);
    size_t i = 0;
    for (; i + 16 <= n; i += 16) /* four words a step */
        memcpy(d + i, x + i, 16);
    for (; i < n; i += 4)
        memcpy(d + i, x + i, 4);
}

/* One channel's input row into a plane row: row[j] = src[j stride] for j
** in [0, w).  DSP: four strided loads, then four stores at fixed offsets,
** one pointer step and one loop test per four bytes (the gather is about a
** tenth of the plane loop's 3x3 on the M33). */
static inline void rk_gather_plane_row(int8_t *row, const int8_t *src, int32_t w, int32_t stride)
{
    int32_t j = 0;
#if RK_DSP
    const ptrdiff_t n1 = stride, n2 = 2 * (ptrdiff_t)stride, n3 = 3 * (ptrdiff_t)stride, n4 = 4 * (ptrdiff_t)stride;
    for (; j + 4 <= w; j += 4, src += n4) {
        const int8_t b0 = src[0], b1 = src[n1], b2 = src[n2], b3 = src[n3];
        row[j] = b0;
        row[j + 1] = b1;
        row[j + 2] = b2;
        row[j + 3] = b3;
    }
    for (; j < w; j++, src += stride)
        row[j] = src[0];
#else
    for (; j < w; j++)
        row[j] = src[(ptrdiff_t)j * stride];
#endif
}

/* A 1x1 convolution without padding, any stride (rk_pointwise.c), on
** arguments the caller has checked; needs no scratch. */
void rk_pointwise_run(const rk_conv_params *p, const rk_quant *q, rk_dims in, const int8_t *input,
                      const int8_t *filter, const int32_t *bias, rk_dims out, int8_t *output);

/* Output pixels [from, to) (row-major) of the same, into output + pix c_out. */
void rk_pointwise_range(const rk_conv_params *p, const rk_quant *q, rk_dims in, const int8_t *input,
                        const int8_t *filter, const int32_t *bias, rk_dims out, int8_t *output, int32_t from,
                        int32_t to);

/*
** rk_conv2d's gathered path (any layer; rk_conv2d itself runs 1x1 layers
** without padding through rk_pointwise_run) on arguments the caller has
** checked, scratch of rk_conv2d_buffer_size.  Per pixel (or pixel pair)
** every read of the input precedes every write of the output, except in a
** pair read where it lies (host only, RK_PIXEL_PAIRS): there the first
** pixel's writes precede the second's last reads, and the second's writes
** do too unless hold, which holds them in scratch until its reads are
** done.  So with hold, input and output may share memory (rk_conv2d_rip)
** whenever no pixel's writes meet a later pixel's reads.
*/
void rk_conv2d_run(const rk_conv_params *p, const rk_quant *q, rk_dims in, const int8_t *input,
                   const int8_t *filter, const int32_t *bias, rk_dims out, int8_t *output, int8_t *scratch,
                   bool hold);

/* Channels 0..cout-1 of two pixels whose fields (depth bytes each) are
** contiguous at x0 and x1, into y0[0..cout) and y1[0..cout), two pixels x
** four channels per inner loop; and of one pixel (rk_pointwise.c).  The
** outputs may not overlap x0, x1 or filter. */
void rk_pair_channels(const rk_conv_params *p, const rk_quant *q, const int8_t *x0, const int8_t *x1,
                      const int8_t *filter, const int32_t *bias, int32_t depth, int32_t cout, int8_t *y0, int8_t *y1);
void rk_one_channels(const rk_conv_params *p, const rk_quant *q, const int8_t *x, const int8_t *filter,
                     const int32_t *bias, int32_t depth, int32_t cout, int8_t *y);

/* Two pixels per inner loop pays where a compiler vectorizes the loop (its
** eight accumulators live in vector registers).  On M-profile Arm cores
** (no vector unit; ARMv6-M has eight low registers) they spill, and the
** pair costs more instructions than it saves: there the kernels run one
** pixel x four channels.  A compile-time constant, so both paths always
** compile. */
#if defined(__ARM_ARCH_PROFILE) && __ARM_ARCH_PROFILE == 'M'
#define RK_PIXEL_PAIRS 0
#else
#define RK_PIXEL_PAIRS 1
#endif

/*
** Widened input (host only, with the pairs): a pixel's field of up to
** RK_WIDE_MAX scalars is first copied to the stack as int16 (x +
** input_offset), once, and every channel's dot product then reads those
** int16 against its int8 filter row, as CMSIS-NN's pure C does
** (arm_q7_to_q15_with_offset, then a 16 x 8 bit product).  The offset add
** and the sign extension of x leave the inner loop, whose only conversion
** left is the filter's; so a vectorized loop does less per byte and short
** fields (depth 8 to 32) are no longer dominated by them.  Every read of a
** pixel's input then precedes every write of its outputs.  Deeper fields
** run the int8 loops above (the stack stays at 2 x 8 KiB).  Off on
** M-profile: there the extra copy only adds instructions, and the stack
** is small.
*/
#define RK_WIDE_MAX (RK_PIXEL_PAIRS ? 4096 : 0)

/*
** A widened field is held zero-extended to a multiple of 16 scalars
** (rk_wide_len), so that a channel's product runs whole vector steps and no
** scalar tail: the extra filter bytes it reads are the next channels' (or
** none), and meet zeros.  Where such a read would pass the filter's end
** (the last channels) the product stops at the true depth.  At depth 8,
** 24 or 27 (1x1 layers of MCUNet, a 3x3 layer on RGB) the tail was most of
** the loop.  Below 8 scalars the zeros would be most of the work: there
** the product keeps its true length (rk_wide_run).
*/
#define RK_WIDE_STEP 16
static inline int32_t rk_wide_len(int32_t depth)
{
    return (depth + RK_WIDE_STEP - 1) / RK_WIDE_STEP * RK_WIDE_STEP;
}

/* The product length of a widened field of depth scalars: rk_wide_len
** unless that more than doubles it. */
static inline int32_t rk_wide_run(int32_t depth)
{
    return rk_wide_len(depth) <= 2 * depth ? rk_wide_len(depth) : depth;
}

/* Zero x[n..rk_wide_len(n)). */
static inline void rk_wide_pad(int16_t *x, int32_t n)
{
    for (int32_t i = n; i < rk_wide_len(n); i++)
        x[i] = 0;
}

/* out[i] = x[i] + offset as int16, i < n (offset in [-127, 128]). */
static inline void rk_widen(const int8_t *x, int32_t n, int32_t offset, int16_t *out)
{
    for (int32_t i = 0; i < n; i++)
        out[i] = (int16_t)((int32_t)x[i] + offset);
}

/* sum x[i] w[i], i < n, wrapped, x widened (rk_widen). */
static inline uint32_t rk_dot_w16(const int16_t *x, const int8_t *w, int32_t n)
{
    uint32_t acc = 0;
    for (int32_t i = 0; i < n; i++)
        acc += (uint32_t)((int32_t)x[i] * (int32_t)w[i]);
    return acc;
}

/* acc[k] += sum x[i] w[k * stride + i], i < n, k < 4, wrapped, x widened. */
static inline void rk_dot4_w16_acc(const int16_t *x, const int8_t *w, ptrdiff_t stride, int32_t n, uint32_t acc[4])
{
    const int8_t *w0 = w, *w1 = w + stride, *w2 = w + 2 * stride, *w3 = w + 3 * stride;
    uint32_t a0 = 0, a1 = 0, a2 = 0, a3 = 0;
    for (int32_t i = 0; i < n; i++) {
        const int32_t xi = x[i];
        a0 += (uint32_t)(xi * w0[i]);
        a1 += (uint32_t)(xi * w1[i]);
        a2 += (uint32_t)(xi * w2[i]);
        a3 += (uint32_t)(xi * w3[i]);
    }
    acc[0] += a0;
    acc[1] += a1;
    acc[2] += a2;
    acc[3] += a3;
}

/* rk_dot2x4_off_acc on widened pixels x0, x1. */
static inline void rk_dot2x4_w16_acc(const int16_t *x0, const int16_t *x1, const int8_t *w, ptrdiff_t stride,
                                     int32_t n, uint32_t acc[8])
{
    const int8_t *w0 = w, *w1 = w + stride, *w2 = w + 2 * stride, *w3 = w + 3 * stride;
    uint32_t a0 = 0, a1 = 0, a2 = 0, a3 = 0, b0 = 0, b1 = 0, b2 = 0, b3 = 0;
    for (int32_t i = 0; i < n; i++) {
        const int32_t xi = x0[i], xj = x1[i];
        a0 += (uint32_t)(xi * w0[i]);
        a1 += (uint32_t)(xi * w1[i]);
        a2 += (uint32_t)(xi * w2[i]);
        a3 += (uint32_t)(xi * w3[i]);
        b0 += (uint32_t)(xj * w0[i]);
        b1 += (uint32_t)(xj * w1[i]);
        b2 += (uint32_t)(xj * w2[i]);
        b3 += (uint32_t)(xj * w3[i]);
    }
    acc[0] += a0;
    acc[1] += a1;
    acc[2] += a2;
    acc[3] += a3;
    acc[4] += b0;
    acc[5] += b1;
    acc[6] += b2;
    acc[7] += b3;
}

/* Channels 0..cout-1 of two widened pixels (rk_pair_channels) and of one
** (rk_one_channels), rk_pointwise.c; host only (RK_WIDE_MAX > 0: not
** compiled for M-profile).  Each pixel holds rk_wide_len(depth) scalars,
** zero past depth. */
#if RK_WIDE_MAX > 0
void rk_pair16_channels(const rk_conv_params *p, const rk_quant *q, const int16_t *x0, const int16_t *x1,
                        const int8_t *filter, const int32_t *bias, int32_t depth, int32_t cout, int8_t *y0,
                        int8_t *y1);
void rk_one16_channels(const rk_conv_params *p, const rk_quant *q, const int16_t *x, const int8_t *filter,
                       const int32_t *bias, int32_t depth, int32_t cout, int8_t *y);
#endif

/*
** rk_depthwise.c: rk_depthwise on checked arguments.  Every loop it runs
** visits the output pixels row-major and writes a pixel's channels only
** after reading all of their taps, so input may be output itself (in
** place, the same layout) when no output pixel reads an input pixel whose
** bytes an earlier output pixel has written: rk_depthwise_inplace's direct
** case (rk_depthwise_inplace.h).
*/
void rk_depthwise_run(const rk_conv_params *p, const rk_quant *q, rk_dims in, const int8_t *input,
                      const int8_t *filter, const int32_t *bias, rk_dims out, int8_t *output);

#endif
