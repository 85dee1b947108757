/*
** test_kernels_dsp_depthwise.c — the Cortex-M33 DSP depthwise
** (firmware/kernels/rk_depthwise_dsp.c) on the host through the C
** emulation of its intrinsics (the suite links kernels_dsp_emu_lib, built
** with -DRK_DSP_EMULATE), byte for byte against the independent reference
** of tests/ref_conv.h.  It covers what the four-channel group loops add
** beyond tests/test_kernels_dsp.c: multipliers 4 and 8 (the broadcast
** groups, e.g. person_detect's 96x96x1 > 48x48x8 and micro_speech's 10x8
** kernel), channel counts that are not multiples of four (groups plus the
** one-by-one tail), every kernel size with and without the pre-extended
** filter (up to 5x5 and beyond), interiors wide enough for the unrolled
** columns, outputs of one or two pixels (borders only), INT32_MIN
** multipliers (the slow requantization of a group) and extreme shifts;
** at multiplier 1 also rk_depthwise_inplace (its per-channel plane loops).
*/
#define RK_DSP_EMULATE 1

#include <criterion/criterion.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rk_depthwise.h"
#include "rk_depthwise_inplace.h"
#include "rk_dsp.h"
#include "rk_internal.h"
#include "ref_conv.h"
#include "splitmix.h"

static void *alloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    cr_assert_not_null(p);
    return p;
}

static bool check_layer(splitmix *r, rk_conv_params p, rk_dims in, int32_t m);

/*
** One random depthwise layer of multiplier m and kernel k_h x k_w, spatial
** size up to smax and up to cmax input channels, checked by check_layer;
** false when the geometry has no output.
*/

static bool run_layer(splitmix *r, int32_t m, int32_t k_h, int32_t k_w, int32_t smax, int32_t cmax)
{
    rk_conv_params p = {0};
    p.k_h = k_h;
    p.k_w = k_w;
    p.s_h = splitmix_int32(r, 1, 2);
    p.s_w = splitmix_int32(r, 1, 2);
    p.d_h = splitmix_int32(r, 0, 5) == 0 ? 2 : 1;
    p.d_w = splitmix_int32(r, 0, 5) == 0 ? 2 : 1;
    p.p_top = splitmix_int32(r, 0, k_h / 2 + 1);
    p.p_bottom = splitmix_int32(r, 0, k_h / 2 + 1);
    p.p_left = splitmix_int32(r, 0, k_w / 2 + 1);
    p.p_right = splitmix_int32(r, 0, k_w / 2 + 1);
    const rk_dims in = {splitmix_int32(r, 1, smax), splitmix_int32(r, 1, smax), splitmix_int32(r, 1, cmax)};
    return check_layer(r, p, in, m);
}

/*
** The layer of geometry p (kernel, stride, dilation, padding) on input in
** at multiplier m, with random offsets, activation, data and quantization,
** run by rk_depthwise (and at m = 1 by rk_depthwise_inplace) and by
** ref_conv2d; false when the geometry has no output.  Per channel:
** multiplier in [2^30, 2^31) or, one channel in 13, INT32_MIN; shift in
** [-12, 1] or, one channel in 17, anywhere in [-31, 30]; bias NULL one
** layer in 5.
*/
static bool check_layer(splitmix *r, rk_conv_params p, rk_dims in, int32_t m)
{
    const int32_t k_h = p.k_h, k_w = p.k_w;
    rk_dims out;
    const int64_t oh = rk_out_extent(in.h, p.k_h, p.s_h, p.d_h, p.p_top, p.p_bottom);
    const int64_t ow = rk_out_extent(in.w, p.k_w, p.s_w, p.d_w, p.p_left, p.p_right);
    if (oh < 1 || ow < 1)
        return false;
    out.h = (int32_t)oh;
    out.w = (int32_t)ow;
    out.c = m * in.c;
    p.input_offset = -splitmix_int32(r, -127, 127);
    p.output_offset = splitmix_int32(r, -128, 127);
    p.act.min = splitmix_int32(r, 0, 2) == 0 ? -128 : splitmix_int32(r, -128, 0);
    p.act.max = splitmix_int32(r, 0, 2) == 0 ? 127 : splitmix_int32(r, p.act.min, 127);
    const size_t nx = (size_t)in.h * in.w * in.c, nf = (size_t)k_h * k_w * out.c;
    const size_t ny = (size_t)out.h * out.w * out.c;
    int8_t *x = alloc(nx), *f = alloc(nf), *y = alloc(ny), *want = alloc(ny);
    int32_t *bias = alloc(sizeof(int32_t) * (size_t)out.c), *mult = alloc(sizeof(int32_t) * (size_t)out.c),
            *shift = alloc(sizeof(int32_t) * (size_t)out.c);
    for (size_t i = 0; i < nx; i++)
        x[i] = (int8_t)splitmix_int32(r, -128, 127);
    for (size_t i = 0; i < nf; i++)
        f[i] = (int8_t)splitmix_int32(r, -128, 127);
    for (int32_t o = 0; o < out.c; o++) {
        bias[o] = splitmix_int32(r, -40000, 40000);
        mult[o] = splitmix_int32(r, 0, 12) == 0 ? INT32_MIN : splitmix_int32(r, 1 << 30, INT32_MAX);
        shift[o] = splitmix_int32(r, 0, 16) == 0 ? splitmix_int32(r, -31, 30) : splitmix_int32(r, -12, 1);
    }
    const int32_t *b = splitmix_int32(r, 0, 4) == 0 ? NULL : bias;
    const ref_conv g = {in.c, out.c, in.h, in.w, out.h, out.w, p.k_h, p.k_w, p.s_h, p.s_w, p.d_h, p.d_w,
                        p.p_top, p.p_left, -p.input_offset, p.output_offset, p.act.min, p.act.max};
    cr_assert(ref_conv2d(&g, true, x, f, b, mult, shift, want));
    const rk_quant q = {mult, shift};
    memset(y, 0x5a, ny);
    cr_assert_eq(rk_depthwise(&p, &q, in, x, f, b, out, y), RK_OK);
    for (size_t i = 0; i < ny; i++)
        cr_assert_eq(y[i], want[i],
                     "m %d, %dx%dx%d > %dx%dx%d, k %dx%d s %dx%d d %dx%d p %d,%d,%d,%d: byte %zu (channel %zu): %d, "
                     "reference %d",
                     m, in.h, in.w, in.c, out.h, out.w, out.c, k_h, k_w, p.s_h, p.s_w, p.d_h, p.d_w, p.p_top,
                     p.p_bottom, p.p_left, p.p_right, i, i % (size_t)out.c, y[i], want[i]);
    /* multiplier 1: rk_depthwise_inplace too (its M33 plane loops), the
    ** output over a copy of the input, when the output is not larger */
    const size_t ns = m == 1 ? rk_depthwise_inplace_buffer_size(&p, in, out) : 0;
    if (ns > 0) {
        int8_t *t = alloc(nx), *scratch = alloc(ns);
        memcpy(t, x, nx);
        cr_assert_eq(rk_depthwise_inplace(&p, &q, in, out, f, b, t, scratch), RK_OK);
        for (size_t i = 0; i < ny; i++)
            cr_assert_eq(t[i], want[i],
                         "in place: %dx%dx%d > %dx%dx%d, k %dx%d s %dx%d d %dx%d p %d,%d,%d,%d: byte %zu (channel "
                         "%zu): %d, reference %d",
                         in.h, in.w, in.c, out.h, out.w, out.c, k_h, k_w, p.s_h, p.s_w, p.d_h, p.d_w, p.p_top,
                         p.p_bottom, p.p_left, p.p_right, i, i % (size_t)out.c, t[i], want[i]);
        free(t);
        free(scratch);
    }
    free(x);
    free(f);
    free(y);
    free(want);
    free(bias);
    free(mult);
    free(shift);
    return true;
}

/* Multiplier 1: every kernel of 1..7 x 1..7 (3 x 3 and 5 x 5 the unrolled
** variants, up to 25 taps pre-extended, beyond them not), channel counts
** 1..70 (groups of four and a tail). */
Test(kernels_dsp_depthwise, multiplier_one_equals_the_reference)
{
    splitmix r = {9001};
    int n = 0;
    for (int k = 0; n < 700; k++) {
        const int32_t kh = k % 3 == 0 ? 3 : splitmix_int32(&r, 1, 7), kw = k % 3 == 0 ? 3 : splitmix_int32(&r, 1, 7);
        if (run_layer(&r, 1, kh, kw, k % 2 ? 4 : 14, 70))
            n++;
    }
    cr_log_info("multiplier 1: %d layers", n);
}

/* 3 x 3 in place (run_layer checks rk_depthwise_inplace at multiplier 1):
** the M33 plane pairs at stride 1 and 2, odd and even output widths (the
** last pixel by bytes), row dilation 2, planes from 1 x 1 to 24 wide, the
** INT32_MIN multipliers the pairs leave to the generic plane loop. */
Test(kernels_dsp_depthwise, inplace_3x3_planes_equal_the_reference)
{
    splitmix r = {9004};
    int n = 0;
    for (int k = 0; n < 600; k++)
        if (run_layer(&r, 1, 3, 3, k % 3 == 0 ? 4 : k % 3 == 1 ? 11 : 24, 9))
            n++;
    cr_log_info("3x3 in place: %d layers", n);
}

/* The 3 x 3 descriptor loop (dw_3x3: multiplier 1, d = 1, from 48
** channels, or 32 on rows of up to 24 pixels): every plane of 1..7 x 1..7
** inputs at every padding 0..2 a side and strides 1 and 2 (pixels with
** 3, 2, 1 or no taps on the input per axis), then planes of more than its
** 128-pixel chunk (one chunk, a full and a partial one, several). */
Test(kernels_dsp_depthwise, descriptor_3x3_planes_equal_the_reference)
{
    splitmix r = {9005};
    int n = 0;
    for (int32_t h = 1; h <= 7; h++)
        for (int32_t w = 1; w <= 7; w++)
            for (int32_t k = 0; k < 12; k++) {
                rk_conv_params p = {0};
                p.k_h = p.k_w = 3;
                p.d_h = p.d_w = 1;
                p.s_h = 1 + k % 2;
                p.s_w = 1 + (k / 2) % 2;
                p.p_top = splitmix_int32(&r, 0, 2);
                p.p_bottom = splitmix_int32(&r, 0, 2);
                p.p_left = splitmix_int32(&r, 0, 2);
                p.p_right = splitmix_int32(&r, 0, 2);
                const rk_dims in = {h, w, k % 3 == 0 ? 32 : k % 3 == 1 ? 48 : 52};
                if (check_layer(&r, p, in, 1))
                    n++;
            }
    static const int32_t big[][3] = {{12, 10, 48}, {16, 8, 48}, {11, 12, 52}, {13, 23, 48}, {20, 21, 32}, {24, 24, 64}};
    for (size_t b = 0; b < sizeof big / sizeof big[0]; b++) {
        rk_conv_params p = {0};
        p.k_h = p.k_w = 3;
        p.d_h = p.d_w = 1;
        p.s_h = p.s_w = 1;
        p.p_top = p.p_bottom = p.p_left = p.p_right = 1;
        cr_assert(check_layer(&r, p, (rk_dims){big[b][0], big[b][1], big[b][2]}, 1));
        n++;
    }
    cr_log_info("3x3 descriptors: %d layers", n);
}

/* The dual kernel's window path (rk_depthwise_window_dsp: multiplier 1,
** stride 1, 3 x 3 or 7 x 7): planes of many bands, so that rows move from
** a band's end to the next one's top, the last band short or full; rows
** from 1 pixel to the widest the 768-byte window holds (3 x 3: 192-byte
** rows, two output rows a band; 7 x 7: 64-byte rows); random padding
** (with none at the top and left the layer also runs it in place, as the
** direct rule's kernel over its own input); 1..9 channels.  Smaller
** planes (under 256 output pixels) take the groups, also checked. */
Test(kernels_dsp_depthwise, window_planes_equal_the_reference)
{
    static const int32_t widths3[] = {1, 5, 30, 60, 121, 186, 188}, widths7[] = {1, 9, 26, 58};
    splitmix r = {9007};
    int n = 0, banded = 0;
    for (int32_t k = 3; k <= 7; k += 4) {
        const int32_t *ws = k == 3 ? widths3 : widths7;
        const size_t nw = k == 3 ? sizeof widths3 / sizeof widths3[0] : sizeof widths7 / sizeof widths7[0];
        for (size_t wi = 0; wi < nw; wi++)
            for (int32_t rep = 0; rep < 6; rep++) {
                rk_conv_params p = {0};
                p.k_h = p.k_w = k;
                p.d_h = p.d_w = 1;
                p.s_h = p.s_w = 1;
                p.p_top = rep == 0 ? 0 : splitmix_int32(&r, 0, k / 2);
                p.p_bottom = splitmix_int32(&r, 0, k / 2);
                p.p_left = rep == 0 ? 0 : splitmix_int32(&r, 0, k / 2);
                p.p_right = splitmix_int32(&r, 0, k / 2);
                const rk_dims in = {splitmix_int32(&r, k, 3 * k + 40), ws[wi], splitmix_int32(&r, 1, 9)};
                const int32_t stride = (in.w + p.p_left + p.p_right + 3) & ~3;
                const rk_dims out = {in.h + p.p_top + p.p_bottom - k + 1, in.w + p.p_left + p.p_right - k + 1, in.c};
                if (check_layer(&r, p, in, 1)) {
                    n++;
                    banded += rk_depthwise_window_dsp_fits(&p, in, out) && 768 / stride - k + 1 < out.h;
                }
            }
    }
    cr_assert_gt(banded, 20, "only %d layers of more than one band", banded);
    cr_log_info("window path: %d layers, %d of several bands", n, banded);
}

/* rk_depthwise_inplace's four-channel path (rk_depthwise_quad_dsp): every
** plane of 1..6 x 1..6 inputs with 3 x 3 (the descriptor loop), 5 x 5 and
** 7 x 7 (taps found per pixel) filters, random padding and strides 1 and
** 2, channel counts with and without a one-by-one tail; each run with
** exactly the scratch rk_depthwise_inplace_buffer_size gives. */
Test(kernels_dsp_depthwise, four_channel_inplace_equals_the_reference)
{
    static const int32_t ks[] = {3, 3, 5, 7};
    static const int32_t cs[] = {4, 5, 8, 12, 13, 36};
    splitmix r = {9006};
    int n = 0;
    for (int32_t h = 1; h <= 6; h++)
        for (int32_t w = 1; w <= 6; w++)
            for (int32_t k = 0; k < 8; k++) {
                rk_conv_params p = {0};
                p.k_h = p.k_w = ks[k % 4];
                p.d_h = p.d_w = 1;
                p.s_h = p.s_w = 1 + (k / 4) % 2;
                p.p_top = splitmix_int32(&r, 0, p.k_h / 2);
                p.p_bottom = splitmix_int32(&r, 0, p.k_h / 2);
                p.p_left = splitmix_int32(&r, 0, p.k_w / 2);
                p.p_right = splitmix_int32(&r, 0, p.k_w / 2);
                const rk_dims in = {h, w, cs[splitmix_int32(&r, 0, 5)]};
                if (check_layer(&r, p, in, 1))
                    n++;
            }
    cr_log_info("four-channel in place: %d layers", n);
}

/* The scratch rk_depthwise_inplace_buffer_size asks for, worked out by hand
** from the rule in rk_depthwise_inplace.h: one padded plane, or the
** four-channel path's 4 h_out w_out bytes where that is larger, the path
** running on outputs of at most 128 pixels with filters of at most 7 x 7
** and four channels or more. */
Test(kernels_dsp_depthwise, inplace_scratch_follows_the_header)
{
    static const struct {
        int32_t h, w, c, k, s, pt, pb;
        size_t want;
    } cases[] = {
        {3, 3, 336, 3, 2, 1, 1, 25},   /* 2 x 2 out: 16 < the 5 x 5 plane */
        {3, 3, 240, 3, 1, 1, 1, 36},   /* 3 x 3 out: 36 > 25 */
        {4, 4, 64, 3, 1, 1, 1, 64},    /* 4 x 4 out: 64 > 36 */
        {8, 8, 64, 3, 1, 1, 1, 256},   /* 8 x 8 out: 256 > 100 */
        {2, 2, 384, 7, 1, 3, 3, 64},   /* the 8 x 8 plane; the path needs 16 */
        {25, 5, 64, 3, 1, 1, 1, 500},  /* 125 pixels: 500 > 189 */
        {12, 12, 64, 3, 2, 0, 1, 169}, /* 6 x 6 out: 144 < the 13 x 13 plane */
        {9, 9, 144, 3, 1, 1, 1, 324},  /* 81 pixels: 324 > 121 */
        {12, 12, 64, 3, 1, 1, 1, 196}, /* 144 pixels: above 128, no path */
        {6, 6, 3, 3, 1, 1, 1, 64},     /* three channels: one plane */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        rk_conv_params p = {0};
        p.k_h = p.k_w = cases[i].k;
        p.s_h = p.s_w = cases[i].s;
        p.d_h = p.d_w = 1;
        p.p_top = p.p_left = cases[i].pt;
        p.p_bottom = p.p_right = cases[i].pb;
        const rk_dims in = {cases[i].h, cases[i].w, cases[i].c};
        const rk_dims out = {(int32_t)rk_out_extent(in.h, p.k_h, p.s_h, 1, p.p_top, p.p_bottom),
                             (int32_t)rk_out_extent(in.w, p.k_w, p.s_w, 1, p.p_left, p.p_right), in.c};
        cr_assert_eq(rk_depthwise_inplace_buffer_size(&p, in, out), cases[i].want, "case %zu: %zu", i,
                     rk_depthwise_inplace_buffer_size(&p, in, out));
    }
}

/* Multipliers 4 and 8 (broadcast groups, input channels 1..12) and 2, 3,
** 5 (channels one by one), kernels up to 7 x 7 and the 10 x 8 of
** micro_speech (80 taps, beyond the pre-extended filter). */
Test(kernels_dsp_depthwise, other_multipliers_equal_the_reference)
{
    static const int32_t ms[] = {4, 8, 4, 8, 2, 3, 5};
    splitmix r = {9002};
    int n = 0;
    for (int k = 0; n < 500; k++) {
        const int32_t m = ms[k % 7];
        int32_t kh = splitmix_int32(&r, 1, 7), kw = splitmix_int32(&r, 1, 7);
        if (k % 5 == 0) {
            kh = 3;
            kw = 3;
        } else if (k % 11 == 0) {
            kh = 10;
            kw = 8;
        }
        if (run_layer(&r, m, kh, kw, k % 2 ? 5 : 16, 12))
            n++;
    }
    cr_log_info("other multipliers: %d layers", n);
}

/* The two real layers the broadcast path is for, at their own geometry
** (person_detect op0, micro_speech op1), random data. */
Test(kernels_dsp_depthwise, real_broadcast_layers_equal_the_reference)
{
    splitmix r = {9003};
    static const struct {
        int32_t ih, iw, m, kh, kw, sh, sw, pt, pb, pl, pr;
    } g[] = {{96, 96, 8, 3, 3, 2, 2, 0, 1, 0, 1}, {49, 40, 8, 10, 8, 2, 2, 4, 5, 3, 3}};
    for (size_t t = 0; t < sizeof g / sizeof g[0]; t++) {
        rk_conv_params p = {0};
        p.k_h = g[t].kh;
        p.k_w = g[t].kw;
        p.s_h = g[t].sh;
        p.s_w = g[t].sw;
        p.d_h = p.d_w = 1;
        p.p_top = g[t].pt;
        p.p_bottom = g[t].pb;
        p.p_left = g[t].pl;
        p.p_right = g[t].pr;
        p.input_offset = 128;
        p.output_offset = -128;
        p.act = (rk_act){-128, 127};
        const rk_dims in = {g[t].ih, g[t].iw, 1};
        const rk_dims out = {(int32_t)rk_out_extent(in.h, p.k_h, p.s_h, 1, p.p_top, p.p_bottom),
                             (int32_t)rk_out_extent(in.w, p.k_w, p.s_w, 1, p.p_left, p.p_right), g[t].m};
        const size_t nx = (size_t)in.h * in.w, nf = (size_t)p.k_h * p.k_w * out.c;
        const size_t ny = (size_t)out.h * out.w * out.c;
        int8_t *x = alloc(nx), *f = alloc(nf), *y = alloc(ny), *want = alloc(ny);
        int32_t bias[8], mult[8], shift[8];
        for (size_t i = 0; i < nx; i++)
            x[i] = (int8_t)splitmix_int32(&r, -128, 127);
        for (size_t i = 0; i < nf; i++)
            f[i] = (int8_t)splitmix_int32(&r, -128, 127);
        for (int32_t o = 0; o < 8; o++) {
            bias[o] = splitmix_int32(&r, -40000, 40000);
            mult[o] = splitmix_int32(&r, 1 << 30, INT32_MAX);
            shift[o] = splitmix_int32(&r, -12, -6);
        }
        const ref_conv rg = {in.c, out.c, in.h, in.w, out.h, out.w, p.k_h, p.k_w, p.s_h, p.s_w, 1, 1,
                             p.p_top, p.p_left, -p.input_offset, p.output_offset, p.act.min, p.act.max};
        cr_assert(ref_conv2d(&rg, true, x, f, bias, mult, shift, want));
        const rk_quant q = {mult, shift};
        cr_assert_eq(rk_depthwise(&p, &q, in, x, f, bias, out, y), RK_OK);
        cr_assert_eq(memcmp(y, want, ny), 0, "layer %zu differs from the reference", t);
        free(x);
        free(f);
        free(y);
        free(want);
    }
}

/* The halfwise helpers appended to rk_dsp.h for the output step and
** SMLABT, against values worked out by hand from the Arm ARM (SSAT,
** QADD16, SSUB16 + SEL, SMLABT). */
Test(kernels_dsp_depthwise, halfwise_helpers_match_the_arm_arm)
{
    cr_expect_eq(rk_dsp_sat16x2(40000, -40000), 0x80007FFFu);
    cr_expect_eq(rk_dsp_sat16x2(-1, 5), 0x0005FFFFu);
    cr_expect_eq(rk_qadd16(0x7FF0FFF0u, 0x00200020u), 0x7FFF0010u);
    cr_expect_eq(rk_qadd16(0x80108000u, 0xFF80FFFFu), 0x80008000u);
    cr_expect_eq(rk_max16(0xFF800005u, 0xFFF0FFFBu), 0xFFF00005u);
    cr_expect_eq(rk_min16(0xFF800005u, 0xFFF0FFFBu), 0xFF80FFFBu);
    cr_expect_eq(rk_max16(0x00070007u, 0x00070007u), 0x00070007u);
    /* SMLABT, appended for the 3x3 planes: a.lo b.hi + acc */
    cr_expect_eq(rk_smlabt(0x1234FFFEu, 0x00030000u, 10u), 4u);
    cr_expect_eq(rk_smlabt(0xFFFF7FFFu, 0x80000001u, 0u), 0xC0008000u);
}
