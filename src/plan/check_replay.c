/*
** check_replay.c — replaying an ALIAS candidate's operator for the plan
** checker (check_replay.h), scalar by scalar.
**
** The orders, read from the kernels' loops (firmware/kernels/) and written
** here again on their own (NHWC, C channels, scalars dtype_bytes wide):
**   elementwise (rk_add; the unary ops alike): for i = 0 .. n-1, input
**     scalar i is read (the other operand, another tensor, too), then
**     output scalar i written;
**   upsample (rk_upsample_nearest_inplace): output pixels (r, c) from the
**     last to the first, row-major; for each, channels k = 0 .. C-1 of its
**     source pixel (r / s_h, c / s_w) read, each written to the pixel right
**     after its read; where the source is the pixel itself (pixel 0, or
**     s = 1x1) only read (the kernel skips the identity copy);
**   depthwise (rk_depthwise_inplace): for channel ch = 0 .. C-1, channel ch
**     of every input pixel read (copied into the kernel's scratch, which
**     its window taps then read), then channel ch of every output pixel
**     written, row-major.  The kernel is handed one buffer, its input's
**     bytes, and writes the output into them: a write outside them is a
**     violation as well.  (The Cortex-M33 build runs small layers four
**     channels at a time, each group written after all of its reads:
**     every read that follows a write in that order follows it here too,
**     so a placement this replay accepts is safe there.)
** A write is a violation when its bytes meet an input scalar that is read
** after it.
**
** Method: the accesses are visited backward, from the operator's last to
** its first, keeping one bit per input scalar, set once a read of it has
** been visited: a write that meets a set bit precedes a read of that
** scalar.  The last violation met is the earliest in kernel order, the one
** reported.  One pass over n_in + n_out scalars, for any placement (the
** checker's ALIAS pairs sit at x_out == x_in; the replay's tests move
** them apart to make real violations).
*/
#include "check_replay.h"

#include <stdlib.h>
#include <string.h>

typedef struct replay {
    int64_t s_in;             /* input scalars */
    int64_t shift;            /* floor((x_out - x_in) / d): output scalar o starts in input scalar o + shift */
    bool straddles;           /* (x_out - x_in) % d != 0: it also meets input scalar o + shift + 1 */
    int64_t o_lo, o_hi;       /* the output scalars [o_lo, o_hi) fall in the bytes the kernel may write */
    uint8_t *later;           /* bit j: input scalar j is read after the access being visited */
    bool found;               /* the earliest violation so far (the latest visited): */
    int64_t o, j;             /*   output scalar written; input scalar it meets, -1: outside */
} replay;

static inline void replay_read(replay *r, int64_t j)
{
    r->later[j >> 3] |= (uint8_t)(1u << (j & 7));
}

static inline bool read_later(const replay *r, int64_t j)
{
    return j >= 0 && j < r->s_in && (r->later[j >> 3] & (1u << (j & 7)));
}

static inline void replay_write(replay *r, int64_t o)
{
    const int64_t j = o + r->shift;
    if (o < r->o_lo || o >= r->o_hi)
        r->found = true, r->o = o, r->j = -1;
    else if (read_later(r, j))
        r->found = true, r->o = o, r->j = j;
    else if (r->straddles && read_later(r, j + 1))
        r->found = true, r->o = o, r->j = j + 1;
}

/* floor(a / b), b > 0 */
static int64_t floor_div(int64_t a, int64_t b)
{
    return a >= 0 ? a / b : -((-a + b - 1) / b);
}

/* The three orders, backward (the header comment gives them forward). */
static void replay_elementwise(replay *r)
{
    for (int64_t i = r->s_in - 1; i >= 0; i--) {
        replay_write(r, i);
        replay_read(r, i);
    }
}

static void replay_upsample(replay *r, const rip_layer *L)
{
    const int64_t ch = L->cin;
    for (int64_t y = 0; y < L->h_out; y++)
        for (int64_t x = 0; x < L->w_out; x++) {
            const int64_t src = ((y / L->s_h) * L->w_in + x / L->s_w) * ch, dst = (y * L->w_out + x) * ch;
            for (int64_t k = ch - 1; k >= 0; k--) {
                if (src != dst)
                    replay_write(r, dst + k);
                replay_read(r, src + k);
            }
        }
}

static void replay_depthwise(replay *r, const rip_layer *L)
{
    const int64_t ch_n = L->cin, n_out_px = L->h_out * L->w_out, n_in_px = L->h_in * L->w_in;
    for (int64_t ch = ch_n - 1; ch >= 0; ch--) {
        for (int64_t q = n_out_px - 1; q >= 0; q--)
            replay_write(r, q * ch_n + ch);
        for (int64_t q = n_in_px - 1; q >= 0; q--)
            replay_read(r, q * ch_n + ch);
    }
}

static const char *op_name(rip_alias_op op)
{
    switch (op) {
    case RIP_ALIAS_ELEMENTWISE: return "elementwise";
    case RIP_ALIAS_UPSAMPLE: return "upsample";
    case RIP_ALIAS_DEPTHWISE: return "depthwise";
    case RIP_ALIAS_NONE: break;
    }
    return "?";
}

/* Scalar s of a tensor of w columns and ch channels (0: a flat tensor), as
** "element s" or "pixel (y, x) channel k", into buf. */
static void name_scalar(char *buf, size_t n, int64_t s, int64_t w, int64_t ch)
{
    if (ch <= 0)
        snprintf(buf, n, "element %lld", (long long)s);
    else
        snprintf(buf, n, "pixel (%lld, %lld) channel %lld", (long long)(s / ch / w), (long long)(s / ch % w),
                 (long long)(s % ch));
}

rip_status rip_replay_alias(const rip_candidate *c, int64_t n_in, int64_t n_out, int64_t x_in, int64_t x_out,
                            char err[RIP_ERR_LEN])
{
    const rip_layer *L = &c->layer;
    const int64_t d = c->dtype_bytes, rel = x_out - x_in;
    replay r = {.s_in = n_in / d, .shift = floor_div(rel, d), .straddles = rel % d != 0};
    /* the depthwise runs over its input's bytes [x_in, x_in + n_in); the others over their output's */
    if (c->alias_op == RIP_ALIAS_DEPTHWISE) {
        r.o_lo = -floor_div(rel, d);                  /* the first o with x_out + o d >= x_in */
        r.o_hi = floor_div(n_in - rel, d);            /* past the last o with x_out + (o + 1) d <= x_in + n_in */
    } else {
        r.o_lo = 0;
        r.o_hi = n_out / d;
    }
    r.later = calloc((size_t)(r.s_in / 8 + 1), 1);
    if (r.later == NULL) {
        snprintf(err, RIP_ERR_LEN, "check: out of memory replaying an in-place %s", op_name(c->alias_op));
        return RIP_S_NOMEM;
    }
    if (c->alias_op == RIP_ALIAS_ELEMENTWISE)
        replay_elementwise(&r);
    else if (c->alias_op == RIP_ALIAS_UPSAMPLE)
        replay_upsample(&r, L);
    else
        replay_depthwise(&r, L);
    free(r.later);
    if (!r.found)
        return RIP_OK;

    const bool flat = c->alias_op == RIP_ALIAS_ELEMENTWISE;
    char out[96], in[96];
    name_scalar(out, sizeof out, r.o, flat ? 0 : L->w_out, flat ? 0 : L->cout);
    const long long at = (long long)(x_out + r.o * d);
    if (r.j < 0) {
        snprintf(err, RIP_ERR_LEN,
                 "in-place %s (replayed): output %s is written at byte %lld, outside the input's bytes "
                 "[%lld, %lld) the channel-in-place kernel runs over (the output is %lld B, the input %lld B)",
                 op_name(c->alias_op), out, at, (long long)x_in, (long long)(x_in + n_in), (long long)n_out,
                 (long long)n_in);
        return RIP_S_FAILED;
    }
    name_scalar(in, sizeof in, r.j, flat ? 0 : L->w_in, flat ? 0 : L->cin);
    snprintf(err, RIP_ERR_LEN,
             "in-place %s (replayed): output %s, written at byte %lld, lands on input %s, which the operator "
             "reads after that write",
             op_name(c->alias_op), out, at, in);
    return RIP_S_FAILED;
}
