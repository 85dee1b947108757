/*
** test_cmsis_orders.c — the CMSIS-NN kernel orders (src/tflm/kernel_orders.c)
** verified against the vendored CMSIS-NN kernels themselves (issue 21,
** item 2), host build (pure C, the path this suite compiles), by
** korder_verify.h: each kernel TFLM's cmsis_nn wrappers reach is run here,
** in process, on overlapping buffers at the simulated gap and one below.
*/
#include "arm_nnfunctions.h"

#include "korder_verify.h"

/* Run l's CMSIS-NN kernel (the one TFLM's wrapper calls) on in, writing out. */
static void run_kernel(const struct layer *l, const int8_t *in, int8_t *out)
{
    const rip_kgeom *g = &l->ctx.g;
    const rip_korder o = l->ctx.order;
    cmsis_nn_dims id = { .n = (int32_t)g->batches, .h = (int32_t)g->h_in, .w = (int32_t)g->w_in, .c = (int32_t)g->c_in };
    cmsis_nn_dims od = { .n = (int32_t)g->batches, .h = (int32_t)g->h_out, .w = (int32_t)g->w_out,
                         .c = (int32_t)g->c_out };
    cmsis_nn_dims bd = { .n = 1, .h = 1, .w = 1, .c = (int32_t)g->c_out };
    cmsis_nn_per_channel_quant_params qp = { .multiplier = l->mult, .shift = l->shift };
    cmsis_nn_activation act = { .min = -128, .max = 127 };
    cmsis_nn_tile stride = { .w = (int32_t)g->s_w, .h = (int32_t)g->s_h };
    cmsis_nn_tile pad = { .w = (int32_t)g->pad_left, .h = (int32_t)g->pad_top };
    cmsis_nn_tile dil = { .w = (int32_t)g->d_w, .h = (int32_t)g->d_h };
    cmsis_nn_context ctx = { .buf = NULL, .size = 0 };
    arm_cmsis_nn_status st = ARM_CMSIS_NN_ARG_ERROR;
    if (o == RIP_KO_CMSIS_CONV || o == RIP_KO_CMSIS_1X1 || o == RIP_KO_CMSIS_1X1_FAST) {
        cmsis_nn_conv_params cp = { .input_offset = l->in_off, .output_offset = l->out_off, .stride = stride,
                                    .padding = pad, .dilation = dil, .activation = act };
        cmsis_nn_dims fd = { .n = (int32_t)g->c_out, .h = (int32_t)g->k_h, .w = (int32_t)g->k_w,
                             .c = (int32_t)(g->c_in / g->groups) };
        ctx.size = arm_convolve_wrapper_s8_get_buffer_size(&cp, &id, &fd, &od);
        ctx.buf = ctx.size > 0 ? xcalloc((size_t)ctx.size, 1) : NULL;
        st = arm_convolve_wrapper_s8(&ctx, &cp, &qp, &id, in, &fd, l->filter, &bd, l->bias, &od, out);
    } else if (o == RIP_KO_CMSIS_DW_3X3 || o == RIP_KO_CMSIS_DW_GENERIC || o == RIP_KO_CMSIS_DW_MULT4) {
        cmsis_nn_dw_conv_params dp = { .input_offset = l->in_off, .output_offset = l->out_off,
                                       .ch_mult = (int32_t)g->depth_mult, .stride = stride, .padding = pad,
                                       .dilation = dil, .activation = act };
        cmsis_nn_dims fd = { .n = 1, .h = (int32_t)g->k_h, .w = (int32_t)g->k_w, .c = (int32_t)g->c_out };
        ctx.size = arm_depthwise_conv_wrapper_s8_get_buffer_size(&dp, &id, &fd, &od);
        ctx.buf = ctx.size > 0 ? xcalloc((size_t)ctx.size, 1) : NULL;
        st = arm_depthwise_conv_wrapper_s8(&ctx, &dp, &qp, &id, in, &fd, l->filter, &bd, l->bias, &od, out);
    } else if (o == RIP_KO_CMSIS_FC) {
        cmsis_nn_fc_params fp = { .input_offset = l->in_off, .filter_offset = 0, .output_offset = l->out_off,
                                  .activation = act };
        cmsis_nn_dims fid = { .n = (int32_t)g->batches, .h = 1, .w = 1, .c = (int32_t)g->c_in };
        cmsis_nn_dims fd = { .n = (int32_t)g->c_in, .h = 1, .w = 1, .c = (int32_t)g->c_out };
        cmsis_nn_dims fod = { .n = (int32_t)g->batches, .h = 1, .w = 1, .c = (int32_t)g->c_out };
        ctx.size = arm_fully_connected_s8_get_buffer_size(&fd);
        ctx.buf = ctx.size > 0 ? xcalloc((size_t)ctx.size, 1) : NULL;
        if (l->per_channel) {
            st = arm_fully_connected_per_channel_s8(&ctx, &fp, &qp, &fid, in, &fd, l->filter, &bd, l->bias, &fod, out);
        } else {
            cmsis_nn_per_tensor_quant_params tq = { .multiplier = l->mult[0], .shift = l->shift[0] };
            st = arm_fully_connected_s8(&ctx, &fp, &tq, &fid, in, &fd, l->filter, &bd, l->bias, &fod, out);
        }
    } else if (o == RIP_KO_CMSIS_AVGPOOL || o == RIP_KO_CMSIS_MAXPOOL) {
        cmsis_nn_pool_params pp = { .stride = stride, .padding = pad, .activation = act };
        cmsis_nn_dims fd = { .n = 1, .h = (int32_t)g->k_h, .w = (int32_t)g->k_w, .c = 1 };
        if (o == RIP_KO_CMSIS_AVGPOOL) {
            ctx.size = arm_avgpool_s8_get_buffer_size((int)g->w_out, (int)g->c_in);
            ctx.buf = ctx.size > 0 ? xcalloc((size_t)ctx.size, 1) : NULL;
            st = arm_avgpool_s8(&ctx, &pp, &id, in, &fd, &od, out);
        } else {
            st = arm_max_pool_s8(&ctx, &pp, &id, in, &fd, &od, out);
        }
    } else if (o == RIP_KO_CMSIS_PAD) {
        const cmsis_nn_dims pre = { .n = (int32_t)g->pad_batch, .h = (int32_t)g->pad_top, .w = (int32_t)g->pad_left,
                                    .c = (int32_t)g->pad_depth };
        const cmsis_nn_dims post = { .n = (int32_t)(g->batches_out - g->batches - g->pad_batch),
                                     .h = (int32_t)(g->h_out - g->h_in - g->pad_top),
                                     .w = (int32_t)(g->w_out - g->w_in - g->pad_left),
                                     .c = (int32_t)(g->c_out - g->c_in - g->pad_depth) };
        st = arm_pad_s8(in, out, (int8_t)l->out_off, &id, &pre, &post);
    } else if (o == RIP_KO_CMSIS_ADD) {
        const int8_t *a = l->k == 0 ? in : l->other, *b = l->k == 0 ? l->other : in;
        st = arm_elementwise_add_s8(a, b, l->in_off, 1 << 30, -1, -l->out_off / 2, 1 << 30, -1, 20, out, l->out_off,
                                    1 << 30, -19, -128, 127, (int32_t)g->n_elem);
    }
    free(ctx.buf);
    cr_assert_eq(st, ARM_CMSIS_NN_SUCCESS, "%s refused the layer (status %d, %lldx%lldx%lld -> %lldx%lldx%lld, k %lldx%lld, groups %lld, M %lld, buffer %d)",
                 rip_korder_name(o), (int)st, (long long)g->h_in, (long long)g->w_in, (long long)g->c_in,
                 (long long)g->h_out, (long long)g->w_out, (long long)g->c_out, (long long)g->k_h, (long long)g->k_w,
                 (long long)g->groups, (long long)g->depth_mult, (int)ctx.size);
}

/* The runner of korder_verify.h: run_kernel on two buffers or on one overlapped buffer. */
static void run_cmsis(const struct layer *l, const int8_t *in, int64_t n_in, int64_t d, int8_t *out, int64_t n_out)
{
    if (d < 0) {
        run_kernel(l, in, out);
        return;
    }
    const int64_t size = (d + n_in > n_out ? d + n_in : n_out) + 16;
    int8_t *buf = xcalloc((size_t)size, 1);
    memset(buf, 0x55, (size_t)size);
    memcpy(buf + d, in, (size_t)n_in);
    run_kernel(l, buf + d, buf);
    memcpy(out, buf, (size_t)n_out);
    free(buf);
}

/* arm_max_pool_s8 copies each pixel's first real tap with memcpy: at gap d, does a copy's destination
** (the output pixel) meet its source (the tap, d bytes up)?  Then the run is undefined. */
static bool maxpool_copy_overlaps(const struct layer *l, int64_t d)
{
    const rip_kgeom *g = &l->ctx.g;
    if (l->ctx.order != RIP_KO_CMSIS_MAXPOOL)
        return false;
    const int64_t C = g->c_in;
    for (int64_t b = 0; b < g->batches; b++)
        for (int64_t oy = 0; oy < g->h_out; oy++)
            for (int64_t ox = 0; ox < g->w_out; ox++) {
                const int64_t y = oy * g->s_h - g->pad_top, x = ox * g->s_w - g->pad_left;
                const int64_t ty = y < 0 ? 0 : y, tx = x < 0 ? 0 : x;
                if (ty >= g->h_in || tx >= g->w_in || ty >= y + g->k_h || tx >= x + g->k_w)
                    continue;            /* no real tap: no copy */
                const int64_t src = d + ((b * g->h_in + ty) * g->w_in + tx) * C;
                const int64_t dst = ((b * g->h_out + oy) * g->w_out + ox) * C;
                if (src < dst + C && dst < src + C)
                    return true;
            }
    return false;
}

/* arm_pad_s8 copies each input row (or, with channel padding, each pixel's channels) with memcpy:
** at gap d, does one copy's destination meet its source?  Input row (b, y) goes to output row
** (b + pad_batch, y + pad_top) from column pad_left (and channel pad_depth): positions computed
** here from the shapes, not from the order's generator. */
static bool pad_copy_overlaps(const struct layer *l, int64_t d)
{
    const rip_kgeom *g = &l->ctx.g;
    const bool per_pixel = g->c_in != g->c_out;
    const int64_t len = per_pixel ? g->c_in : g->w_in * g->c_in;
    for (int64_t b = 0; b < g->batches; b++)
        for (int64_t y = 0; y < g->h_in; y++)
            for (int64_t x = 0; x < (per_pixel ? g->w_in : 1); x++) {
                const int64_t src = d + ((b * g->h_in + y) * g->w_in + x) * g->c_in;
                const int64_t dst = (((b + g->pad_batch) * g->h_out + y + g->pad_top) * g->w_out + x + g->pad_left) *
                                        g->c_out + g->pad_depth;
                if (src < dst + len && dst < src + len)
                    return true;
            }
    return false;
}

/* Undefined runs of the suite's kernels: the max pool's and the pad's memcpy between overlapping ranges. */
static bool copy_overlaps(const struct layer *l, int64_t d)
{
    return maxpool_copy_overlaps(l, d) || (l->ctx.order == RIP_KO_CMSIS_PAD && pad_copy_overlaps(l, d));
}

static void init(void)
{
    kv_suite = "cmsis_orders";
    kv_lib = RIP_TFLM_CMSIS_NN;
    kv_run = run_cmsis;
    kv_undefined_at = copy_overlaps;
}

Test(cmsis_orders, random_layers_per_kernel, .init = init, .timeout = 900)
{
    kv_random_layers();
}

/* The real models: person_detect in the TFLM tree and every .tflite one level under the models folder. */
Test(cmsis_orders, real_model_layers, .init = init, .timeout = 1800)
{
    kv_real_models();
}
