/*
** test_generators.c — the generator categories of the sweep (the 20 of paper
** Tab. 5): the registry matches the table, every category draws valid layers
** with its defining property (checked by the category's holds() and by an
** independent check written here), within the documented ranges, varied and
** deterministic, and the sweep assigns exactly `weight` layers of every
** hundred to each category.
*/
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "generator.h"

#define DRAWS 1000
#define SEED 0x5eedULL

static const struct {
    const char *name, *title;
    int tier, weight;
} tab5[] = {
    {"plain", "plain convolution, k in [1,7]", 1, 11},
    {"same_padding", "same padding, p = floor(k/2)", 1, 8},
    {"strided", "strided downsampling", 1, 6},
    {"expansion", "inverted-bottleneck expansion", 1, 5},
    {"projection", "projection, C_out <= C_in", 1, 5},
    {"collapsed_minor", "collapsed minor axis, n in {1,2,3}", 2, 9},
    {"small_hb_grid", "small herringbone grid, n <= 6", 2, 7},
    {"small_output", "small output grid", 2, 6},
    {"thin_axis", "thin axis, one output axis of 1", 2, 6},
    {"restricted_int_xstar", "restricted regime, integer x*", 2, 6},
    {"random_symmetric", "random symmetric axes", 2, 6},
    {"nonint_xstar", "non-integer x*", 2, 5},
    {"nonmonotone_taps", "non-monotone tap order", 3, 4},
    {"rectangular", "rectangular kernel", 3, 3},
    {"dilation", "dilation", 3, 3},
    {"asym_stride", "asymmetric stride", 3, 2},
    {"asym_dilation", "asymmetric dilation", 3, 2},
    {"asym_padding", "asymmetric padding", 3, 2},
    {"fully_asymmetric", "fully asymmetric", 3, 2},
    {"maximal_padding", "maximal padding", 3, 2},
};

/* The number of categories: 20 in the paper. */
#define N_CAT (sizeof tab5 / sizeof tab5[0])

static const int64_t t1_channels[] = {3, 8, 16, 24, 32, 48, 64, 96, 128,
                                      160, 192, 256, 320, 384, 512};

static bool is_t1_channel(int64_t c)
{
    for (size_t i = 0; i < sizeof t1_channels / sizeof t1_channels[0]; i++)
        if (t1_channels[i] == c)
            return true;
    return false;
}

static int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }
static int64_t max64(int64_t a, int64_t b) { return a > b ? a : b; }

static bool same_layer(const rip_layer *a, const rip_layer *b)
{
    return memcmp(a, b, sizeof *a) == 0;   /* all int64_t, no padding bytes */
}

/* First real input index read by output c of one axis, -1 if none: the
** smallest tap b with c s + b d - p >= 0, by division rather than search. */
static int64_t first_real(int64_t c, int64_t in, int64_t k, int64_t s, int64_t d, int64_t p)
{
    const int64_t b = max64(0, rip_ceil_div(p - c * s, d));
    const int64_t x = c * s + b * d - p;
    return b < k && x < in ? x : -1;
}

static bool axis_decreases(int64_t out, int64_t in, int64_t k, int64_t s, int64_t d, int64_t p)
{
    for (int64_t c = 0; c + 1 < out; c++) {
        const int64_t a = first_real(c, in, k, s, d, p);
        const int64_t b = first_real(c + 1, in, k, s, d, p);
        if (a >= 0 && b >= 0 && b < a)
            return true;
    }
    return false;
}

static bool restricted_here(const rip_layer *L)
{
    return L->p_top == 0 && L->p_bottom == 0 && L->p_left == 0 && L->p_right == 0 &&
           L->s_h == 1 && L->s_w == 1 && L->d_h == 1 && L->d_w == 1 &&
           L->k_h == L->k_w && L->k_h % 2 == 1 && L->h_in == L->w_in;
}

static bool pads_all(const rip_layer *L, int64_t p)
{
    return L->p_top == p && L->p_bottom == p && L->p_left == p && L->p_right == p;
}

/* The defining property, restated here independently of the categories. */
static bool independent_check(const char *name, const rip_layer *L)
{
    const int64_t n = min64(L->h_out, L->w_out), m = max64(L->h_out, L->w_out);
    const bool unit = L->s_h == 1 && L->s_w == 1 && L->d_h == 1 && L->d_w == 1;
    const bool pointwise = L->k_h == 1 && L->k_w == 1 && unit && pads_all(L, 0);
    if (!strcmp(name, "plain"))
        return unit && pads_all(L, 0) && L->k_h == L->k_w && L->k_h <= 7;
    if (!strcmp(name, "same_padding"))
        return unit && L->k_h == L->k_w && L->k_h % 2 == 1 && pads_all(L, L->k_h / 2) &&
               L->h_out == L->h_in && L->w_out == L->w_in;
    if (!strcmp(name, "strided"))
        return L->s_h == L->s_w && L->s_h >= 2 && L->s_h <= 4 && L->k_h == L->k_w &&
               L->k_h % 2 == 1 && L->d_h == 1 && L->d_w == 1 &&
               (pads_all(L, 0) || pads_all(L, L->k_h / 2));
    if (!strcmp(name, "expansion"))
        return pointwise && L->cout % L->cin == 0 && L->cout >= 2 * L->cin &&
               L->cout <= 6 * L->cin;
    if (!strcmp(name, "projection"))
        return pointwise && L->cout <= L->cin;
    if (!strcmp(name, "collapsed_minor"))
        return n >= 1 && n <= 3 && m > n;
    if (!strcmp(name, "small_hb_grid"))
        return n <= 6 && m <= 16;
    if (!strcmp(name, "small_output"))
        return L->h_out * L->w_out <= 6;
    if (!strcmp(name, "thin_axis"))
        return L->h_out == 1 || L->w_out == 1;
    if (!strcmp(name, "restricted_int_xstar"))
        return restricted_here(L) && rip_layer_is_restricted(L) && L->cout > L->cin &&
               (L->k_h - 1) * L->cin % (L->cout - L->cin) == 0;
    if (!strcmp(name, "nonint_xstar"))
        return restricted_here(L) && rip_layer_is_restricted(L) && L->cout > L->cin &&
               (L->k_h - 1) * L->cin % (L->cout - L->cin) != 0 && L->k_h >= 3;
    if (!strcmp(name, "random_symmetric"))
        return L->h_in == L->w_in && L->k_h == L->k_w && L->s_h == L->s_w &&
               L->d_h == L->d_w && pads_all(L, L->p_top) && L->h_out == L->w_out;
    if (!strcmp(name, "nonmonotone_taps"))
        return axis_decreases(L->h_out, L->h_in, L->k_h, L->s_h, L->d_h, L->p_top) ||
               axis_decreases(L->w_out, L->w_in, L->k_w, L->s_w, L->d_w, L->p_left);
    if (!strcmp(name, "rectangular"))
        return L->k_h != L->k_w;
    if (!strcmp(name, "dilation"))
        return L->d_h == L->d_w && L->d_h >= 2;
    if (!strcmp(name, "asym_stride"))
        return L->s_h != L->s_w;
    if (!strcmp(name, "asym_dilation"))
        return L->d_h != L->d_w;
    if (!strcmp(name, "asym_padding"))
        return L->p_top != L->p_bottom || L->p_left != L->p_right;
    if (!strcmp(name, "fully_asymmetric"))
        return L->k_h != L->k_w && L->s_h != L->s_w && L->d_h != L->d_w &&
               !(L->p_top == L->p_left && L->p_bottom == L->p_right) && L->h_in != L->w_in;
    if (!strcmp(name, "maximal_padding"))
        return L->p_top == L->d_h * (L->k_h - 1) && L->p_bottom == L->p_top &&
               L->p_left == L->d_w * (L->k_w - 1) && L->p_right == L->p_left &&
               L->k_h >= 2 && L->k_w >= 2;
    /* a category added after Tab. 5: its holds() is still checked on every
    ** draw; add a clause above to check its property independently too */
    static char warned[64];
    if (strcmp(warned, name) != 0) {
        snprintf(warned, sizeof warned, "%s", name);
        fprintf(stderr, "note: no independent property check for category '%s'\n", name);
    }
    return true;
}

/* Re-derive a copy that has only the user-facing fields; the derived fields
** must come out the same. */
static void expect_derived(const rip_layer *L, const char *name, int j)
{
    rip_layer x = rip_layer_make(L->cin, L->cout, L->h_in, L->w_in, L->k_h, L->k_w,
                                 L->s_h, L->s_w, L->d_h, L->d_w, 0, 0);
    x.p_top = L->p_top;
    x.p_bottom = L->p_bottom;
    x.p_left = L->p_left;
    x.p_right = L->p_right;
    char err[RIP_ERR_LEN] = "";
    cr_assert_eq(rip_layer_derive(&x, err), 0, "%s draw %d: %s", name, j, err);
    cr_assert(same_layer(&x, L), "%s draw %d: derived fields differ from a re-derive", name, j);
    cr_assert_eq(x.h_out, (L->h_in + L->p_top + L->p_bottom - L->d_h * (L->k_h - 1) - 1) / L->s_h + 1);
    cr_assert_eq(x.w_out, (L->w_in + L->p_left + L->p_right - L->d_w * (L->k_w - 1) - 1) / L->s_w + 1);
}

static void draw_stream(const rip_generator *gen, uint64_t seed, uint64_t seq, rip_layer *L)
{
    rip_pcg32 g;
    rip_pcg32_seed(&g, seed, seq);
    memset(L, 0xa5, sizeof *L);    /* draw() must set every field */
    gen->draw(&g, L);
}

static int cmp_key(const void *a, const void *b)
{
    return memcmp(a, b, 14 * sizeof(int64_t));
}

/* The paper's categories (weight > 0: the default set) in registry order. */
static const rip_generator *const *paper_categories(size_t *count)
{
    static rip_generator_set set;
    rip_generator_set_default(&set);
    *count = set.n;
    return set.gen;
}

Test(generators, registry_is_table5)
{
    size_t count = 0, registered = 0;
    const rip_generator *const *reg = rip_generators(&registered);
    /* a category added after Tab. 5 has weight 0 and stays out of the default set */
    for (size_t i = 0; i < registered; i++)
        cr_assert(reg[i]->weight >= 0, "%s: weight %d", reg[i]->name, reg[i]->weight);
    const rip_generator *const *all = paper_categories(&count);
    cr_assert_eq(count, N_CAT);
    int sum = 0, tier[4] = {0};
    for (size_t i = 0; i < count; i++) {
        const rip_generator *gen = all[i];
        cr_expect_str_eq(gen->name, tab5[i].name, "entry %zu", i);
        cr_expect_str_eq(gen->title, tab5[i].title, "entry %zu", i);
        cr_expect_eq(gen->tier, tab5[i].tier, "%s", gen->name);
        cr_expect_eq(gen->weight, tab5[i].weight, "%s", gen->name);
        /* Tab. 5's rows that fix the channel direction: expansion and the two
        ** restricted x* rows grow, projection is C_out <= C_in */
        rip_generator_channels want_ch = RIP_GEN_CHANNELS_BOTH;
        if (!strcmp(tab5[i].name, "expansion") || !strcmp(tab5[i].name, "restricted_int_xstar") ||
            !strcmp(tab5[i].name, "nonint_xstar"))
            want_ch = RIP_GEN_CHANNELS_GROW;
        else if (!strcmp(tab5[i].name, "projection"))
            want_ch = RIP_GEN_CHANNELS_SHRINK;
        cr_expect_eq(gen->channels, want_ch, "%s declares channels %d", gen->name, (int)gen->channels);
        cr_assert(gen->tier >= 1 && gen->tier <= 3, "%s", gen->name);
        cr_assert(gen->weight >= 1, "%s", gen->name);
        cr_assert(gen->draw && gen->holds && gen->ranges && gen->ranges[0], "%s", gen->name);
        if (i > 0)
            cr_expect_geq(gen->tier, all[i - 1]->tier, "tiers in table order");
        sum += gen->weight;
        tier[gen->tier] += gen->weight;
        for (size_t j = 0; j < i; j++)
            cr_assert_str_neq(gen->name, all[j]->name, "duplicate name");
        cr_expect_eq(rip_generator_by_name(gen->name), gen, "%s", gen->name);
    }
    cr_expect_eq(sum, 100);
    cr_expect_eq(tier[1], 35);
    cr_expect_eq(tier[2], 45);
    cr_expect_eq(tier[3], 20);
    cr_expect_null(rip_generator_by_name("no_such_category"));
    cr_expect_null(rip_generator_by_name(""));
    cr_expect_null(rip_generator_by_name(NULL));
}

/* Long on purpose (over 100 lines): each category's draws checked against
** each rule of its row of Tab. 5 in one loop, so a failure names both. */
Test(generators, every_category_draws_valid_layers_with_its_property, .timeout = 300)
{
    size_t count = 0;
    const rip_generator *const *all = rip_generators(&count);
    int64_t (*keys)[14] = malloc(DRAWS * sizeof *keys);
    cr_assert_not_null(keys);
    for (size_t i = 0; i < count; i++) {
        const rip_generator *gen = all[i];
        const char *nm = gen->name;
        int up = 0, down = 0, lim2_in = 0, lim2_out = 0, dead = 0, ax_h = 0, ax_w = 0;
        int nm_h = 0, nm_w = 0;
        int seen_n[17] = {0}, seen_grid[7][7] = {{0}};
        for (int j = 0; j < DRAWS; j++) {
            rip_layer L, again;
            draw_stream(gen, SEED + i, (uint64_t)j, &L);
            draw_stream(gen, SEED + i, (uint64_t)j, &again);
            cr_assert(same_layer(&L, &again), "%s draw %d: not deterministic", nm, j);
            expect_derived(&L, nm, j);
            cr_assert(L.h_in >= 1 && L.h_in <= 128 && L.w_in >= 1 && L.w_in <= 128,
                      "%s draw %d: input %lldx%lld", nm, j, (long long)L.h_in, (long long)L.w_in);
            cr_assert(gen->holds(&L), "%s draw %d: holds() is false", nm, j);
            cr_assert(independent_check(nm, &L), "%s draw %d: property fails the independent check "
                      "(cin=%lld cout=%lld h=%lldx%lld k=%lldx%lld s=%lldx%lld d=%lldx%lld "
                      "p=%lld,%lld,%lld,%lld out=%lldx%lld)", nm, j,
                      (long long)L.cin, (long long)L.cout, (long long)L.h_in, (long long)L.w_in,
                      (long long)L.k_h, (long long)L.k_w, (long long)L.s_h, (long long)L.s_w,
                      (long long)L.d_h, (long long)L.d_w, (long long)L.p_top,
                      (long long)L.p_bottom, (long long)L.p_left, (long long)L.p_right,
                      (long long)L.h_out, (long long)L.w_out);
            /* every category stays inside Theorem 13's domain, p < keff */
            cr_assert(L.p_top < L.keff_h && L.p_bottom < L.keff_h &&
                      L.p_left < L.keff_w && L.p_right < L.keff_w, "%s draw %d: p >= keff", nm, j);
            if (gen->tier == 1) {
                cr_assert(is_t1_channel(L.cin), "%s draw %d: cin %lld", nm, j, (long long)L.cin);
                if (strcmp(nm, "expansion") != 0)
                    cr_assert(is_t1_channel(L.cout), "%s draw %d: cout %lld", nm, j, (long long)L.cout);
                cr_assert_leq(L.h_in * L.w_in * max64(L.cin, L.cout), (int64_t)1 << 19,
                              "%s draw %d: tier-1 budget", nm, j);
            } else {
                cr_assert(L.cin >= 1 && L.cin <= 64 && L.cout >= 1 && L.cout <= 64,
                          "%s draw %d: channels %lld -> %lld", nm, j, (long long)L.cin, (long long)L.cout);
            }
            up += L.cout > L.cin;
            down += L.cout < L.cin;
            if (rip_layer_is_restricted(&L) && L.cout > L.cin) {
                const int64_t f = (L.k_h - 1) * L.cin / (L.cout - L.cin);
                if (f <= L.w_out - 1)
                    lim2_in++;
                else
                    lim2_out++;
            }
            dead += L.s_w > L.keff_w || L.s_h > L.keff_h;
            ax_h += L.h_out < L.w_out || (L.h_out == 1 && L.w_out == 1);
            ax_w += L.h_out > L.w_out;
            nm_h += axis_decreases(L.h_out, L.h_in, L.k_h, L.s_h, L.d_h, L.p_top);
            nm_w += axis_decreases(L.w_out, L.w_in, L.k_w, L.s_w, L.d_w, L.p_left);
            if (min64(L.h_out, L.w_out) <= 16)
                seen_n[min64(L.h_out, L.w_out)]++;
            if (L.h_out <= 6 && L.w_out <= 6)
                seen_grid[L.h_out][L.w_out]++;
            const int64_t key[14] = {L.cin, L.cout, L.h_in, L.w_in, L.k_h, L.k_w, L.s_h, L.s_w,
                                     L.d_h, L.d_w, L.p_top, L.p_bottom, L.p_left, L.p_right};
            memcpy(keys[j], key, sizeof key);
        }
        qsort(keys, DRAWS, sizeof keys[0], cmp_key);
        int distinct = 1;
        for (int j = 1; j < DRAWS; j++)
            distinct += cmp_key(keys[j - 1], keys[j]) != 0;
        fprintf(stderr, "%-22s distinct %4d/%d  cout>cin %4d  cout<cin %4d\n",
                nm, distinct, DRAWS, up, down);
        cr_expect_gt(distinct, 50, "%s: only %d distinct layers", nm, distinct);

        /* the regimes each category is there to cover */
        /* C_out against C_in, as the category declares it */
        switch (gen->channels) {
        case RIP_GEN_CHANNELS_GROW:
            cr_expect_eq(up, DRAWS, "%s", nm);
            break;
        case RIP_GEN_CHANNELS_SHRINK:
            cr_expect_eq(up, 0, "%s", nm);
            cr_expect_gt(down, DRAWS / 2, "%s", nm);
            break;
        case RIP_GEN_CHANNELS_EQUAL:
            cr_expect_eq(up + down, 0, "%s: cout != cin %d times", nm, up + down);
            break;
        default:
            cr_expect_gt(up, DRAWS / 10, "%s: cout > cin only %d times", nm, up);
            cr_expect_gt(down, DRAWS / 10, "%s: cout < cin only %d times", nm, down);
        }
        if (!strcmp(nm, "restricted_int_xstar") || !strcmp(nm, "nonint_xstar")) {
            /* floor(x*) inside the grid, and past it (Limitation 2) */
            cr_expect_gt(lim2_in, DRAWS / 20, "%s", nm);
            cr_expect_gt(lim2_out, DRAWS / 20, "%s", nm);
        }
        if (!strcmp(nm, "strided"))
            cr_expect_gt(dead, DRAWS / 20, "strided: stride past the kernel (dead input)");
        if (!strcmp(nm, "nonmonotone_taps")) {
            cr_expect_gt(nm_h, DRAWS / 5, "nonmonotone_taps: on the height axis");
            cr_expect_gt(nm_w, DRAWS / 5, "nonmonotone_taps: on the width axis");
        }
        if (!strcmp(nm, "collapsed_minor") || !strcmp(nm, "thin_axis") ||
            !strcmp(nm, "small_hb_grid")) {
            cr_expect_gt(ax_h, DRAWS / 5, "%s: wide grids", nm);
            cr_expect_gt(ax_w, DRAWS / 5, "%s: tall grids", nm);
        }
        if (!strcmp(nm, "collapsed_minor"))
            for (int k = 1; k <= 3; k++)
                cr_expect_gt(seen_n[k], DRAWS / 6, "collapsed_minor: n = %d", k);
        if (!strcmp(nm, "small_hb_grid"))
            for (int k = 1; k <= 6; k++)
                cr_expect_gt(seen_n[k], DRAWS / 30, "small_hb_grid: n = %d", k);
        if (!strcmp(nm, "small_output"))
            for (int a = 1; a <= 6; a++)
                for (int b = 1; a * b <= 6; b++)
                    cr_expect_gt(seen_grid[a][b], DRAWS / 30, "small_output: %dx%d", a, b);
    }
    free(keys);
}

Test(generators, nonmonotone_example_of_appendix_f4_shape)
{
    /* s = 1, d = 2, k = 2, p = 1: output 0 reads real 1, output 1 reads 0 */
    const rip_generator *gen = rip_generator_by_name("nonmonotone_taps");
    cr_assert_not_null(gen);
    rip_layer L = rip_layer_make(2, 2, 4, 4, 1, 2, 1, 1, 1, 2, 0, 1);
    char err[RIP_ERR_LEN];
    cr_assert_eq(rip_layer_derive(&L, err), 0, "%s", err);
    cr_expect(gen->holds(&L));
    cr_expect(independent_check("nonmonotone_taps", &L));
    /* the same layer without padding is monotone */
    L = rip_layer_make(2, 2, 4, 4, 1, 2, 1, 1, 1, 2, 0, 0);
    cr_assert_eq(rip_layer_derive(&L, err), 0, "%s", err);
    cr_expect_not(gen->holds(&L));
    cr_expect_not(independent_check("nonmonotone_taps", &L));
}

Test(generators, every_block_of_100_has_weight_layers_per_category)
{
    size_t count = 0;
    const rip_generator *const *all = paper_categories(&count);
    cr_assert_eq(count, N_CAT);
    /* slot layout: idx takes slot (idx*37) mod 100, categories in order */
    for (int64_t idx = 0; idx < 100; idx++) {
        const int64_t slot = idx * 37 % 100;
        int64_t cum = 0;
        size_t want = 0;
        while (slot >= cum + tab5[want].weight)
            cum += tab5[want++].weight;
        cr_expect_eq(rip_generator_for_layer(idx), all[want], "idx %lld", (long long)idx);
    }
    /* sliding windows, including negative and huge idx */
    const int64_t starts[] = {-1000, 0, (int64_t)1 << 40, INT64_MAX - 2000};
    for (size_t s = 0; s < sizeof starts / sizeof starts[0]; s++) {
        int win[N_CAT] = {0};
        for (int64_t idx = starts[s]; idx < starts[s] + 1100; idx++) {
            const rip_generator *gen = rip_generator_for_layer(idx);
            size_t k = 0;
            while (k < count && all[k] != gen)
                k++;
            cr_assert_lt(k, count);
            win[k]++;
            if (idx - starts[s] >= 100) {
                const rip_generator *old = rip_generator_for_layer(idx - 100);
                size_t o = 0;
                while (all[o] != old)
                    o++;
                win[o]--;
            }
            if (idx - starts[s] >= 99)
                for (size_t c = 0; c < count; c++)
                    cr_assert_eq(win[c], all[c]->weight, "%s in the window ending at %lld",
                                 all[c]->name, (long long)idx);
        }
    }
}

Test(generators, sweep_of_10000_has_100_weight_per_category, .timeout = 300)
{
    size_t count = 0;
    const rip_generator *const *all = paper_categories(&count);
    cr_assert_eq(count, N_CAT);
    int n[N_CAT] = {0};
    for (int64_t idx = 0; idx < 10000; idx++) {
        rip_layer L;
        const rip_generator *gen = rip_sweep_draw(SEED, idx, &L);
        cr_assert_eq(gen, rip_generator_for_layer(idx));
        cr_assert(gen->holds(&L), "idx %lld (%s)", (long long)idx, gen->name);
        cr_assert(independent_check(gen->name, &L), "idx %lld (%s)", (long long)idx, gen->name);
        expect_derived(&L, gen->name, (int)idx);
        size_t k = 0;
        while (all[k] != gen)
            k++;
        n[k]++;
    }
    for (size_t c = 0; c < count; c++)
        cr_expect_eq(n[c], 100 * all[c]->weight, "%s: %d", all[c]->name, n[c]);
}

Test(generators, sweep_draw_depends_only_on_seed_and_idx)
{
    rip_layer a, b, c, other;
    const rip_generator *ga = rip_sweep_draw(SEED, 500, &a);
    for (int64_t idx = 0; idx < 1000; idx++)
        rip_sweep_draw(idx % 2 ? SEED : SEED + 1, idx, &other);
    const rip_generator *gb = rip_sweep_draw(SEED, 500, &b);
    cr_expect_eq(ga, gb);
    cr_expect(same_layer(&a, &b), "layer 500 changed after drawing others");
    /* it is the category's draw on stream (seed, idx) */
    draw_stream(ga, SEED, 500, &c);
    cr_expect(same_layer(&a, &c));
    /* and the seed matters: some of the first 100 layers differ */
    int differ = 0;
    for (int64_t idx = 0; idx < 100; idx++) {
        rip_sweep_draw(SEED, idx, &a);
        rip_sweep_draw(SEED + 1, idx, &b);
        differ += !same_layer(&a, &b);
    }
    cr_expect_gt(differ, 90);
}

/* A set of the user's: its text reads back, its slots hold each category
** exactly `weight` times in every block of W, and errors name the item. */
Test(generators, sets_of_categories)
{
    rip_generator_set s, back;
    char err[RIP_ERR_LEN], text[2048];
    cr_assert_eq(rip_generator_set_parse("plain:3,thin_axis,rectangular:2", &s, err), RIP_OK, "%s", err);
    cr_assert_eq(s.n, 3);
    cr_expect_eq(s.weight[1], 6, "a name alone takes its own weight (Tab. 5: thin_axis 6)");
    cr_expect_eq(s.total, 11);
    rip_generator_set_text(&s, text, sizeof text);
    cr_expect_str_eq(text, "plain:3,thin_axis:6,rectangular:2");
    cr_assert_eq(rip_generator_set_parse(text, &back, err), RIP_OK, "%s", err);
    cr_expect_eq(back.n, s.n);
    int seen[3] = {0};
    for (int64_t idx = 1000; idx < 1000 + 11 * 7; idx++)
        seen[rip_generator_set_slot(&s, idx)]++;
    cr_expect(seen[0] == 21 && seen[1] == 42 && seen[2] == 14, "%d %d %d", seen[0], seen[1], seen[2]);
    /* the default set is the paper's, and "paper" names it */
    rip_generator_set d;
    rip_generator_set_default(&d);
    cr_assert_eq(rip_generator_set_parse("paper", &s, err), RIP_OK, "%s", err);
    cr_expect_eq(s.n, N_CAT);
    cr_expect_eq(s.total, 100);
    cr_expect_eq(s.mult, 37, "W = 100 keeps the paper's layout, (idx * 37) mod 100");
    for (int64_t idx = -300; idx < 300; idx++)
        cr_expect_eq(d.gen[rip_generator_set_slot(&d, idx)], rip_generator_for_layer(idx));
    cr_assert_eq(rip_generator_set_parse("paper,plain", &s, err), RIP_S_DATA);
    cr_expect_not_null(strstr(err, "'plain' is named twice"), "%s", err);
    /* W = 74 = 2 * 37: 37 is not prime to it, so the next number that is, 39 */
    cr_assert_eq(rip_generator_set_parse("plain:37,dilation:37", &s, err), RIP_OK, "%s", err);
    cr_expect_eq(s.mult, 39);
    static const struct { const char *text, *why; } bad[] = {
        {"plian", "did you mean 'plain'?"}, {"plain:0", "from 1 to 1000"}, {"plain:1001", "from 1 to 1000"},
        {"plain:x", "from 1 to 1000"},      {"plain,", "expected NAME"},   {"plain:3,plain:4", "named twice"},
        {"", "expected NAME"},              {"nosuch", "no generator category 'nosuch'"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        err[0] = '\0';
        cr_expect_eq(rip_generator_set_parse(bad[i].text, &s, err), RIP_S_DATA, "'%s'", bad[i].text);
        cr_expect_not_null(strstr(err, bad[i].why), "'%s': %s", bad[i].text, err);
    }
}

/* A draw() that differs from plain's in one layer's cin by one (issue 23 item 7's "change inside draw()"). */
static rip_status plain_but_one(rip_pcg32 *g, rip_layer *L)
{
    rip_status s = rip_generator_by_name("plain")->draw(g, L);
    if (L->cin == 3)
        L->cin = 4;
    return s;
}

/*
** Issue 23 item 7: the generator fingerprint is behavioural.  A copy of the
** registry gives the registry's fingerprint; the same copy with one
** category's draw() changed on a few layers, a weight moved between two
** categories, or two categories swapped gives another each.
*/
Test(generators, fingerprint_sees_a_change_inside_draw)
{
    /* the default set, its categories replaced by copies that can be altered */
    rip_generator_set set;
    rip_generator_set_default(&set);
    size_t n = set.n;
    rip_generator copies[RIP_GENERATOR_SET_MAX];
    for (size_t i = 0; i < n; i++) {
        copies[i] = *set.gen[i];
        set.gen[i] = &copies[i];
    }
    const rip_generator *orig[RIP_GENERATOR_SET_MAX];
    rip_generator_set paper;
    rip_generator_set_default(&paper);
    for (size_t i = 0; i < n; i++)
        orig[i] = paper.gen[i];
    char base[17], same[17], changed[17], weights[17], order[17];
    rip_generator_fingerprint(base);
    rip_generator_set_fingerprint(&set, same);
    cr_expect_str_eq(same, base);
    cr_expect_eq(strlen(base), 16);
    size_t plain = 0;
    while (plain < n && strcmp(copies[plain].name, "plain") != 0)
        plain++;
    cr_assert_lt(plain, n);
    /* does plain ever draw cin = 3 in the fingerprint's draws?  Then the change is seen */
    copies[plain].draw = plain_but_one;
    rip_generator_set_fingerprint(&set, changed);
    copies[plain] = *orig[plain];
    cr_expect_str_neq(changed, base, "a draw() changed on the layers with cin = 3 left the fingerprint");
    /* a weight moved in the set */
    set.weight[0]++;
    set.weight[1]--;
    rip_generator_set_fingerprint(&set, weights);
    set.weight[0]--;
    set.weight[1]++;
    cr_expect_str_neq(weights, base);
    set.gen[0] = &copies[1];
    set.gen[1] = &copies[0];
    rip_generator_set_fingerprint(&set, order);
    cr_expect_str_neq(order, base);
    /* a category of weight 0 added to the registry is not in the default set: the default
    ** fingerprint is that of the paper's 20 alone */
    char paper_fp[17];
    rip_generator_set_fingerprint(&paper, paper_fp);
    cr_expect_str_eq(paper_fp, base);
}
