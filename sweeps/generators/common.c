/*
** common.c — drawing helpers shared by the generator categories (common.h),
** and the message of a category's failed draw (rip_generator_error).
**
** A helper asked for the impossible (a bug in a category) never prints or
** aborts: it returns RIP_S_INTERNAL and leaves its message in the calling
** thread's buffer, which rip_sweep_draw_checked copies into its err.
*/
#include "common.h"

#include <stdarg.h>
#include <stdio.h>

/* The last failed draw's message, per thread: the sweep draws on its workers. */
static _Thread_local char gen_err[RIP_ERR_LEN];

const char *rip_generator_error(void)
{
    return gen_err;
}

/* Record a failed draw's message; returns RIP_S_INTERNAL. */
static rip_status gen_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static rip_status gen_fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(gen_err, sizeof gen_err, fmt, ap);
    va_end(ap);
    return RIP_S_INTERNAL;
}

const int64_t rip_gen_t1_channels[] = {3, 8, 16, 24, 32, 48, 64, 96, 128,
                                       160, 192, 256, 320, 384, 512};
const size_t rip_gen_t1_channel_count =
    sizeof rip_gen_t1_channels / sizeof rip_gen_t1_channels[0];

static const int64_t t1_extents[] = {7, 8, 14, 16, 28, 32, 56, 64, 112, 128};

static int64_t max64(int64_t a, int64_t b) { return a > b ? a : b; }
static int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }

int64_t rip_gen_keff(int64_t k, int64_t d)
{
    return d * (k - 1) + 1;
}

int64_t rip_gen_axis_out(const rip_gen_axis *a)
{
    return (a->in + a->p_lo + a->p_hi - rip_gen_keff(a->k, a->d)) / a->s + 1;
}

bool rip_gen_chance(rip_pcg32 *g, uint32_t num, uint32_t den)
{
    return rip_pcg32_below(g, den) < num;
}

int64_t rip_gen_pick(rip_pcg32 *g, const int64_t *v, size_t n)
{
    return v[rip_pcg32_below(g, (uint32_t)n)];
}

int64_t rip_gen_biased(rip_pcg32 *g, int64_t lo, int64_t hi)
{
    if (rip_gen_chance(g, 1, 2))
        return rip_pcg32_range(g, lo, min64(hi, max64(lo, RIP_GEN_SMALL_EXTENT)));
    return rip_pcg32_range(g, lo, hi);
}

int64_t rip_gen_extent(rip_pcg32 *g, int64_t lo)
{
    return rip_gen_biased(g, max64(lo, 1), RIP_GEN_MAX_EXTENT);
}

int64_t rip_gen_t1_extent(rip_pcg32 *g, int64_t lo)
{
    lo = max64(lo, 1);
    if (rip_gen_chance(g, 1, 2)) {
        int64_t fit[sizeof t1_extents / sizeof t1_extents[0]];
        size_t n = 0;
        for (size_t i = 0; i < sizeof t1_extents / sizeof t1_extents[0]; i++)
            if (t1_extents[i] >= lo)
                fit[n++] = t1_extents[i];
        if (n > 0)
            return rip_gen_pick(g, fit, n);
    }
    return rip_pcg32_range(g, lo, RIP_GEN_MAX_EXTENT);
}

void rip_gen_t1_grid(rip_pcg32 *g, int64_t lo, int64_t *h, int64_t *w)
{
    *h = rip_gen_t1_extent(g, lo);
    *w = rip_gen_chance(g, 3, 4) ? *h : rip_gen_t1_extent(g, lo);
}

int64_t rip_gen_t1_cap(int64_t h, int64_t w)
{
    return RIP_GEN_T1_BUDGET / (h * w);
}

int64_t rip_gen_t1_channel(rip_pcg32 *g, int64_t cap)
{
    size_t n = 0;
    while (n < rip_gen_t1_channel_count && rip_gen_t1_channels[n] <= cap)
        n++;
    if (n == 0)             /* cap < 3: not reachable with the budget above */
        n = 1;
    return rip_gen_pick(g, rip_gen_t1_channels, n);
}

int64_t rip_gen_small_channel(rip_pcg32 *g)
{
    return rip_pcg32_range(g, 1, RIP_GEN_SMALL_CH);
}

void rip_gen_axis_pad(rip_gen_axis *a, int64_t p)
{
    a->p_lo = p;
    a->p_hi = p;
}

void rip_gen_axis_general(rip_pcg32 *g, rip_gen_axis *a)
{
    uint32_t r;
    a->in = 1;
    a->k = rip_pcg32_range(g, 1, 7);
    r = rip_pcg32_below(g, 10);
    a->s = r < 5 ? 1 : r < 8 ? 2 : 3;
    r = rip_pcg32_below(g, 10);
    a->d = r < 6 ? 1 : r < 8 ? 2 : 3;
    const int64_t keff = rip_gen_keff(a->k, a->d);
    switch (rip_pcg32_below(g, 4)) {
    case 0:
        rip_gen_axis_pad(a, 0);
        break;
    case 1:
        rip_gen_axis_pad(a, keff / 2);
        break;
    case 2:
        rip_gen_axis_pad(a, rip_pcg32_range(g, 0, keff - 1));
        break;
    default:
        a->p_lo = rip_pcg32_range(g, 0, keff - 1);
        a->p_hi = rip_pcg32_range(g, 0, keff - 1);
        break;
    }
}

void rip_gen_pad_modes(rip_pcg32 *g, rip_gen_axis *h, rip_gen_axis *w)
{
    const uint32_t mode = rip_pcg32_below(g, 3);
    rip_gen_axis *ax[2] = {h, w};
    for (int i = 0; i < 2; i++) {
        const int64_t keff = rip_gen_keff(ax[i]->k, ax[i]->d);
        rip_gen_axis_pad(ax[i], mode == 0 ? 0 : mode == 1 ? keff / 2
                                : rip_pcg32_range(g, 0, keff - 1));
    }
}

int64_t rip_gen_axis_max_out(const rip_gen_axis *a)
{
    const int64_t span = RIP_GEN_MAX_EXTENT + a->p_lo + a->p_hi - rip_gen_keff(a->k, a->d);
    return span < 0 ? 0 : span / a->s + 1;
}

rip_status rip_gen_axis_fit(rip_pcg32 *g, rip_gen_axis *a, int64_t out)
{
    const int64_t keff = rip_gen_keff(a->k, a->d);
    for (;;) {
        const int64_t base = (out - 1) * a->s + keff - a->p_lo - a->p_hi;
        const int64_t r_lo = max64(0, 1 - base);
        const int64_t r_hi = min64(a->s - 1, RIP_GEN_MAX_EXTENT - base);
        if (r_lo <= r_hi) {
            a->in = base + rip_pcg32_range(g, r_lo, r_hi);
            return RIP_OK;
        }
        if (base > RIP_GEN_MAX_EXTENT || out < 1)
            return gen_fail("generator asked for %lld outputs, the axis reaches 1..%lld", (long long)out,
                            (long long)rip_gen_axis_max_out(a));
        /* Too much padding for so few outputs (base < 1 - (s-1)): with no
        ** padding base = (out-1) s + keff >= 1, so this terminates. */
        if (a->p_lo >= a->p_hi)
            a->p_lo--;
        else
            a->p_hi--;
    }
}

void rip_gen_axis_free(rip_pcg32 *g, rip_gen_axis *a)
{
    a->in = rip_gen_extent(g, rip_gen_keff(a->k, a->d) - a->p_lo - a->p_hi);
}

rip_status rip_gen_assemble(rip_layer *L, int64_t cin, int64_t cout,
                            const rip_gen_axis *h, const rip_gen_axis *w)
{
    rip_layer x = rip_layer_make(cin, cout, h->in, w->in, h->k, w->k, h->s, w->s,
                                 h->d, w->d, 0, 0);
    x.p_top = h->p_lo;
    x.p_bottom = h->p_hi;
    x.p_left = w->p_lo;
    x.p_right = w->p_hi;
    char err[RIP_ERR_LEN];
    if (rip_layer_derive(&x, err) != 0)
        return gen_fail("a generator category drew an invalid layer: %.400s", err);
    *L = x;
    return RIP_OK;
}

void rip_gen_axes_of(const rip_layer *L, rip_gen_axis *h, rip_gen_axis *w)
{
    *h = (rip_gen_axis){L->h_in, L->k_h, L->s_h, L->d_h, L->p_top, L->p_bottom};
    *w = (rip_gen_axis){L->w_in, L->k_w, L->s_w, L->d_w, L->p_left, L->p_right};
}
