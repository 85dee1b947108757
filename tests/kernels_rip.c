/*
** kernels_rip.c — the kernels suite (tests/test_kernels.c) on the RiP
** (in-place) convolution: a subset of the default sweep bit exact at the
** simulator's truth and caught below it, the fast paths against the plain
** order, the checked build catching every read of a poisoned byte, and the
** buffer-size twins.
*/
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "generator.h"
#include "layer.h"
#include "sim.h"
#include "rk_conv2d.h"
#include "rk_conv2d_rip.h"
#include "rk_pointwise.h"
#include "rk_add.h"
#include "rk_depthwise.h"
#include "rk_depthwise_inplace.h"
#include "rk_fully_connected.h"
#include "rk_pool.h"
#include "rk_shadow.h"
#include "rk_upsample.h"
#include "ref_conv.h"
#include "kernels_util.h"

/* ------------------------------------------------------------ in place */

static const rip_config rip_configs[4] = {RIP_CONFIG_PADDED_GATHER, RIP_CONFIG_PADDED_TAPS, RIP_CONFIG_DENSE_GATHER,
                                        RIP_CONFIG_DENSE_TAPS};

static rk_inplace inplace_of(rip_config e, int64_t gap)
{
    rk_inplace ip;
    ip.layout = (e == RIP_CONFIG_PADDED_GATHER || e == RIP_CONFIG_PADDED_TAPS) ? RK_PADDED : RK_DENSE;
    ip.order = (e == RIP_CONFIG_PADDED_GATHER || e == RIP_CONFIG_DENSE_GATHER) ? RK_GATHER : RK_TAPS;
    ip.gap = gap;
    return ip;
}

/* The convolution of a sweep layer (sim geometry) with random data. */
static void case_from_layer(rng *r, const rip_layer *L, conv_case *k)
{
    memset(k, 0, sizeof *k);
    ref_conv *g = &k->g;
    g->cin = (int)L->cin;
    g->cout = (int)L->cout;
    g->h_in = (int)L->h_in;
    g->w_in = (int)L->w_in;
    g->h_out = (int)L->h_out;
    g->w_out = (int)L->w_out;
    g->k_h = (int)L->k_h;
    g->k_w = (int)L->k_w;
    g->s_h = (int)L->s_h;
    g->s_w = (int)L->s_w;
    g->d_h = (int)L->d_h;
    g->d_w = (int)L->d_w;
    g->p_top = (int)L->p_top;
    g->p_left = (int)L->p_left;
    g->in_zp = (int)rng_int(r, -128, 127);
    g->out_zp = (int)rng_int(r, -128, 127);
    draw_act(r, &g->act_min, &g->act_max);
    case_params(k);
    k->p.p_bottom = (int32_t)L->p_bottom;
    k->p.p_right = (int32_t)L->p_right;
    case_data(r, k, false);
}

typedef enum { RUN_RELEASE, RUN_CHECKED } run_kind;

/* Lay the input out for gap, run, return the status; *v for checked runs. */
static rk_status run_inplace(const conv_case *k, const rk_inplace *ip, run_kind kind, bool stop, int8_t **ws_out,
                             rk_violation *v)
{
    const int64_t ws_size = rk_conv2d_rip_workspace_size(&k->p, k->in, ip);
    cr_assert_geq(ws_size, 0);
    int8_t *ws = xmalloc((size_t)ws_size);
    memset(ws, 0x5a, (size_t)ws_size);
    rk_rip_store_input(&k->p, k->in, k->input, ip, ws);
    const size_t ssz = rk_conv2d_rip_buffer_size(&k->p, k->in, k->out, ip);
    int8_t *scratch = ssz ? xmalloc(ssz) : NULL;
    rk_status st;
    if (kind == RUN_RELEASE) {
        st = rk_conv2d_rip(&k->p, &k->q, k->in, k->out, k->filter, k->bias, ip, ws, ws_size, scratch);
    } else {
        uint8_t *shadow = xmalloc((size_t)ws_size);
        st = rk_conv2d_rip_checked(&k->p, &k->q, k->in, k->out, k->filter, k->bias, ip, ws, ws_size, scratch,
                                   shadow, stop, v);
        free(shadow);
    }
    free(scratch);
    *ws_out = ws;
    return st;
}

#define SWEEP_SEED 20261129u   /* the default sweep's seed (ripsim sweep) */

#define SWEEP_LAYERS 2000

/* Layers above this many multiply-accumulates are skipped (fewer under
** AddressSanitizer, which slows the checked runs down about tenfold). */
#if defined(__SANITIZE_ADDRESS__)
#define SWEEP_MAC_CAP 300000
#else
#define SWEEP_MAC_CAP 1500000
#endif

typedef struct cfg_count {
    int tested, truth_pos, caught_stale, caught_overflow, uncaught;
    int caught_at_minus_2, uncaught_truth_1;
} cfg_count;

/* Long on purpose (over 100 lines): one pass over the sweep subset with
** every outcome counted per configuration, then the counts asserted. */
Test(kernels, rip_sweep_subset_bit_exact_at_truth_caught_below, .timeout = 900)
{
    rng r = {SWEEP_SEED};
    cfg_count cnt[4];
    memset(cnt, 0, sizeof cnt);
    int skipped = 0, used = 0;
    int cat_used[64] = {0};
    size_t n_gen = 0;
    const rip_generator *const *gens = rip_generators(&n_gen);
    cr_assert_leq(n_gen, 64);
    for (int64_t idx = 0; idx < SWEEP_LAYERS; idx++) {
        rip_layer L;
        const rip_generator *gen = rip_sweep_draw(SWEEP_SEED, idx, &L);
        const int64_t macs = L.n_out * L.k_h * L.k_w * L.cin;
        if (macs > SWEEP_MAC_CAP) {
            skipped++;
            continue;
        }
        used++;
        for (size_t i = 0; i < n_gen; i++)
            if (gens[i] == gen)
                cat_used[i]++;
        conv_case k;
        case_from_layer(&r, &L, &k);
        const size_t n_out = (size_t)L.n_out;
        int8_t *want = xmalloc(n_out);
        int8_t *scratch = xmalloc(rk_conv2d_buffer_size(&k.p, k.in, k.out));
        cr_assert_eq(rk_conv2d(&k.p, &k.q, k.in, k.input, k.filter, k.bias, k.out, want, scratch), RK_OK);
        free(scratch);
        if (idx % 10 == 0) { /* the dual kernel against the reference, on a tenth of them */
            int8_t *ref = run_ref(&k, false);
            cr_assert(memcmp(ref, want, n_out) == 0, "layer %ld: dual differs from the reference", (long)idx);
            free(ref);
        }
        for (int e = 0; e < 4; e++) {
            int64_t truth = -1;
            cr_assert_eq(rip_sim_truth(&L, rip_configs[e], RIP_ENGINE_FAST, &truth), 0);
            rk_inplace ip = inplace_of(rip_configs[e], truth);
            int8_t *ws;
            rk_violation v;
            cnt[e].tested++;
            cr_assert_eq(run_inplace(&k, &ip, RUN_RELEASE, false, &ws, NULL), RK_OK, "layer %ld", (long)idx);
            cr_assert(memcmp(ws, want, n_out) == 0, "layer %ld %s gap %ld: in place differs from dual", (long)idx,
                      rip_config_name(rip_configs[e]), (long)truth);
            free(ws);
            cr_assert_eq(run_inplace(&k, &ip, RUN_CHECKED, false, &ws, &v), RK_OK);
            cr_assert(!v.found, "layer %ld %s at truth %ld: violation at step %ld pixel (%d,%d) address %ld",
                      (long)idx, rip_config_name(rip_configs[e]), (long)truth, (long)v.step, v.pixel_r, v.pixel_c,
                      (long)v.address);
            cr_assert(memcmp(ws, want, n_out) == 0);
            free(ws);
            if (truth == 0)
                continue;
            cnt[e].truth_pos++;
            ip.gap = truth - 1;
            cr_assert_eq(run_inplace(&k, &ip, RUN_CHECKED, true, &ws, &v), RK_OK);
            if (v.found) {
                if (v.overflow)
                    cnt[e].caught_overflow++;
                else
                    cnt[e].caught_stale++;
                free(ws);
                continue;
            }
            /* Not caught: no read found a stale byte, so the output must be
            ** right, and the only way (sim/README.md) is the one explained in
            ** the report: the simulator's first failing write at truth - 1
            ** is a pixel's last channel landing on an input that only this
            ** pixel still reads (taps order), which no read follows. */
            cnt[e].uncaught++;
            cr_assert(memcmp(ws, want, n_out) == 0, "layer %ld: uncaught yet wrong output", (long)idx);
            free(ws);
            rip_sim *s = rip_sim_new(&L, rip_configs[e], RIP_ENGINE_PLAIN);
            cr_assert_not_null(s);
            rip_run_report rep;
            cr_assert(!rip_sim_run(s, truth - 1, &rep));
            rip_sim_free(s);
            cr_assert_eq(ip.order, RK_TAPS, "layer %ld %s: a gather run at truth - 1 went uncaught", (long)idx,
                         rip_config_name(rip_configs[e]));
            cr_assert_eq(rep.outcome, RIP_RUN_CORRUPTION);
            cr_assert_eq(rep.address, (rep.step + 1) * L.cout - 1, "layer %ld: not the last channel", (long)idx);
            /* The finding is exactly one scalar: one more below, the taps
            ** kernel reads stale input (channel cout-2 lands there and the
            ** last channel reads it). */
            if (truth >= 2) {
                ip.gap = truth - 2;
                cr_assert_eq(run_inplace(&k, &ip, RUN_CHECKED, true, &ws, &v), RK_OK);
                free(ws);
                cr_assert(v.found, "layer %ld %s: not caught at truth - 2 either", (long)idx,
                          rip_config_name(rip_configs[e]));
                cnt[e].caught_at_minus_2++;
            } else {
                cnt[e].uncaught_truth_1++;
            }
            if (cnt[e].uncaught <= 3)
                fprintf(stderr,
                        "uncaught at truth-1: layer %ld (%s) %s cin=%ld cout=%ld h=%ldx%ld k=%ldx%ld s=%ldx%ld "
                        "d=%ldx%ld p=%ld,%ld,%ld,%ld truth %ld: sim's first failure pixel %ld address %ld\n",
                        (long)idx, gen->name, rip_config_name(rip_configs[e]), (long)L.cin, (long)L.cout,
                        (long)L.h_in, (long)L.w_in, (long)L.k_h, (long)L.k_w, (long)L.s_h, (long)L.s_w,
                        (long)L.d_h, (long)L.d_w, (long)L.p_top, (long)L.p_bottom, (long)L.p_left,
                        (long)L.p_right, (long)truth, (long)rep.step, (long)rep.address);
        }
        free(want);
        case_free(&k);
    }
    fprintf(stderr, "rip sweep subset: %d of %d layers run, %d skipped (MACs > %d)\n", used, SWEEP_LAYERS, skipped,
            SWEEP_MAC_CAP);
    for (size_t i = 0; i < n_gen; i++) {
        fprintf(stderr, "  %s: %d\n", gens[i]->name, cat_used[i]);
        cr_assert_gt(cat_used[i], 0, "category %s not exercised", gens[i]->name);
    }
    for (int e = 0; e < 4; e++) {
        fprintf(stderr, "  %s: %d bit-exact at truth, %d with truth > 0: caught %d stale read + %d overflow, "
                "uncaught %d\n", rip_config_name(rip_configs[e]), cnt[e].tested, cnt[e].truth_pos,
                cnt[e].caught_stale, cnt[e].caught_overflow, cnt[e].uncaught);
        if (cnt[e].uncaught)
            fprintf(stderr, "    of the uncaught, %d caught at truth - 2, %d have truth 1\n",
                    cnt[e].caught_at_minus_2, cnt[e].uncaught_truth_1);
        cr_assert_eq(cnt[e].tested, used);
        if (rip_configs[e] == RIP_CONFIG_PADDED_GATHER || rip_configs[e] == RIP_CONFIG_DENSE_GATHER)
            cr_assert_eq(cnt[e].uncaught, 0);
    }
}

/* ------------------------------- fast paths against the plain order */

/*
** The in-place convolution in its documented order, one scalar at a time
** (rk_conv2d_rip.h): pixels row-major; gather reads every stored tap of
** the pixel, then writes channel by channel; taps reads channel oc's taps
** from the workspace, then writes it.  shadow NULL: the release kernel;
** else the checked kernel's tags, records and stop rule (rk_instrument.h).
** The model the kernels' blocked, vectorized and run-checked paths must
** equal byte for byte and record for record, at any gap.
*/
static void plain_rip(const conv_case *k, const rk_inplace *ip, int8_t *ws, int64_t ws_size, uint8_t *shadow,
                      bool stop, rk_violation *v)
{
    const ref_conv *g = &k->g;
    const bool padded = ip->layout == RK_PADDED, gather = ip->order == RK_GATHER;
    const int64_t h_s = padded ? g->h_in + g->p_top + k->p.p_bottom : g->h_in;
    const int64_t w_s = padded ? g->w_in + g->p_left + k->p.p_right : g->w_in;
    const int64_t off_h = padded ? 0 : g->p_top, off_w = padded ? 0 : g->p_left;
    const int64_t taps = (int64_t)g->k_h * g->k_w, depth = taps * g->cin;
    int64_t *addr = xmalloc((size_t)depth * sizeof *addr); /* -1: a dense pad tap */
    int8_t *val = xmalloc((size_t)depth);
    int64_t writes = 0, y = 0;
    memset(v, 0, sizeof *v);
    v->step = v->address = -1;
    v->pixel_r = v->pixel_c = -1;
#define PLAIN_RECORD(a, ovf)                                                                            \
    do {                                                                                                \
        if (!v->found) {                                                                                \
            v->found = true;                                                                            \
            v->step = writes;                                                                           \
            v->pixel_r = r;                                                                             \
            v->pixel_c = c;                                                                             \
            v->address = (a);                                                                           \
            v->overflow = (ovf);                                                                        \
        }                                                                                               \
        v->count++;                                                                                     \
        if (stop)                                                                                       \
            goto done;                                                                                  \
    } while (0)
    for (int r = 0; r < g->h_out; r++)
        for (int c = 0; c < g->w_out; c++) {
            for (int64_t t = 0; t < taps; t++) {
                const int64_t i = (int64_t)r * g->s_h + (t / g->k_w) * g->d_h - off_h;
                const int64_t j = (int64_t)c * g->s_w + (t % g->k_w) * g->d_w - off_w;
                for (int64_t ci = 0; ci < g->cin; ci++)
                    addr[t * g->cin + ci] =
                        (i < 0 || i >= h_s || j < 0 || j >= w_s) ? -1 : ip->gap + (i * w_s + j) * g->cin + ci;
            }
            for (int oc = 0; oc < g->cout; oc++) {
                if (gather ? oc == 0 : true)
                    for (int64_t x = 0; x < depth; x++) {
                        if (addr[x] < 0)
                            continue;
                        if (shadow != NULL && shadow[addr[x]] != RK_TAG_INPUT)
                            PLAIN_RECORD(addr[x], false);
                        val[x] = ws[addr[x]];
                    }
                int64_t acc = k->bias[oc];
                for (int64_t x = 0; x < depth; x++)
                    if (addr[x] >= 0)
                        acc += ((int64_t)val[x] - g->in_zp) * k->filter[(int64_t)oc * depth + x];
                const int32_t q = ref_requantize((int32_t)ref_wrap32(acc), k->mult[oc], k->shift[oc]);
                const int8_t out = ref_clamp8((int64_t)q + g->out_zp, g->act_min, g->act_max);
                const int64_t at = y + oc;
                if (at >= ws_size) {
                    PLAIN_RECORD(at, true);
                    writes++;
                    continue;
                }
                if (shadow != NULL)
                    shadow[at] = RK_TAG_WRITTEN;
                ws[at] = out;
                writes++;
            }
            y += g->cout;
        }
#undef PLAIN_RECORD
done:
    free(addr);
    free(val);
}

/* The rip_layer of a case, derived (asymmetric padding kept). */
static rip_layer layer_of(const conv_case *k)
{
    const ref_conv *g = &k->g;
    rip_layer L = rip_layer_make(g->cin, g->cout, g->h_in, g->w_in, g->k_h, g->k_w, g->s_h, g->s_w, g->d_h, g->d_w,
                                 0, 0);
    L.p_top = g->p_top;
    L.p_bottom = k->p.p_bottom;
    L.p_left = g->p_left;
    L.p_right = k->p.p_right;
    char err[RIP_ERR_LEN];
    cr_assert_eq(rip_layer_derive(&L, err), 0, "%s", err);
    return L;
}

/* One gap of one case: the release kernel (at a gap of at least the truth,
** the only gaps its contract covers), and the checked kernel stopping and
** not stopping, each with clean and with poisoned tags, against plain_rip:
** every workspace byte, every tag, every field of the record. */
static void compare_with_plain(rng *r, const conv_case *k, const rk_inplace *ip, bool safe, int *caught)
{
    const int64_t stored = rk_rip_stored_input(&k->p, k->in, ip);
    const int64_t n_out = (int64_t)k->g.h_out * k->g.w_out * k->g.cout;
    const int64_t ws_size = ip->gap + stored, rel_size = ws_size > n_out ? ws_size : n_out;
    int8_t *ws = xmalloc((size_t)rel_size), *want = xmalloc((size_t)rel_size);
    uint8_t *shadow = xmalloc((size_t)ws_size), *want_shadow = xmalloc((size_t)ws_size);
    const size_t ssz = rk_conv2d_rip_buffer_size(&k->p, k->in, k->out, ip);
    int8_t *scratch = ssz ? xmalloc(ssz) : NULL;
    const char *name = ip->layout == RK_PADDED ? (ip->order == RK_GATHER ? "padded_gather" : "padded_taps")
                                               : (ip->order == RK_GATHER ? "dense_gather" : "dense_taps");
    rk_violation v, w;

    memset(ws, 0x5a, (size_t)rel_size);
    rk_rip_store_input(&k->p, k->in, k->input, ip, ws);
    memcpy(want, ws, (size_t)rel_size);
    cr_assert_eq(rk_conv2d_rip(&k->p, &k->q, k->in, k->out, k->filter, k->bias, ip, ws, rel_size, scratch), RK_OK);
    plain_rip(k, ip, want, rel_size, NULL, false, &w);
    if (safe)
        cr_assert(memcmp(ws, want, (size_t)rel_size) == 0,
                  "%s gap %ld: release workspace differs from the plain order", name, (long)ip->gap);

    for (int variant = 0; variant < 4; variant++) {
        const bool stop = variant & 1, poison = variant & 2;
        memset(ws, 0x5a, (size_t)ws_size);
        rk_rip_store_input(&k->p, k->in, k->input, ip, ws);
        memcpy(want, ws, (size_t)ws_size);
        rk_shadow_init(shadow, ws_size, ip->gap, stored);
        if (poison) /* a few stale bytes anywhere in the stored input */
            for (int n = (int)rng_int(r, 1, 3); n > 0; n--)
                shadow[ip->gap + rng_int(r, 0, stored - 1)] = RK_TAG_WRITTEN;
        memcpy(want_shadow, shadow, (size_t)ws_size);
        cr_assert_eq(rk_conv2d_rip_checked_preset(&k->p, &k->q, k->in, k->out, k->filter, k->bias, ip, ws, ws_size,
                                                  scratch, shadow, stop, &v),
                     RK_OK);
        plain_rip(k, ip, want, ws_size, want_shadow, stop, &w);
        cr_assert(v.found == w.found && v.overflow == w.overflow && v.step == w.step && v.pixel_r == w.pixel_r &&
                      v.pixel_c == w.pixel_c && v.address == w.address && v.count == w.count,
                  "%s gap %ld stop %d poison %d: record (found %d ovf %d step %ld pixel %d,%d addr %ld count %ld), "
                  "plain order (found %d ovf %d step %ld pixel %d,%d addr %ld count %ld)",
                  name, (long)ip->gap, stop, poison, v.found, v.overflow, (long)v.step, v.pixel_r, v.pixel_c,
                  (long)v.address, (long)v.count, w.found, w.overflow, (long)w.step, w.pixel_r, w.pixel_c,
                  (long)w.address, (long)w.count);
        *caught += v.found;
        if (!stop || !v.found) { /* a run stopped early leaves a partial workspace */
            cr_assert(memcmp(ws, want, (size_t)ws_size) == 0, "%s gap %ld: checked workspace differs", name,
                      (long)ip->gap);
            cr_assert(memcmp(shadow, want_shadow, (size_t)ws_size) == 0, "%s gap %ld: tags differ", name,
                      (long)ip->gap);
        }
    }
    free(scratch);
    free(ws);
    free(want);
    free(shadow);
    free(want_shadow);
}

/* The kernels compute four taps channels at once and check reads by runs
** only where that cannot change a byte or a record; this pins it, at the
** truth, just below it and at arbitrary gaps (where inputs are overwritten:
** the checked kernel must record what the plain order reads; the release
** kernel, whose reordering is safe from the truth up, is compared there
** only), on random layers with wide channels (runs of 4 and tails) and on
** sweep layers. */
Test(kernels, rip_fast_paths_equal_the_plain_order, .timeout = 600)
{
    rng r = {20261130};
    int runs = 0, caught = 0;
    for (int n = 0; n < 260; n++) {
        conv_case k;
        if (n < 200) {
            draw_conv(&r, &k, false);
            if (n % 2 == 0) { /* wider channels: four-channel blocks and their tails */
                case_free(&k);
                k.g.cin = (int)rng_int(&r, 1, 40);
                k.g.cout = (int)rng_int(&r, 1, 23);
                k.in.c = k.g.cin;
                k.out.c = k.g.cout;
                case_data(&r, &k, false);
            }
        } else {
            rip_layer S;
            rip_sweep_draw(SWEEP_SEED, (int64_t)rng_int(&r, 0, 9999), &S);
            if (S.n_out * S.k_h * S.k_w * S.cin > 400000) {
                n--;
                continue;
            }
            case_from_layer(&r, &S, &k);
        }
        const rip_layer L = layer_of(&k);
        for (int e = 0; e < 4; e++) {
            int64_t truth = 0;
            cr_assert_eq(rip_sim_truth(&L, rip_configs[e], RIP_ENGINE_FAST, &truth), 0);
            const int64_t gaps[5] = {truth, truth - 1, truth - 2, rng_int(&r, 0, L.n_out), 0};
            for (int i = 0; i < 5; i++) {
                if (gaps[i] < 0)
                    continue;
                const rk_inplace ip = inplace_of(rip_configs[e], gaps[i]);
                compare_with_plain(&r, &k, &ip, gaps[i] >= truth, &caught);
                runs++;
            }
        }
        case_free(&k);
    }
    cr_log_info("fast paths against the plain order: %d gaps, %d checked runs with a violation", runs, caught);
    cr_assert_gt(caught, 1000);
}

/* Redraw k's channels (1..40 in, 1..40 out) and its data: four-channel
** blocks and their tails, c_in above, equal to and below c_out. */
static void widen_channels(rng *r, conv_case *k)
{
    case_free(k);
    k->g.cin = (int)rng_int(r, 1, 40);
    k->g.cout = (int)rng_int(r, 1, 40);
    k->in.c = k->g.cin;
    k->out.c = k->g.cout;
    case_data(r, k, false);
}

/* The release kernel's 1x1 path at any stride (an interval of pixels read
** where they lie per output row, the others through scratch): strided,
** unpadded 1x1 layers, narrow and wide channels, compared with the plain
** order from the truth up, at gaps where the interval is empty, partial
** and the whole row. */
Test(kernels, rip_strided_pointwise_equals_the_plain_order, .timeout = 300)
{
    rng r = {20261204};
    int runs = 0, caught = 0;
    for (int n = 0; n < 120; n++) {
        conv_case k;
        for (;;) {
            draw_conv(&r, &k, false);
            if (k.g.k_h == 1 && k.g.k_w == 1 && (k.g.s_h > 1 || k.g.s_w > 1) && k.g.p_top == 0 &&
                k.g.p_left == 0 && k.p.p_bottom == 0 && k.p.p_right == 0)
                break;
            case_free(&k);
        }
        if (n % 2 == 0)
            widen_channels(&r, &k);
        const rip_layer L = layer_of(&k);
        for (int e = 0; e < 4; e++) {
            int64_t truth = 0;
            cr_assert_eq(rip_sim_truth(&L, rip_configs[e], RIP_ENGINE_FAST, &truth), 0);
            const int64_t gaps[4] = {truth, truth + k.g.cout, truth + 2 * k.g.cout, truth + rng_int(&r, 0, L.n_out)};
            for (int i = 0; i < 4; i++) {
                const rk_inplace ip = inplace_of(rip_configs[e], gaps[i]);
                compare_with_plain(&r, &k, &ip, true, &caught);
                runs++;
            }
        }
        case_free(&k);
    }
    cr_log_info("strided 1x1 against the plain order: %d gaps, %d poisoned runs caught", runs, caught);
    cr_assert_eq(runs, 120 * 16);
    cr_assert_gt(caught, 0); /* the checked kernel saw the poisoned bytes */
}

/* Dense layout, padding only at the bottom or right (the store's offsets
** are then 0 as in the padded layout, which stores its pads): 1x1 and kxk
** layers, the release kernel against the plain order from the truth up. */
Test(kernels, rip_dense_padded_only_bottom_right, .timeout = 300)
{
    rng r = {20261206};
    int runs = 0, caught = 0, pointwise = 0;
    for (int n = 0; n < 150; n++) {
        conv_case k;
        for (;;) {
            draw_conv(&r, &k, false);
            const bool one = k.g.k_h == 1 && k.g.k_w == 1;
            if (k.g.p_top == 0 && k.g.p_left == 0 && (k.p.p_bottom > 0 || k.p.p_right > 0) && (one || n % 2 == 0))
                break;
            case_free(&k);
        }
        pointwise += k.g.k_h == 1 && k.g.k_w == 1;
        const rip_layer L = layer_of(&k);
        int64_t truth = 0;
        cr_assert_eq(rip_sim_truth(&L, RIP_CONFIG_DENSE_GATHER, RIP_ENGINE_FAST, &truth), 0);
        for (int64_t extra = 0; extra <= 2 * k.g.cout; extra += k.g.cout) {
            const rk_inplace ip = inplace_of(RIP_CONFIG_DENSE_GATHER, truth + extra);
            compare_with_plain(&r, &k, &ip, true, &caught);
            runs++;
        }
        case_free(&k);
    }
    cr_log_info("dense, bottom/right padding: %d gaps, %d layers 1x1", runs, pointwise);
    cr_assert_gt(pointwise, 40);
}

/* rk_conv2d_rip_direct_gap: at that gap the release kernel touches no
** scratch byte on a 1x1 layer (every pixel read where it lies), one byte
** less and it does (some pixel goes through scratch); for a kxk layer it is
** the gap given. */
Test(kernels, rip_direct_gap_is_the_least_gap_without_scratch, .timeout = 300)
{
    rng r = {20261205};
    int tight = 0;
    for (int n = 0; n < 200; n++) {
        conv_case k;
        for (;;) {
            draw_conv(&r, &k, false);
            if (k.g.k_h == 1 && k.g.k_w == 1)
                break;
            if (n % 10 == 0) { /* now and then a kxk layer: its gap is returned unchanged */
                const rk_inplace ip = {RK_DENSE, RK_GATHER, 17};
                cr_assert_eq(rk_conv2d_rip_direct_gap(&k.p, k.in, k.out, &ip), 17);
            }
            case_free(&k);
        }
        if (n % 2 == 0)
            widen_channels(&r, &k);
        const rip_layer L = layer_of(&k);
        for (int e = 0; e < 4; e++) {
            if (rip_configs[e] == RIP_CONFIG_PADDED_TAPS || rip_configs[e] == RIP_CONFIG_DENSE_TAPS)
                continue;
            int64_t truth = 0;
            cr_assert_eq(rip_sim_truth(&L, rip_configs[e], RIP_ENGINE_FAST, &truth), 0);
            rk_inplace ip = inplace_of(rip_configs[e], truth);
            const int64_t d = rk_conv2d_rip_direct_gap(&k.p, k.in, k.out, &ip);
            cr_assert_geq(d, truth);
            if (ip.layout == RK_DENSE && (k.g.p_top || k.g.p_left || k.p.p_bottom || k.p.p_right)) {
                cr_assert_eq(d, truth); /* padded 1x1, dense: every pixel gathered anyway */
                continue;
            }
            for (int64_t gap = d; gap >= d - 1 && gap >= truth; gap--) {
                ip.gap = gap;
                const int64_t stored = rk_rip_stored_input(&k.p, k.in, &ip);
                const int64_t n_out = (int64_t)k.g.h_out * k.g.w_out * k.g.cout;
                const int64_t ws_size = gap + stored > n_out ? gap + stored : n_out;
                const size_t ssz = rk_conv2d_rip_buffer_size(&k.p, k.in, k.out, &ip);
                int8_t *ws = xmalloc((size_t)ws_size), *scratch = xmalloc(ssz), *mark = xmalloc(ssz);
                memset(ws, 0x5a, (size_t)ws_size);
                for (size_t i = 0; i < ssz; i++)
                    mark[i] = (int8_t)(i * 37u + 11u);
                memcpy(scratch, mark, ssz);
                rk_rip_store_input(&k.p, k.in, k.input, &ip, ws);
                cr_assert_eq(rk_conv2d_rip(&k.p, &k.q, k.in, k.out, k.filter, k.bias, &ip, ws, ws_size, scratch),
                             RK_OK);
                const bool untouched = memcmp(scratch, mark, ssz) == 0;
                cr_assert(untouched == (gap == d), "gap %ld, direct gap %ld: scratch %s", (long)gap, (long)d,
                          untouched ? "untouched" : "used");
                tight += gap < d;
                free(ws);
                free(scratch);
                free(mark);
            }
        }
        case_free(&k);
    }
    cr_assert_gt(tight, 50); /* the bound was checked one byte below often enough */
}

/* ------------------------------------------- checked kernel: every read */

/* The first output pixel (row-major) with a tap on stored input scalar x,
** by brute force over the geometry; -1 if none. */
static int64_t first_reader(const conv_case *k, const rk_inplace *ip, int64_t x)
{
    const int64_t cin = k->g.cin, pix = x / cin;
    const int64_t w_s = ip->layout == RK_PADDED ? k->g.w_in + k->g.p_left + k->p.p_right : k->g.w_in;
    const int64_t i = pix / w_s, j = pix % w_s;
    for (int64_t r = 0; r < k->g.h_out; r++)
        for (int64_t c = 0; c < k->g.w_out; c++)
            for (int64_t a = 0; a < k->g.k_h; a++)
                for (int64_t b = 0; b < k->g.k_w; b++) {
                    int64_t y = r * k->g.s_h + a * k->g.d_h, z = c * k->g.s_w + b * k->g.d_w;
                    if (ip->layout == RK_DENSE) {
                        y -= k->g.p_top;
                        z -= k->g.p_left;
                    }
                    if (y == i && z == j)
                        return r * k->g.w_out + c;
                }
    return -1;
}

Test(kernels, rip_checked_catches_every_read_of_a_poisoned_byte)
{
    rng r = {404};
    int runs = 0, caught = 0;
    for (int n = 0; n < 60; n++) {
        conv_case k;
        draw_conv(&r, &k, false);
        const int64_t n_out = (int64_t)k.g.h_out * k.g.w_out * k.g.cout;
        for (int e = 0; e < 4; e++) {
            const rk_inplace ip = inplace_of(rip_configs[e], n_out); /* a gap at which nothing is overwritten */
            const int64_t ws_size = rk_conv2d_rip_workspace_size(&k.p, k.in, &ip);
            const int64_t stored = ws_size - ip.gap;
            int8_t *ws = xmalloc((size_t)ws_size);
            uint8_t *shadow = xmalloc((size_t)ws_size);
            const size_t ssz = rk_conv2d_rip_buffer_size(&k.p, k.in, k.out, &ip);
            int8_t *scratch = ssz ? xmalloc(ssz) : NULL;
            for (int64_t x = -1; x <= stored; x++) {
                /* x = -1 poisons the byte below the input, x = stored the one
                ** above it (when the workspace has one): nothing may read them. */
                rk_rip_store_input(&k.p, k.in, k.input, &ip, ws);
                rk_shadow_init(shadow, ws_size, ip.gap, stored);
                const int64_t addr = ip.gap + x;
                if (addr < ws_size)
                    shadow[addr] = RK_TAG_WRITTEN;
                rk_violation v;
                cr_assert_eq(rk_conv2d_rip_checked_preset(&k.p, &k.q, k.in, k.out, k.filter, k.bias, &ip, ws,
                                                          ws_size, scratch, shadow, true, &v),
                             RK_OK);
                runs++;
                const int64_t q = (x < 0 || x >= stored) ? -1 : first_reader(&k, &ip, x);
                if (q < 0) {
                    cr_assert(!v.found, "byte %ld no output reads was reported", (long)x);
                    continue;
                }
                caught++;
                cr_assert(v.found && !v.overflow, "read of poisoned byte %ld (%s) missed", (long)x,
                          rip_config_name(rip_configs[e]));
                cr_assert_eq(v.address, addr);
                cr_assert_eq((int64_t)v.pixel_r * k.g.w_out + v.pixel_c, q);
                cr_assert_eq(v.step, q * k.g.cout); /* before the pixel's first write, both orders */
            }
            free(scratch);
            free(shadow);
            free(ws);
        }
        case_free(&k);
    }
    cr_assert_gt(caught, 1000);
    cr_log_info("poisoned-byte runs: %d, reads caught: %d", runs, caught);
}

Test(kernels, rip_buffer_size_twins_are_exact)
{
    rng r = {99};
    for (int n = 0; n < 300; n++) {
        conv_case k;
        draw_conv(&r, &k, false);
        const int64_t n_out = (int64_t)k.g.h_out * k.g.w_out * k.g.cout;
        for (int e = 0; e < 4; e++) {
            const rk_inplace ip = inplace_of(rip_configs[e], n_out);
            const int64_t ws_size = rk_conv2d_rip_workspace_size(&k.p, k.in, &ip);
            cr_assert_eq(ws_size, n_out + rk_rip_stored_input(&k.p, k.in, &ip));
            int8_t *ws = xmalloc((size_t)ws_size);
            const size_t ssz = rk_conv2d_rip_buffer_size(&k.p, k.in, k.out, &ip);
            cr_assert_eq(ssz == 0, ip.order == RK_TAPS);
            int8_t *scratch = ssz ? xmalloc(ssz) : NULL; /* exact: ASan builds catch any overrun */
            rk_rip_store_input(&k.p, k.in, k.input, &ip, ws);
            cr_assert_eq(rk_conv2d_rip(&k.p, &k.q, k.in, k.out, k.filter, k.bias, &ip, ws, ws_size, scratch), RK_OK);
            cr_assert_eq(rk_conv2d_rip(&k.p, &k.q, k.in, k.out, k.filter, k.bias, &ip, ws, ws_size - 1, scratch),
                         RK_SPACE);
            rk_inplace bad = ip;
            bad.gap = -1;
            cr_assert_eq(rk_conv2d_rip(&k.p, &k.q, k.in, k.out, k.filter, k.bias, &bad, ws, ws_size, scratch),
                         RK_ARG);
            free(scratch);
            free(ws);
        }
        case_free(&k);
    }
}
