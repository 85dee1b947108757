/*
** test_sim.c — Criterion suite for sim/: the allocation-tracking simulator.
**
** Expected values come from the paper (Tab. 2, Appendix I, Sec. F.4),
** from hand derivations written out next to each assertion, or from an
** independent computation in this file (the herringbone order); the two
** engines are checked against each other on seeded random layers, run by
** run, report by report.  Nothing here is a value printed by the code
** under test.  This suite links sim/ and src/core/layer only, never formulas/.
*/
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#include "layer.h"
#include "sim.h"
#include "splitmix.h"

/* ---------------------------------------------------------------- helpers */

/* Layer with symmetric padding, derived; fails the test if it is invalid. */
static rip_layer make(int64_t cin, int64_t cout, int64_t h, int64_t w, int64_t kh, int64_t kw,
                      int64_t sh, int64_t sw, int64_t dh, int64_t dw, int64_t ph, int64_t pw)
{
    char err[RIP_ERR_LEN];
    rip_layer L = rip_layer_make(cin, cout, h, w, kh, kw, sh, sw, dh, dw, ph, pw);
    cr_assert_eq(rip_layer_derive(&L, err), 0, "test layer does not derive: %s", err);
    return L;
}

/*
** A random small layer (cin, cout 1..8, h, w 1..14, k 1..5 per axis,
** s, d 1..3 per axis, each side padded 0..k_eff independently); layers
** that do not derive (no output) are drawn again.
*/
static rip_layer random_layer(void)
{
    char err[RIP_ERR_LEN];
    for (;;) {
        rip_layer L = rip_layer_make(rng_int(1, 8), rng_int(1, 8), rng_int(1, 14), rng_int(1, 14),
                                     rng_int(1, 5), rng_int(1, 5), rng_int(1, 3), rng_int(1, 3),
                                     rng_int(1, 3), rng_int(1, 3), 0, 0);
        int64_t keh = L.d_h * (L.k_h - 1) + 1, kew = L.d_w * (L.k_w - 1) + 1;
        L.p_top = rng_int(0, keh);
        L.p_bottom = rng_int(0, keh);
        L.p_left = rng_int(0, kew);
        L.p_right = rng_int(0, kew);
        if (rip_layer_derive(&L, err) == 0)
            return L;
    }
}

static int64_t truth(const rip_layer *L, rip_config e, rip_engine engine)
{
    int64_t g = -1;
    cr_assert_eq(rip_sim_truth(L, e, engine, &g), 0, "rip_sim_truth failed for %s",
                 rip_config_name(e));
    return g;
}

/* Truth of every configuration under both engines, which must agree;
** compares with want[] (indexed by rip_config). */
static void expect_truths(const rip_layer *L, const int64_t want[RIP_CONFIG_COUNT])
{
    for (int e = 0; e < RIP_CONFIG_COUNT; e++)
        for (int eng = 0; eng < 2; eng++) {
            int64_t g = truth(L, (rip_config)e, (rip_engine)eng);
            cr_expect_eq(g, want[e], "%s (%s engine): truth %lld, expected %lld",
                         rip_config_name((rip_config)e), eng ? "fast" : "plain", (long long)g,
                         (long long)want[e]);
        }
}

static void expect_report(const rip_layer *L, rip_config e, int64_t delta, rip_run_outcome outcome,
                          int64_t step, int64_t r, int64_t c, int64_t address)
{
    for (int eng = 0; eng < 2; eng++) {
        rip_sim *s = rip_sim_new(L, e, (rip_engine)eng);
        cr_assert_not_null(s);
        rip_run_report rep;
        bool ok = rip_sim_run(s, delta, &rep);
        cr_expect_eq(ok, outcome == RIP_RUN_OK);
        cr_expect_eq(rep.outcome, outcome, "%s delta=%lld: outcome %d, expected %d",
                     rip_config_name(e), (long long)delta, rep.outcome, outcome);
        if (outcome != RIP_RUN_OK) {
            cr_expect_eq(rep.step, step, "%s: step %lld", rip_config_name(e), (long long)rep.step);
            cr_expect_eq(rep.pixel_r, r);
            cr_expect_eq(rep.pixel_c, c);
            cr_expect_eq(rep.address, address, "%s: address %lld", rip_config_name(e),
                         (long long)rep.address);
        }
        rip_sim_free(s);
    }
}

/* ----------------------------------------------------------- paper numbers */

/* Tab. 2 "Truth" column: herringbone_taps in the restricted setting. */
Test(sim, table2_herringbone_truths)
{
    static const int64_t rows[][5] = {
        /* cin cout k H=W truth */
        {1, 5, 3, 14, 533},
        {5, 8, 3, 12, 149},
        {8, 11, 3, 10, 46},
        {3, 4, 5, 8, 7},
        {8, 9, 7, 9, 11},
        {16, 17, 9, 12, 20},
        {16, 17, 15, 18, 20},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        const int64_t *x = rows[i];
        rip_layer L = make(x[0], x[1], x[3], x[3], x[2], x[2], 1, 1, 1, 1, 0, 0);
        cr_assert(rip_layer_is_restricted(&L));
        for (int eng = 0; eng < 2; eng++)
            cr_expect_eq(truth(&L, RIP_CONFIG_HB_TAPS, (rip_engine)eng), x[4],
                         "Tab. 2 row %zu (%s engine)", i, eng ? "fast" : "plain");
    }
}

/*
** Appendix I, dense layout with the receptive field gathered first: the
** workspace truth + h_in*w_in*cin at full size.
*/
Test(sim, appendix_i_full_size_dense_gather)
{
    rip_layer vgg = make(64, 64, 224, 224, 3, 3, 1, 1, 1, 1, 1, 1);
    cr_expect_eq(truth(&vgg, RIP_CONFIG_DENSE_GATHER, RIP_ENGINE_FAST) + vgg.n_in_dense, 3225664);
    rip_layer inc = make(32, 64, 147, 147, 3, 3, 1, 1, 1, 1, 1, 1);
    cr_expect_eq(truth(&inc, RIP_CONFIG_DENSE_GATHER, RIP_ENGINE_FAST) + inc.n_in_dense, 1387680);
}

/*
** VGG-16 conv1_2 in the padded layout, by hand.  With delta = 0, pixel
** q = r*224 + c writes [64q, 64q+64), which holds padded pixel p = q =
** i*226 + j.  Its last reader is min(i,223)*224 + min(j,223).  Since 226 >
** 224 and c < 224, i <= r; i < r gives last reader <= i*224+223 < q, and
** i = r gives j = c - 2r <= c, last reader <= q with equality only at r = 0.
** So gather first never corrupts (truth 0), while taps-from-workspace
** corrupts at q = 0 (pixel 0 is read by output 0 itself) and, by the same
** inequalities shifted by one pixel, delta = 64 = cout clears everything.
** Also: all seven truths with the fast engine (their CPU time logged, not
** asserted: the benchmark sim-per-config-vgg16-conv1_2 measures speed).
*/
Test(sim, vgg_conv1_2_padded_by_hand_and_fast)
{
    rip_layer vgg = make(64, 64, 224, 224, 3, 3, 1, 1, 1, 1, 1, 1);
    clock_t t0 = clock();
    int64_t g[RIP_CONFIG_COUNT];
    for (int e = 0; e < RIP_CONFIG_COUNT; e++)
        g[e] = truth(&vgg, (rip_config)e, RIP_ENGINE_FAST);
    double secs = (double)(clock() - t0) / CLOCKS_PER_SEC;
    cr_expect_eq(g[RIP_CONFIG_PADDED_GATHER], 0);
    cr_expect_eq(g[RIP_CONFIG_PADDED_TAPS], 64);
    cr_expect_eq(g[RIP_CONFIG_DENSE_GATHER], 14400);
    cr_log_info("seven fast truths on VGG conv1_2: %.2f CPU-s", secs);
}

/*
** Sec. F.4: cin = cout = 2, k = 1x2, 1x1 input, d = (1,2), p = (0,1).  The
** taps land on padded columns 0 and 2, both padding; the real column 1 is
** never read.
**   dense taps / gather: the only stored pixel is dead, delta 0 (paper: 0);
**   padded gather: pad cells 0 and 2 are last read by q = 0, not > 0: 0;
**   padded taps: address 0 holds pad cell 0, live at q = 0 (>= 0): the two
**     writes of q = 0 must fit below it, delta 2;
**   herringbone window: the single output's rectangle covers every input,
**     nothing is released before the 2 writes, delta 2;
**   herringbone reader: the real column (2 scalars) is never read and is
**     released before the first write, delta 0;
**   herringbone pruned: the real column is never stored; the two pad
**     columns (4 scalars) are all released after the only step, whose 2
**     writes need 2 free slots: delta 2.
*/
Test(sim, f4_stale_from_the_outset)
{
    rip_layer L = make(2, 2, 1, 1, 1, 2, 1, 1, 1, 2, 0, 1);
    const int64_t want[RIP_CONFIG_COUNT] = {
        [RIP_CONFIG_PADDED_GATHER] = 0, [RIP_CONFIG_PADDED_TAPS] = 2,
        [RIP_CONFIG_DENSE_GATHER] = 0, [RIP_CONFIG_DENSE_TAPS] = 0,
        [RIP_CONFIG_HB_TAPS] = 2, [RIP_CONFIG_HB_TAPS_READER] = 0, [RIP_CONFIG_HB_PRUNED] = 2,
    };
    expect_truths(&L, want);
}

/* -------------------------------------------------------- hand-made cases */

/*
** 1x1 kernel, cin = cout = 1, 3x3 input, no padding: output q reads input q
** only, so its last reader is q.
**   gather: at q the live inputs are q+1.., the write at q lands on input q:
**     delta 0;
**   taps: input q is live while q writes, delta 0 corrupts at q = 0, addr 0;
**     delta 1: the write at q lands on input q-1, already dead: delta 1;
**   dense = padded (no padding);
**   herringbone: pool 9 + delta; each step takes one slot and then frees
**     the input under the pixel just written: reader rule, its only reader;
**     window rule, its rectangle r' <= r, c' <= c, whose pixels the
**     herringbone (rows, then the column below, peeling inward) has all
**     visited by the time it reaches (r,c).  So delta 1.  Every input is
**     read, so pruning stores the same input: delta 1.
*/
Test(sim, hand_pointwise_3x3)
{
    rip_layer L = make(1, 1, 3, 3, 1, 1, 1, 1, 1, 1, 0, 0);
    const int64_t want[RIP_CONFIG_COUNT] = {0, 1, 0, 1, 1, 1, 1};
    expect_truths(&L, want);
    expect_report(&L, RIP_CONFIG_PADDED_TAPS, 0, RIP_RUN_CORRUPTION, 0, 0, 0, 0);
    expect_report(&L, RIP_CONFIG_HB_TAPS, 0, RIP_RUN_NO_SLOT, 0, 0, 0, -1);
}

/*
** 1x1 input, 3x3 kernel, p = 1, cin = cout = 1: one output reading all
** nine padded cells (the real pixel in the middle).  Every input's last
** reader is q = 0.  Gather: nothing is live while q = 0 writes (0 > 0 is
** false): 0.  Taps: all live: 1.  Dense: same.  Herringbone: nothing is
** released before the only write: 1 under all three rules (every padded
** cell is read, so pruning drops nothing).
*/
Test(sim, hand_single_output_padded)
{
    rip_layer L = make(1, 1, 1, 1, 3, 3, 1, 1, 1, 1, 1, 1);
    const int64_t want[RIP_CONFIG_COUNT] = {0, 1, 0, 1, 1, 1, 1};
    expect_truths(&L, want);
}

/*
** 1x3 input, 1x1 kernel, s_w = 2, cin = cout = 1: outputs read columns 0
** and 2; column 1 is dead from the start.
**   gather: q = 0 writes addr 0 (input 0, last reader 0, not > 0), q = 1
**     writes addr 1 (dead): 0;
**   taps: input 0 is live at q = 0: 1;
**   herringbone window: corner of column j is min(j/2, 1): columns 0 and 1
**     are freed after step 0, column 2 after step 1; step 0 needs 1 free
**     slot: 1;
**   herringbone reader: column 1 is freed before the first write: 0;
**   herringbone pruned: columns 0 and 2 stored (2 scalars), column 0 freed
**     after step 0, so each step finds delta free: 1 (workspace 2 + 1 = 3
**     against 3 + 1 for herringbone_taps).
*/
Test(sim, hand_strided_dead_column)
{
    rip_layer L = make(1, 1, 1, 3, 1, 1, 1, 2, 1, 1, 0, 0);
    const int64_t want[RIP_CONFIG_COUNT] = {0, 1, 0, 1, 1, 0, 1};
    expect_truths(&L, want);
    cr_expect_eq(rip_sim_read_scalars(&L), 2);
}

/*
** Appendix E.3's pruning, by hand: 1x5 input, 1x1 kernel, s_w = 2 (outputs
** read columns 0, 2, 4; columns 1 and 3 are stale), no padding, w_out 3.
** Window corners: columns 0,1 -> output 0, 2,3 -> 1, 4 -> 2.
** cin 1, cout 2:
**   herringbone_taps: step 0 needs 2 free (delta >= 2), then columns 0,1
**     come back (+2), so each later step finds delta again: 2, workspace
**     5 + 2 = 7;
**   reader: columns 1, 3 freed at once (delta + 2), step 0 leaves delta,
**     column 0 back: delta + 1 >= 2 at step 1, then column 2 back: delta
**     >= 2 at step 2: 2, workspace 7;
**   pruned: 3 stored; delta >= 2 at step 0, +1 (column 0): delta - 1 >= 2
**     at step 1, +1 (column 2): delta - 2 >= 2 at step 2: 4, workspace
**     3 + 4 = 7.  Pruning saves nothing here: the stale columns leave the
**     unpruned pool before its peak.
** cin 2, cout 1: herringbone_taps: 1 (workspace 10 + 1); reader: the four
** stale scalars are free at once: 0 (workspace 10); pruned: 6 stored, step
** 0 needs 1, column 0's two scalars come back after it: 1 (workspace 7).
*/
Test(sim, hand_pruned_stale_columns)
{
    rip_layer L = make(1, 2, 1, 5, 1, 1, 1, 2, 1, 1, 0, 0);
    cr_expect_eq(rip_sim_read_scalars(&L), 3);
    for (int eng = 0; eng < 2; eng++) {
        cr_expect_eq(truth(&L, RIP_CONFIG_HB_TAPS, (rip_engine)eng), 2);
        cr_expect_eq(truth(&L, RIP_CONFIG_HB_TAPS_READER, (rip_engine)eng), 2);
        cr_expect_eq(truth(&L, RIP_CONFIG_HB_PRUNED, (rip_engine)eng), 4);
    }
    expect_report(&L, RIP_CONFIG_HB_PRUNED, 3, RIP_RUN_NO_SLOT, 2, 0, 2, -1);
    rip_layer M = make(2, 1, 1, 5, 1, 1, 1, 2, 1, 1, 0, 0);
    cr_expect_eq(rip_sim_read_scalars(&M), 6);
    for (int eng = 0; eng < 2; eng++) {
        cr_expect_eq(truth(&M, RIP_CONFIG_HB_TAPS, (rip_engine)eng), 1);
        cr_expect_eq(truth(&M, RIP_CONFIG_HB_TAPS_READER, (rip_engine)eng), 0);
        cr_expect_eq(truth(&M, RIP_CONFIG_HB_PRUNED, (rip_engine)eng), 1);
    }
}

/*
** rip_sim_read_scalars against brute force: on 300 random layers, mark
** every channel of every tap of every output in a scalar map and count.
*/
Test(sim, read_scalars_brute_force)
{
    rng_state = 4242;
    for (int n = 0; n < 300; n++) {
        rip_layer L = random_layer();
        unsigned char *seen = calloc((size_t)L.n_in_padded, 1);
        cr_assert_not_null(seen);
        int64_t count = 0;
        for (int64_t r = 0; r < L.h_out; r++)
            for (int64_t c = 0; c < L.w_out; c++)
                for (int64_t a = 0; a < L.k_h; a++)
                    for (int64_t b = 0; b < L.k_w; b++)
                        for (int64_t ch = 0; ch < L.cin; ch++) {
                            int64_t x = ((r * L.s_h + a * L.d_h) * L.w_p + c * L.s_w + b * L.d_w) * L.cin + ch;
                            count += !seen[x];
                            seen[x] = 1;
                        }
        cr_expect_eq(rip_sim_read_scalars(&L), count, "layer %d", n);
        free(seen);
    }
    cr_expect_eq(rip_sim_read_scalars(NULL), -1);
}

/*
** Channel expansion: 1x2 input, 1x1 kernel, cin = 1, cout = 2 (N_out 4).
**   gather, delta 1: q = 0 writes 0 (gap), 1 (input 0, dead after q = 0);
**     q = 1 writes 2 (input 1, last reader 1, not > 1), then 3 >= workspace
**     1 + 2: overflow at step 1, address 3.  delta 2: fits: truth 2;
**   taps, delta 2: q = 1 writes 3 = input 1, live at q = 1: corruption at
**     step 1, address 3.  delta 3: truth 3;
**   herringbone (order (0,0), (0,1)), all three rules (nothing is stale):
**     step 0 takes 2 slots and frees input 0, step 1 takes 2 more:
**     delta - 2 + 1 >= 2, truth 3; with delta 2 step 1 finds no slot.
*/
Test(sim, hand_channel_expansion_reports)
{
    rip_layer L = make(1, 2, 1, 2, 1, 1, 1, 1, 1, 1, 0, 0);
    const int64_t want[RIP_CONFIG_COUNT] = {2, 3, 2, 3, 3, 3, 3};
    expect_truths(&L, want);
    expect_report(&L, RIP_CONFIG_PADDED_GATHER, 1, RIP_RUN_OVERFLOW, 1, 0, 1, 3);
    expect_report(&L, RIP_CONFIG_DENSE_GATHER, 0, RIP_RUN_CORRUPTION, 0, 0, 0, 1);
    expect_report(&L, RIP_CONFIG_PADDED_TAPS, 2, RIP_RUN_CORRUPTION, 1, 0, 1, 3);
    expect_report(&L, RIP_CONFIG_HB_TAPS, 2, RIP_RUN_NO_SLOT, 1, 0, 1, -1);
    expect_report(&L, RIP_CONFIG_HB_TAPS_READER, 3, RIP_RUN_OK, 0, 0, 0, 0);
}

/* ------------------------------------------------------ herringbone order */

/*
** Independent construction of the legs (sim/README.md) by a closed
** classification instead of loops: with rows major (W >= H), pixel (r,c)
** is on major leg r at position c - r when r <= c, else on minor leg c at
** position r - c - 1; the leg sequence is maj 0, min 0, maj 1, min 1, ...
** so its ordinal is 2r or 2c + 1.  Columns major is the transpose.
*/
static void leg_of(int64_t H, int64_t W, int64_t r, int64_t c, int64_t *leg, int64_t *pos)
{
    if (W < H) { /* columns major: swap the roles of r and c */
        int64_t t = r;
        r = c;
        c = t;
    }
    if (r <= c) {
        *leg = 2 * r;
        *pos = c - r;
    } else {
        *leg = 2 * c + 1;
        *pos = r - c - 1;
    }
}

Test(sim, lemma10_herringbone_order_all_grids_to_16)
{
    int64_t order[16 * 16], seen[16 * 16], len[64];
    for (int64_t H = 1; H <= 16; H++)
        for (int64_t W = 1; W <= 16; W++) {
            const int64_t N = H * W, M = H > W ? H : W, n = H > W ? W : H;
            cr_assert_eq(rip_herringbone_order(H, W, order), 0);
            for (int64_t p = 0; p < N; p++)
                seen[p] = 0;
            for (int64_t l = 0; l < 2 * n - 1; l++)
                len[l] = 0;
            int64_t prev_leg = -1, prev_pos = -1;
            for (int64_t t = 0; t < N; t++) {
                cr_assert(order[t] >= 0 && order[t] < N, "%lldx%lld: pixel out of range",
                          (long long)H, (long long)W);
                seen[order[t]]++;
                int64_t leg, pos;
                leg_of(H, W, order[t] / W, order[t] % W, &leg, &pos);
                /* visited in (leg, position) order, each leg contiguous */
                cr_assert(leg > prev_leg || (leg == prev_leg && pos == prev_pos + 1),
                          "%lldx%lld step %lld: leg %lld pos %lld after leg %lld pos %lld",
                          (long long)H, (long long)W, (long long)t, (long long)leg,
                          (long long)pos, (long long)prev_leg, (long long)prev_pos);
                if (leg != prev_leg)
                    cr_assert_eq(pos, 0);
                prev_leg = leg;
                prev_pos = pos;
                len[leg]++;
            }
            for (int64_t p = 0; p < N; p++)
                cr_assert_eq(seen[p], 1, "%lldx%lld: pixel %lld visited %lld times",
                             (long long)H, (long long)W, (long long)p, (long long)seen[p]);
            /* Eq. 25: maj(M), min(n-1), maj(M-1), ..., min(1), maj(M-n+1) */
            cr_assert_eq(prev_leg, 2 * n - 2);
            for (int64_t i = 0; i < n; i++)
                cr_assert_eq(len[2 * i], M - i);
            for (int64_t i = 0; i + 1 < n; i++)
                cr_assert_eq(len[2 * i + 1], n - 1 - i);
            /* first leg: the whole of row 0 (W >= H) or column 0 (H > W) */
            for (int64_t t = 0; t < M; t++)
                cr_assert_eq(order[t], W >= H ? t : t * W);
        }
}

/* The simulator takes the herringbone order as monotone without checking
** it per layer (sim/sim.c): visit times rise along every row and every
** column, on every grid up to 24 x 24. */
Test(sim, herringbone_order_is_monotone_along_rows_and_columns)
{
    static int64_t order[24 * 24], vt[24 * 24];
    for (int64_t H = 1; H <= 24; H++)
        for (int64_t W = 1; W <= 24; W++) {
            cr_assert_eq(rip_herringbone_order(H, W, order), 0);
            for (int64_t t = 0; t < H * W; t++)
                vt[order[t]] = t;
            for (int64_t r = 0; r < H; r++)
                for (int64_t c = 0; c < W; c++) {
                    if (r > 0)
                        cr_assert_lt(vt[(r - 1) * W + c], vt[r * W + c], "%lldx%lld column %lld row %lld",
                                     (long long)H, (long long)W, (long long)c, (long long)r);
                    if (c > 0)
                        cr_assert_lt(vt[r * W + c - 1], vt[r * W + c], "%lldx%lld row %lld column %lld",
                                     (long long)H, (long long)W, (long long)r, (long long)c);
                }
        }
}

Test(sim, herringbone_order_examples)
{
    /* 3x3 (Fig. 2(a)): row 0, column 0 below it, row 1 from column 1,
    ** column 1 below it, then (2,2). */
    int64_t o33[9];
    const int64_t w33[9] = {0, 1, 2, 3, 6, 4, 5, 7, 8};
    cr_assert_eq(rip_herringbone_order(3, 3, o33), 0);
    for (int i = 0; i < 9; i++)
        cr_expect_eq(o33[i], w33[i]);
    /* 5x3 (Fig. 3(b)): col(5), row(2), col(4), row(1), col(3). */
    int64_t o53[15];
    const int64_t w53[15] = {0, 3, 6, 9, 12, 1, 2, 4, 7, 10, 13, 5, 8, 11, 14};
    cr_assert_eq(rip_herringbone_order(5, 3, o53), 0);
    for (int i = 0; i < 15; i++)
        cr_expect_eq(o53[i], w53[i]);
    /* invalid grids */
    cr_expect_eq(rip_herringbone_order(0, 3, o53), -1);
    cr_expect_eq(rip_herringbone_order(3, 0, o53), -1);
    cr_expect_eq(rip_herringbone_order(3, 3, NULL), -1);
}

/* --------------------------------------------- plain vs fast, at random */

/*
** On 600 seeded random layers, for every configuration: the two engines
** give the same truth; the run at the truth completes and the run just
** below fails; and at delta in [truth-3, truth+2] (and 0) both engines
** report exactly the same outcome, step, pixel and address.
*/
Test(sim, engines_agree_on_random_layers)
{
    rng_state = 20240611;
    for (int n = 0; n < 600; n++) {
        rip_layer L = random_layer();
        for (int e = 0; e < RIP_CONFIG_COUNT; e++) {
            rip_sim *sp = rip_sim_new(&L, (rip_config)e, RIP_ENGINE_PLAIN);
            rip_sim *sf = rip_sim_new(&L, (rip_config)e, RIP_ENGINE_FAST);
            cr_assert(sp != NULL && sf != NULL);
            int64_t tp = truth(&L, (rip_config)e, RIP_ENGINE_PLAIN);
            int64_t tf = truth(&L, (rip_config)e, RIP_ENGINE_FAST);
            cr_assert_eq(tp, tf,
                         "layer %d %s: plain %lld fast %lld (cin %lld cout %lld %lldx%lld k %lldx%lld "
                         "s %lldx%lld d %lldx%lld p %lld,%lld,%lld,%lld)",
                         n, rip_config_name((rip_config)e), (long long)tp, (long long)tf,
                         (long long)L.cin, (long long)L.cout, (long long)L.h_in,
                         (long long)L.w_in, (long long)L.k_h, (long long)L.k_w,
                         (long long)L.s_h, (long long)L.s_w, (long long)L.d_h,
                         (long long)L.d_w, (long long)L.p_top, (long long)L.p_bottom,
                         (long long)L.p_left, (long long)L.p_right);
            cr_assert(tp >= 0 && tp <= L.n_out);
            cr_assert(rip_sim_run(sp, tp, NULL));
            if (tp > 0)
                cr_assert(!rip_sim_run(sp, tp - 1, NULL));
            int64_t deltas[7] = {0, tp - 3, tp - 2, tp - 1, tp, tp + 1, tp + 2};
            for (int k = 0; k < 7; k++) {
                int64_t d = deltas[k];
                if (d < 0 || d > L.n_out)
                    continue;
                rip_run_report rp, rf;
                bool okp = rip_sim_run(sp, d, &rp), okf = rip_sim_run(sf, d, &rf);
                cr_assert_eq(okp, okf, "layer %d %s delta %lld", n, rip_config_name((rip_config)e),
                             (long long)d);
                cr_assert_eq(rp.outcome, rf.outcome);
                if (!okp) {
                    cr_assert_eq(rp.step, rf.step, "layer %d %s delta %lld: step %lld vs %lld", n,
                                 rip_config_name((rip_config)e), (long long)d, (long long)rp.step,
                                 (long long)rf.step);
                    cr_assert_eq(rp.pixel_r, rf.pixel_r);
                    cr_assert_eq(rp.pixel_c, rf.pixel_c);
                    cr_assert_eq(rp.address, rf.address, "layer %d %s delta %lld", n,
                                 rip_config_name((rip_config)e), (long long)d);
                }
            }
            rip_sim_free(sp);
            rip_sim_free(sf);
        }
    }
}

/*
** Completion is monotone in delta: on 60 random layers, every delta in
** [0, min(N_out, 300)] plus a spread up to N_out, both engines; the first
** completing delta is the truth.
*/
Test(sim, completion_is_monotone_in_delta)
{
    rng_state = 777;
    for (int n = 0; n < 60; n++) {
        rip_layer L = random_layer();
        for (int e = 0; e < RIP_CONFIG_COUNT; e++)
            for (int eng = 0; eng < 2; eng++) {
                rip_sim *s = rip_sim_new(&L, (rip_config)e, (rip_engine)eng);
                cr_assert_not_null(s);
                int64_t t = truth(&L, (rip_config)e, (rip_engine)eng);
                int64_t dense_end = L.n_out < 300 ? L.n_out : 300;
                for (int64_t d = 0; d <= L.n_out; d += (d < dense_end ? 1 : 1 + L.n_out / 50))
                    cr_assert_eq(rip_sim_run(s, d, NULL), d >= t, "layer %d %s %s delta %lld truth %lld",
                                 n, rip_config_name((rip_config)e), eng ? "fast" : "plain",
                                 (long long)d, (long long)t);
                cr_assert(rip_sim_run(s, L.n_out, NULL));
                rip_sim_free(s);
            }
    }
}

/* ------------------------------------------------------------- interface */

Test(sim, names_round_trip)
{
    const char *want[RIP_CONFIG_COUNT] = {"rip_padded_gather", "rip_padded_taps",
                                        "rip_dense_gather", "rip_dense_taps",
                                        "herringbone_taps", "herringbone_taps_reader",
                                        "herringbone_pruned"};
    for (int e = 0; e < RIP_CONFIG_COUNT; e++) {
        cr_expect_str_eq(rip_config_name((rip_config)e), want[e]);
        cr_expect_eq(rip_config_from_name(want[e]), (rip_config)e);
    }
    cr_expect_eq(rip_config_from_name("herringbone"), RIP_CONFIG_COUNT);
    cr_expect_eq(rip_config_from_name(NULL), RIP_CONFIG_COUNT);
    cr_expect_str_eq(rip_config_name(RIP_CONFIG_COUNT), "unknown");
}

Test(sim, bad_arguments_are_refused)
{
    /* not derived: refused, not trusted */
    rip_layer raw = rip_layer_make(1, 1, 3, 3, 1, 1, 1, 1, 1, 1, 0, 0);
    cr_expect_null(rip_sim_new(&raw, RIP_CONFIG_PADDED_GATHER, RIP_ENGINE_FAST));
    int64_t g = 12345;
    cr_expect_eq(rip_sim_truth(&raw, RIP_CONFIG_HB_TAPS, RIP_ENGINE_PLAIN, &g), -1);
    cr_expect_eq(g, 12345);
    rip_layer L = make(1, 1, 3, 3, 1, 1, 1, 1, 1, 1, 0, 0);
    cr_expect_null(rip_sim_new(NULL, RIP_CONFIG_PADDED_GATHER, RIP_ENGINE_FAST));
    cr_expect_null(rip_sim_new(&L, RIP_CONFIG_COUNT, RIP_ENGINE_FAST));
    cr_expect_null(rip_sim_new(&L, RIP_CONFIG_PADDED_GATHER, (rip_engine)7));
    cr_expect_eq(rip_sim_truth(&L, RIP_CONFIG_HB_TAPS, RIP_ENGINE_FAST, NULL), -1);
    /* a negative gap is not a run */
    rip_sim *s = rip_sim_new(&L, RIP_CONFIG_PADDED_GATHER, RIP_ENGINE_FAST);
    cr_assert_not_null(s);
    rip_run_report rep;
    cr_expect(!rip_sim_run(s, -1, &rep));
    cr_expect_eq(rep.step, -1);
    /* a huge gap saturates instead of wrapping */
    cr_expect(rip_sim_run(s, INT64_MAX, &rep));
    rip_sim_free(s);
    cr_expect(!rip_sim_run(NULL, 0, NULL));
    rip_sim_free(NULL);
}

/*
** Tables too large for any address space (2^57 bytes and more) must come
** back as NULL / -1, not as a crash: a layer that derives fine but whose
** per-scalar map (plain) or per-pixel tables (fast) cannot be allocated.
*/
Test(sim, allocation_failure_is_reported)
{
    char err[RIP_ERR_LEN];
    /* 2^34 channels on 2^10 x 2^10: 2^54 input scalars */
    rip_layer big_c = rip_layer_make(INT64_C(1) << 34, 1, 1024, 1024, 1, 1, 1, 1, 1, 1, 0, 0);
    cr_assert_eq(rip_layer_derive(&big_c, err), 0, "%s", err);
    /* 2^27 x 2^27 pixels: 2^54 output pixels */
    rip_layer big_px = rip_layer_make(1, 1, INT64_C(1) << 27, INT64_C(1) << 27, 1, 1, 1, 1, 1, 1, 0, 0);
    cr_assert_eq(rip_layer_derive(&big_px, err), 0, "%s", err);
    int64_t g = 42;
    for (int e = 0; e < RIP_CONFIG_COUNT; e++) {
        cr_expect_null(rip_sim_new(&big_c, (rip_config)e, RIP_ENGINE_PLAIN), "%s",
                       rip_config_name((rip_config)e));
        cr_expect_eq(rip_sim_truth(&big_c, (rip_config)e, RIP_ENGINE_PLAIN, &g), -1);
        cr_expect_null(rip_sim_new(&big_px, (rip_config)e, RIP_ENGINE_FAST), "%s",
                       rip_config_name((rip_config)e));
        cr_expect_eq(rip_sim_truth(&big_px, (rip_config)e, RIP_ENGINE_FAST, &g), -1);
    }
    cr_expect_eq(g, 42);
}
