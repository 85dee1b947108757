/*
** execute.c — one layer through the int8 kernels, dual buffer and in place
** (see execute.h).
**
** The kernels take 32-bit sizes and parameter structs (firmware/kernels/);
** this file is the one place that turns a derived rip_layer into them,
** refusing what does not fit rather than truncating.
*/
#include "execute.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rk_conv2d.h"
#include "rk_conv2d_rip.h"

struct rip_xlayer {
    rip_layer L;
    rk_conv_params p;
    rk_dims in, out;
    int8_t *input;        /* dense NHWC, h_in x w_in x cin */
    int8_t *filter;       /* OHWI */
    int32_t *bias, *mult, *shift;
    int8_t *dual;         /* the dual-buffer output, n_out bytes */
    uint32_t checksum;
    int8_t *ws;           /* in-place workspace, ws_cap bytes (largest gap N_out) */
    uint8_t *shadow;      /* its shadow tags (instrumented runs) */
    int64_t ws_cap, ws_used;
    int8_t *scratch;      /* shared by every kernel call */
    size_t scratch_cap;
};

uint32_t rip_fnv1a32(const void *p, size_t n)
{
    const unsigned char *b = p;
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < n; i++) {
        h ^= b[i];
        h *= 16777619u;
    }
    return h;
}

static bool is_rip(rip_config e)
{
    return e == RIP_CONFIG_PADDED_GATHER || e == RIP_CONFIG_PADDED_TAPS || e == RIP_CONFIG_DENSE_GATHER ||
           e == RIP_CONFIG_DENSE_TAPS;
}

static rk_inplace inplace_of(rip_config e, int64_t gap)
{
    rk_inplace ip;
    ip.layout = (e == RIP_CONFIG_DENSE_GATHER || e == RIP_CONFIG_DENSE_TAPS) ? RK_DENSE : RK_PADDED;
    ip.order = (e == RIP_CONFIG_PADDED_GATHER || e == RIP_CONFIG_DENSE_GATHER) ? RK_GATHER : RK_TAPS;
    ip.gap = gap;
    return ip;
}

static int64_t stored_input(const rip_layer *L, rip_config e)
{
    return (e == RIP_CONFIG_DENSE_GATHER || e == RIP_CONFIG_DENSE_TAPS) ? L->n_in_dense : L->n_in_padded;
}

/*
** The kernels' geometry of L (quantization fields left 0).  -1 with a
** message when a field does not fit the kernels' 32-bit sizes.
*/
static int geometry(const rip_layer *L, rk_conv_params *p, rk_dims *in, rk_dims *out, char err[RIP_ERR_LEN])
{
    const struct {
        const char *name;
        int64_t v;
    } f[] = {
        {"cin", L->cin}, {"cout", L->cout}, {"h_in", L->h_in}, {"w_in", L->w_in}, {"k_h", L->k_h},
        {"k_w", L->k_w}, {"s_h", L->s_h}, {"s_w", L->s_w}, {"d_h", L->d_h}, {"d_w", L->d_w},
        {"p_top", L->p_top}, {"p_bottom", L->p_bottom}, {"p_left", L->p_left}, {"p_right", L->p_right},
        {"h_out", L->h_out}, {"w_out", L->w_out},
    };
    for (size_t i = 0; i < sizeof f / sizeof f[0]; i++)
        if (f[i].v > INT32_MAX) {
            snprintf(err, RIP_ERR_LEN, "%s: too large to execute (got %lld; the kernels take 32-bit sizes)",
                     f[i].name, (long long)f[i].v);
            return -1;
        }
    memset(p, 0, sizeof *p);
    p->k_h = (int32_t)L->k_h;
    p->k_w = (int32_t)L->k_w;
    p->s_h = (int32_t)L->s_h;
    p->s_w = (int32_t)L->s_w;
    p->d_h = (int32_t)L->d_h;
    p->d_w = (int32_t)L->d_w;
    p->p_top = (int32_t)L->p_top;
    p->p_bottom = (int32_t)L->p_bottom;
    p->p_left = (int32_t)L->p_left;
    p->p_right = (int32_t)L->p_right;
    p->act.min = -128;
    p->act.max = 127;
    in->h = (int32_t)L->h_in;
    in->w = (int32_t)L->w_in;
    in->c = (int32_t)L->cin;
    out->h = (int32_t)L->h_out;
    out->w = (int32_t)L->w_out;
    out->c = (int32_t)L->cout;
    return 0;
}

/* Scratch bytes of the largest kernel call (dual and the four in-place). */
static size_t scratch_bytes(const rk_conv_params *p, rk_dims in, rk_dims out)
{
    size_t s = rk_conv2d_buffer_size(p, in, out);
    for (int e = 0; e < RIP_KERNEL_CONFIG_COUNT; e++) {
        rk_inplace ip = inplace_of((rip_config)e, 0);
        size_t k = rk_conv2d_rip_buffer_size(p, in, out, &ip);
        if (k > s)
            s = k;
    }
    return s;
}

/*
** Bytes of every buffer of one execution of L, into *total; -1 with a
** message when a field does not fit the kernels.  The sizes of a derived
** layer are below 2^62, and the filter's product is checked here, so the
** sum cannot wrap.
*/
static int buffer_bytes(const rip_layer *L, int64_t *total, char err[RIP_ERR_LEN])
{
    rk_conv_params p;
    rk_dims in, out;
    if (geometry(L, &p, &in, &out, err) != 0)
        return -1;
    int64_t taps = L->k_h * L->k_w; /* k <= padded extent < 2^31 each */
    int64_t filter = INT64_MAX;
    if (taps <= INT64_MAX / L->cin && taps * L->cin <= INT64_MAX / 4 / L->cout)
        filter = taps * L->cin * L->cout;
    if (filter > RIP_EXEC_MAX_BYTES) {
        *total = filter;
        return 0;
    }
    int64_t ws = L->n_out + L->n_in_padded;       /* the largest gap is N_out */
    *total = L->n_in_dense + L->n_out + 2 * ws + filter + 12 * L->cout + (int64_t)scratch_bytes(&p, in, out);
    return 0;
}

int rip_exec_size_ok(const rip_layer *L, char err[RIP_ERR_LEN])
{
    int64_t total = 0;
    if (buffer_bytes(L, &total, err) != 0)
        return -1;
    if (total > RIP_EXEC_MAX_BYTES) {
        snprintf(err, RIP_ERR_LEN,
                 "layer too large to execute in memory: its buffers need %lld bytes, the limit is %lld (%lld MiB)",
                 (long long)total, (long long)RIP_EXEC_MAX_BYTES, (long long)(RIP_EXEC_MAX_BYTES >> 20));
        return -1;
    }
    return 0;
}

void rip_xlayer_free(rip_xlayer *x)
{
    if (!x)
        return;
    free(x->input);
    free(x->filter);
    free(x->bias);
    free(x->mult);
    free(x->shift);
    free(x->dual);
    free(x->ws);
    free(x->shadow);
    free(x->scratch);
    free(x);
}

/* Bit length of n >= 1. */
static int bit_length(int64_t n)
{
    int b = 0;
    for (; n > 0; n >>= 1)
        b++;
    return b;
}

/* Fill n bytes uniformly over [-128, 127], four per draw. */
static void draw_bytes(rip_pcg32 *g, int8_t *dst, int64_t n)
{
    for (int64_t i = 0; i < n; i += 4) {
        uint32_t r = rip_pcg32_next(g);
        for (int k = 0; k < 4 && i + k < n; k++)
            dst[i + k] = (int8_t)(uint8_t)(r >> (8 * k));
    }
}

/* The drawn tensors and quantization of execute.h, in a fixed order. */
static void draw_tensors(rip_xlayer *x, rip_pcg32 *g)
{
    const rip_layer *L = &x->L;
    int64_t n = L->k_h * L->k_w * L->cin;
    int b = bit_length(n);
    x->p.input_offset = -(int32_t)rip_pcg32_range(g, -16, 16);
    x->p.output_offset = (int32_t)rip_pcg32_range(g, -16, 16);
    draw_bytes(g, x->input, L->n_in_dense);
    for (int64_t i = 0; i < n * L->cout; i++)
        x->filter[i] = (int8_t)rip_pcg32_range(g, -127, 127);
    int64_t bias_range = (int64_t)1 << (12 + b / 2);
    for (int64_t c = 0; c < L->cout; c++) {
        x->bias[c] = (int32_t)rip_pcg32_range(g, -bias_range, bias_range);
        x->mult[c] = (int32_t)rip_pcg32_range(g, (int64_t)1 << 30, ((int64_t)1 << 31) - 1);
        x->shift[c] = -(7 + (b + 1) / 2) - (int32_t)rip_pcg32_below(g, 2);
    }
}

static rk_quant quant_of(const rip_xlayer *x)
{
    rk_quant q = {x->mult, x->shift};
    return q;
}

rip_status rip_xlayer_new(const rip_layer *L, rip_pcg32 *g, rip_xlayer **out, char err[RIP_ERR_LEN])
{
    rip_status s = RIP_OK;
    rip_xlayer *x = NULL;
    *out = NULL;
    if (rip_exec_size_ok(L, err) != 0)
        return RIP_S_DATA;
    x = calloc(1, sizeof *x);
    if (!x)
        goto nomem;
    x->L = *L;
    if (geometry(L, &x->p, &x->in, &x->out, err) != 0) {
        s = RIP_S_DATA;
        goto done;
    }
    int64_t filter = L->k_h * L->k_w * L->cin * L->cout; /* bounded by rip_exec_size_ok */
    x->ws_cap = L->n_out + L->n_in_padded;
    x->scratch_cap = scratch_bytes(&x->p, x->in, x->out);
    x->input = malloc((size_t)L->n_in_dense);
    x->filter = malloc((size_t)filter);
    x->bias = malloc((size_t)L->cout * sizeof *x->bias);
    x->mult = malloc((size_t)L->cout * sizeof *x->mult);
    x->shift = malloc((size_t)L->cout * sizeof *x->shift);
    x->dual = malloc((size_t)L->n_out);
    x->ws = malloc((size_t)x->ws_cap);
    x->shadow = malloc((size_t)x->ws_cap);
    x->scratch = malloc(x->scratch_cap ? x->scratch_cap : 1);
    if (!x->input || !x->filter || !x->bias || !x->mult || !x->shift || !x->dual || !x->ws || !x->shadow ||
        !x->scratch)
        goto nomem;
    draw_tensors(x, g);
    rk_quant q = quant_of(x);
    rk_status k = rk_conv2d(&x->p, &q, x->in, x->input, x->filter, x->bias, x->out, x->dual, x->scratch);
    if (k != RK_OK) {
        snprintf(err, RIP_ERR_LEN, "the dual-buffer kernel refused the layer (rk_status %d)", (int)k);
        s = RIP_S_INTERNAL;
        goto done;
    }
    x->checksum = rip_fnv1a32(x->dual, (size_t)L->n_out);
    *out = x;
    return RIP_OK;
nomem:
    snprintf(err, RIP_ERR_LEN, "out of memory");
    s = RIP_S_NOMEM;
done:
    rip_xlayer_free(x);
    return s;
}

const int8_t *rip_xlayer_output(const rip_xlayer *x, int64_t *n_out)
{
    *n_out = x->L.n_out;
    return x->dual;
}

uint32_t rip_xlayer_checksum(const rip_xlayer *x)
{
    return x->checksum;
}

const int8_t *rip_xlayer_workspace(const rip_xlayer *x, int64_t *size)
{
    *size = x->ws_used;
    return x->ws;
}

rip_status rip_xlayer_run(rip_xlayer *x, rip_config e, int64_t gap, bool instrumented, bool stop_at_first,
                          rip_xrun *r, char err[RIP_ERR_LEN])
{
    const rip_layer *L = &x->L;
    memset(r, 0, sizeof *r);
    r->step = r->pixel_r = r->pixel_c = r->address = -1;
    if (!is_rip(e)) {
        snprintf(err, RIP_ERR_LEN, "config: %s is not executed in place (one of the four rip_* only)",
                 rip_config_name(e));
        return RIP_S_DATA;
    }
    if (gap < 0 || gap > L->n_out) {
        snprintf(err, RIP_ERR_LEN, "gap: must be in [0, N_out = %lld] (got %lld)", (long long)L->n_out,
                 (long long)gap);
        return RIP_S_DATA;
    }
    rk_inplace ip = inplace_of(e, gap);
    int64_t ws = gap + stored_input(L, e);
    r->gap = gap;
    r->workspace = ws;
    x->ws_used = ws;
    /* the bytes below the input hold no input; zero them so runs are reproducible */
    memset(x->ws, 0, (size_t)gap);
    rk_rip_store_input(&x->p, x->in, x->input, &ip, x->ws);
    rk_quant q = quant_of(x);
    rk_status k;
    rk_violation v;
    memset(&v, 0, sizeof v);
    if (instrumented)
        k = rk_conv2d_rip_checked(&x->p, &q, x->in, x->out, x->filter, x->bias, &ip, x->ws, ws, x->scratch,
                                  x->shadow, stop_at_first, &v);
    else
        k = rk_conv2d_rip(&x->p, &q, x->in, x->out, x->filter, x->bias, &ip, x->ws, ws, x->scratch);
    if (k != RK_OK) {
        snprintf(err, RIP_ERR_LEN, "the in-place kernel (%s, gap %lld) refused the layer (rk_status %d)",
                 rip_config_name(e), (long long)gap, (int)k);
        return RIP_S_INTERNAL;
    }
    r->caught = v.found || v.overflow;
    r->overflow = v.overflow;
    if (r->caught) {
        r->step = v.step;
        r->pixel_r = v.pixel_r;
        r->pixel_c = v.pixel_c;
        r->address = v.address;
    }
    r->completed = !(instrumented && stop_at_first && r->caught);
    if (r->completed) {
        /* a workspace smaller than the output cannot hold its tail (the
        ** kernel reported the overflow instead of writing): those bytes differ */
        int64_t held = ws < L->n_out ? ws : L->n_out;
        for (int64_t i = 0; i < held; i++)
            r->differ += x->ws[i] != x->dual[i];
        r->differ += L->n_out - held;
        r->bit_exact = r->differ == 0;
    }
    return RIP_OK;
}

void rip_exec_stream(rip_pcg32 *g, uint64_t seed, uint64_t idx)
{
    rip_pcg32_seed(g, seed ^ RIP_EXEC_SEED_SALT, idx);
}

rip_status rip_exec_check_layer(const rip_layer *L, const int64_t truth[RIP_CONFIG_COUNT], rip_pcg32 *g,
                                rip_xcheck out[RIP_KERNEL_CONFIG_COUNT], uint32_t *checksum, char err[RIP_ERR_LEN])
{
    rip_xlayer *x = NULL;
    rip_status s = rip_xlayer_new(L, g, &x, err);
    for (int e = 0; s == RIP_OK && e < RIP_KERNEL_CONFIG_COUNT; e++) {
        rip_xcheck *c = &out[e];
        rip_xrun r;
        c->truth = truth[e];
        c->caught_minus_1 = -1;
        c->catch_step = -1;
        /* instrumentation only reads shadow tags, so this one run is also the
        ** bit-exactness run (tests/test_execute.c compares it with the plain kernel) */
        if ((s = rip_xlayer_run(x, (rip_config)e, truth[e], true, false, &r, err)) != RIP_OK)
            break;
        c->bit_exact = r.bit_exact;
        c->early_overwrite = r.caught;
        if (truth[e] > 0) {
            if ((s = rip_xlayer_run(x, (rip_config)e, truth[e] - 1, true, true, &r, err)) != RIP_OK)
                break;
            c->caught_minus_1 = r.caught;
            c->catch_step = r.caught ? r.step : -1;
        }
    }
    if (s == RIP_OK)
        *checksum = x->checksum;
    rip_xlayer_free(x);
    return s;
}
