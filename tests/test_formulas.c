/*
** test_formulas.c — the closed forms of formulas/, pinned to numbers printed
** in the RiP paper (Tab. 2, Appendix F.4, Appendix I) or worked out by hand
** in the comments below, plus property checks against independent brute
** force enumerations written here from the paper's definitions (never from
** values printed by the code under test).
**
** This suite links formulas_lib and layer_lib only; it never uses sim/.
*/
#include <criterion/criterion.h>
#include <criterion/logging.h>
#include <stdio.h>

#include "formulas.h"
#include "thm13_debt.h"

/* ---- helpers ---- */

static rip_layer mk(int64_t cin, int64_t cout, int64_t h, int64_t w,
                    int64_t kh, int64_t kw, int64_t sh, int64_t sw,
                    int64_t dh, int64_t dw, int64_t ph, int64_t pw)
{
    char err[RIP_ERR_LEN];
    rip_layer L = rip_layer_make(cin, cout, h, w, kh, kw, sh, sw, dh, dw, ph, pw);
    cr_assert_eq(rip_layer_derive(&L, err), 0, "%s", err);
    return L;
}

/* Restricted layer of Tab. 2: square input H = W, odd k, s = d = 1, p = 0. */
static rip_layer restricted(int64_t cin, int64_t cout, int64_t k, int64_t h)
{
    return mk(cin, cout, h, h, k, k, 1, 1, 1, 1, 0, 0);
}

/* Deterministic xorshift64 so every run checks the same layers. */
static uint64_t rng_state;

static void rng_seed(uint64_t s)
{
    rng_state = s ? s : 1;
}

static int64_t rnd(int64_t lo, int64_t hi)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return lo + (int64_t)(rng_state % (uint64_t)(hi - lo + 1));
}

static int64_t max64(int64_t a, int64_t b)
{
    return a > b ? a : b;
}

/* A random small layer with per-side padding p < k_eff (Theorem 13's
** precondition); returns false if the draw has no output. */
static bool random_layer(rip_layer *L, int64_t max_hw, int64_t max_c)
{
    char err[RIP_ERR_LEN];
    L->cin = rnd(1, max_c);
    L->cout = rnd(1, 2 * max_c);
    L->h_in = rnd(1, max_hw);
    L->w_in = rnd(1, max_hw);
    L->k_h = rnd(1, 5);
    L->k_w = rnd(1, 5);
    L->s_h = rnd(1, 4);
    L->s_w = rnd(1, 4);
    L->d_h = rnd(1, 4);
    L->d_w = rnd(1, 4);
    const int64_t kh = L->d_h * (L->k_h - 1) + 1, kw = L->d_w * (L->k_w - 1) + 1;
    L->p_top = rnd(0, kh - 1);
    L->p_bottom = rnd(0, kh - 1);
    L->p_left = rnd(0, kw - 1);
    L->p_right = rnd(0, kw - 1);
    return rip_layer_derive(L, err) == 0;
}

static void describe(const rip_layer *L, char *buf, size_t n)
{
    snprintf(buf, n,
             "cin=%lld cout=%lld h=%lld w=%lld k=%lldx%lld s=%lldx%lld d=%lldx%lld "
             "pt=%lld pb=%lld pl=%lld pr=%lld",
             (long long)L->cin, (long long)L->cout, (long long)L->h_in, (long long)L->w_in,
             (long long)L->k_h, (long long)L->k_w, (long long)L->s_h, (long long)L->s_w,
             (long long)L->d_h, (long long)L->d_w, (long long)L->p_top, (long long)L->p_bottom,
             (long long)L->p_left, (long long)L->p_right);
}

/* ---- Tab. 2: (cin, cout, k, H=W) -> G&M (Eq. 1), Truth (= Corollary 1) ---- */

static const struct {
    int64_t cin, cout, k, h, gm, truth;
} tab2[] = {
    {1, 5, 3, 14, 531, 533},         /* Limitation 1: G&M's MNIST conv_0 */
    {5, 8, 3, 12, 148, 149},         /* conv_1 */
    {8, 11, 3, 10, 45, 46},          /* conv_2 */
    {3, 4, 5, 8, 79, 7},             /* Limitation 2 */
    {8, 9, 7, 9, 2081, 11},
    {16, 17, 9, 12, 15520, 20},
    {16, 17, 15, 18, 48640, 20},
};
#define TAB2_ROWS (sizeof tab2 / sizeof tab2[0])

Test(gm2019_eq1, tab2_gm_column)
{
    for (size_t i = 0; i < TAB2_ROWS; i++) {
        rip_layer L = restricted(tab2[i].cin, tab2[i].cout, tab2[i].k, tab2[i].h);
        int64_t v = -1;
        cr_assert(rip_gm2019_eq1(&L, &v), "row %zu undefined", i);
        cr_expect_eq(v, tab2[i].gm, "row %zu: got %lld, Tab. 2 G&M %lld", i,
                     (long long)v, (long long)tab2[i].gm);
    }
}

Test(gm2019_eq1, hand_row1)
{
    /* cin=1, cout=5, k=3, H=14: H_out=12, x* = 2/4, floor 0.
    ** (144 - 0) 5 - (196 - (0+2)^2 - 3) 1 = 720 - 189 = 531. */
    rip_layer L = restricted(1, 5, 3, 14);
    int64_t v;
    cr_assert(rip_gm2019_eq1(&L, &v));
    cr_expect_eq(v, 531);
}

Test(gm2019_eq1, undefined_outside_its_domain)
{
    int64_t v = 12345;
    rip_layer L = restricted(8, 8, 3, 10);      /* cout == cin */
    cr_expect_not(rip_gm2019_eq1(&L, &v));
    L = restricted(8, 4, 3, 10);                /* cout < cin */
    cr_expect_not(rip_gm2019_eq1(&L, &v));
    L = mk(1, 5, 14, 14, 3, 3, 1, 1, 1, 1, 1, 1); /* padded */
    cr_expect_not(rip_gm2019_eq1(&L, &v));
    L = mk(1, 5, 14, 14, 3, 3, 2, 2, 1, 1, 0, 0); /* strided */
    cr_expect_not(rip_gm2019_eq1(&L, &v));
    L = mk(1, 5, 14, 14, 3, 3, 1, 1, 2, 2, 0, 0); /* dilated */
    cr_expect_not(rip_gm2019_eq1(&L, &v));
    L = mk(1, 5, 14, 14, 2, 2, 1, 1, 1, 1, 0, 0); /* even kernel */
    cr_expect_not(rip_gm2019_eq1(&L, &v));
    L = mk(1, 5, 14, 14, 3, 5, 1, 1, 1, 1, 0, 0); /* rectangular kernel */
    cr_expect_not(rip_gm2019_eq1(&L, &v));
    L = mk(1, 5, 14, 12, 3, 3, 1, 1, 1, 1, 0, 0); /* non-square input */
    cr_expect_not(rip_gm2019_eq1(&L, &v));
    cr_expect_eq(v, 12345, "*out must be left untouched");
}

Test(gm2019_eq1, huge_unclamped_square)
{
    /* Limitation 2 taken far: cin = 2^20, cout = 2^20 + 1, k = 15, H = 15
    ** (W_out = 1).  x* = 14 * 2^20 / 1, f = 14,680,064, f^2 = 196 * 2^40.
    ** Eq. 1 = (1 - f^2)(2^20 + 1) - (225 - (f + 14)^2 - 15) 2^20
    **       = 196 * 2^40 - 13,631,487 = 215,504,265,412,609
    ** (f^2 C_out alone is ~2^68: the implementation must not wrap). */
    rip_layer L = restricted(INT64_C(1) << 20, (INT64_C(1) << 20) + 1, 15, 15);
    int64_t v;
    cr_assert(rip_gm2019_eq1(&L, &v));
    cr_expect_eq(v, INT64_C(215504265412609));
    /* cin = 2^50, cout = 2^50 + 1, k = 3, H = 3: Eq. 1 is about 2^102 and
    ** has no int64_t value; reported as not defined, never wrapped. */
    L = restricted(INT64_C(1) << 50, (INT64_C(1) << 50) + 1, 3, 3);
    v = 5;
    cr_expect_not(rip_gm2019_eq1(&L, &v));
    cr_expect_eq(v, 5);
}

Test(gm2019_eq1, lemma9_shortfall_is_rho_mod_alpha)
{
    /* Lemma 9: with floor(x*) <= W_out - 1, D_hb - D^{G&M} = (k-1)C_in mod
    ** (C_out - C_in), and Corollary 1 is D_hb. */
    rng_seed(9);
    int checked = 0;
    for (int it = 0; it < 20000; it++) {
        const int64_t k = 2 * rnd(0, 4) + 1;
        const int64_t h = rnd(k, k + 15);
        const int64_t cin = rnd(1, 40), cout = cin + rnd(1, 40);
        rip_layer L = restricted(cin, cout, k, h);
        const int64_t rho = (k - 1) * cin, alpha = cout - cin;
        if (rho / alpha > L.w_out - 1)
            continue;
        int64_t gm, c1;
        cr_assert(rip_gm2019_eq1(&L, &gm));
        cr_assert(rip_corollary1(&L, &c1));
        cr_assert_eq(c1 - gm, rho % alpha, "cin=%lld cout=%lld k=%lld h=%lld",
                     (long long)cin, (long long)cout, (long long)k, (long long)h);
        checked++;
    }
    cr_expect_gt(checked, 1000);
}

/* ---- Corollary 1 ---- */

Test(corollary1, tab2_truth_column)
{
    for (size_t i = 0; i < TAB2_ROWS; i++) {
        rip_layer L = restricted(tab2[i].cin, tab2[i].cout, tab2[i].k, tab2[i].h);
        int64_t v = -1;
        cr_assert(rip_corollary1(&L, &v), "row %zu undefined", i);
        cr_expect_eq(v, tab2[i].truth, "row %zu: got %lld, Tab. 2 Truth %lld", i,
                     (long long)v, (long long)tab2[i].truth);
    }
}

Test(corollary1, hand_clamped_row)
{
    /* cin=3, cout=4, k=5, H=8: W_out = 4, alpha = 1, rho = 12, x* = 12,
    ** xhat = min(12, 3) = 3.
    ** 4 (16 - 9) - 3 (64 - (3+4)^2 - 5) + (12 - 3) = 28 - 30 + 9 = 7. */
    rip_layer L = restricted(3, 4, 5, 8);
    int64_t v;
    cr_assert(rip_corollary1(&L, &v));
    cr_expect_eq(v, 7);
}

Test(corollary1, nonpositive_alpha_gives_cout)
{
    int64_t v;
    rip_layer L = restricted(8, 8, 3, 10);
    cr_assert(rip_corollary1(&L, &v));
    cr_expect_eq(v, 8);
    L = restricted(16, 5, 5, 9);
    cr_assert(rip_corollary1(&L, &v));
    cr_expect_eq(v, 5);
}

Test(corollary1, undefined_when_not_restricted)
{
    int64_t v = 777;
    rip_layer L = mk(5, 8, 12, 12, 3, 3, 1, 1, 1, 1, 1, 1);
    cr_expect_not(rip_corollary1(&L, &v));
    L = mk(5, 8, 12, 12, 3, 3, 1, 2, 1, 1, 0, 0);
    cr_expect_not(rip_corollary1(&L, &v));
    L = mk(5, 8, 12, 11, 3, 3, 1, 1, 1, 1, 0, 0);
    cr_expect_not(rip_corollary1(&L, &v));
    cr_expect_eq(v, 777);
}

/* ---- Theorem 11 ---- */

Test(thm11, tab2_truth_column)
{
    for (size_t i = 0; i < TAB2_ROWS; i++) {
        rip_layer L = restricted(tab2[i].cin, tab2[i].cout, tab2[i].k, tab2[i].h);
        const int64_t v = rip_thm11(&L);
        cr_expect_eq(v, tab2[i].truth, "row %zu: got %lld, Tab. 2 Truth %lld", i,
                     (long long)v, (long long)tab2[i].truth);
    }
}

Test(thm11, hand_row1)
{
    /* cin=1, cout=5, k=3, H=14 restricted: M = n = 12, delta = 0,
    ** w_r = h_r = 3, alpha = 4, rho_r = rho_c = 2, R_min = 3, beta_hb = 2.
    ** x*_maj = 4/8 -> {0,1} clipped to [2,12] -> {2}; y = 2:
    **   L_maj(2,2) = -16 + 4*2 + (576 - 48 + 4 + 5) = 529.
    ** x*_min = 8/8 = 1 -> {2}; y = 2 - 0 - 1 = 1:
    **   L_min(2,1) = -16 + 8*2 + (576 - 48 - 2 + 0 + 5) = 531.
    ** L_last = 531 - 3 + 5 + max(0, 2*0) = 533.
    ** max(5, 533, 529, 531) = 533 (Tab. 2 Truth). */
    rip_layer L = restricted(1, 5, 3, 14);
    cr_expect_eq(rip_thm11(&L), 533);
}

Test(thm11, hand_tall_grid_column_major)
{
    /* cin=1, cout=3, 3x2 input, k=1, s=1, p=0: H_out=3 > W_out=2, so the
    ** major axis is vertical.  M=3, n=2, delta=1, w_r = h_r = 1,
    ** alpha = 2, rho_r = rho_c = 0, R_r = R_c = 1; rho_maj = rho_c,
    ** R_min = R_r = 1, beta_hb = 2.  Domain [3,3].
    **   L_maj(3,3) = -18 + 2*3 + (18 - 6 + 4 + 3) = 7
    **   L_min(3,1) = -18 + 4*3 + (18 - 6 - 0 + 0 + 3) = 9
    **   L_last = 9 - 1 + 3 + max(0, 2*1) = 13
    ** Result 13.  By legs: col(3) at debts 3,5,7 (sum 6 after), row(1) at
    ** 9 (sum 8 after), last col(2) at 8+3 = 11, 13. */
    rip_layer L = mk(1, 3, 3, 2, 1, 1, 1, 1, 1, 1, 0, 0);
    cr_expect_eq(rip_thm11(&L), 13);
}

Test(thm11, degenerate_single_row_e3)
{
    /* E.3: cin=2, cout=8, 1x5 input, k=1x3: H_out=1, W_out=3, n=1.
    ** M=3, delta=2, w_r=3, h_r=1, alpha=6, rho_r=4, rho_c=0, R_min=R_c=2,
    ** beta_hb = 6.  L_min(4,1) = -96 + (4 + 18)*4 + (54 - 3*(4+12) - 4 + 8)
    ** = -96 + 88 + 10 = 2; L_last = 2 - 2 + 8 + max(0, 12) = 20.
    ** Result max(8, 20) = 20 (the single leg: 8 + 6(y-1) at y=3). */
    rip_layer L = mk(2, 8, 1, 5, 1, 3, 1, 1, 1, 1, 0, 0);
    cr_expect_eq(rip_thm11(&L), 20);
    /* Single column with a shrinking last leg: cin=4, cout=2, 6x1, k=1:
    ** beta_hb = 2 - R_min (= R_r = 4) < 0, so L_last = C_out = 2. */
    L = mk(4, 2, 6, 1, 1, 1, 1, 1, 1, 1, 0, 0);
    cr_expect_eq(rip_thm11(&L), 2);
}

Test(thm11, equals_corollary1_on_restricted_layers)
{
    /* Sec. 3.2: Corollary 1 is Theorem 11 specialized to the restricted
    ** setting. */
    rng_seed(11);
    for (int it = 0; it < 20000; it++) {
        const int64_t k = 2 * rnd(0, 5) + 1;
        const int64_t h = rnd(k, k + 14);
        rip_layer L = restricted(rnd(1, 48), rnd(1, 64), k, h);
        int64_t c1;
        cr_assert(rip_corollary1(&L, &c1));
        cr_assert_eq(rip_thm11(&L), c1, "cin=%lld cout=%lld k=%lld h=%lld",
                     (long long)L.cin, (long long)L.cout, (long long)k, (long long)h);
    }
}

/*
** Eq. 26 evaluated step by step from the leg debts of Eqs. 28-30: the
** running debt at pixel y of a leg is (sum of completed leg debts) +
** alpha (y-1) + C_out (Eqs. 31, 34), and on the last leg (sum of all pair
** debts) + C_out + beta_hb (y-1) (Eq. 30).  This checks the candidate
** selection of Eq. 38 against the definition it maximizes.
*/
static int64_t thm11_by_legs(const rip_layer *L)
{
    const bool rm = L->w_out >= L->h_out;
    const int64_t M = rm ? L->w_out : L->h_out, n = rm ? L->h_out : L->w_out;
    const int64_t delta = M - n;
    const int64_t w_r = L->w_p - L->s_w * (L->w_out - 1);
    const int64_t h_r = L->h_p - L->s_h * (L->h_out - 1);
    const int64_t alpha = L->cout - L->s_h * L->s_w * L->cin;
    const int64_t rho_r = L->s_h * L->cin * (w_r - L->s_w);
    const int64_t rho_c = L->s_w * L->cin * (h_r - L->s_h);
    const int64_t rho_maj = rm ? rho_r : rho_c, rho_min = rm ? rho_c : rho_r;
    const int64_t R_min = rm ? h_r * L->s_w * L->cin : w_r * L->s_h * L->cin;
    const int64_t beta = L->cout - R_min;
    int64_t best = L->cout, S = 0;
    for (int64_t x = M; x >= delta + 2; x--) {
        for (int64_t y = 1; y <= x; y++)
            best = max64(best, S + alpha * (y - 1) + L->cout);
        S += alpha * x - rho_maj;
        for (int64_t y = 1; y <= x - delta - 1; y++)
            best = max64(best, S + alpha * (y - 1) + L->cout);
        S += alpha * (x - delta - 1) - rho_min;
    }
    for (int64_t y = 1; y <= delta + 1; y++)
        best = max64(best, S + L->cout + beta * (y - 1));
    return best;
}

Test(thm11, equals_step_by_step_leg_sum)
{
    rng_seed(26);
    int n = 0;
    for (int it = 0; it < 20000; it++) {
        rip_layer L;
        if (!random_layer(&L, 20, 24))
            continue;
        char buf[200];
        describe(&L, buf, sizeof buf);
        cr_assert_eq(rip_thm11(&L), thm11_by_legs(&L), "%s", buf);
        n++;
    }
    cr_log_info("thm11 == Eq. 26 leg sum on %d random layers", n);
}

Test(thm11, at_least_cout)
{
    rng_seed(38);
    for (int it = 0; it < 5000; it++) {
        rip_layer L;
        if (random_layer(&L, 30, 32))
            cr_assert_geq(rip_thm11(&L), L.cout);
    }
}

/* ---- Theorem 4 ---- */

Test(thm4, hand_unit_stride)
{
    /* cin=1, cout=4, 4x4, k=3, s=1, p=0: H_out = W_out = 2, W_p = 4.
    ** alpha = 4 - 1 = 3, beta = 4*2 - 1*4*1 = 4; R_s = C_s = {0, 1}.
    ** D(0,0) = 0 + 3 = 3, D(0,1) = 4*1 = 4, D(1,0) = 4 + 3 = 7,
    ** D(1,1) = sigma; N_out - N_in = 16 - 16 = 0.
    ** Directly from Eqs. 5 and 7 at (1,0): out_end = 3*4 = 12,
    ** NLI - Delta = (1*4 + 1)*1 = 5, so D = 7.
    ** Gather: 7; taps (sigma = 4): 11. */
    rip_layer L = mk(1, 4, 4, 4, 3, 3, 1, 1, 1, 1, 0, 0);
    cr_expect_eq(rip_thm4(&L, RIP_SIGMA_GATHER), 7);
    cr_expect_eq(rip_thm4(&L, RIP_SIGMA_TAPS), 11);
}

Test(thm4, hand_strided_padded)
{
    /* cin=2, cout=8, 5x5, k=3, s=2, p=1: H_p = W_p = 7, H_out = W_out = 3.
    ** alpha = 8 - 2*2 = 4, beta = 8*3 - 2*7*2 = -4; R_s = C_s = {0,1,2}.
    ** c in {0,1}: -4r + 4(c+1), largest at (0,1): 8.
    ** c = 2, r in {0,1}: -4(r+1) = -4, -8.  (2,2): sigma.
    ** N_out - N_in_padded = 72 - 98 = -26.
    ** Eqs. 5, 7 at (0,1): out_end = 2*8 = 16, NLI - Delta = (0 + 2*2)*2 = 8.
    ** Gather: 8; taps: 16. */
    rip_layer L = mk(2, 8, 5, 5, 3, 3, 2, 2, 1, 1, 1, 1);
    cr_expect_eq(rip_thm4(&L, RIP_SIGMA_GATHER), 8);
    cr_expect_eq(rip_thm4(&L, RIP_SIGMA_TAPS), 16);
}

Test(thm4, hand_output_term_binds)
{
    /* cin=1, cout=16, 3x3, k=1: H_out = W_out = 3, alpha = 15,
    ** beta = 48 - 3 = 45.  Breakpoint debts: D(2,1) = 90 + 30 = 120 is the
    ** largest (D(2,0) = 105, D(1,2) = 90, D(1,1) = 75), but
    ** N_out - N_in = 144 - 9 = 135 exceeds it.  Gather: 135; taps:
    ** max(120 + 16, 135) = 136. */
    rip_layer L = mk(1, 16, 3, 3, 1, 1, 1, 1, 1, 1, 0, 0);
    cr_expect_eq(rip_thm4(&L, RIP_SIGMA_GATHER), 135);
    cr_expect_eq(rip_thm4(&L, RIP_SIGMA_TAPS), 136);
}

Test(thm4, unit_stride_nonexpanding_gap_is_sigma)
{
    /* Sec. 4.2: alpha <= 0 and beta <= 0 give Delta* = sigma; at unit
    ** stride this is C_out <= C_in. */
    rng_seed(42);
    int n = 0;
    for (int it = 0; it < 5000; it++) {
        char err[RIP_ERR_LEN];
        const int64_t cin = rnd(1, 32);
        const int64_t k = rnd(1, 5), d = rnd(1, 3);
        rip_layer L = rip_layer_make(cin, rnd(1, cin), rnd(1, 24), rnd(1, 24), k, rnd(1, 5),
                                     1, 1, d, rnd(1, 3), rnd(0, 3), rnd(0, 3));
        if (rip_layer_derive(&L, err) != 0)
            continue;
        cr_assert_eq(rip_thm4(&L, RIP_SIGMA_GATHER), 0);
        cr_assert_eq(rip_thm4(&L, RIP_SIGMA_TAPS), L.cout);
        n++;
    }
    cr_expect_gt(n, 1000);
}

Test(thm4, alpha_beta_nonpositive_but_output_term_binds)
{
    /* Eq. 10 when the stride exceeds the kernel: cin=1, cout=2, 1x1, k=1,
    ** s=2.  alpha = 2 - 2 = 0, beta = 2*1 - 2*1*1 = 0, yet
    ** N_out - N_in = 2 - 1 = 1, so Delta*_gather = 1, not sigma = 0: the
    ** Sec. 4.2 remark "met with equality" needs N_out <= H_p W_p C_in, which
    ** alpha, beta <= 0 only guarantee when s_h <= k_h^eff. */
    rip_layer L = mk(1, 2, 1, 1, 1, 1, 2, 2, 1, 1, 0, 0);
    cr_expect_eq(rip_thm4(&L, RIP_SIGMA_GATHER), 1);
    cr_expect_eq(rip_thm4(&L, RIP_SIGMA_TAPS), 2);
}

/*
** Brute force of the padded layout from its definition (Sec. 4.1): the next
** live input after pixel q is the lowest padded address read by any output
** after q; D = out_end - NLI + sigma, sigma on the last pixel; the gap is
** the largest D over every pixel, and at least N_out - N_in_padded.
*/
static int64_t thm4_brute(const rip_layer *L, int64_t sigma)
{
    const int64_t N = L->h_out * L->w_out;
    int64_t best = L->n_out - L->n_in_padded, nli = -1;
    for (int64_t q = N - 1; q >= 0; q--) {
        const int64_t r = q / L->w_out, c = q % L->w_out;
        const int64_t D = q == N - 1 ? sigma : (q + 1) * L->cout - nli * L->cin + sigma;
        best = max64(best, D);
        for (int64_t a = 0; a < L->k_h; a++)
            for (int64_t b = 0; b < L->k_w; b++) {
                const int64_t f = (r * L->s_h + a * L->d_h) * L->w_p + c * L->s_w + b * L->d_w;
                if (nli < 0 || f < nli)
                    nli = f;
            }
    }
    return best;
}

Test(thm4, equals_all_pixel_brute_force)
{
    rng_seed(4);
    int n = 0;
    for (int it = 0; it < 20000; it++) {
        rip_layer L;
        if (!random_layer(&L, 16, 16))
            continue;
        char buf[200];
        describe(&L, buf, sizeof buf);
        cr_assert_eq(rip_thm4(&L, RIP_SIGMA_GATHER), thm4_brute(&L, 0), "%s", buf);
        cr_assert_eq(rip_thm4(&L, RIP_SIGMA_TAPS), thm4_brute(&L, L.cout), "%s", buf);
        cr_assert_geq(rip_thm4(&L, RIP_SIGMA_TAPS), L.cout, "%s", buf);
        cr_assert_geq(rip_thm4(&L, RIP_SIGMA_GATHER), 0, "%s", buf);
        n++;
    }
    cr_log_info("thm4 == all-pixel brute force on %d random layers", n);
}

/* ---- Theorem 13 ---- */

Test(thm13, vgg16_conv1_2_appendix_i)
{
    /* 64 -> 64, k=3, 224x224, same padding, sigma = 0: alpha = beta = 0,
    ** gap = (p_h W_out + p_w) C_out = (224 + 1) 64 = 14,400 and
    ** W* = 3,211,264 + 14,400 = 3,225,664. */
    rip_layer L = mk(64, 64, 224, 224, 3, 3, 1, 1, 1, 1, 1, 1);
    int64_t gap;
    cr_assert(rip_thm13(&L, RIP_SIGMA_GATHER, &gap));
    cr_expect_eq(gap, 14400);
    cr_expect_eq(gap + L.n_in_dense, 3225664);
}

Test(thm13, inception_v3_stem_appendix_i)
{
    /* 32 -> 64, k=3, 147x147, same padding, sigma = 0: beta = 4,704,
    ** W* = N_out + beta = 1,382,976 + 4,704 = 1,387,680. */
    rip_layer L = mk(32, 64, 147, 147, 3, 3, 1, 1, 1, 1, 1, 1);
    int64_t gap;
    cr_assert(rip_thm13(&L, RIP_SIGMA_GATHER, &gap));
    cr_expect_eq(L.n_out, 1382976);
    cr_expect_eq(gap + L.n_in_dense, 1387680);
}

Test(thm13, f4_stale_input_example)
{
    /* F.4: cin = cout = 2, k = 1x2, H = W = 1, d = 1x2, p = (0, 1):
    ** Theorem 13 returns the full headroom sigma = C_out = 2 (the true
    ** minimum is 0; the formula is safe, not tight, here). */
    rip_layer L = mk(2, 2, 1, 1, 1, 2, 1, 1, 1, 2, 0, 1);
    int64_t gap = -1;
    cr_assert(rip_thm13(&L, RIP_SIGMA_TAPS, &gap));
    cr_expect_eq(gap, 2);
    cr_assert(rip_thm13(&L, RIP_SIGMA_GATHER, &gap));
    cr_expect_eq(gap, 0);
}

Test(thm13, hand_small_same_padded)
{
    /* cin = cout = 1, 2x2, k=3, p=1: H_out = W_out = 2 and every output
    ** reads all four real pixels, so the first live real pixel is always
    ** flat index 0: D(q) = (q+1) + sigma for q = 0, 1, 2 and sigma at q = 3;
    ** N_out - N_in = 0.  Gather: 3; taps: 4.  (Padded, Theorem 4 gives 0:
    ** alpha = 0, beta = 2 - 4 = -2; workspaces 3+4 = 7 < 0+16 = 16, Eq. 42.) */
    rip_layer L = mk(1, 1, 2, 2, 3, 3, 1, 1, 1, 1, 1, 1);
    int64_t gap;
    cr_assert(rip_thm13(&L, RIP_SIGMA_GATHER, &gap));
    cr_expect_eq(gap, 3);
    cr_assert(rip_thm13(&L, RIP_SIGMA_TAPS, &gap));
    cr_expect_eq(gap, 4);
    cr_expect_eq(rip_thm4(&L, RIP_SIGMA_GATHER), 0);
}

Test(thm13, hand_dilation_nonmonotone_taps)
{
    /* cin = cout = 1, 1x4 input, k = 1x2, d = 1x3, p_w = 2 (per side), s = 1:
    ** keff_w = 4, W_p = 8, W_out = 5.  Output c reads real columns
    ** c-2 and c+1 (when in [0,4)):
    **   c=0: {1}   c=1: {2}   c=2: {0,3}   c=3: {1}   c=4: {2}
    ** After c=0 the unprocessed outputs 1..4 read {0,1,2,3}: min 0 (read
    ** by c=2, not by the next pixel c=1, whose first real tap is 2).
    **   D(0) = 1 - 0 = 1, D(1) = 2 - 0 = 2, D(2) = 3 - 1 = 2,
    **   D(3) = 4 - 2 = 2, D(4) = sigma.
    ** Gather: max(2, N_out - N_in = 5 - 4 = 1) = 2. */
    rip_layer L = mk(1, 1, 1, 4, 1, 2, 1, 1, 1, 3, 0, 2);
    cr_assert_eq(L.w_out, 5);
    cr_expect_eq(rip_thm13_debt(&L, RIP_SIGMA_GATHER, 0, 0), 1);
    cr_expect_eq(rip_thm13_debt(&L, RIP_SIGMA_GATHER, 0, 1), 2);
    cr_expect_eq(rip_thm13_debt(&L, RIP_SIGMA_GATHER, 0, 2), 2);
    cr_expect_eq(rip_thm13_debt(&L, RIP_SIGMA_GATHER, 0, 3), 2);
    cr_expect_eq(rip_thm13_debt(&L, RIP_SIGMA_GATHER, 0, 4), 0);
    int64_t gap;
    cr_assert(rip_thm13(&L, RIP_SIGMA_GATHER, &gap));
    cr_expect_eq(gap, 2);
}

Test(thm13, undefined_when_padding_reaches_keff_on_any_side)
{
    int64_t v = 4242;
    char err[RIP_ERR_LEN];
    /* k=3, d=1: keff = 3; p = 3 on both sides of an axis */
    rip_layer L = mk(2, 2, 5, 5, 3, 3, 1, 1, 1, 1, 3, 0);
    cr_expect_not(rip_thm13(&L, RIP_SIGMA_GATHER, &v));
    L = mk(2, 2, 5, 5, 3, 3, 1, 1, 1, 1, 0, 3);
    cr_expect_not(rip_thm13(&L, RIP_SIGMA_TAPS, &v));
    /* one side only */
    const int64_t sides[4][4] = {{3, 0, 0, 0}, {0, 3, 0, 0}, {0, 0, 3, 0}, {0, 0, 0, 3}};
    for (int i = 0; i < 4; i++) {
        L = rip_layer_make(2, 2, 5, 5, 3, 3, 1, 1, 1, 1, 0, 0);
        L.p_top = sides[i][0];
        L.p_bottom = sides[i][1];
        L.p_left = sides[i][2];
        L.p_right = sides[i][3];
        cr_assert_eq(rip_layer_derive(&L, err), 0, "%s", err);
        cr_expect_not(rip_thm13(&L, RIP_SIGMA_GATHER, &v), "side %d", i);
    }
    cr_expect_eq(v, 4242, "*out must be left untouched");
    /* p = keff - 1 on every side is defined (dilation: keff = 2*2+1 = 5) */
    L = mk(2, 2, 5, 5, 3, 3, 1, 1, 2, 2, 4, 4);
    cr_expect(rip_thm13(&L, RIP_SIGMA_GATHER, &v));
}

Test(thm13, unpadded_equals_thm4)
{
    /* With no padding the dense and padded layouts coincide and every
    ** output's tap (0,0) is real, so Theorem 13 reduces to Theorem 4. */
    rng_seed(13);
    for (int it = 0; it < 5000; it++) {
        char err[RIP_ERR_LEN];
        rip_layer L = rip_layer_make(rnd(1, 16), rnd(1, 32), rnd(1, 20), rnd(1, 20),
                                     rnd(1, 5), rnd(1, 5), rnd(1, 4), rnd(1, 4),
                                     rnd(1, 3), rnd(1, 3), 0, 0);
        if (rip_layer_derive(&L, err) != 0)
            continue;
        for (int o = 0; o < 2; o++) {
            int64_t d;
            cr_assert(rip_thm13(&L, (rip_tap_order)o, &d));
            cr_assert_eq(d, rip_thm4(&L, (rip_tap_order)o));
        }
    }
}

/*
** Brute force of the dense layout from its definition (F.1, our reading):
** after pixel q the first live real pixel is the smallest flat index
** i W_in + j over every real tap of every output after q.  Fills D[q] for
** every pixel and returns the gap max(max_q D[q], N_out - N_in_dense).
*/
static int64_t thm13_brute(const rip_layer *L, int64_t sigma, int64_t *D)
{
    const int64_t N = L->h_out * L->w_out;
    int64_t best = L->n_out - L->n_in_dense, first = -1;
    for (int64_t q = N - 1; q >= 0; q--) {
        const int64_t r = q / L->w_out, c = q % L->w_out;
        D[q] = (q == N - 1 || first < 0) ? sigma
                                         : (q + 1) * L->cout - first * L->cin + sigma;
        best = max64(best, D[q]);
        for (int64_t a = 0; a < L->k_h; a++)
            for (int64_t b = 0; b < L->k_w; b++) {
                const int64_t i = r * L->s_h + a * L->d_h - L->p_top;
                const int64_t j = c * L->s_w + b * L->d_w - L->p_left;
                if (i < 0 || j < 0 || i >= L->h_in || j >= L->w_in)
                    continue;
                if (first < 0 || i * L->w_in + j < first)
                    first = i * L->w_in + j;
            }
    }
    return best;
}

Test(thm13, debt_and_gap_match_all_pixel_brute_force)
{
    /* Two claims, checked separately:
    **  (1) our O(k) (rbar, cbar) equals the enumeration at EVERY pixel;
    **  (2) the breakpoint set of Theorem 13 finds the all-pixel maximum.
    ** (2) can only fail downwards (thm13 < brute) given (1); such a layer
    ** would show the paper's breakpoint set to be insufficient. */
    static int64_t D[64 * 64];
    rng_seed(1313);
    int layers = 0, below = 0;
    for (int it = 0; it < 20000; it++) {
        rip_layer L;
        if (!random_layer(&L, 16, 16))
            continue;
        char buf[200];
        describe(&L, buf, sizeof buf);
        cr_assert_leq(L.h_out * L.w_out, 64 * 64, "%s", buf);
        for (int o = 0; o < 2; o++) {
            const int64_t sigma = o ? L.cout : 0;
            const int64_t brute = thm13_brute(&L, sigma, D);
            for (int64_t q = 0; q < L.h_out * L.w_out; q++)
                cr_assert_eq(rip_thm13_debt(&L, (rip_tap_order)o, q / L.w_out, q % L.w_out),
                             D[q], "pixel %lld of %s", (long long)q, buf);
            int64_t gap;
            cr_assert(rip_thm13(&L, (rip_tap_order)o, &gap));
            cr_assert_leq(gap, brute, "%s", buf);
            cr_assert_geq(gap, sigma, "%s", buf);
            if (gap < brute) {
                below++;
                cr_log_warn("thm13 %lld < all-pixel max %lld (sigma=%lld): %s",
                            (long long)gap, (long long)brute, (long long)sigma, buf);
            }
        }
        layers++;
    }
    cr_log_info("thm13: %d random layers x 2 orders, breakpoint max below all-pixel max on %d",
                layers, below);
    cr_expect_eq(below, 0, "Theorem 13's breakpoint set missed the maximum on %d cases", below);
}

/* ---- workspaces ---- */

Test(workspace, naive_by_hand)
{
    /* 5x5x2 input, p=1: 7*7*2 = 98; output 3x3x8 = 72; sum 170. */
    rip_layer L = mk(2, 8, 5, 5, 3, 3, 2, 2, 1, 1, 1, 1);
    cr_expect_eq(rip_naive_workspace(&L), 170);
}

Test(workspace, upsample_theorem14)
{
    cr_expect_eq(rip_upsample_workspace(2, 3, 4, 2), 4 * 6 * 4);  /* 96 */
    cr_expect_eq(rip_upsample_workspace(7, 5, 3, 1), 7 * 5 * 3);  /* S=1: input */
    cr_expect_eq(rip_upsample_workspace(10, 10, 16, 3), 30 * 30 * 16);
    cr_expect_eq(rip_upsample_workspace(0, 3, 4, 2), -1);
    cr_expect_eq(rip_upsample_workspace(2, -3, 4, 2), -1);
    cr_expect_eq(rip_upsample_workspace(2, 3, 0, 2), -1);
    cr_expect_eq(rip_upsample_workspace(2, 3, 4, 0), -1);
    cr_expect_eq(rip_upsample_workspace(INT64_C(1) << 22, INT64_C(1) << 22, INT64_C(1) << 22, 2), -1);
    cr_expect_eq(rip_upsample_workspace(INT64_C(1) << 20, INT64_C(1) << 20, 1, 2), INT64_C(1) << 42);
    cr_expect_eq(rip_upsample_workspace(1, 1, 1, INT64_C(1) << 32), -1);
}

Test(workspace, pool_max_of_in_and_out)
{
    cr_expect_eq(rip_pool_workspace(1000, 250), 1000);
    cr_expect_eq(rip_pool_workspace(250, 1000), 1000);
    cr_expect_eq(rip_pool_workspace(0, 0), 0);
    cr_expect_eq(rip_pool_workspace(-1, 5), -1);
    cr_expect_eq(rip_pool_workspace(5, -1), -1);
    /* 2x2 max pool, stride 2, on 8x8x4: N_in = 256, N_out = 4*4*4 = 64.
    ** Theorem 4 (alpha = 4 - 8 < 0, beta = 16 - 64 < 0) agrees, sigma = 0:
    ** Delta* = 0, workspace = N_in. */
    rip_layer L = mk(4, 4, 8, 8, 2, 2, 2, 2, 1, 1, 0, 0);
    cr_expect_eq(rip_pool_workspace(L.n_in_padded, L.n_out), 256);
    cr_expect_eq(rip_thm4(&L, RIP_SIGMA_GATHER) + L.n_in_padded, 256);
}

/* ---- registry ---- */

Test(registry, names_order_and_judges)
{
    static const struct {
        const char *name, *judge;
        bool ws;
    } want[] = {
        {"gm2019_eq1", "herringbone_taps", false},
        {"corollary1", "herringbone_taps", false},
        {"thm11", "herringbone_taps", false},
        {"thm4_gather", "rip_padded_gather", false},
        {"thm4_taps", "rip_padded_taps", false},
        {"thm13_gather", "rip_dense_gather", false},
        {"thm13_taps", "rip_dense_taps", false},
        {"naive_workspace", NULL, true},
    };
    size_t n = 0;
    const rip_formula_info *f = rip_formulas(&n);
    cr_assert_eq(n, sizeof want / sizeof want[0]);
    for (size_t i = 0; i < n; i++) {
        cr_expect_str_eq(f[i].name, want[i].name);
        if (want[i].judge)
            cr_expect_str_eq(f[i].judged_by, want[i].judge);
        else
            cr_expect_null(f[i].judged_by);
        cr_expect_eq(f[i].is_workspace, want[i].ws, "%s", want[i].name);
        cr_expect_not_null(f[i].paper);
        cr_expect_not_null(f[i].eval);
    }
}

Test(registry, eval_matches_direct_calls)
{
    size_t n = 0;
    const rip_formula_info *f = rip_formulas(&n);
    /* Tab. 2 row 1 (restricted) and a padded strided layer (only the
    ** always-defined and thm13 forms apply). */
    rip_layer R = restricted(1, 5, 3, 14);
    rip_layer P = mk(2, 8, 5, 5, 3, 3, 2, 2, 1, 1, 1, 1);
    const int64_t want_R[8] = {531, 533, 533, rip_thm4(&R, RIP_SIGMA_GATHER),
                               rip_thm4(&R, RIP_SIGMA_TAPS), -2, -2, rip_naive_workspace(&R)};
    int64_t t13g, t13t;
    cr_assert(rip_thm13(&P, RIP_SIGMA_GATHER, &t13g));
    cr_assert(rip_thm13(&P, RIP_SIGMA_TAPS, &t13t));
    const int64_t want_P[8] = {-1, -1, rip_thm11(&P), 8, 16, t13g, t13t, 170};
    for (size_t i = 0; i < n; i++) {
        int64_t v = -99;
        bool ok = f[i].eval(&P, &v);
        if (want_P[i] == -1) {
            cr_expect_not(ok, "%s should be undefined", f[i].name);
            cr_expect_eq(v, -99);
        } else {
            cr_expect(ok, "%s", f[i].name);
            cr_expect_eq(v, want_P[i], "%s", f[i].name);
        }
        ok = f[i].eval(&R, &v);
        cr_expect(ok, "%s", f[i].name);
        if (want_R[i] != -2)
            cr_expect_eq(v, want_R[i], "%s", f[i].name);
    }
    /* thm13 on the restricted row equals thm4 (no padding) */
    int64_t v;
    cr_assert(f[5].eval(&R, &v));
    cr_expect_eq(v, rip_thm4(&R, RIP_SIGMA_GATHER));
}
