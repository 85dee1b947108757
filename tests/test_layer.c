/*
** test_layer.c — layer geometry (DESIGN.md "Geometry") and SPEC parsing,
** checked against sizes worked out by hand.
*/
#include <criterion/criterion.h>

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
    cr_expect_str_eq(err, "c?in: unknown key (known: cin cout h w k s d p pt pb pl pr)");
}
