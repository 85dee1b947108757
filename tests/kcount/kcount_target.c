/*
** kcount_target.c — the bare-metal harness of the kernel-count comparison
** (tests/kcount/, results/kernels.md): per layer, ripsim's dual-buffer
** kernel (firmware/kernels: rk_conv2d, rk_depthwise, rk_fully_connected,
** rk_add), ripsim's in-place kernel where the layer has one
** (rk_conv2d_rip at the gap the host gives, rk_depthwise_inplace) and the
** CMSIS-NN kernel TFLM's cmsis_nn wrappers call, on the same seeded data,
** each run between rk_mark_begin and rk_mark_end so that the QEMU plugin
** (firmware/tools/icount.c) counts its instructions alone; the outputs are
** compared here, byte for byte.  Built for QEMU's microbit (Cortex-M0,
** CMSIS-NN's pure C) or mps2-an505 (Cortex-M33, CMSIS-NN's DSP path) by
** build-kcount.sh.
**
** Transport as tests/cmsis_m33/orders_m33.c: semihosting with
** target=native and no chardev, ":tt" read is QEMU's stdin (the layers,
** kcount_job.h), written is its stdout, appended its stderr.  Per layer one
** line on stdout:
**   kc N dual=S inplace=S cmsis=S same_dual=B same_inplace=B crc=XXXXXXXX
** S a kernel's status (0 success; "-" no in-place run), B 1 when that
** output equals CMSIS-NN's byte for byte (0 differs, "-" not run), crc the
** CRC-32 of CMSIS-NN's output.  Scratch buffers are allocated and inputs
** laid out before each begin marker: only the kernel call is counted.  Every
** buffer comes from one arena, reset per layer, so a layer's addresses (and
** with them its counts) do not depend on the layers run before it.
** Exit status 0 at the end of the stream; 65 a malformed layer, 71 out of
** memory (the reason on stderr).
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SEMIHOST_IO_NAME "kcount"
#include "semihost_io.h"
#include "arm_nnfunctions.h"
#include "kcount_job.h"
#include "rk_add.h"
#include "rk_conv2d.h"
#include "rk_conv2d_rip.h"
#include "rk_crc32.h"
#include "rk_depthwise.h"
#include "rk_depthwise_inplace.h"
#include "rk_fully_connected.h"
#include "rk_markers.h"
#include "splitmix.h"

/* The layer's memory: one block taken at start-up and handed out from its start again for every
** layer (arena_reset), so that a layer's buffers have the same addresses whatever ran before it
** (kernels may take other paths on other alignments: a count must not depend on the subset run). */
static uint8_t *arena;
static size_t arena_size, arena_used;

/* Take the largest block malloc gives (in 64 KB steps from 16 MB), or exit 71. */
static void arena_init(void)
{
    for (arena_size = (size_t)16 << 20; arena_size >= ((size_t)64 << 10); arena_size -= (size_t)64 << 10) {
        arena = malloc(arena_size);
        if (arena != NULL)
            return;
    }
    fail(71, "no memory for the arena (0, 0)", 0, 0);
}

/* Every layer starts from the arena's first byte. */
static void arena_reset(void)
{
    arena_used = 0;
}

/* n bytes (at least 1, 8-aligned) of the arena, or exit 71. */
static void *room(int32_t n)
{
    const size_t want = ((size_t)(n > 0 ? n : 1) + 7u) & ~(size_t)7u;
    if (n < 0 || want > arena_size - arena_used)
        fail(71, "out of memory (bytes asked, bytes left)", (long)n, (long)(arena_size - arena_used));
    void *p = arena + arena_used;
    arena_used += want;
    return p;
}

/* Arena memory is given back all at once (arena_reset). */
static void release(void *p)
{
    (void)p;
}

/* n seeded int8 values into p. */
static void fill(int8_t *p, int32_t n)
{
    for (int32_t i = 0; i < n; i++)
        p[i] = (int8_t)rng_next();
}

/* floor(log2(v)), v >= 1. */
static int32_t ilog2(int32_t v)
{
    int32_t r = 0;
    while (v > 1) {
        v >>= 1;
        r++;
    }
    return r;
}

/* Per-channel quantization that keeps outputs inside int8 for a typical accumulator of taps terms:
** multiplier in [2^30, 2^31), shift about -(log2(taps)/2 + 13). */
static void draw_quant(int32_t n, int32_t taps, int32_t *mult, int32_t *shift)
{
    const int32_t base = -(ilog2(taps > 0 ? taps : 1) / 2 + 13);
    for (int32_t i = 0; i < n; i++) {
        mult[i] = (int32_t)(0x40000000u + (uint32_t)(rng_next() & 0x3fffffffu));
        shift[i] = base + (int32_t)rng_int(-1, 1);
    }
}

/* The layer's values: drawn from the seed, the same for every kernel. */
typedef struct layer {
    const int32_t *j;
    int32_t n_in, n_out, n_filter, n_ch, taps;
    int8_t *in, *other, *filter;
    int32_t *bias, *mult, *shift;
    int32_t in_off, out_off;
    rk_add_params ap;
} layer;

/* Draw every value of job j into l (the allocations are the caller's to free: layer_free). */
static void layer_draw(const int32_t *j, layer *l)
{
    memset(l, 0, sizeof *l);
    l->j = j;
    rng_state = 0x6b636f756e74ull ^ ((uint64_t)(uint32_t)j[J_SEED] << 20);
    const int32_t kind = j[J_KIND];
    l->n_in = j[J_H_IN] * j[J_W_IN] * j[J_C_IN];
    l->n_out = kind == KC_ADD ? l->n_in : j[J_H_OUT] * j[J_W_OUT] * j[J_C_OUT];
    l->n_ch = kind == KC_ADD ? 1 : j[J_C_OUT];
    l->taps = kind == KC_CONV ? j[J_K_H] * j[J_K_W] * j[J_C_IN]
              : kind == KC_DW ? j[J_K_H] * j[J_K_W]
              : kind == KC_FC ? j[J_C_IN] : 1;
    l->n_filter = kind == KC_CONV ? j[J_C_OUT] * l->taps
                  : kind == KC_DW ? j[J_K_H] * j[J_K_W] * j[J_C_OUT]
                  : kind == KC_FC ? j[J_C_IN] * j[J_C_OUT] : 0;
    l->in = room(l->n_in);
    l->other = room(kind == KC_ADD ? l->n_in : 0);
    l->filter = room(l->n_filter);
    l->bias = room(4 * l->n_ch);
    l->mult = room(4 * l->n_ch);
    l->shift = room(4 * l->n_ch);
    fill(l->in, l->n_in);
    if (kind == KC_ADD)
        fill(l->other, l->n_in);
    fill(l->filter, l->n_filter);
    const int32_t bb = 64 * (l->taps < 1024 ? l->taps : 1024);
    for (int32_t i = 0; i < l->n_ch; i++)
        l->bias[i] = (int32_t)rng_int(-bb, bb);
    draw_quant(l->n_ch, l->taps, l->mult, l->shift);
    l->in_off = (int32_t)rng_int(-127, 128);
    l->out_off = (int32_t)rng_int(-128, 127);
    /* ADD as TFLite int8 prepares it: left shift 20, input scales below one. */
    l->ap = (rk_add_params){ .input1_offset = l->in_off, .input2_offset = (int32_t)rng_int(-127, 128),
                             .left_shift = 20,
                             .input1_multiplier = l->mult[0], .input1_shift = -1 - (int32_t)rng_int(0, 1),
                             .input2_multiplier = (int32_t)(0x40000000u + (uint32_t)(rng_next() & 0x3fffffffu)),
                             .input2_shift = -1 - (int32_t)rng_int(0, 1),
                             .output_multiplier = (int32_t)(0x40000000u + (uint32_t)(rng_next() & 0x3fffffffu)),
                             .output_shift = -19 - (int32_t)rng_int(0, 1),
                             .output_offset = l->out_off, .act = { -128, 127 } };
}

/* Give back what layer_draw took (the arena is reset per layer anyway). */
static void layer_free(layer *l)
{
    release(l->in);
    release(l->other);
    release(l->filter);
    release(l->bias);
    release(l->mult);
    release(l->shift);
}

/* ripsim's convolution parameters of the layer (no activation clamp beyond int8). */
static rk_conv_params conv_params(const layer *l)
{
    const int32_t *j = l->j;
    return (rk_conv_params){ .k_h = j[J_K_H], .k_w = j[J_K_W], .s_h = j[J_S_H], .s_w = j[J_S_W],
                             .d_h = j[J_D_H], .d_w = j[J_D_W], .p_top = j[J_P_TOP], .p_bottom = j[J_P_BOTTOM],
                             .p_left = j[J_P_LEFT], .p_right = j[J_P_RIGHT], .input_offset = l->in_off,
                             .output_offset = l->out_off, .act = { -128, 127 } };
}

/* ripsim's dual-buffer kernel of the layer into out; returns its status. */
static int run_dual(const layer *l, int8_t *out)
{
    const int32_t *j = l->j;
    const rk_conv_params p = conv_params(l);
    const rk_quant q = { .multiplier = l->mult, .shift = l->shift };
    const rk_dims id = { j[J_H_IN], j[J_W_IN], j[J_C_IN] }, od = { j[J_H_OUT], j[J_W_OUT], j[J_C_OUT] };
    int st = RK_ARG;
    switch (j[J_KIND]) {
    case KC_CONV: {
        int8_t *scratch = room((int32_t)rk_conv2d_buffer_size(&p, id, od));
        rk_mark_begin();
        st = rk_conv2d(&p, &q, id, l->in, l->filter, l->bias, od, out, scratch);
        rk_mark_end();
        release(scratch);
        break;
    }
    case KC_DW:
        rk_mark_begin();
        st = rk_depthwise(&p, &q, id, l->in, l->filter, l->bias, od, out);
        rk_mark_end();
        break;
    case KC_FC: {
        const rk_fc_params fp = { .batches = 1, .in_features = j[J_C_IN], .out_features = j[J_C_OUT],
                                  .input_offset = l->in_off, .output_offset = l->out_off, .act = { -128, 127 },
                                  .per_channel = false };
        rk_mark_begin();
        st = rk_fully_connected(&fp, &q, l->in, l->filter, l->bias, out);
        rk_mark_end();
        break;
    }
    case KC_ADD:
        rk_mark_begin();
        st = rk_add(&l->ap, l->n_in, l->in, l->other, out);
        rk_mark_end();
        break;
    default: break;
    }
    return st;
}

/* ripsim's in-place kernel into a workspace whose first n_out bytes are copied to out; returns its
** status, -1 when the layer has no in-place run (and an empty marker pair is counted). */
static int run_inplace(const layer *l, int8_t *out)
{
    const int32_t *j = l->j;
    const rk_conv_params p = conv_params(l);
    const rk_quant q = { .multiplier = l->mult, .shift = l->shift };
    const rk_dims id = { j[J_H_IN], j[J_W_IN], j[J_C_IN] }, od = { j[J_H_OUT], j[J_W_OUT], j[J_C_OUT] };
    int st = -1;
    if (j[J_KIND] == KC_CONV && j[J_GAP] >= 0) {
        const rk_inplace ip = { .layout = RK_DENSE, .order = RK_GATHER, .gap = j[J_GAP] };
        const int64_t ws = rk_conv2d_rip_workspace_size(&p, id, &ip);
        const int32_t size = (int32_t)(ws > l->n_out ? ws : l->n_out);
        int8_t *w = room(size), *scratch = room((int32_t)rk_conv2d_rip_buffer_size(&p, id, od, &ip));
        memset(w, 0x55, (size_t)size);
        if (ws >= 0)
            rk_rip_store_input(&p, id, l->in, &ip, w);
        rk_mark_begin();
        st = rk_conv2d_rip(&p, &q, id, od, l->filter, l->bias, &ip, w, size, scratch);
        rk_mark_end();
        memcpy(out, w, (size_t)l->n_out);
        release(w);
        release(scratch);
    } else if (j[J_KIND] == KC_DW && j[J_GAP] >= 0) {
        const int32_t size = l->n_in > l->n_out ? l->n_in : l->n_out;
        int8_t *t = room(size), *scratch = room((int32_t)rk_depthwise_inplace_buffer_size(&p, id, od));
        memcpy(t, l->in, (size_t)l->n_in);
        rk_mark_begin();
        st = rk_depthwise_inplace(&p, &q, id, od, l->filter, l->bias, t, scratch);
        rk_mark_end();
        memcpy(out, t, (size_t)l->n_out);
        release(t);
        release(scratch);
    } else {
        rk_mark_begin();
        rk_mark_end();
    }
    return st;
}

/* CMSIS-NN's kernel of the layer (the wrappers TFLM's cmsis_nn kernels call) into out; its scratch
** allocated before the marker.  Returns its arm_cmsis_nn_status. */
static int run_cmsis(const layer *l, int8_t *out)
{
    const int32_t *j = l->j;
    cmsis_nn_dims id = { .n = 1, .h = j[J_H_IN], .w = j[J_W_IN], .c = j[J_C_IN] };
    cmsis_nn_dims od = { .n = 1, .h = j[J_H_OUT], .w = j[J_W_OUT], .c = j[J_C_OUT] };
    cmsis_nn_dims bd = { .n = 1, .h = 1, .w = 1, .c = j[J_C_OUT] };
    cmsis_nn_per_channel_quant_params qp = { .multiplier = l->mult, .shift = l->shift };
    const cmsis_nn_activation act = { .min = -128, .max = 127 };
    const cmsis_nn_tile stride = { .w = j[J_S_W], .h = j[J_S_H] }, pad = { .w = j[J_P_LEFT], .h = j[J_P_TOP] };
    const cmsis_nn_tile dil = { .w = j[J_D_W], .h = j[J_D_H] };
    cmsis_nn_context ctx = { .buf = NULL, .size = 0 };
    int st = ARM_CMSIS_NN_ARG_ERROR;
    switch (j[J_KIND]) {
    case KC_CONV: {
        cmsis_nn_conv_params cp = { .input_offset = l->in_off, .output_offset = l->out_off, .stride = stride,
                                    .padding = pad, .dilation = dil, .activation = act };
        cmsis_nn_dims fd = { .n = j[J_C_OUT], .h = j[J_K_H], .w = j[J_K_W], .c = j[J_C_IN] };
        ctx.size = arm_convolve_wrapper_s8_get_buffer_size(&cp, &id, &fd, &od);
        ctx.buf = room(ctx.size);
        rk_mark_begin();
        st = arm_convolve_wrapper_s8(&ctx, &cp, &qp, &id, l->in, &fd, l->filter, &bd, l->bias, &od, out);
        rk_mark_end();
        break;
    }
    case KC_DW: {
        cmsis_nn_dw_conv_params dp = { .input_offset = l->in_off, .output_offset = l->out_off,
                                       .ch_mult = j[J_C_OUT] / j[J_C_IN], .stride = stride, .padding = pad,
                                       .dilation = dil, .activation = act };
        cmsis_nn_dims fd = { .n = 1, .h = j[J_K_H], .w = j[J_K_W], .c = j[J_C_OUT] };
        ctx.size = arm_depthwise_conv_wrapper_s8_get_buffer_size(&dp, &id, &fd, &od);
        ctx.buf = room(ctx.size);
        rk_mark_begin();
        st = arm_depthwise_conv_wrapper_s8(&ctx, &dp, &qp, &id, l->in, &fd, l->filter, &bd, l->bias, &od, out);
        rk_mark_end();
        break;
    }
    case KC_FC: {
        cmsis_nn_fc_params fp = { .input_offset = l->in_off, .filter_offset = 0, .output_offset = l->out_off,
                                  .activation = act };
        cmsis_nn_dims fid = { .n = 1, .h = 1, .w = 1, .c = j[J_C_IN] };
        cmsis_nn_dims ffd = { .n = j[J_C_IN], .h = 1, .w = 1, .c = j[J_C_OUT] };
        cmsis_nn_dims fod = { .n = 1, .h = 1, .w = 1, .c = j[J_C_OUT] };
        cmsis_nn_per_tensor_quant_params tq = { .multiplier = l->mult[0], .shift = l->shift[0] };
        ctx.size = arm_fully_connected_s8_get_buffer_size(&ffd);
        ctx.buf = room(ctx.size);
        rk_mark_begin();
        st = arm_fully_connected_s8(&ctx, &fp, &tq, &fid, l->in, &ffd, l->filter, &bd, l->bias, &fod, out);
        rk_mark_end();
        break;
    }
    case KC_ADD: {
        const rk_add_params *a = &l->ap;
        rk_mark_begin();
        st = arm_elementwise_add_s8(l->in, l->other, a->input1_offset, a->input1_multiplier, a->input1_shift,
                                    a->input2_offset, a->input2_multiplier, a->input2_shift, a->left_shift, out,
                                    a->output_offset, a->output_multiplier, a->output_shift, a->act.min,
                                    a->act.max, l->n_in);
        rk_mark_end();
        break;
    }
    default: break;
    }
    release(ctx.buf);
    return st;
}

/* A status or "-" for no run. */
static const char *status_text(int st, char buf[12])
{
    if (st == -1)
        return "-";
    snprintf(buf, 12, "%d", st);
    return buf;
}

/* Read layers until the end of the stream; one answer line per layer (the file's head says which). */
int main(void)
{
    sio_open();
    arena_init();
    for (long n = 0;; n++) {
        int32_t j[KC_FIELDS];
        if (!get(j, sizeof j))
            return 0;
        if (j[J_KIND] < 0 || j[J_KIND] >= KC_KINDS || j[J_H_IN] < 1 || j[J_W_IN] < 1 || j[J_C_IN] < 1 ||
            j[J_H_OUT] < 1 || j[J_W_OUT] < 1 || j[J_C_OUT] < 1)
            fail(65, "malformed layer (index, kind)", n, (long)j[J_KIND]);
        arena_reset();
        layer l;
        layer_draw(j, &l);
        int8_t *o_dual = room(l.n_out), *o_ip = room(l.n_out), *o_cm = room(l.n_out);
        /* Different garbage in each output: an unwritten byte cannot match by accident. */
        memset(o_dual, 0x5a, (size_t)l.n_out);
        memset(o_ip, 0x3c, (size_t)l.n_out);
        memset(o_cm, 0xa5, (size_t)l.n_out);
        const int s_dual = run_dual(&l, o_dual);
        const int s_ip = run_inplace(&l, o_ip);
        const int s_cm = run_cmsis(&l, o_cm);
        const bool same_dual = memcmp(o_dual, o_cm, (size_t)l.n_out) == 0;
        const bool same_ip = memcmp(o_ip, o_cm, (size_t)l.n_out) == 0;
        char line[160], b1[12], b2[12], b3[12];
        const int len = snprintf(line, sizeof line,
                                 "kc %ld dual=%s inplace=%s cmsis=%s same_dual=%d same_inplace=%s crc=%08lx\n", n,
                                 status_text(s_dual, b1), status_text(s_ip, b2), status_text(s_cm, b3),
                                 (int)same_dual, s_ip == -1 ? "-" : same_ip ? "1" : "0",
                                 (unsigned long)rk_crc32(o_cm, (size_t)l.n_out));
        sys_semihost_write(sio_out, line, (uintptr_t)len);
        release(o_dual);
        release(o_ip);
        release(o_cm);
        layer_free(&l);
    }
}
