/*
** plan_gaps.c — the plan suite (tests/test_plan.c) on gaps and aliasing:
** the checker re-derives pool gaps and matches layers to tensors, the
** builder and the checker agree on pool gaps, a depthwise outgrowing its
** input is not in place, and the alias replay agrees with a brute force.
*/
#include <criterion/criterion.h>
#include <fcntl.h>
#include <sys/stat.h>

#include "run_cmd.h"
#include "plan/check_replay.h"
#include "plan/graph.h"
#include "plan/plan.h"
#include "plan_util.h"

/* A pool 3x3, stride 1, padding 1 on 8x8x4 (int8): written in place below
** its input, output pixel P would overwrite input pixel P, which outputs
** P + 1 (right) and P + 8 (below) still read.  The first pixel a later
** output reads when P = (y, x) is written is (y - 1, x) (the row above,
** one to the left is done only at x = 0...), so the gap is (W + 1) C =
** 9 * 4 = 36 bytes: worked out on paper from the windows. */
static void pool_problem(rip_problem *p, rip_tensor *t, rip_candidate *c, int64_t k, int64_t s, int64_t pad,
                         int64_t h_out, int64_t gap)
{
    memset(p, 0, sizeof *p);
    memset(t, 0, 2 * sizeof *t);
    memset(c, 0, sizeof *c);
    snprintf(p->name, sizeof p->name, "pool");
    snprintf(t[0].id, sizeof t[0].id, "in");
    snprintf(t[1].id, sizeof t[1].id, "out");
    t[0].size = 8 * 8 * 4, t[0].first = 0, t[0].last = 0, t[0].producer_op = -1;
    t[1].size = h_out * h_out * 4, t[1].first = 0, t[1].last = 0, t[1].producer_op = 0;
    c->in = 0, c->out = 1, c->op = 0, c->kind = RIP_INPLACE_GAP, c->gap = gap, c->pool = true, c->dtype_bytes = 1;
    char err[RIP_ERR_LEN];
    c->layer = rip_layer_make(4, 4, 8, 8, k, k, s, s, 1, 1, pad, pad);
    cr_assert_eq(rip_layer_derive(&c->layer, err), 0, "%s", err);
    p->t = t, p->n = 2, p->cand = c, p->n_cand = 1, p->n_steps = 1, p->align = 4;
}

Test(plan, checker_rederives_pool_gaps_and_matches_layers_to_tensors)
{
    rip_problem p;
    rip_tensor t[2];
    rip_candidate c;
    char err[RIP_ERR_LEN];

    /* the claimed gap 0 of a 3x3/s1/p1 pool is wrong: 36 bytes are needed */
    pool_problem(&p, t, &c, 3, 1, 1, 8, 0);
    rip_plan *plan = rip_plan_new(&p, "hand");
    plan->in_place[0] = true;
    plan->offset[0] = plan->offset[1] = 0;
    plan->peak = rip_plan_peak(&p, plan);
    cr_expect_eq(rip_plan_check(&p, plan, false, err), RIP_OK, "without simulation the claim stands: %s", err);
    cr_expect_eq(rip_plan_check(&p, plan, true, err), RIP_S_FAILED);
    cr_expect(strstr(err, "the gap needs 36 (pool simulated)") != NULL, "%s", err);
    plan->offset[0] = 36;
    plan->peak = rip_plan_peak(&p, plan);
    cr_expect_eq(rip_plan_check(&p, plan, true, err), RIP_OK, "36 bytes below: %s", err);
    plan->offset[0] = 32;
    plan->peak = rip_plan_peak(&p, plan);
    cr_expect_eq(rip_plan_check(&p, plan, true, err), RIP_S_FAILED, "32 bytes is not enough");
    rip_plan_free(plan);

    /* 2x2 stride 2: windows never reach back, gap 0 holds */
    pool_problem(&p, t, &c, 2, 2, 0, 4, 0);
    plan = rip_plan_new(&p, "hand");
    plan->in_place[0] = true;
    plan->peak = rip_plan_peak(&p, plan);
    cr_expect_eq(rip_plan_check(&p, plan, true, err), RIP_OK, "%s", err);

    /* a pool geometry that is not its tensors */
    t[0].size = 8 * 8 * 8;
    plan->peak = rip_plan_peak(&p, plan);
    cr_expect_eq(rip_plan_check(&p, plan, false, err), RIP_S_FAILED);
    cr_expect(strstr(err, "but the tensors are 512 B -> 64 B") != NULL, "%s", err);
    rip_plan_free(plan);

    /* a conv layer (pointwise 16 -> 64 on 8x8, int8: 1,024 B -> 4,096 B)
    ** joining tensors of other sizes is refused, used in place or not */
    two_tensors(&p, t, 2048, 4096, 4);
    memset(&c, 0, sizeof c);
    c.in = 0, c.out = 1, c.op = 0, c.kind = RIP_INPLACE_GAP, c.gap = 3072, c.has_layer = true, c.dtype_bytes = 1;
    c.layer = rip_layer_make(16, 64, 8, 8, 1, 1, 1, 1, 1, 1, 0, 0);
    cr_assert_eq(rip_layer_derive(&c.layer, err), 0, "%s", err);
    p.cand = &c, p.n_cand = 1;
    plan = rip_plan_new(&p, "hand");
    plan->offset[1] = 2048;
    plan->peak = rip_plan_peak(&p, plan);
    cr_expect_eq(rip_plan_check(&p, plan, true, err), RIP_S_FAILED);
    cr_expect(strstr(err, "conv layer reads 8x8x16") && strstr(err, "1024 B -> 4096 B") &&
                  strstr(err, "tensors are 2048 B -> 4096 B"),
              "%s", err);
    t[0].size = 1024;
    cr_expect_eq(rip_plan_check(&p, plan, true, err), RIP_OK, "%s", err);
    /* stored derived fields that disagree with the layer's numbers */
    c.layer.n_in_dense = 2048;
    cr_expect_eq(rip_plan_check(&p, plan, true, err), RIP_S_FAILED);
    cr_expect(strstr(err, "not a valid geometry") != NULL, "%s", err);
    c.layer.n_in_dense = 1024;
    cr_expect_eq(rip_plan_check(&p, plan, true, err), RIP_OK, "%s", err);
    rip_plan_free(plan);
}

/* Eight draws in [0, 1000) from the xorshift64 state *x, into v. */
static void draw8(uint64_t *x, int64_t v[8])
{
    for (int i = 0; i < 8; i++) {
        *x ^= *x << 13, *x ^= *x >> 7, *x ^= *x << 17;
        v[i] = (int64_t)(*x % 1000);
    }
}

/* The builder's pool gap (Theorem 13 on the pool's geometry) and the
** checker's (a simulation of the pool's reads and writes) are derived
** independently: on random pools a plan exactly `gap` below passes, one
** alignment step less fails whenever the gap is positive. */
Test(plan, builder_and_checker_agree_on_pool_gaps)
{
    uint64_t x = 0x9e3779b97f4a7c15u;
    int checked = 0, positive = 0;
    for (int it = 0; it < 300; it++) {
        int64_t v[8];
        draw8(&x, v);
        int64_t h = 1 + v[0] % 12, w = 1 + v[1] % 12, k = 1 + v[2] % 4, s = 1 + v[3] % 3, d = 1 + v[4] % 2;
        int64_t pt = v[5] % k, pl = v[6] % k, ch = 1 + v[7] % 5;
        int64_t keff = (k - 1) * d + 1;
        if (h + 2 * pt < keff || w + 2 * pl < keff)
            continue;
        int64_t ho = (h + 2 * pt - keff) / s + 1, wo = (w + 2 * pl - keff) / s + 1;
        if (ho == 1 && wo == 1 && k == h && k == w)
            continue; /* a global pool: no candidate */
        char text[512];
        snprintf(text, sizeof text,
                 GHEAD "0,maxpool,-1,%lld,%lld,%lld,%lld,%lld,%lld,%lld,%lld,%lld,%lld,%lld,%lld,%lld,%lld,%lld,%lld,1\n",
                 (long long)h, (long long)w, (long long)ch, (long long)ho, (long long)wo, (long long)ch, (long long)k,
                 (long long)k, (long long)s, (long long)s, (long long)pt, (long long)pl, (long long)pt, (long long)pl,
                 (long long)d, (long long)d);
        rip_problem p;
        load_graph(write_file("rpool.csv", text), true, false, 1, &p);
        if (p.n_cand == 0) {
            rip_problem_free(&p);
            continue; /* Theorem 13 undefined (padding >= k_eff) */
        }
        cr_assert_eq(p.n_cand, 1u);
        const rip_candidate *c = &p.cand[0];
        cr_assert(c->pool);
        rip_plan *plan = rip_plan_new(&p, "hand");
        plan->in_place[0] = true;
        plan->offset[c->out] = 0;
        plan->offset[c->in] = c->gap;
        plan->peak = rip_plan_peak(&p, plan);
        char err[RIP_ERR_LEN];
        cr_expect_eq(rip_plan_check(&p, plan, true, err), RIP_OK, "%s: %s", text, err);
        if (c->gap > 0) {
            plan->offset[c->in] = c->gap - 1;
            plan->peak = rip_plan_peak(&p, plan);
            cr_expect_eq(rip_plan_check(&p, plan, true, err), RIP_S_FAILED, "one byte less must fail: %s", text);
            positive++;
        }
        checked++;
        rip_plan_free(plan);
        rip_problem_free(&p);
    }
    cr_expect_gt(checked, 100, "%d pools checked", checked);
    cr_expect_gt(positive, 10, "%d with a positive gap", positive);
}

/* ---- a depthwise whose output outgrows its input (issue 19, item 4) ---- */

/* 4x4x3 -> 6x6x3: 3x3, stride 1, padding 2 on every side; int8, so 48 B
** in and 108 B out. */
static const char dw_grows_csv[] = GHEAD "0,depthwise,-1,4,4,3,6,6,3,3,3,1,1,2,2,2,2,1,1,1\n";

/* The one-step problem (two_tensors) of a 4x4x3 int8 input, 48 B, and an
** out_bytes output, joined by a hand-made ALIAS candidate c of a 3x3
** channel-in-place depthwise of stride s and padding pad on every side;
** and a plan using c with both tensors at offset 0, its peak computed. */
static rip_plan *dw_in_place_plan(rip_problem *p, rip_tensor t[2], rip_candidate *c, int64_t out_bytes, int64_t s,
                                  int64_t pad)
{
    two_tensors(p, t, 48, out_bytes, 4);
    t[1].last = 0;
    memset(c, 0, sizeof *c);
    c->in = 0, c->out = 1, c->op = 0, c->kind = RIP_INPLACE_ALIAS, c->alias_op = RIP_ALIAS_DEPTHWISE;
    c->dtype_bytes = 1;
    c->layer = rip_layer_make(3, 3, 4, 4, 3, 3, s, s, 1, 1, pad, pad);
    char err[RIP_ERR_LEN];
    cr_assert_eq(rip_layer_derive(&c->layer, err), 0, "%s", err);
    p->cand = c, p->n_cand = 1, p->n_steps = 1;
    rip_plan *plan = rip_plan_new(p, "hand");
    cr_assert_not_null(plan);
    plan->in_place[0] = true;
    plan->offset[0] = plan->offset[1] = 0;
    plan->peak = rip_plan_peak(p, plan);
    return plan;
}

/*
** The kernel (rk_depthwise_inplace) writes the output over its input's
** bytes, so an output larger than the input has nowhere to go: the builder
** makes no candidate and every strategy plans the two tensors apart, 48 +
** 108 = 156 B (both are live at the one step; nothing else is).  A
** hand-made 108 B plan, output over input, fails the check, which replays
** the kernel's writes; the same candidate on a depthwise that keeps or
** shrinks its input passes.
*/
Test(plan, depthwise_outgrowing_its_input_is_not_in_place)
{
    const char *path = write_file("dw-grows.csv", dw_grows_csv);
    static const char *const names[] = {"naive", "greedy-size", "tinyengine", "hill-climb", "milp", "exact"};
    for (int rip = 0; rip < 2; rip++) {
        rip_problem p;
        load_graph(path, rip, true, 4, &p);
        cr_expect_eq(p.n_cand, 0u, "rip %d: a candidate for a depthwise whose output outgrows its input", rip);
        for (size_t s = 0; s < sizeof names / sizeof names[0]; s++) {
            rip_plan *plan = plan_with(&p, names[s], 1, true);
            cr_expect_eq(plan->peak, 156, "rip %d, %s: %lld B", rip, names[s], (long long)plan->peak);
            rip_plan_free(plan);
        }
        rip_problem_free(&p);
    }
    static const char *const cli[][2] = {{"--strategy", "tinyengine"}, {"--strategy", "milp"},
                                         {"--strategy", "exact"},      {"--strategy", "naive"},
                                         {"--no-rip", "--check"}};
    for (size_t i = 0; i < sizeof cli / sizeof cli[0]; i++) {
        run_result *r = RUN("plan", path, cli[i][0], cli[i][1], "--json");
        cr_expect_eq(r->status, 0, "plan %s %s: exit %d: %s", cli[i][0], cli[i][1], r->status, r->err);
        cr_expect_eq(json_int(r->out, "peak_bytes"), 156, "plan %s %s", cli[i][0], cli[i][1]);
    }

    rip_problem p;
    rip_tensor t[2];
    rip_candidate c;
    char err[RIP_ERR_LEN];
    rip_plan *plan = dw_in_place_plan(&p, t, &c, 108, 1, 2);
    cr_expect_eq(plan->peak, 108);
    cr_expect_eq(rip_plan_check(&p, plan, true, err), RIP_S_FAILED, "the 108 B plan passed");
    /* channel 0 of output pixel 16 = (2, 4) is the first write past byte 48 */
    cr_expect(strstr(err, "depthwise") && strstr(err, "(2, 4) channel 0") && strstr(err, "byte 48") &&
                  strstr(err, "[0, 48)"),
              "%s", err);
    /* without its operator there is nothing to replay: refused when simulating, taken as given otherwise */
    c.alias_op = RIP_ALIAS_NONE;
    cr_expect_eq(rip_plan_check(&p, plan, true, err), RIP_S_FAILED);
    cr_expect(strstr(err, "no operator to replay") != NULL, "%s", err);
    cr_expect_eq(rip_plan_check(&p, plan, false, err), RIP_OK, "%s", err);
    rip_plan_free(plan);

    /* 3x3 stride 1 padding 1 keeps 4x4, stride 2 shrinks it to 2x2: both fit over the input */
    const int64_t keep[][3] = {{1, 1, 48}, {2, 1, 12}};
    for (int i = 0; i < 2; i++) {
        plan = dw_in_place_plan(&p, t, &c, keep[i][2], keep[i][0], keep[i][1]);
        cr_expect_eq(rip_plan_check(&p, plan, true, err), RIP_OK, "stride %lld: %s", (long long)keep[i][0], err);
        /* a geometry that is not its tensors is refused */
        t[1].size = 2 * keep[i][2];
        plan->peak = rip_plan_peak(&p, plan);
        cr_expect_eq(rip_plan_check(&p, plan, true, err), RIP_S_FAILED);
        cr_expect(strstr(err, "but the tensors are") != NULL, "%s", err);
        rip_plan_free(plan);
    }
}

/* ---- the checker's replay of ALIAS operators against a brute force ---- */

/* One access of an operator to the workspace: a read of input scalar i or a
** write of output scalar i. */
typedef struct ws_access {
    bool write;
    int64_t i;
} ws_access;

/*
** The accesses of the ALIAS operator of c in the order its kernel makes
** them, written forward from the firmware kernels (the checker replays them
** backward): rk_add (elementwise: read element i, write element i),
** rk_upsample_nearest_inplace (output pixels last to first, each channel
** read from its source pixel and written, or only read where source and
** destination coincide), rk_depthwise_inplace (per channel: the channel's
** input plane read into scratch, then its output plane written).  n_in:
** input scalars.  Returns the count; a[] must have room for twice the
** input and output scalars.
*/
static int64_t forward_accesses(const rip_candidate *c, int64_t n_in, ws_access *a)
{
    const rip_layer *L = &c->layer;
    int64_t n = 0;
    if (c->alias_op == RIP_ALIAS_ELEMENTWISE) {
        for (int64_t i = 0; i < n_in; i++) {
            a[n++] = (ws_access){false, i};
            a[n++] = (ws_access){true, i};
        }
    } else if (c->alias_op == RIP_ALIAS_UPSAMPLE) {
        for (int64_t r = L->h_out - 1; r >= 0; r--)
            for (int64_t x = L->w_out - 1; x >= 0; x--) {
                int64_t src = ((r / L->s_h) * L->w_in + x / L->s_w) * L->cin, dst = (r * L->w_out + x) * L->cin;
                for (int64_t k = 0; k < L->cin; k++) {
                    a[n++] = (ws_access){false, src + k};
                    if (src != dst)
                        a[n++] = (ws_access){true, dst + k};
                }
            }
    } else {
        for (int64_t ch = 0; ch < L->cin; ch++) {
            for (int64_t q = 0; q < L->h_in * L->w_in; q++)
                a[n++] = (ws_access){false, q * L->cin + ch};
            for (int64_t q = 0; q < L->h_out * L->w_out; q++)
                a[n++] = (ws_access){true, q * L->cin + ch};
        }
    }
    return n;
}

/*
** Brute force: with the input at byte x_in and the output at x_out (dtype
** d), is some write onto a byte of an input scalar read after it, or (the
** depthwise, which is handed its input's bytes alone) outside the input?
*/
static bool brute_unsafe(const rip_candidate *c, int64_t n_in, int64_t n_out, int64_t x_in, int64_t x_out)
{
    const int64_t d = c->dtype_bytes, s_in = n_in / d;
    ws_access *a = malloc(2 * (size_t)(n_in + n_out) / (size_t)d * sizeof *a);
    int64_t *last = malloc((size_t)s_in * sizeof *last);
    cr_assert(a && last);
    int64_t n = forward_accesses(c, s_in, a);
    for (int64_t j = 0; j < s_in; j++)
        last[j] = -1;
    for (int64_t e = 0; e < n; e++)
        if (!a[e].write)
            last[a[e].i] = e;
    bool unsafe = false;
    for (int64_t e = 0; e < n && !unsafe; e++) {
        if (!a[e].write)
            continue;
        int64_t b0 = x_out + a[e].i * d, b1 = b0 + d; /* the bytes written */
        if (c->alias_op == RIP_ALIAS_DEPTHWISE && (b0 < x_in || b1 > x_in + n_in))
            unsafe = true;
        /* the input scalars those bytes fall in (floor division: b0 may lie below x_in) */
        int64_t j0 = b0 - x_in >= 0 ? (b0 - x_in) / d : -((x_in - b0 + d - 1) / d);
        for (int64_t j = j0 < 0 ? 0 : j0; j * d + x_in < b1 && j < s_in && !unsafe; j++)
            unsafe = last[j] > e;
    }
    free(a);
    free(last);
    return unsafe;
}

/*
** The checker's replay (check_replay.c: backward, one bit per input
** scalar) against the forward brute force above, on random small
** elementwise, upsampling and depthwise operators of 1- and 2-byte
** scalars, the output displaced from the input by every byte from -n_out
** to +n_in (ALIAS plans use 0 only; the others make real hazards).  At
** displacement 0 every operator is safe except a depthwise whose output
** outgrows its input.
*/
Test(plan, alias_replay_agrees_with_a_brute_force)
{
    uint64_t x = 0x243f6a8885a308d3u;
    int64_t unsafe_seen = 0, safe_seen = 0, zero_unsafe = 0, cases = 0;
    for (int it = 0; it < 240; it++) {
        int64_t v[8];
        draw8(&x, v);
        rip_candidate c;
        memset(&c, 0, sizeof c);
        c.kind = RIP_INPLACE_ALIAS;
        c.dtype_bytes = 1 + v[0] % 2;
        const int64_t ch = 1 + v[1] % 3, h = 1 + v[2] % 4, w = 1 + v[3] % 4;
        int64_t n_in = h * w * ch * c.dtype_bytes, n_out;
        char err[RIP_ERR_LEN];
        if (it % 3 == 0) {
            c.alias_op = RIP_ALIAS_ELEMENTWISE;
            n_out = n_in;
        } else if (it % 3 == 1) {
            c.alias_op = RIP_ALIAS_UPSAMPLE;
            c.layer.cin = c.layer.cout = ch, c.layer.h_in = h, c.layer.w_in = w;
            c.layer.s_h = 1 + v[4] % 3, c.layer.s_w = 1 + v[5] % 3;
            c.layer.h_out = h * c.layer.s_h, c.layer.w_out = w * c.layer.s_w;
            n_out = c.layer.h_out * c.layer.w_out * ch * c.dtype_bytes;
        } else {
            const int64_t k = 1 + v[4] % 3, s = 1 + v[5] % 2, pad = v[6] % 3;
            if (h + 2 * pad < k || w + 2 * pad < k)
                continue;
            c.alias_op = RIP_ALIAS_DEPTHWISE;
            c.layer = rip_layer_make(ch, ch, h, w, k, k, s, s, 1, 1, pad, pad);
            cr_assert_eq(rip_layer_derive(&c.layer, err), 0, "%s", err);
            n_out = c.layer.h_out * c.layer.w_out * ch * c.dtype_bytes;
        }
        const int64_t x_in = 64;
        for (int64_t dx = -n_out; dx <= n_in; dx++) {
            bool want = brute_unsafe(&c, n_in, n_out, x_in, x_in + dx);
            rip_status got = rip_replay_alias(&c, n_in, n_out, x_in, x_in + dx, err);
            cr_assert_eq(got, want ? RIP_S_FAILED : RIP_OK, "op %d, %lldx%lldx%lld, dtype %lld, out - in = %lld: %s",
                         (int)c.alias_op, (long long)h, (long long)w, (long long)ch, (long long)c.dtype_bytes,
                         (long long)dx, got == RIP_OK ? "replay passed" : err);
            unsafe_seen += want;
            safe_seen += !want;
            if (dx == 0) {
                cr_expect_eq(want, c.alias_op == RIP_ALIAS_DEPTHWISE && n_out > n_in);
                zero_unsafe += want;
            }
            cases++;
        }
    }
    cr_expect_gt(unsafe_seen, 1000, "%lld unsafe placements of %lld", (long long)unsafe_seen, (long long)cases);
    cr_expect_gt(safe_seen, 1000, "%lld safe placements of %lld", (long long)safe_seen, (long long)cases);
    cr_expect_gt(zero_unsafe, 3, "%lld depthwise outgrowing their input", (long long)zero_unsafe);
}
