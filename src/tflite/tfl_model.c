/*
** tfl_model.c — decode a TFLite flatbuffer into rip_tfl_model (tfl_model.h)
** through the bounds-checked reader of fbs_read.h.
**
** The decoder walks the schema from the root: Model, then its operator
** codes, buffers, metadata and subgraphs (tensors with their quantization,
** operators with their options).  Its depth is that of the schema (no
** recursion); where it is in the file is a small stack of path parts
** ("subgraph 0", "tensor 12", "shape"), formatted only when something is
** wrong, so a good model costs no formatting.  Field numbers are the
** schema's field order (the vtable slot), written next to each read.
**
** All decoded arrays and strings live in one arena owned by the model
** (freed at once); its total is the decoding budget of tfl_model.h.
*/
#include "tfl_model.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fbs_read.h"

/* ---- the arena ---------------------------------------------------------- */

typedef struct arena_chunk {
    struct arena_chunk *next;
    size_t used, cap;
    max_align_t data[];
} arena_chunk;

struct rip_tfl_arena {
    arena_chunk *head;
    size_t spent, budget;    /* bytes handed out, and the most that may be */
};

#define ARENA_CHUNK ((size_t)64 << 10)

static void arena_free(struct rip_tfl_arena *a)
{
    if (!a)
        return;
    for (arena_chunk *c = a->head, *next; c; c = next) {
        next = c->next;
        free(c);
    }
    free(a);
}

/* ---- the decoder's state and its errors --------------------------------- */

#define PATH_MAX_DEPTH 6

typedef struct path_part {
    const char *what;
    long idx;                /* -1: a field name alone */
} path_part;

typedef struct dec {
    rip_fbs f;
    rip_tfl_model *m;
    path_part path[PATH_MAX_DEPTH];
    int depth;
    char why[RIP_FBS_WHY_LEN];
    char *err;
} dec;

static void push(dec *d, const char *what, long idx)
{
    /* the schema walk is at most 5 deep (subgraph, operator, options, field) */
    if (d->depth < PATH_MAX_DEPTH)
        d->path[d->depth] = (path_part){what, idx};
    d->depth++;
}

static void pop(dec *d)
{
    d->depth--;
}

/* "LABEL: PART: PART: " + the message; one line.  Returns st. */
static rip_status failv(dec *d, rip_status st, const char *fmt, va_list ap)
{
    size_t n = (size_t)snprintf(d->err, RIP_ERR_LEN, "%.200s: ", d->m->label ? d->m->label : "model");
    for (int i = 0; i < d->depth && i < PATH_MAX_DEPTH && n < RIP_ERR_LEN; i++) {
        if (d->path[i].idx >= 0)
            n += (size_t)snprintf(d->err + n, RIP_ERR_LEN - n, "%s %ld: ", d->path[i].what, d->path[i].idx);
        else
            n += (size_t)snprintf(d->err + n, RIP_ERR_LEN - n, "%s: ", d->path[i].what);
    }
    if (n < RIP_ERR_LEN)
        vsnprintf(d->err + n, RIP_ERR_LEN - n, fmt, ap);
    rip_err_one_line(d->err);
    return st;
}

static rip_status fail(dec *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static rip_status fail(dec *d, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    rip_status st = failv(d, RIP_S_DATA, fmt, ap);
    va_end(ap);
    return st;
}

/* The reader refused field `name`: its reason is in d->why. */
static rip_status fail_field(dec *d, const char *name)
{
    push(d, name, -1);
    rip_status st = fail(d, "%s", d->why);
    pop(d);
    return st;
}

/* n * size bytes from the arena, zeroed; NULL with err set (budget: RIP_S_DATA, malloc: RIP_S_NOMEM). */
static void *alloc(dec *d, size_t n, size_t size, rip_status *st)
{
    struct rip_tfl_arena *a = d->m->arena;
    if (n == 0)
        n = 1;
    if (size && n > SIZE_MAX / size / 2) {
        *st = fail(d, "decoded model too large");
        return NULL;
    }
    size_t bytes = (n * size + sizeof(max_align_t) - 1) / sizeof(max_align_t) * sizeof(max_align_t);
    if (bytes > a->budget - a->spent) {
        *st = fail(d, "the decoded model would exceed %zu bytes (%d times the file plus 1 MiB): tables in the "
                      "file share data",
                   a->budget, RIP_TFL_DECODE_FACTOR);
        return NULL;
    }
    arena_chunk *c = a->head;
    if (!c || c->cap - c->used < bytes) {
        size_t cap = bytes > ARENA_CHUNK ? bytes : ARENA_CHUNK;
        c = malloc(sizeof *c + cap);
        if (!c) {
            *st = RIP_S_NOMEM;
            snprintf(d->err, RIP_ERR_LEN, "%.200s: out of memory", d->m->label ? d->m->label : "model");
            return NULL;
        }
        c->used = 0;
        c->cap = cap;
        /* a big block goes behind the current chunk, so its free room stays in use */
        if (a->head && bytes > ARENA_CHUNK) {
            c->next = a->head->next;
            a->head->next = c;
        } else {
            c->next = a->head;
            a->head = c;
        }
    }
    void *p = (char *)c->data + c->used;
    c->used += bytes;
    a->spent += bytes;
    memset(p, 0, bytes);
    return p;
}

/* ---- copies out of the file --------------------------------------------- */

/* A string field copied as a C string ("" when absent). */
static rip_status copy_string(dec *d, const rip_fbs_table *t, unsigned field, const char *name, char **out,
                              bool *present_out)
{
    const char *s;
    uint32_t len;
    bool present;
    rip_status st;
    if (rip_fbs_string_field(&d->f, t, field, &s, &len, &present, d->why) != RIP_OK)
        return fail_field(d, name);
    push(d, name, -1);
    char *c = alloc(d, (size_t)len + 1, 1, &st);
    pop(d);
    if (!c)
        return st;
    if (len)
        memcpy(c, s, len);
    *out = c;
    if (present_out)
        *present_out = present;
    return RIP_OK;
}

typedef enum { EL_I32, EL_I64, EL_F32 } elem_kind;

/* A vector field of scalars copied into an array (NULL and 0 when absent). */
static rip_status copy_vec(dec *d, const rip_fbs_table *t, unsigned field, const char *name, elem_kind k,
                           size_t *n, void **out, bool *present)
{
    rip_fbs_vec v;
    bool here;
    rip_status st;
    size_t elem = k == EL_I64 ? 8 : 4;
    if (rip_fbs_vec_field(&d->f, t, field, elem, &v, &here, d->why) != RIP_OK)
        return fail_field(d, name);
    *n = v.n;
    *out = NULL;
    if (present)
        *present = here;
    if (v.n == 0)
        return RIP_OK;
    push(d, name, -1);
    void *a = alloc(d, v.n, elem, &st);
    pop(d);
    if (!a)
        return st;
    for (uint32_t i = 0; i < v.n; i++) {
        if (k == EL_I32)
            ((int32_t *)a)[i] = rip_fbs_vec_i32(&d->f, &v, i);
        else if (k == EL_I64)
            ((int64_t *)a)[i] = rip_fbs_vec_i64(&d->f, &v, i);
        else
            ((float *)a)[i] = rip_fbs_vec_f32(&d->f, &v, i);
    }
    *out = a;
    return RIP_OK;
}

static rip_status copy_i32s(dec *d, const rip_fbs_table *t, unsigned field, const char *name, size_t *n,
                            int32_t **out, bool *present)
{
    void *p;
    rip_status st = copy_vec(d, t, field, name, EL_I32, n, &p, present);
    *out = p;
    return st;
}

static rip_status copy_f32s(dec *d, const rip_fbs_table *t, unsigned field, const char *name, size_t *n,
                            float **out)
{
    void *p;
    rip_status st = copy_vec(d, t, field, name, EL_F32, n, &p, NULL);
    *out = p;
    return st;
}

/* Scalar reads naming the field on failure. */
#define READ(d, fn, t, field, name, def, out)                                                                    \
    do {                                                                                                         \
        if (fn(&(d)->f, (t), (field), (def), (out), (d)->why) != RIP_OK)                                         \
            return fail_field((d), (name));                                                                      \
    } while (0)

/* A vector of tables: *v checked, *n its count, *items an array of n elements of size bytes. */
static rip_status table_vec(dec *d, const rip_fbs_table *t, unsigned field, const char *name, size_t size,
                            rip_fbs_vec *v, size_t *n, void **items)
{
    bool present;
    rip_status st;
    if (rip_fbs_vec_field(&d->f, t, field, 4, v, &present, d->why) != RIP_OK)
        return fail_field(d, name);
    *n = v->n;
    *items = NULL;
    push(d, name, -1);
    *items = v->n ? alloc(d, v->n, size, &st) : NULL;
    pop(d);
    if (v->n && !*items)
        return st;
    return RIP_OK;
}

/* Element i of a vector of tables, its path part pushed (the caller pops). */
static rip_status table_item(dec *d, const rip_fbs_vec *v, uint32_t i, const char *what, rip_fbs_table *t)
{
    push(d, what, (long)i);
    if (rip_fbs_vec_table(&d->f, v, i, t, d->why) != RIP_OK)
        return fail(d, "%s", d->why);
    return RIP_OK;
}

/* ---- the schema --------------------------------------------------------- */

/* QuantizationParameters: min 0, max 1, scale 2, zero_point 3, details 4+5, quantized_dimension 6. */
static rip_status decode_quant(dec *d, const rip_fbs_table *t, rip_tfl_quant *q)
{
    rip_status st;
    void *zp;
    rip_fbs_table details;
    bool has_details;
    q->present = true;
    if ((st = copy_f32s(d, t, 0, "min", &q->n_min, &q->min)) != RIP_OK ||
        (st = copy_f32s(d, t, 1, "max", &q->n_max, &q->max)) != RIP_OK ||
        (st = copy_f32s(d, t, 2, "scale", &q->n_scale, &q->scale)) != RIP_OK ||
        (st = copy_vec(d, t, 3, "zero_point", EL_I64, &q->n_zero_point, &zp, NULL)) != RIP_OK)
        return st;
    q->zero_point = zp;
    if (rip_fbs_union_field(&d->f, t, 4, &q->details_type, &details, &has_details, d->why) != RIP_OK)
        return fail_field(d, "details");
    READ(d, rip_fbs_i32, t, 6, "quantized_dimension", 0, &q->quantized_dimension);
    return RIP_OK;
}

/* Tensor: shape 0, type 1, buffer 2, name 3, quantization 4, is_variable 5, sparsity 6,
** shape_signature 7, has_rank 8, variant_tensors 9, external_buffer 10. */
static rip_status decode_tensor(dec *d, const rip_fbs_table *t, rip_tfl_tensor *x)
{
    rip_status st;
    int8_t type;
    uint32_t external;
    rip_fbs_table q;
    bool has_q;
    if ((st = copy_i32s(d, t, 0, "shape", &x->rank, &x->shape, NULL)) != RIP_OK)
        return st;
    READ(d, rip_fbs_i8, t, 1, "type", 0, &type);
    x->type = type;
    READ(d, rip_fbs_u32, t, 2, "buffer", 0, &x->buffer);
    if ((st = copy_string(d, t, 3, "name", &x->name, NULL)) != RIP_OK)
        return st;
    if (rip_fbs_table_field(&d->f, t, 4, &q, &has_q, d->why) != RIP_OK)
        return fail_field(d, "quantization");
    if (has_q) {
        push(d, "quantization", -1);
        st = decode_quant(d, &q, &x->quant);
        pop(d);
        if (st != RIP_OK)
            return st;
    }
    READ(d, rip_fbs_bool, t, 5, "is_variable", false, &x->is_variable);
    x->has_sparsity = rip_fbs_has(&d->f, t, 6);
    if ((st = copy_i32s(d, t, 7, "shape_signature", &x->n_shape_signature, &x->shape_signature,
                        &x->has_shape_signature)) != RIP_OK)
        return st;
    READ(d, rip_fbs_bool, t, 8, "has_rank", false, &x->has_rank);
    READ(d, rip_fbs_u32, t, 10, "external_buffer", 0, &external);
    if (external != 0)
        return fail(d, "external buffer %lu: tensor data outside the file is not supported", (unsigned long)external);
    return RIP_OK;
}

/* The fields of one decoded options table (o already holds its defaults). */
static rip_status decode_options(dec *d, int type, const rip_fbs_table *t, rip_tfl_options *o)
{
    rip_status st;
    switch (type) {
    case RIP_TFL_OPT_CONV_2D:   /* padding 0, stride_w 1, stride_h 2, activation 3, dilation 4 5, bias type 6 */
        READ(d, rip_fbs_i8, t, 0, "padding", 0, &o->conv.padding);
        READ(d, rip_fbs_i32, t, 1, "stride_w", 0, &o->conv.stride_w);
        READ(d, rip_fbs_i32, t, 2, "stride_h", 0, &o->conv.stride_h);
        READ(d, rip_fbs_i8, t, 3, "fused_activation_function", 0, &o->conv.activation);
        READ(d, rip_fbs_i32, t, 4, "dilation_w_factor", 1, &o->conv.dilation_w);
        READ(d, rip_fbs_i32, t, 5, "dilation_h_factor", 1, &o->conv.dilation_h);
        READ(d, rip_fbs_i8, t, 6, "quantized_bias_type", 0, &o->conv.quantized_bias_type);
        break;
    case RIP_TFL_OPT_DEPTHWISE_CONV_2D:   /* padding 0, strides 1 2, depth_multiplier 3, activation 4, dilation 5 6 */
        READ(d, rip_fbs_i8, t, 0, "padding", 0, &o->dw.padding);
        READ(d, rip_fbs_i32, t, 1, "stride_w", 0, &o->dw.stride_w);
        READ(d, rip_fbs_i32, t, 2, "stride_h", 0, &o->dw.stride_h);
        READ(d, rip_fbs_i32, t, 3, "depth_multiplier", 0, &o->dw.depth_multiplier);
        READ(d, rip_fbs_i8, t, 4, "fused_activation_function", 0, &o->dw.activation);
        READ(d, rip_fbs_i32, t, 5, "dilation_w_factor", 1, &o->dw.dilation_w);
        READ(d, rip_fbs_i32, t, 6, "dilation_h_factor", 1, &o->dw.dilation_h);
        break;
    case RIP_TFL_OPT_POOL_2D:   /* padding 0, strides 1 2, filter_width 3, filter_height 4, activation 5 */
        READ(d, rip_fbs_i8, t, 0, "padding", 0, &o->pool.padding);
        READ(d, rip_fbs_i32, t, 1, "stride_w", 0, &o->pool.stride_w);
        READ(d, rip_fbs_i32, t, 2, "stride_h", 0, &o->pool.stride_h);
        READ(d, rip_fbs_i32, t, 3, "filter_width", 0, &o->pool.filter_w);
        READ(d, rip_fbs_i32, t, 4, "filter_height", 0, &o->pool.filter_h);
        READ(d, rip_fbs_i8, t, 5, "fused_activation_function", 0, &o->pool.activation);
        break;
    case RIP_TFL_OPT_FULLY_CONNECTED:   /* activation 0, weights_format 1, keep_num_dims 2, asymmetric 3, bias type 4 */
        READ(d, rip_fbs_i8, t, 0, "fused_activation_function", 0, &o->fc.activation);
        READ(d, rip_fbs_i8, t, 1, "weights_format", 0, &o->fc.weights_format);
        READ(d, rip_fbs_bool, t, 2, "keep_num_dims", false, &o->fc.keep_num_dims);
        READ(d, rip_fbs_bool, t, 3, "asymmetric_quantize_inputs", false, &o->fc.asymmetric_quantize_inputs);
        READ(d, rip_fbs_i8, t, 4, "quantized_bias_type", 0, &o->fc.quantized_bias_type);
        break;
    case RIP_TFL_OPT_SOFTMAX:   /* beta 0 */
        READ(d, rip_fbs_f32, t, 0, "beta", 0.0f, &o->softmax.beta);
        break;
    case RIP_TFL_OPT_CONCATENATION:   /* axis 0, activation 1 */
        READ(d, rip_fbs_i32, t, 0, "axis", 0, &o->concat.axis);
        READ(d, rip_fbs_i8, t, 1, "fused_activation_function", 0, &o->concat.activation);
        break;
    case RIP_TFL_OPT_ADD:   /* activation 0, pot_scale_int16 1 (default true) */
        READ(d, rip_fbs_i8, t, 0, "fused_activation_function", 0, &o->add.activation);
        READ(d, rip_fbs_bool, t, 1, "pot_scale_int16", true, &o->add.pot_scale_int16);
        break;
    case RIP_TFL_OPT_REDUCER:   /* keep_dims 0 */
        READ(d, rip_fbs_bool, t, 0, "keep_dims", false, &o->reducer.keep_dims);
        break;
    case RIP_TFL_OPT_RESHAPE:   /* new_shape 0 */
        if ((st = copy_i32s(d, t, 0, "new_shape", &o->reshape.n_new_shape, &o->reshape.new_shape,
                            &o->reshape.has_new_shape)) != RIP_OK)
            return st;
        break;
    case RIP_TFL_OPT_RESIZE_NEAREST_NEIGHBOR:   /* align_corners 0, half_pixel_centers 1 */
        READ(d, rip_fbs_bool, t, 0, "align_corners", false, &o->resize_nn.align_corners);
        READ(d, rip_fbs_bool, t, 1, "half_pixel_centers", false, &o->resize_nn.half_pixel_centers);
        break;
    }
    return RIP_OK;
}

static bool is_decoded_type(int type)
{
    switch (type) {
    case RIP_TFL_OPT_CONV_2D: case RIP_TFL_OPT_DEPTHWISE_CONV_2D: case RIP_TFL_OPT_POOL_2D:
    case RIP_TFL_OPT_FULLY_CONNECTED: case RIP_TFL_OPT_SOFTMAX: case RIP_TFL_OPT_CONCATENATION:
    case RIP_TFL_OPT_ADD: case RIP_TFL_OPT_RESHAPE: case RIP_TFL_OPT_PAD: case RIP_TFL_OPT_TRANSPOSE:
    case RIP_TFL_OPT_REDUCER: case RIP_TFL_OPT_DEQUANTIZE: case RIP_TFL_OPT_RESIZE_NEAREST_NEIGHBOR:
    case RIP_TFL_OPT_QUANTIZE:
        return true;
    }
    return false;
}

/* Operator: opcode_index 0, inputs 1, outputs 2, builtin_options 3+4, custom_options 5,
** custom_options_format 6, mutating_variable_inputs 7, intermediates 8,
** large_custom_options_offset 9, large_custom_options_size 10, builtin_options_2 11+12. */
static rip_status decode_operator(dec *d, const rip_fbs_table *t, rip_tfl_operator *op)
{
    rip_status st;
    uint8_t type, type2;
    rip_fbs_table opt, opt2;
    bool has_opt, has_opt2, has_custom;
    rip_fbs_vec custom;
    uint64_t large_off, large_size;
    READ(d, rip_fbs_u32, t, 0, "opcode_index", 0, &op->opcode_index);
    if ((st = copy_i32s(d, t, 1, "inputs", &op->n_inputs, &op->inputs, NULL)) != RIP_OK ||
        (st = copy_i32s(d, t, 2, "outputs", &op->n_outputs, &op->outputs, NULL)) != RIP_OK ||
        (st = copy_i32s(d, t, 8, "intermediates", &op->n_intermediates, &op->intermediates, NULL)) != RIP_OK)
        return st;
    if (rip_fbs_union_field(&d->f, t, 3, &type, &opt, &has_opt, d->why) != RIP_OK)
        return fail_field(d, "builtin_options");
    op->options_type = type;
    int want = type;
    if (type == RIP_TFL_OPT_NONE) {
        const rip_tfl_opcode *code = rip_tfl_op_code(d->m, op);
        want = code ? rip_tfl_options_of_op(code->builtin) : RIP_TFL_OPT_NONE;
    }
    if (is_decoded_type(want)) {
        rip_tfl_options_default(want, &op->opt);
        op->options_decoded = true;
        if (has_opt && type != RIP_TFL_OPT_NONE) {
            push(d, rip_tfl_options_name(type), -1);
            st = decode_options(d, type, &opt, &op->opt);
            pop(d);
            if (st != RIP_OK)
                return st;
        }
    }
    if (rip_fbs_vec_field(&d->f, t, 5, 1, &custom, &has_custom, d->why) != RIP_OK)
        return fail_field(d, "custom_options");
    op->custom_options_size = custom.n;
    op->custom_options = custom.n ? d->f.buf + custom.pos : NULL;
    READ(d, rip_fbs_u64, t, 9, "large_custom_options_offset", 0, &large_off);
    READ(d, rip_fbs_u64, t, 10, "large_custom_options_size", 0, &large_size);
    if (large_off > 1)
        return fail(d, "custom options outside the flatbuffer (offset %llu, size %llu; models over 2 GiB) are not "
                       "supported",
                    (unsigned long long)large_off, (unsigned long long)large_size);
    if (rip_fbs_union_field(&d->f, t, 11, &type2, &opt2, &has_opt2, d->why) != RIP_OK)
        return fail_field(d, "builtin_options_2");
    op->options_2_type = type2;
    return RIP_OK;
}

/* SubGraph: tensors 0, inputs 1, outputs 2, operators 3, name 4. */
static rip_status decode_subgraph(dec *d, const rip_fbs_table *t, rip_tfl_subgraph *sg)
{
    rip_status st;
    rip_fbs_vec v;
    void *items;
    if ((st = table_vec(d, t, 0, "tensors", sizeof(rip_tfl_tensor), &v, &sg->n_tensors, &items)) != RIP_OK)
        return st;
    sg->tensors = items;
    for (uint32_t i = 0; i < v.n; i++) {
        rip_fbs_table x;
        if ((st = table_item(d, &v, i, "tensor", &x)) != RIP_OK || (st = decode_tensor(d, &x, &sg->tensors[i])) != RIP_OK)
            return st;
        pop(d);
    }
    if ((st = copy_i32s(d, t, 1, "inputs", &sg->n_inputs, &sg->inputs, NULL)) != RIP_OK ||
        (st = copy_i32s(d, t, 2, "outputs", &sg->n_outputs, &sg->outputs, NULL)) != RIP_OK)
        return st;
    if ((st = table_vec(d, t, 3, "operators", sizeof(rip_tfl_operator), &v, &sg->n_operators, &items)) != RIP_OK)
        return st;
    sg->operators = items;
    for (uint32_t i = 0; i < v.n; i++) {
        rip_fbs_table x;
        if ((st = table_item(d, &v, i, "operator", &x)) != RIP_OK ||
            (st = decode_operator(d, &x, &sg->operators[i])) != RIP_OK)
            return st;
        pop(d);
    }
    return copy_string(d, t, 4, "name", &sg->name, NULL);
}

/* OperatorCode: deprecated_builtin_code 0, custom_code 1, version 2 (default 1), builtin_code 3. */
static rip_status decode_opcode(dec *d, const rip_fbs_table *t, rip_tfl_opcode *c)
{
    rip_status st;
    bool has_custom;
    READ(d, rip_fbs_i8, t, 0, "deprecated_builtin_code", 0, &c->deprecated_builtin_code);
    if ((st = copy_string(d, t, 1, "custom_code", &c->custom_code, &has_custom)) != RIP_OK)
        return st;
    if (!has_custom)
        c->custom_code = NULL;
    READ(d, rip_fbs_i32, t, 2, "version", 1, &c->version);
    READ(d, rip_fbs_i32, t, 3, "builtin_code", 0, &c->builtin_code);
    c->builtin = c->builtin_code > c->deprecated_builtin_code ? c->builtin_code : c->deprecated_builtin_code;
    return RIP_OK;
}

/* Buffer: data 0, offset 1, size 2 (the last two for data outside the flatbuffer). */
static rip_status decode_buffer(dec *d, const rip_fbs_table *t, rip_tfl_buffer *b)
{
    rip_fbs_vec v;
    bool present;
    uint64_t offset, size;
    if (rip_fbs_vec_field(&d->f, t, 0, 1, &v, &present, d->why) != RIP_OK)
        return fail_field(d, "data");
    b->size = v.n;
    b->data = v.n ? d->f.buf + v.pos : NULL;
    READ(d, rip_fbs_u64, t, 1, "offset", 0, &offset);
    READ(d, rip_fbs_u64, t, 2, "size", 0, &size);
    /* the schema: offset "is only valid if > 1" */
    if (offset > 1)
        return fail(d, "data outside the flatbuffer (offset %llu, size %llu; models over 2 GiB) is not supported",
                    (unsigned long long)offset, (unsigned long long)size);
    return RIP_OK;
}

/* Metadata: name 0, buffer 1. */
static rip_status decode_metadata(dec *d, const rip_fbs_table *t, rip_tfl_metadata *md)
{
    rip_status st = copy_string(d, t, 0, "name", &md->name, NULL);
    if (st != RIP_OK)
        return st;
    READ(d, rip_fbs_u32, t, 1, "buffer", 0, &md->buffer);
    return RIP_OK;
}

/* Decode every element of the vector of tables in field `field` of t. */
#define DECODE_VEC(d, t, field, vecname, itemname, count, arr, fn)                                               \
    do {                                                                                                         \
        rip_fbs_vec v_;                                                                                          \
        void *items_;                                                                                            \
        if ((st = table_vec(d, t, field, vecname, sizeof *(arr), &v_, &(count), &items_)) != RIP_OK)             \
            return st;                                                                                           \
        (arr) = items_;                                                                                          \
        for (uint32_t i_ = 0; i_ < v_.n; i_++) {                                                                 \
            rip_fbs_table x_;                                                                                    \
            if ((st = table_item(d, &v_, i_, itemname, &x_)) != RIP_OK || (st = fn(d, &x_, &(arr)[i_])) != RIP_OK) \
                return st;                                                                                       \
            pop(d);                                                                                              \
        }                                                                                                        \
    } while (0)

/* Model: version 0, operator_codes 1, subgraphs 2, description 3, buffers 4, metadata_buffer 5,
** metadata 6, signature_defs 7.  Operator codes first: an operator's options default by its code. */
static rip_status decode_model(dec *d)
{
    rip_status st;
    rip_fbs_table root;
    rip_tfl_model *m = d->m;
    rip_fbs_vec sigs;
    bool present;
    if (rip_fbs_root(&d->f, "TFL3", &root, d->why) != RIP_OK)
        return fail(d, "not a TFLite model: %s", d->why);
    READ(d, rip_fbs_u32, &root, 0, "version", 0, &m->version);
    if ((st = copy_string(d, &root, 3, "description", &m->description, NULL)) != RIP_OK)
        return st;
    DECODE_VEC(d, &root, 1, "operator_codes", "operator code", m->n_opcodes, m->opcodes, decode_opcode);
    DECODE_VEC(d, &root, 4, "buffers", "buffer", m->n_buffers, m->buffers, decode_buffer);
    DECODE_VEC(d, &root, 6, "metadata", "metadata", m->n_metadata, m->metadata, decode_metadata);
    if (rip_fbs_vec_field(&d->f, &root, 7, 4, &sigs, &present, d->why) != RIP_OK)
        return fail_field(d, "signature_defs");
    m->n_signature_defs = sigs.n;
    DECODE_VEC(d, &root, 2, "subgraphs", "subgraph", m->n_subgraphs, m->subgraphs, decode_subgraph);
    return RIP_OK;
}

/* Decode the file m->file (owned by m); on failure m is emptied. */
static rip_status decode_owned(rip_tfl_model *m, char err[RIP_ERR_LEN])
{
    dec d = {.f = {.buf = m->file, .len = m->file_len}, .m = m, .err = err};
    rip_status st;
    err[0] = '\0';
    /* no multiplication can overflow: file_len <= RIP_TFL_FILE_MAX */
    m->arena->budget = m->file_len * RIP_TFL_DECODE_FACTOR + ((size_t)1 << 20);
    st = decode_model(&d);
    if (st != RIP_OK)
        rip_tfl_model_free(m);
    return st;
}

/* An empty model owning file (len bytes) and a copy of label; RIP_S_NOMEM after freeing file. */
static rip_status begin(rip_tfl_model *m, uint8_t *file, size_t len, const char *label, char err[RIP_ERR_LEN])
{
    memset(m, 0, sizeof *m);
    m->file = file;
    m->file_len = len;
    m->arena = calloc(1, sizeof *m->arena);
    m->label = strdup(label ? label : "model");
    if (!m->arena || !m->label) {
        snprintf(err, RIP_ERR_LEN, "%.200s: out of memory", label ? label : "model");
        rip_tfl_model_free(m);
        return RIP_S_NOMEM;
    }
    return RIP_OK;
}

rip_status rip_tfl_model_parse(const uint8_t *bytes, size_t len, const char *label, rip_tfl_model *m,
                               char err[RIP_ERR_LEN])
{
    memset(m, 0, sizeof *m);
    if (len > RIP_TFL_FILE_MAX) {
        snprintf(err, RIP_ERR_LEN, "%.200s: %zu bytes: larger than a flatbuffer can be (2 GiB)",
                 label ? label : "model", len);
        return RIP_S_DATA;
    }
    uint8_t *copy = malloc(len ? len : 1);
    if (!copy) {
        snprintf(err, RIP_ERR_LEN, "%.200s: out of memory", label ? label : "model");
        return RIP_S_NOMEM;
    }
    if (len)
        memcpy(copy, bytes, len);
    rip_status st = begin(m, copy, len, label, err);
    return st != RIP_OK ? st : decode_owned(m, err);
}

rip_status rip_tfl_model_load(const char *path, rip_tfl_model *m, char err[RIP_ERR_LEN])
{
    memset(m, 0, sizeof *m);
    rip_status st = RIP_OK;
    uint8_t *buf = NULL;
    struct stat sb;
    FILE *fp = fopen(path, "rb");
    if (!fp) {
        snprintf(err, RIP_ERR_LEN, "%.200s: cannot open: %s", path, strerror(errno));
        return RIP_S_NOINPUT;
    }
    if (fstat(fileno(fp), &sb) != 0 || !S_ISREG(sb.st_mode)) {
        snprintf(err, RIP_ERR_LEN, "%.200s: not a regular file", path);
        st = RIP_S_NOINPUT;
    } else if ((uint64_t)sb.st_size > RIP_TFL_FILE_MAX) {
        snprintf(err, RIP_ERR_LEN, "%.200s: %lld bytes: larger than a flatbuffer can be (2 GiB)", path,
                 (long long)sb.st_size);
        st = RIP_S_DATA;
    } else if (!(buf = malloc(sb.st_size ? (size_t)sb.st_size : 1))) {
        snprintf(err, RIP_ERR_LEN, "%.200s: out of memory", path);
        st = RIP_S_NOMEM;
    } else if (fread(buf, 1, (size_t)sb.st_size, fp) != (size_t)sb.st_size || ferror(fp)) {
        snprintf(err, RIP_ERR_LEN, "%.200s: read error: %s", path, ferror(fp) ? strerror(errno) : "file shrank");
        st = RIP_S_IO;
    }
    fclose(fp);
    if (st != RIP_OK) {
        free(buf);
        return st;
    }
    if ((st = begin(m, buf, (size_t)sb.st_size, path, err)) != RIP_OK)
        return st;
    return decode_owned(m, err);
}

bool rip_tfl_file_is_model(const char *path)
{
    uint8_t head[8];
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return false;
    bool is = fread(head, 1, sizeof head, fp) == sizeof head && memcmp(head + 4, "TFL3", 4) == 0;
    fclose(fp);
    return is;
}

void rip_tfl_model_free(rip_tfl_model *m)
{
    if (!m)
        return;
    arena_free(m->arena);
    free(m->file);
    free(m->label);
    memset(m, 0, sizeof *m);
}

const rip_tfl_opcode *rip_tfl_op_code(const rip_tfl_model *m, const rip_tfl_operator *op)
{
    return op->opcode_index < m->n_opcodes ? &m->opcodes[op->opcode_index] : NULL;
}

const uint8_t *rip_tfl_tensor_data(const rip_tfl_model *m, const rip_tfl_tensor *t, size_t *bytes)
{
    if (t->buffer >= m->n_buffers || m->buffers[t->buffer].size == 0) {
        *bytes = 0;
        return NULL;
    }
    *bytes = m->buffers[t->buffer].size;
    return m->buffers[t->buffer].data;
}

const rip_tfl_metadata *rip_tfl_metadata_find(const rip_tfl_model *m, const char *name)
{
    for (size_t i = 0; i < m->n_metadata; i++)
        if (strcmp(m->metadata[i].name, name) == 0)
            return &m->metadata[i];
    return NULL;
}

void rip_tfl_tensor_label(const rip_tfl_subgraph *sg, int32_t t, char *out, size_t out_len)
{
    const char *name = t >= 0 && (size_t)t < sg->n_tensors ? sg->tensors[t].name : "";
    if (strlen(name) > 60)
        snprintf(out, out_len, "tensor %ld (%.57s...)", (long)t, name);
    else
        snprintf(out, out_len, "tensor %ld (%s)", (long)t, name);
    rip_err_one_line(out);
}
