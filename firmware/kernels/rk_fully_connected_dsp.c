/*
** rk_fully_connected_dsp.c — the DSP path (rk_dsp.h) of
** rk_fully_connected's output loop.  Compiled to nothing where RK_DSP is
** 0; equal byte for byte to the plain loop.
**
** The layers it meets are of two kinds: wide classifiers (hundreds of
** outputs, where the four-row rk_dsp_dot4 dominates) and tiny heads (2
** classes over 160 or 256 features, hello_world's 1 -> 16 and 16 -> 1),
** where a couple of hundred instructions are all there is and a fixed
** cost of fifty shows.  So:
**  - per tensor with a right shift and a multiplier >= 0 (every model's
**    layer) the requantization is one 64-bit sum (fc_finish_t, fc_finish_1),
**    the full-range clamp one SSAT;
**  - four or more outputs: blocks of 4 (rk_dsp_dot4), then 2 (fc_dot2, the
**    input widened once for both rows), then 1, the constants built once
**    (fc_layer); below four inputs one output at a time (no four-row call
**    set up for a byte tail);
**  - one to three outputs (rk_fully_connected_dsp_head, called by
**    rk_fully_connected itself; a single output straight through
**    rk_fully_connected_dsp_one): leaf calls that read their own constants;
**  - anything else (per channel, left shifts, negative multipliers): the
**    general loop, fc_channels, with rk_finish's two roundings.
*/
#include "rk_dsp.h"

#if RK_DSP
#include "rk_internal.h"

/* Out of line and kept to its own signature: GCC's noipa (noinline alone
** lets its IPA-SRA rewrite the arguments, which then defeats the sibling
** calls of the dispatch); clang has no noipa and no such rewrite. */
#if defined(__clang__)
#define FC_OUT_OF_LINE __attribute__((noinline))
#else
#define FC_OUT_OF_LINE __attribute__((noipa))
#endif

/*
** One channel's requantization constants: rk_dsp_finish's (rk_dsp.h) with
** the rounding mask and half-mask also taken out of the per-output step.
** The result is rk_dsp_finish's bit for bit (the same operations, the
** constants merely computed earlier).
*/
typedef struct fc_rq {
    int32_t mult, left, right, mask, half;
} fc_rq;

/* The constants of multiplier m and shift s (s in [-31, 30], checked). */
static inline fc_rq fc_rq_of(int32_t m, int32_t s)
{
    fc_rq r;
    r.mult = m;
    r.left = s & ~(s >> 31); /* max(s, 0) without a branch */
    r.right = r.left - s;
    r.mask = (int32_t)((1u << r.right) - 1u);
    r.half = r.mask >> 1;
    return r;
}

/* clamp(requantize(acc) + oo, act) as rk_finish (rk_internal.h); lo and hi
** are the clamp moved before the offset (act.min - oo, act.max - oo). */
static inline int8_t fc_finish(uint32_t acc, fc_rq r, int32_t lo, int32_t hi, int32_t oo)
{
    const int32_t shifted = (int32_t)(acc << r.left);
    int32_t h;
    if (__builtin_expect(r.mult == INT32_MIN, 0)) /* the one product the 64-bit form overflows */
        h = rk_doubling_high_mul(shifted, r.mult);
    else /* floor((a m + 2^30) / 2^31): >> of a negative value is arithmetic (rk_requantize_inline.h) */
        h = (int32_t)(((int64_t)shifted * r.mult + ((int64_t)1 << 30)) >> 31);
    const int32_t threshold = r.half + (int32_t)((uint32_t)h >> 31);
    int32_t v = (h >> r.right) + ((h & r.mask) > threshold ? 1 : 0);
    if (v < lo)
        v = lo;
    if (v > hi)
        v = hi;
    return (int8_t)(v + oo);
}

/*
** acc[0] += sum (x[i] + offset) w[i], acc[1] += sum (x[i] + offset) w[n +
** i], i < n, wrapped; off2 = rk_dsp_off2(offset).  Each word of x is
** widened once for the two rows (the two-row remainder of a layer: the
** 2-class heads are nothing else).
*/
static inline void fc_dot2(const int8_t *x, const int8_t *w, int32_t n, uint32_t off2, int32_t offset,
                           uint32_t acc[2])
{
    uint32_t a0 = acc[0], a1 = acc[1];
    const ptrdiff_t s = n;
    int32_t steps = n >> 2;
#if defined(RK_DSP_ASM)
    uint32_t xa, xb, v, t;
    if (steps > 0)
        __asm__("1:\n\t"
                "ldr %[xa], [%[x]], #4\n\t"
                "sxtab16 %[xb], %[o2], %[xa], ror #8\n\t"
                "sxtab16 %[xa], %[o2], %[xa]\n\t"
                "ldr %[v], [%[w], %[s]]\n\t"
                "sxtb16 %[t], %[v]\n\t"
                "smlad %[a1], %[t], %[xa], %[a1]\n\t"
                "sxtb16 %[v], %[v], ror #8\n\t"
                "smlad %[a1], %[v], %[xb], %[a1]\n\t"
                "ldr %[v], [%[w]], #4\n\t"
                "sxtb16 %[t], %[v]\n\t"
                "smlad %[a0], %[t], %[xa], %[a0]\n\t"
                "sxtb16 %[v], %[v], ror #8\n\t"
                "smlad %[a0], %[v], %[xb], %[a0]\n\t"
                "subs %[n], %[n], #1\n\t"
                "bne 1b"
                : [a0] "+r"(a0), [a1] "+r"(a1), [x] "+r"(x), [w] "+r"(w), [n] "+r"(steps), [xa] "=&r"(xa),
                  [xb] "=&r"(xb), [v] "=&r"(v), [t] "=&r"(t)
                : [s] "r"(s), [o2] "r"(off2)
                : "cc", "memory");
#else
    for (; steps > 0; steps--, x += 4, w += 4) {
        const uint32_t xw = rk_load4(x);
        const uint32_t xa = rk_sxtab16(off2, xw), xb = rk_sxtab16_r8(off2, xw);
        uint32_t v = rk_load4(w + s);
        a1 = rk_smlad(rk_sxtb16(v), xa, a1);
        a1 = rk_smlad(rk_sxtb16_r8(v), xb, a1);
        v = rk_load4(w);
        a0 = rk_smlad(rk_sxtb16(v), xa, a0);
        a0 = rk_smlad(rk_sxtb16_r8(v), xb, a0);
    }
#endif
    for (int32_t i = 0; i < (n & 3); i++) {
        const int32_t xi = (int32_t)x[i] + offset;
        a0 += (uint32_t)(xi * w[i]);
        a1 += (uint32_t)(xi * w[s + i]);
    }
    acc[0] = a0;
    acc[1] = a1;
}

/*
** The per-tensor fast requantization.  For a multiplier m >= 0 and a
** right shift r >= 1 (shift = -r < 0, no left shift: every fully connected
** layer of the models), rk_finish's two roundings collapse into one 64-bit
** sum.  With h = floor((a m + 2^30) / 2^31) and gemmlowp's rounding
** division by 2^r, which is floor((h + B) / 2^r) with B = 2^(r-1) for h
** >= 0 and 2^(r-1) - 1 for h < 0, nested floors give
**     result = floor((a m + 2^30 + B 2^31) / 2^(31+r))
**            = (high word of a m + K) >> (r - 1)        (arithmetic)
** with K = 2^30 + 2^(30+r), less 2^31 when a < 0.  B is chosen by the
** sign of a, not of h: they differ only for -2^30 <= a m < 0, where h = 0
** and both B give 0.  No overflow: |a m| <= 2^62, K < 2^62.  The result
** is below 2^30 + 2^29 in magnitude, so adding the output offset cannot
** overflow either; the clamp to [-128, 127] is then one SSAT (GCC's
** pattern for the constant clamp), a narrower act two compares.
*/
typedef struct fc_layer {
    int64_t k;                /* 2^30 + 2^(30+r): the sum for a >= 0 */
    int32_t mult, sh;         /* m, r - 1 */
    int32_t oo, amin, amax;   /* the output offset, the clamp (after it) */
    int32_t n, m, off;        /* in and out features, the input offset */
    uint32_t off2;            /* rk_dsp_off2(off) */
} fc_layer;

static inline int8_t fc_finish_t(uint32_t acc, const fc_layer *c, bool full)
{
    const int32_t a = (int32_t)acc;
    const int64_t k = a < 0 ? c->k - ((int64_t)1 << 31) : c->k;
    int32_t v = ((int32_t)(((int64_t)a * c->mult + k) >> 32) >> c->sh) + c->oo;
    if (full) {
        v = v < -128 ? -128 : v;
        v = v > 127 ? 127 : v;
    } else {
        v = v < c->amin ? c->amin : v;
        v = v > c->amax ? c->amax : v;
    }
    return (int8_t)v;
}

/* One batch row x into y, per tensor (the fast requantization): four
** outputs per rk_dsp_dot4, then two (fc_dot2: the 2-class heads), then
** one (rk_dsp_dot1); below four inputs every output alone (the packed
** loops would only run their byte tails). */
__attribute__((always_inline)) static inline void fc_row_t(const fc_layer *c, const int8_t *x, const int8_t *w,
                                                           const int32_t *bias, int8_t *y, bool full)
{
    const int32_t n = c->n, m = c->m;
    int32_t o = 0;
    if (n >= 4) {
        for (; o + 4 <= m; o += 4, w += 4 * (ptrdiff_t)n) {
            uint32_t acc[4];
            rk_dsp_dot4(x, w, n, n, c->off2, c->off, bias != NULL ? bias + o : NULL, acc);
            for (int32_t k = 0; k < 4; k++)
                y[o + k] = fc_finish_t(acc[k], c, full);
        }
        if (o + 2 <= m) {
            uint32_t acc[2] = { rk_bias0(bias, o), rk_bias0(bias, o + 1) };
            fc_dot2(x, w, n, c->off2, c->off, acc);
            y[o] = fc_finish_t(acc[0], c, full);
            y[o + 1] = fc_finish_t(acc[1], c, full);
            o += 2;
            w += 2 * (ptrdiff_t)n;
        }
    }
    for (; o < m; o++, w += n)
        y[o] = fc_finish_t(rk_bias0(bias, o) + rk_dsp_dot1(x, w, n, c->off2, c->off), c, full);
}

/* The fast path's constants of a checked per-tensor layer (multiplier >=
** 0, shift < 0: rk_fully_connected_dsp's test). */
static inline fc_layer fc_layer_of(const rk_fc_params *p, int32_t mult, int32_t shift)
{
    fc_layer c;
    c.k = ((int64_t)1 << 30) + ((int64_t)1 << (30 - shift));
    c.mult = mult;
    c.sh = -shift - 1;
    c.oo = p->output_offset;
    c.amin = p->act.min;
    c.amax = p->act.max;
    c.n = p->in_features;
    c.m = p->out_features;
    c.off = p->input_offset;
    c.off2 = rk_dsp_off2(c.off);
    return c;
}

/* fc_row_t for the two clamps, each its own copy (the test out of the
** per-output step); the constants through c, built by the caller (kept
** in memory: held in registers across the rk_dsp_dot4 calls they would be
** spilled and reloaded at a greater cost). */
FC_OUT_OF_LINE static void fc_row_full(const fc_layer *c, const int8_t *x, const int8_t *w,
                                               const int32_t *bias, int8_t *y)
{
    fc_row_t(c, x, w, bias, y, true);
}

FC_OUT_OF_LINE static void fc_row_act(const fc_layer *c, const int8_t *x, const int8_t *w,
                                              const int32_t *bias, int8_t *y)
{
    fc_row_t(c, x, w, bias, y, false);
}

/* sum (x[i] + offset) w[i], i < n, wrapped: rk_dsp_dot1 (rk_dsp.h) with
** its word loop as one asm block (a count down, no end pointer to set
** up: the heads' single rows are short, their set-up shows). */
static inline uint32_t fc_dot1(const int8_t *x, const int8_t *w, int32_t n, uint32_t off2, int32_t offset)
{
#if defined(RK_DSP_ASM)
    uint32_t a = 0, xa, xb, v, t;
    int32_t steps = n >> 2;
    if (steps > 0)
        __asm__("1:\n\t"
                "ldr %[xa], [%[x]], #4\n\t"
                "ldr %[v], [%[w]], #4\n\t"
                "sxtab16 %[xb], %[o2], %[xa], ror #8\n\t"
                "sxtab16 %[xa], %[o2], %[xa]\n\t"
                "sxtb16 %[t], %[v]\n\t"
                "smlad %[a], %[t], %[xa], %[a]\n\t"
                "sxtb16 %[v], %[v], ror #8\n\t"
                "smlad %[a], %[v], %[xb], %[a]\n\t"
                "subs %[n], %[n], #1\n\t"
                "bne 1b"
                : [a] "+r"(a), [x] "+r"(x), [w] "+r"(w), [n] "+r"(steps), [xa] "=&r"(xa), [xb] "=&r"(xb),
                  [v] "=&r"(v), [t] "=&r"(t)
                : [o2] "r"(off2)
                : "cc", "memory");
    for (int32_t i = 0; i < (n & 3); i++)
        a += (uint32_t)(((int32_t)x[i] + offset) * w[i]);
    return a;
#else
    return rk_dsp_dot1(x, w, n, off2, offset);
#endif
}

/*
** The same result (fc_finish_t's, without its layer constants): B 2^31 =
** (2^(r-1) + (a >> 31)) 2^31 as a second multiply-accumulate (UMLAL: an
** unsigned product, the same 64-bit sum modulo 2^64) in place of the
** chosen 64-bit constant.  Two instructions more per output, none of
** fc_layer_of's set-up: the heads' requantization, where a handful of
** outputs cannot repay a set-up.  mult >= 0, shift < 0 (the caller's test).
*/
static inline int8_t fc_finish_1(uint32_t acc, int32_t mult, int32_t shift, int32_t oo, rk_act act)
{
    const int32_t a = (int32_t)acc, sh = -shift - 1;
    const uint32_t b = (1u << sh) + (uint32_t)(a >> 31); /* >> of a negative value is arithmetic */
    const uint64_t s = (uint64_t)((int64_t)a * mult + ((int64_t)1 << 30)) + (uint64_t)b * 0x80000000u;
    int32_t v = ((int32_t)(uint32_t)(s >> 32) >> sh) + oo;
    v = v < act.min ? act.min : v;
    v = v > act.max ? act.max : v;
    return (int8_t)v;
}

/* acc plus row w's sum over x, requantized (fc_finish_1): one output of a
** head, a leaf whose few values stay in registers.  Also rk_fully_connected's
** whole layer when it has a single output (rk_dsp.h). */
int8_t rk_fully_connected_dsp_one(const rk_fc_params *p, const rk_quant *q, const int8_t *x, const int8_t *w,
                                  uint32_t acc)
{
    const int32_t off = p->input_offset;
    acc += fc_dot1(x, w, p->in_features, rk_dsp_off2(off), off);
    return fc_finish_1(acc, q->multiplier[0], q->shift[0], p->output_offset, p->act);
}

/* Outputs 0 and 1 of a head (rows w and w + n, n >= 4) into y[0], y[1]:
** the input widened once for both (fc_dot2). */
FC_OUT_OF_LINE static void fc_out2(const rk_fc_params *p, const rk_quant *q, const int8_t *x,
                                           const int8_t *w, const int32_t *bias, int8_t *y)
{
    const int32_t off = p->input_offset;
    uint32_t acc[2] = { rk_bias0(bias, 0), rk_bias0(bias, 1) };
    fc_dot2(x, w, p->in_features, rk_dsp_off2(off), off, acc);
    const int32_t mult = q->multiplier[0], shift = q->shift[0], oo = p->output_offset;
    const rk_act act = p->act;
    y[0] = fc_finish_1(acc[0], mult, shift, oo, act);
    y[1] = fc_finish_1(acc[1], mult, shift, oo, act);
}

/*
** The fast path of a head of one to three outputs (2 classes, hello_world's
** 16 -> 1), where the whole layer is a couple of hundred instructions:
** each output (rk_fully_connected_dsp_one, or a pair, fc_out2) a leaf call that reads its constants
** itself, rather than a loop nest keeping them, spilled, across its dot
** loops.  rk_fully_connected calls it directly (rk_dsp.h), its terms
** tested on the values its checks hold.
*/
void rk_fully_connected_dsp_head(const rk_fc_params *p, const rk_quant *q, const int8_t *input,
                                 const int8_t *weights, const int32_t *bias, int8_t *output)
{
    const int32_t n = p->in_features, m = p->out_features;
    const int32_t first = m >= 2 && n >= 4 ? 2 : 0; /* outputs by fc_out2 */
    for (int32_t b = 0; b < p->batches; b++) {
        const int8_t *x = input + (ptrdiff_t)b * n;
        int8_t *y = output + (ptrdiff_t)b * m;
        if (first)
            fc_out2(p, q, x, weights, bias, y);
        for (int32_t o = first; o < m; o++)
            y[o] = rk_fully_connected_dsp_one(p, q, x, weights + (ptrdiff_t)o * n, rk_bias0(bias, o));
    }
}

/* Every batch row, per channel or per tensor outside the fast terms (a
** left shift, a negative multiplier): the constants of each output
** computed at it, rk_finish's two roundings. */
FC_OUT_OF_LINE static void fc_channels(const rk_fc_params *p, const rk_quant *q, const int8_t *input,
                                               const int8_t *weights, const int32_t *bias, int8_t *output)
{
    /* locals: the byte stores to output may alias anything, so fields read
    ** through p and q would be read again after every store */
    const int32_t n = p->in_features, m = p->out_features, off = p->input_offset, oo = p->output_offset;
    const int32_t lo = p->act.min - oo, hi = p->act.max - oo, batches = p->batches;
    const int32_t *mul = q->multiplier, *sh = q->shift;
    const bool pc = p->per_channel;
    const uint32_t off2 = rk_dsp_off2(off);
    for (int32_t b = 0; b < batches; b++) {
        const int8_t *x = input + (ptrdiff_t)b * n;
        int8_t *y = output + (ptrdiff_t)b * m;
        int32_t o = 0;
        for (; o + 4 <= m; o += 4) {
            uint32_t acc[4];
            rk_dsp_dot4(x, weights + (ptrdiff_t)o * n, n, n, off2, off, bias != NULL ? bias + o : NULL, acc);
            for (int32_t k = 0; k < 4; k++) {
                const int32_t j = pc ? o + k : 0;
                y[o + k] = fc_finish(acc[k], fc_rq_of(mul[j], sh[j]), lo, hi, oo);
            }
        }
        for (; o < m; o++) {
            const int32_t j = pc ? o : 0;
            y[o] = fc_finish(rk_bias0(bias, o) + rk_dsp_dot1(x, weights + (ptrdiff_t)o * n, n, off2, off),
                             fc_rq_of(mul[j], sh[j]), lo, hi, oo);
        }
    }
}

/* The fast path of a per-tensor layer of four outputs or more (its
** constants built once, in memory: fc_row_full). */
FC_OUT_OF_LINE static void fc_rows(const rk_fc_params *p, const rk_quant *q, const int8_t *input,
                                           const int8_t *weights, const int32_t *bias, int8_t *output)
{
    const fc_layer c = fc_layer_of(p, q->multiplier[0], q->shift[0]);
    const bool full = c.amin == -128 && c.amax == 127;
    for (int32_t b = 0; b < p->batches; b++) {
        const int8_t *x = input + (ptrdiff_t)b * c.n;
        int8_t *y = output + (ptrdiff_t)b * c.m;
        if (full)
            fc_row_full(&c, x, weights, bias, y);
        else
            fc_row_act(&c, x, weights, bias, y);
    }
}

/* Every batch row of a checked fully connected layer into output. */
void rk_fully_connected_dsp(const rk_fc_params *p, const rk_quant *q, const int8_t *input, const int8_t *weights,
                            const int32_t *bias, int8_t *output)
{
    if (p->per_channel || q->multiplier[0] < 0 || q->shift[0] >= 0) /* outside the fast requantization's terms */
        fc_channels(p, q, input, weights, bias, output);
    else if (p->out_features >= 4)
        fc_rows(p, q, input, weights, bias, output);
    else
        rk_fully_connected_dsp_head(p, q, input, weights, bias, output);
}
#else
/* ISO C wants a translation unit to declare something. */
typedef int rk_fully_connected_dsp_empty;
#endif
