/*
** test_layer.c — layer geometry and SPEC parsing, checked against sizes
** worked out by hand, and the field an overflow message names.
*/
#include "run_cmd.h"

#include "layer.h"
#include "spec.h"

Test(layer, floor_and_ceil_division_any_sign)
{
    cr_expect_eq(rip_floor_div(7, 2), 3);
    cr_expect_eq(rip_floor_div(-7, 2), -4);
    cr_expect_eq(rip_floor_div(7, -2), -4);
    cr_expect_eq(rip_floor_div(-8, 2), -4);
    cr_expect_eq(rip_ceil_div(7, 2), 4);
    cr_expect_eq(rip_ceil_div(-7, 2), -3);
    cr_expect_eq(rip_ceil_div(-8, 2), -4);
    cr_expect_eq(rip_ceil_div(0, 3), 0);
}

Test(layer, derived_sizes_by_hand)
{
    char err[RIP_ERR_LEN];
    /* 224x224, k=3, s=2, p=1: H_p = 226, H_out = floor((226-3)/2)+1 = 112 */
    rip_layer L = rip_layer_make(3, 32, 224, 224, 3, 3, 2, 2, 1, 1, 1, 1);
    cr_assert_eq(rip_layer_derive(&L, err), 0, "%s", err);
    cr_expect_eq(L.h_p, 226);
    cr_expect_eq(L.h_out, 112);
    cr_expect_eq(L.w_out, 112);
    cr_expect_eq(L.n_in_padded, 226 * 226 * 3);
    cr_expect_eq(L.n_in_dense, 224 * 224 * 3);
    cr_expect_eq(L.n_out, 112 * 112 * 32);
    /* dilation: k=3, d=2 -> k_eff = 5; 10 - 5 + 1 = 6 */
    L = rip_layer_make(1, 1, 10, 9, 3, 2, 1, 1, 2, 3, 0, 0);
    cr_assert_eq(rip_layer_derive(&L, err), 0, "%s", err);
    cr_expect_eq(L.keff_h, 5);
    cr_expect_eq(L.keff_w, 4);
    cr_expect_eq(L.h_out, 6);
    cr_expect_eq(L.w_out, 6);
    /* TF "same" stride 2 on 224: pads 0 top, 1 bottom -> 112 */
    L = rip_layer_make(3, 32, 224, 224, 3, 3, 2, 2, 1, 1, 0, 0);
    L.p_bottom = 1;
    L.p_right = 1;
    cr_assert_eq(rip_layer_derive(&L, err), 0, "%s", err);
    cr_expect_eq(L.h_p, 225);
    cr_expect_eq(L.h_out, 112);
}

/* The stored column order of a layer's geometry, field by field. */
Test(layer, from_geometry_takes_the_stored_column_order)
{
    const int64_t g[RIP_LAYER_GEOMETRY] = {3, 5, 7, 9, 2, 4, 1, 2, 3, 1, 1, 2, 0, 3};
    const rip_layer L = rip_layer_from_geometry(g);
    const int64_t got[RIP_LAYER_GEOMETRY] = {L.cin, L.cout, L.h_in, L.w_in, L.k_h, L.k_w, L.s_h,
                                             L.s_w, L.d_h, L.d_w, L.p_top, L.p_bottom, L.p_left, L.p_right};
    for (int i = 0; i < RIP_LAYER_GEOMETRY; i++)
        cr_expect_eq(got[i], g[i], "field %d", i);
    cr_expect_eq(L.h_out, 0, "not derived");
}

Test(layer, restricted_setting)
{
    char err[RIP_ERR_LEN];
    rip_layer L = rip_layer_make(1, 5, 14, 14, 3, 3, 1, 1, 1, 1, 0, 0);
    cr_assert_eq(rip_layer_derive(&L, err), 0);
    cr_expect(rip_layer_is_restricted(&L));
    L = rip_layer_make(1, 5, 14, 14, 2, 2, 1, 1, 1, 1, 0, 0); /* even kernel */
    cr_assert_eq(rip_layer_derive(&L, err), 0);
    cr_expect(!rip_layer_is_restricted(&L));
    L = rip_layer_make(1, 5, 14, 13, 3, 3, 1, 1, 1, 1, 0, 0); /* not square */
    cr_assert_eq(rip_layer_derive(&L, err), 0);
    cr_expect(!rip_layer_is_restricted(&L));
    L = rip_layer_make(1, 5, 14, 14, 3, 3, 1, 1, 1, 1, 1, 1); /* padded */
    cr_assert_eq(rip_layer_derive(&L, err), 0);
    cr_expect(!rip_layer_is_restricted(&L));
}

Test(layer, spec_defaults_and_pairs)
{
    char err[RIP_ERR_LEN];
    rip_layer L;
    cr_assert_eq(rip_spec_parse("cin=5,cout=8,h=12,k=3", &L, err), 0, "%s", err);
    cr_expect_eq(L.w_in, 12);
    cr_expect_eq(L.s_h + L.s_w + L.d_h + L.d_w, 4);
    cr_expect_eq(L.p_top + L.p_bottom + L.p_left + L.p_right, 0);
    cr_assert_eq(rip_spec_parse("cin=5,cout=8,h=12,w=9,k=3x1,s=2x1,d=1x2,p=1x0,pb=2", &L, err), 0, "%s", err);
    cr_expect_eq(L.k_h, 3);
    cr_expect_eq(L.k_w, 1);
    cr_expect_eq(L.s_h, 2);
    cr_expect_eq(L.s_w, 1);
    cr_expect_eq(L.d_w, 2);
    cr_expect_eq(L.p_top, 1);
    cr_expect_eq(L.p_bottom, 2);
    cr_expect_eq(L.p_left, 0);
    /* format then parse gives the same layer */
    char buf[256];
    rip_spec_format(&L, buf, sizeof buf);
    rip_layer M;
    cr_assert_eq(rip_spec_parse(buf, &M, err), 0, "%s: %s", buf, err);
    cr_expect_eq(M.p_bottom, 2);
    cr_expect_eq(M.h_out, L.h_out);
    cr_expect_eq(M.w_out, L.w_out);
}

/*
** Sizes too large for the arithmetic: each case makes exactly one input
** field dominate the sum or product that fails, worked out by hand below,
** and the message must name that field with its value (issue 8, item 12:
** h = 2^63-1 used to be blamed on p_top).  Both through the library and
** through `ripsim layer` (exit 65, one line).
*/
static const struct {
    const char *spec, *field, *value, *why;
} too_large[] = {
    /* h_p = h_in + 0 + 0 = 2^63-1 > 2^62 */
    {"cin=1,cout=1,h=9223372036854775807,k=1", "h_in", "9223372036854775807", "padded height"},
    {"cin=1,cout=1,h=4,w=9223372036854775807,k=1", "w_in", "9223372036854775807", "padded width"},
    /* h_p = 4 + 2^62 + 0: the padding is the big term */
    {"cin=1,cout=1,h=4,k=1,pt=4611686018427387904", "p_top", "4611686018427387904", "padded height"},
    {"cin=1,cout=1,h=4,k=1,pb=4611686018427387904", "p_bottom", "4611686018427387904", "padded height"},
    {"cin=1,cout=1,h=4,k=1,pl=4611686018427387904", "p_left", "4611686018427387904", "padded width"},
    {"cin=1,cout=1,h=4,k=1,pr=4611686018427387904", "p_right", "4611686018427387904", "padded width"},
    /* keff_h = d_h (k_h - 1) + 1: 2^62 * 2 + 1, and 1 * (2^62 + 1) + 1 */
    {"cin=1,cout=1,h=4,k=3,d=4611686018427387904", "d_h", "4611686018427387904", "dilated kernel height"},
    {"cin=1,cout=1,h=4,k=4611686018427387906", "k_h", "4611686018427387906", "dilated kernel height"},
    {"cin=1,cout=1,h=4,k=3,d=1x4611686018427387904", "d_w", "4611686018427387904", "dilated kernel width"},
    {"cin=1,cout=1,h=4,k=1x4611686018427387906", "k_w", "4611686018427387906", "dilated kernel width"},
    /* h_p * w_p = 2^61 * 4 = 2^63 */
    {"cin=1,cout=1,h=2305843009213693952,w=4,k=1", "h_in", "2305843009213693952", "padded area"},
    /* h_p w_p cin = 2^11 * 2^11 * 2^41 = 2^63: cin is the big factor */
    {"cin=2199023255552,cout=1,h=2048,k=1", "cin", "2199023255552", "padded input"},
    /* h_out w_out cout = 4 * 4 * 2^62 */
    {"cin=1,cout=4611686018427387904,h=4,k=1", "cout", "4611686018427387904", "output"},
    /* h_out w_out cout = 2^59 * 4 * 4 = 2^63, n_in = 2^61 fits: the height */
    {"cin=1,cout=4,h=576460752303423488,w=4,k=1", "h_in", "576460752303423488", "output"},
    /* cin + cout = 2^61 + 1 + 2^61 > 2^62, each size fits */
    {"cin=2305843009213693953,cout=2305843009213693952,h=1,k=1", "cin", "2305843009213693953", "cin+cout"},
    /* (cin + cout) s_h s_w = 2 * 1 * 2^62 */
    {"cin=1,cout=1,h=4,k=1,s=1x4611686018427387904", "s_w", "4611686018427387904", "(cin+cout)*s_h*s_w"},
    /* (h_p + w_p + 1 + 1)^2 with w_p = 2^40: about 2^80 */
    {"cin=1,cout=1,h=1,w=1099511627776,k=1", "w_in", "1099511627776", "(h_p+w_p+keff_h+keff_w)^2"},
    /* 2 * 2^61 * 1 * (4 + 4 + 1 + 1)^2 = 2^62 * 100: the stride */
    {"cin=1,cout=1,h=4,k=1,s=2305843009213693952x1", "s_h", "2305843009213693952", "(cin+cout)*s_h*s_w*("},
    /* (2^40 + 1) * (1024 + 1024 + 2)^2 ~ 2^62.0: the channels, not h */
    {"cin=1099511627776,cout=1,h=1024,k=1", "cin", "1099511627776", "(cin+cout)*s_h*s_w*("},
};

Test(layer, overflow_names_the_field_that_is_too_large)
{
    for (size_t i = 0; i < sizeof too_large / sizeof too_large[0]; i++) {
        char err[RIP_ERR_LEN], want[160];
        rip_layer L;
        cr_expect_neq(rip_spec_parse(too_large[i].spec, &L, err), 0, "%s accepted", too_large[i].spec);
        snprintf(want, sizeof want, "%s: too large (got %s): ", too_large[i].field, too_large[i].value);
        cr_expect_eq(strncmp(err, want, strlen(want)), 0, "%s: got '%s', want '%s...'", too_large[i].spec, err,
                     want);
        cr_expect(strstr(err, too_large[i].why) != NULL, "%s: '%s' does not say %s", too_large[i].spec, err,
                  too_large[i].why);
        run_result *r = RUN("layer", too_large[i].spec);
        cr_expect_eq(r->status, 65, "%s: status %d", too_large[i].spec, r->status);
        cr_expect_eq(count_lines(r->err), 1, "%s: %s", too_large[i].spec, r->err);
        snprintf(want, sizeof want, "ripsim layer: %s: too large (got %s): ", too_large[i].field,
                 too_large[i].value);
        cr_expect_eq(strncmp(r->err, want, strlen(want)), 0, "%s: %s", too_large[i].spec, r->err);
    }
}

/* A well-formed number is read whatever its length (leading zeros), and
** one beyond int64 is called out of range under its own key. */
Test(layer, spec_numbers_of_any_length)
{
    char err[RIP_ERR_LEN];
    rip_layer L;
    cr_assert_eq(rip_spec_parse("cin=1,cout=2,h=0000000000000000000000000000000000000007,k=3", &L, err), 0, "%s", err);
    cr_expect_eq(L.h_in, 7);
    cr_expect_eq(L.h_out, 5);
    cr_expect_neq(rip_spec_parse("cin=1,cout=2,h=99999999999999999999,k=3", &L, err), 0);
    cr_expect_str_eq(err, "h: number out of range '99999999999999999999'");
    cr_expect_neq(rip_spec_parse("cin=1,cout=2,h=7,k=3x", &L, err), 0);
    cr_expect_str_eq(err, "k: expected an integer A or AxB, got '3x'");
    cr_expect_neq(rip_spec_parse("cin=1,cout=2,h=7,k=3x3x3", &L, err), 0);
    cr_expect_str_eq(err, "k: expected an integer A or AxB, got '3x3x3'");
}

/* Found by tests/fuzz/fuzz_spec: a SPEC holding a newline (a shell word may)
** was quoted into a two-line message.  Control bytes are shown as '?'. */
Test(layer, spec_error_is_one_printable_line)
{
    static const char *const bad[] = {
        "c\nin=1,cout=1,h=1,k=1",          /* the fuzzer's input, shortened */
        "cin=1\n,cout=1,h=1,k=1",
        "cin=1,cout=1,h=1,k=\x0e\x1b[2J",
        "cin=1,,\r\n",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char err[RIP_ERR_LEN] = "";
        rip_layer L;
        cr_assert_neq(rip_spec_parse(bad[i], &L, err), 0, "case %zu accepted", i);
        cr_assert_neq(err[0], '\0', "case %zu: no message", i);
        for (const char *c = err; *c; c++)
            cr_assert((unsigned char)*c >= 0x20 && *c != 0x7f, "case %zu: control byte 0x%02x in '%s'", i,
                      (unsigned char)*c, err);
    }
    char err[RIP_ERR_LEN];
    rip_layer L;
    rip_spec_parse("c\nin=1,cout=1,h=1,k=1", &L, err);
    cr_expect_str_eq(err, "c?in: unknown key (known: cin cout h w k s d p pt pb pl pr, or their aliases c_in "
                          "c_out h_in w_in k_h k_w s_h s_w d_h d_w p_h p_w p_top p_bottom p_left p_right)");
}

/* Geometry of a derived layer, for comparing two parses. */
static void expect_same_layer(const rip_layer *a, const rip_layer *b, const char *what)
{
    const int64_t x[] = {a->cin, a->cout, a->h_in, a->w_in, a->k_h, a->k_w, a->s_h, a->s_w, a->d_h, a->d_w,
                         a->p_top, a->p_bottom, a->p_left, a->p_right, a->h_out, a->w_out};
    const int64_t y[] = {b->cin, b->cout, b->h_in, b->w_in, b->k_h, b->k_w, b->s_h, b->s_w, b->d_h, b->d_w,
                         b->p_top, b->p_bottom, b->p_left, b->p_right, b->h_out, b->w_out};
    for (size_t i = 0; i < sizeof x / sizeof x[0]; i++)
        cr_expect_eq(x[i], y[i], "%s: field %zu is %lld, want %lld", what, i, (long long)x[i], (long long)y[i]);
}

/*
** Issue 23 item 2: the database/JSON names and the layer-CSV names are
** aliases of the SPEC keys, so a row pastes back; each pair below is the
** same layer written in two schemes.
*/
Test(layer, spec_aliases_are_the_same_layer)
{
    static const struct { const char *alias, *canonical; } same[] = {
        {"cin=5,cout=8,h_in=14,k=3", "cin=5,cout=8,h=14,k=3"},
        {"c_in=5,c_out=8,h_in=14,w_in=9,k_h=3,k_w=1", "cin=5,cout=8,h=14,w=9,k=3x1"},
        {"cin=2,cout=3,h_in=12,w_in=12,k_h=3,k_w=3,s_h=2,s_w=1,d_h=1,d_w=2,p_top=1,p_bottom=2,p_left=0,p_right=1",
         "cin=2,cout=3,h=12,k=3,s=2x1,d=1x2,pt=1,pb=2,pl=0,pr=1"},
        {"cin=2,cout=3,h=12,k_h=5,k_w=3,p_h=2,p_w=1", "cin=2,cout=3,h=12,k=5x3,p=2x1"},
        /* a width component defaults to its height component */
        {"cin=2,cout=3,h=12,k_h=3,s_h=2,d_h=2,p_h=1", "cin=2,cout=3,h=12,k=3,s=2,d=2,p=1"},
        /* a JSON layer object's padding: p_h = p_top, p_w = p_left beside the four sides */
        {"cin=1,cout=1,h=9,k=3,p_h=1,p_w=0,p_top=1,p_bottom=2,p_left=0,p_right=3", "cin=1,cout=1,h=9,k=3,pt=1,pb=2,pr=3"},
        /* the same field twice with the same value, under one name or two */
        {"cin=4,cin=4,c_in=4,cout=1,h=7,h_in=7,k=3,k_h=3", "cin=4,cout=1,h=7,k=3"},
    };
    for (size_t i = 0; i < sizeof same / sizeof same[0]; i++) {
        char err[RIP_ERR_LEN];
        rip_layer a, b;
        cr_assert_eq(rip_spec_parse(same[i].alias, &a, err), 0, "%s: %s", same[i].alias, err);
        cr_assert_eq(rip_spec_parse(same[i].canonical, &b, err), 0, "%s: %s", same[i].canonical, err);
        expect_same_layer(&a, &b, same[i].alias);
    }
    /* and through the command: `ripsim layer h_in=14` gives Tab. 2's first row */
    run_result *r = RUN("layer", "--no-sim", "c_in=1,c_out=5,h_in=14,k_h=3");
    cr_expect_eq(r->status, 0, "%s", r->err);
    cr_expect_not_null(strstr(r->out, "layer      cin=1,cout=5,h=14,w=14,k=3,s=1,d=1,p=0"), "%s", r->out);
}

/* A field set twice to two values, or a derived column, is refused with both names. */
Test(layer, spec_alias_conflicts_are_refused)
{
    static const struct { const char *spec, *err; } bad[] = {
        {"cin=1,cout=1,h=7,h_in=8,k=3", "h_in=8 conflicts with h=7 (the same field)"},
        {"cin=1,cout=1,h=7,k=3,k_w=5", "k_w=5 conflicts with k=3 (the same field)"},
        {"cin=1,cout=1,h=7,k=3x5,k_h=5", "k_h=5 conflicts with k=3 (the same field)"},
        {"cin=1,c_in=2,cout=1,h=7,k=3", "c_in=2 conflicts with cin=1 (the same field)"},
        {"cin=1,cout=1,h=7,k=3,cin=2", "cin: given twice with different values (1 and 2)"},
        {"cin=1,cout=1,h=7,k=3,p=1,p_h=2", "p_h=2 conflicts with p=1 (the same field)"},
        {"cin=1,cout=1,h=7,k=3,pt=1,p_top=0", "p_top=0 conflicts with pt=1 (the same field)"},
        {"cin=1,cout=1,h=7,k=3,h_out=5", "h_out: follows from the other fields, a SPEC cannot set it"},
        {"cin=1,cout=1,h=7,k=3,n_in_padded=49", "n_in_padded: follows from the other fields, a SPEC cannot set it"},
        {"cin=1,cout=1,h=7,k_h=3x3", "k_h: expected an integer, got '3x3'"},
        {"cin=1,cout=1,h_in=7", "k: required key missing"},
        {"c_in=1,h_in=7,k_h=3", "cout: required key missing"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char err[RIP_ERR_LEN];
        rip_layer L;
        cr_expect_neq(rip_spec_parse(bad[i].spec, &L, err), 0, "%s accepted", bad[i].spec);
        cr_expect_str_eq(err, bad[i].err, "%s", bad[i].spec);
    }
    run_result *r = RUN("layer", "cin=1,cout=1,h=7,h_in=8,k=3");
    cr_expect_eq(r->status, 65);
    cr_expect_str_eq(r->err, "ripsim layer: h_in=8 conflicts with h=7 (the same field)\n");
}
