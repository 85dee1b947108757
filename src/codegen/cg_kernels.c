/*
** cg_kernels.c — kernel calls and parameter structs as C text
** (cg_kernels.h).  Every number is printed exactly: integers in decimal,
** float scales as C99 hexadecimal floating constants.
*/
#include "cg_kernels.h"

#include <inttypes.h>
#include <string.h>

const char *const cg_kernel_headers[] = {
    "rk_add.h",          "rk_concat.h",      "rk_conv2d.h",   "rk_conv2d_rip.h",        "rk_depthwise.h",
    "rk_depthwise_inplace.h", "rk_fully_connected.h", "rk_mean.h", "rk_pad.h", "rk_pointwise.h", "rk_pool.h",
    "rk_quantize.h", "rk_resize_nearest.h", "rk_softmax.h", "rk_transpose.h", "rk_upsample.h", NULL,
};

static cg_ptr ptr_of(const char *macro, int64_t off)
{
    cg_ptr p;
    snprintf(p.s, sizeof p.s, "%s(%" PRId64 ")", macro, off);
    return p;
}

cg_ptr cg_arena(int64_t off) { return ptr_of("A", off); }
cg_ptr cg_i8(int64_t off) { return ptr_of("RK_I8", off); }
cg_ptr cg_f32(int64_t off) { return ptr_of("RK_F32", off); }

cg_ptr cg_i32(int64_t off)
{
    return off < 0 ? cg_named("NULL") : ptr_of("RK_I32", off);
}

cg_ptr cg_named(const char *name)
{
    cg_ptr p;
    snprintf(p.s, sizeof p.s, "%s", name);
    return p;
}

/* ---- parameter structs ---- */

void cg_dims(FILE *f, const char *name, size_t i, rk_dims d)
{
    fprintf(f, "static const rk_dims %s%zu = {%" PRId32 ", %" PRId32 ", %" PRId32 "};\n", name, i, d.h, d.w, d.c);
}

/* The `.act = {min, max}` member of a parameter struct. */
static void act(FILE *f, rk_act a)
{
    fprintf(f, ".act = {%" PRId32 ", %" PRId32 "}", a.min, a.max);
}

/* "{a, b, ...}" of the first n values. */
static void int_list(FILE *f, const int32_t *v, int32_t n)
{
    fputc('{', f);
    for (int32_t k = 0; k < n; k++)
        fprintf(f, "%s%" PRId32, k ? ", " : "", v[k]);
    fputc('}', f);
}

void cg_conv_params(FILE *f, size_t i, const rk_conv_params *c)
{
    fprintf(f,
            "static const rk_conv_params conv%zu = {.k_h = %" PRId32 ", .k_w = %" PRId32 ", .s_h = %" PRId32
            ", .s_w = %" PRId32 ", .d_h = %" PRId32 ", .d_w = %" PRId32 ",\n    .p_top = %" PRId32
            ", .p_bottom = %" PRId32 ", .p_left = %" PRId32 ", .p_right = %" PRId32 ", .input_offset = %" PRId32
            ", .output_offset = %" PRId32 ", ",
            i, c->k_h, c->k_w, c->s_h, c->s_w, c->d_h, c->d_w, c->p_top, c->p_bottom, c->p_left, c->p_right,
            c->input_offset, c->output_offset);
    act(f, c->act);
    fprintf(f, "};\n");
}

void cg_fc_params(FILE *f, size_t i, const rk_fc_params *c)
{
    fprintf(f,
            "static const rk_fc_params fc%zu = {.batches = %" PRId32 ", .in_features = %" PRId32
            ", .out_features = %" PRId32 ", .input_offset = %" PRId32 ", .output_offset = %" PRId32 ", ",
            i, c->batches, c->in_features, c->out_features, c->input_offset, c->output_offset);
    act(f, c->act);
    fprintf(f, ", .per_channel = %s};\n", c->per_channel ? "true" : "false");
}

void cg_add_params(FILE *f, size_t i, const rk_add_params *a)
{
    fprintf(f,
            "static const rk_add_params add%zu = {.input1_offset = %" PRId32 ", .input2_offset = %" PRId32
            ", .left_shift = %" PRId32 ",\n    .input1_multiplier = %" PRId32 ", .input1_shift = %" PRId32
            ", .input2_multiplier = %" PRId32 ", .input2_shift = %" PRId32 ",\n    .output_multiplier = %" PRId32
            ", .output_shift = %" PRId32 ", .output_offset = %" PRId32 ", ",
            i, a->input1_offset, a->input2_offset, a->left_shift, a->input1_multiplier, a->input1_shift,
            a->input2_multiplier, a->input2_shift, a->output_multiplier, a->output_shift, a->output_offset);
    act(f, a->act);
    fprintf(f, "};\n");
}

void cg_pool_params(FILE *f, size_t i, const rk_pool_params *c)
{
    fprintf(f,
            "static const rk_pool_params pool%zu = {.k_h = %" PRId32 ", .k_w = %" PRId32 ", .s_h = %" PRId32
            ", .s_w = %" PRId32 ", .p_top = %" PRId32 ", .p_bottom = %" PRId32 ", .p_left = %" PRId32
            ", .p_right = %" PRId32 ", ",
            i, c->k_h, c->k_w, c->s_h, c->s_w, c->p_top, c->p_bottom, c->p_left, c->p_right);
    act(f, c->act);
    fprintf(f, "};\n");
}

void cg_up_params(FILE *f, size_t i, const rk_upsample_params *u)
{
    fprintf(f, "static const rk_upsample_params up%zu = {.s_h = %" PRId32 ", .s_w = %" PRId32 "};\n", i, u->s_h,
            u->s_w);
}

void cg_quant(FILE *f, size_t i, int64_t off_mult, int64_t off_shift)
{
    fprintf(f, "static const rk_quant q%zu = {RK_I32(%" PRId64 "), RK_I32(%" PRId64 ")};\n", i, off_mult, off_shift);
}

void cg_inplace(FILE *f, size_t i, int64_t gap)
{
    fprintf(f, "static const rk_inplace ip%zu = {RK_DENSE, RK_GATHER, %" PRId64 "};\n", i, gap);
}

void cg_shape(FILE *f, size_t i, size_t k, const rk_shape *s)
{
    fprintf(f, "static const rk_shape sh%zu_%zu = {%" PRId32 ", ", i, k, s->rank);
    int_list(f, s->d, s->rank);
    fprintf(f, "};\n");
}

void cg_mean_params(FILE *f, size_t i, const rk_mean_params *p, const int32_t *axis, int32_t n_axis)
{
    fprintf(f,
            "static const rk_mean_params mean%zu = {.input_zero_point = %" PRId32 ", .output_zero_point = %" PRId32
            ", .multiplier = %" PRId32 ", .shift = %" PRId32 "};\n",
            i, p->input_zero_point, p->output_zero_point, p->multiplier, p->shift);
    fprintf(f, "static const int32_t axis%zu[%" PRId32 "] = ", i, n_axis);
    int_list(f, axis, n_axis);
    fprintf(f, ";\n");
}

void cg_softmax_params(FILE *f, size_t i, const rk_softmax_params *p)
{
    fprintf(f,
            "static const rk_softmax_params sm%zu = {.input_multiplier = %" PRId32 ", .input_left_shift = %" PRId32
            ", .diff_min = %" PRId32 "};\n",
            i, p->input_multiplier, p->input_left_shift, p->diff_min);
}

void cg_pad_params(FILE *f, size_t i, const rk_pad_params *p)
{
    fprintf(f, "static const rk_pad_params pad%zu = {.before = ", i);
    int_list(f, p->before, RK_MAX_RANK);
    fprintf(f, ", .after = ");
    int_list(f, p->after, RK_MAX_RANK);
    fprintf(f, ", .value = %d};\n", (int)p->value);
}

void cg_transpose_params(FILE *f, size_t i, const rk_transpose_params *p)
{
    fprintf(f, "static const rk_transpose_params tr%zu = {.perm = ", i);
    int_list(f, p->perm, RK_MAX_RANK);
    fprintf(f, "};\n");
}

void cg_resize_params(FILE *f, size_t i, const rk_resize_params *p)
{
    fprintf(f, "static const rk_resize_params rs%zu = {.align_corners = %s, .half_pixel_centers = %s};\n", i,
            p->align_corners ? "true" : "false", p->half_pixel_centers ? "true" : "false");
}

void cg_affine(FILE *f, size_t i, const rk_affine *q)
{
    fprintf(f, "static const rk_affine aff%zu = {.scale = %af, .zero_point = %" PRId32 "}; /* scale %.9g */\n", i,
            (double)q->scale, q->zero_point, (double)q->scale);
}

void cg_concat_params(FILE *f, size_t i, const rk_concat_params *p, const rk_shape *shapes, const cg_ptr *inputs)
{
    fprintf(f, "static const rk_concat_params cat%zu = {.axis = %" PRId32 ", .n_inputs = %" PRId32 "};\n", i,
            p->axis, p->n_inputs);
    fprintf(f, "static const rk_shape cat%zu_shapes[%" PRId32 "] = {", i, p->n_inputs);
    for (int32_t k = 0; k < p->n_inputs; k++) {
        fprintf(f, "%s{%" PRId32 ", ", k ? ", " : "", shapes[k].rank);
        int_list(f, shapes[k].d, shapes[k].rank);
        fputc('}', f);
    }
    fprintf(f, "};\nstatic const int8_t *const cat%zu_inputs[%" PRId32 "] = {", i, p->n_inputs);
    for (int32_t k = 0; k < p->n_inputs; k++)
        fprintf(f, "%s%s", k ? ", " : "", inputs[k].s);
    fprintf(f, "};\n");
}

/* ---- calls ---- */

void cg_call_conv(FILE *f, const char *fn, size_t i, cg_ptr in, cg_ptr filter, cg_ptr bias, cg_ptr out)
{
    fprintf(f, "%s(&conv%zu, &q%zu, in%zu, %s, %s, %s, out%zu, %s, rk_scratch)", fn, i, i, i, in.s, filter.s, bias.s,
            i, out.s);
}

void cg_call_conv_rip(FILE *f, size_t i, cg_ptr filter, cg_ptr bias, cg_ptr ws, int64_t ws_size)
{
    fprintf(f, "rk_conv2d_rip(&conv%zu, &q%zu, in%zu, out%zu, %s, %s, &ip%zu, %s, %" PRId64 ", rk_scratch)", i, i, i,
            i, filter.s, bias.s, i, ws.s, ws_size);
}

void cg_call_depthwise(FILE *f, size_t i, cg_ptr in, cg_ptr filter, cg_ptr bias, cg_ptr out)
{
    fprintf(f, "rk_depthwise(&conv%zu, &q%zu, in%zu, %s, %s, %s, out%zu, %s)", i, i, i, in.s, filter.s, bias.s, i,
            out.s);
}

void cg_call_depthwise_inplace(FILE *f, size_t i, cg_ptr filter, cg_ptr bias, cg_ptr tensor)
{
    fprintf(f, "rk_depthwise_inplace(&conv%zu, &q%zu, in%zu, out%zu, %s, %s, %s, rk_scratch)", i, i, i, i, filter.s,
            bias.s, tensor.s);
}

void cg_call_fc(FILE *f, size_t i, cg_ptr in, cg_ptr weights, cg_ptr bias, cg_ptr out)
{
    fprintf(f, "rk_fully_connected(&fc%zu, &q%zu, %s, %s, %s, %s)", i, i, in.s, weights.s, bias.s, out.s);
}

void cg_call_add(FILE *f, size_t i, int64_t n, cg_ptr in1, cg_ptr in2, cg_ptr out)
{
    fprintf(f, "rk_add(&add%zu, %" PRId64 ", %s, %s, %s)", i, n, in1.s, in2.s, out.s);
}

void cg_call_add_broadcast(FILE *f, size_t i, cg_ptr in1, cg_ptr in2, cg_ptr out)
{
    fprintf(f, "rk_add_broadcast(&add%zu, &sh%zu_0, &sh%zu_1, &sh%zu_2, %s, %s, %s)", i, i, i, i, in1.s, in2.s,
            out.s);
}

void cg_call_pool(FILE *f, size_t i, bool avg, cg_ptr in, cg_ptr out)
{
    fprintf(f, "%s(&pool%zu, in%zu, %s, out%zu, %s)", avg ? "rk_avgpool" : "rk_maxpool", i, i, in.s, i, out.s);
}

void cg_call_pool_inplace(FILE *f, size_t i, bool avg, int64_t gap, cg_ptr ws, int64_t ws_size)
{
    fprintf(f, "rk_pool_inplace(&pool%zu, %s, in%zu, out%zu, %" PRId64 ", %s, %" PRId64 ", rk_scratch)", i,
            avg ? "RK_POOL_AVG" : "RK_POOL_MAX", i, i, gap, ws.s, ws_size);
}

void cg_call_upsample(FILE *f, size_t i, cg_ptr in, cg_ptr out)
{
    fprintf(f, "rk_upsample_nearest(&up%zu, in%zu, %s, out%zu, %s)", i, i, in.s, i, out.s);
}

void cg_call_upsample_inplace(FILE *f, size_t i, cg_ptr ws, int64_t ws_size)
{
    fprintf(f, "rk_upsample_nearest_inplace(&up%zu, in%zu, out%zu, %s, %" PRId64 ")", i, i, i, ws.s, ws_size);
}

void cg_call_mean(FILE *f, size_t i, int32_t n_axis, cg_ptr in, cg_ptr out)
{
    fprintf(f, "rk_mean(&mean%zu, sh%zu_0, axis%zu, %" PRId32 ", %s, %s)", i, i, i, n_axis, in.s, out.s);
}

void cg_call_softmax(FILE *f, size_t i, int32_t rows, int32_t depth, cg_ptr in, cg_ptr out)
{
    fprintf(f, "rk_softmax(&sm%zu, %" PRId32 ", %" PRId32 ", %s, %s)", i, rows, depth, in.s, out.s);
}

void cg_call_pad(FILE *f, size_t i, cg_ptr in, cg_ptr out)
{
    fprintf(f, "rk_pad(&pad%zu, sh%zu_0, %s, %s)", i, i, in.s, out.s);
}

void cg_call_transpose(FILE *f, size_t i, cg_ptr in, cg_ptr out)
{
    fprintf(f, "rk_transpose(&tr%zu, sh%zu_0, %s, %s)", i, i, in.s, out.s);
}

void cg_call_concat(FILE *f, size_t i, cg_ptr out)
{
    fprintf(f, "rk_concat(&cat%zu, cat%zu_shapes, cat%zu_inputs, %s)", i, i, i, out.s);
}

void cg_call_resize(FILE *f, size_t i, cg_ptr in, cg_ptr out)
{
    fprintf(f, "rk_resize_nearest(&rs%zu, in%zu, %s, out%zu, %s)", i, i, in.s, i, out.s);
}

void cg_call_quantize(FILE *f, size_t i, int64_t n, cg_ptr in, cg_ptr out)
{
    fprintf(f, "rk_quantize_f32(&aff%zu, %" PRId64 ", %s, %s)", i, n, in.s, out.s);
}

void cg_call_dequantize(FILE *f, size_t i, int64_t n, cg_ptr in, cg_ptr out)
{
    fprintf(f, "rk_dequantize_f32(&aff%zu, %" PRId64 ", %s, %s)", i, n, in.s, out.s);
}
