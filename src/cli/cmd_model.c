/*
** cmd_model.c — `ripsim model MODEL.tflite [--json] [--no-check]`: read a
** TFLite model (src/tflite/tfl_model.h), check that ripsim supports it
** (tfl_check.h) and print what it holds: tensors, operators with their
** parameters, the graph's inputs and outputs, metadata.
**
** A model the reader or the check refuses is one line on stderr (exit 65)
** and nothing on stdout.  The exit statuses are the table `exits` below
** (also printed by --help).
*/
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "args.h"
#include "cli.h"
#include "json_out.h"
#include "out.h"
#include "tfl_check.h"
#include "tfl_model.h"

static const char about[] =
    "Read a TFLite flatbuffer model (.tflite, schema \"TFL3\") and check that ripsim\n"
    "can run it: int8 activations (one scale and zero point per tensor), int8\n"
    "weights per tensor or per channel, int32 bias, fused NONE/RELU/RELU6, the\n"
    "operators CONV_2D DEPTHWISE_CONV_2D FULLY_CONNECTED AVERAGE_POOL_2D\n"
    "MAX_POOL_2D ADD MEAN SOFTMAX RESHAPE PAD TRANSPOSE CONCATENATION\n"
    "RESIZE_NEAREST_NEIGHBOR, and QUANTIZE/DEQUANTIZE at float32 model inputs\n"
    "and outputs; one subgraph.  Then print the model: its inputs and outputs,\n"
    "every operator with its tensors and options, every tensor (type, shape,\n"
    "quantization, constant bytes) and the metadata names.\n";

static const char notes[] =
    "Every offset, vtable, vector and string of the file is bounds-checked: a\n"
    "truncated, hostile or non-TFLite file is refused in one line naming where\n"
    "(\"MODEL.tflite: subgraph 0: tensor 12: shape: vector ... runs past the end\n"
    "of the file\").  An operator outside the supported set is refused as\n"
    "\"MODEL.tflite: operator N (NAME): not supported\".  --json prints one object:\n"
    "model, bytes, version, description, checked, operator_codes, subgraphs (name,\n"
    "inputs, outputs, tensors, operators), metadata; scales are printed with 9\n"
    "significant digits (exact for float32).\n";

static const rip_exit_doc exits[] = {
    {0, "read and checked (with --no-check: read)"},
    {64, "bad command line"},
    {65, "not a TFLite model, a damaged one, or one ripsim does not support (the message says which)"},
    {66, "MODEL cannot be opened or is not a regular file"},
    {71, "out of memory"},
    {74, "MODEL cannot be read, or standard output cannot be written"},
};

/* ---- options as name/value pairs, for both outputs ---------------------- */

typedef enum { KV_INT, KV_BOOL, KV_NAME, KV_REAL, KV_INTS } kv_kind;

typedef struct kv {
    const char *key;
    kv_kind kind;
    long long i;
    const char *name;       /* KV_NAME: the enum's schema name (NULL: print i) */
    double real;
    const int32_t *ints;
    size_t n_ints;
} kv;

#define KV_MAX 8

static size_t kv_int(kv *o, size_t n, const char *key, long long v)
{
    o[n] = (kv){.key = key, .kind = KV_INT, .i = v};
    return n + 1;
}

static size_t kv_bool(kv *o, size_t n, const char *key, bool v)
{
    o[n] = (kv){.key = key, .kind = KV_BOOL, .i = v};
    return n + 1;
}

static size_t kv_name(kv *o, size_t n, const char *key, int v, const char *name)
{
    o[n] = (kv){.key = key, .kind = KV_NAME, .i = v, .name = name};
    return n + 1;
}

/* The decoded options of op as pairs (none for the empty tables and unknown types). */
static size_t options_kv(const rip_tfl_operator *op, int type, kv *o)
{
    const rip_tfl_options *x = &op->opt;
    size_t n = 0;
    if (!op->options_decoded)
        return 0;
    switch (type) {
    case RIP_TFL_OPT_CONV_2D:
        n = kv_name(o, n, "padding", x->conv.padding, rip_tfl_padding_name(x->conv.padding));
        n = kv_int(o, n, "stride_h", x->conv.stride_h);
        n = kv_int(o, n, "stride_w", x->conv.stride_w);
        n = kv_int(o, n, "dilation_h_factor", x->conv.dilation_h);
        n = kv_int(o, n, "dilation_w_factor", x->conv.dilation_w);
        n = kv_name(o, n, "fused_activation_function", x->conv.activation, rip_tfl_activation_name(x->conv.activation));
        n = kv_name(o, n, "quantized_bias_type", x->conv.quantized_bias_type,
                    rip_tfl_type_name(x->conv.quantized_bias_type));
        break;
    case RIP_TFL_OPT_DEPTHWISE_CONV_2D:
        n = kv_name(o, n, "padding", x->dw.padding, rip_tfl_padding_name(x->dw.padding));
        n = kv_int(o, n, "stride_h", x->dw.stride_h);
        n = kv_int(o, n, "stride_w", x->dw.stride_w);
        n = kv_int(o, n, "depth_multiplier", x->dw.depth_multiplier);
        n = kv_int(o, n, "dilation_h_factor", x->dw.dilation_h);
        n = kv_int(o, n, "dilation_w_factor", x->dw.dilation_w);
        n = kv_name(o, n, "fused_activation_function", x->dw.activation, rip_tfl_activation_name(x->dw.activation));
        break;
    case RIP_TFL_OPT_POOL_2D:
        n = kv_name(o, n, "padding", x->pool.padding, rip_tfl_padding_name(x->pool.padding));
        n = kv_int(o, n, "stride_h", x->pool.stride_h);
        n = kv_int(o, n, "stride_w", x->pool.stride_w);
        n = kv_int(o, n, "filter_height", x->pool.filter_h);
        n = kv_int(o, n, "filter_width", x->pool.filter_w);
        n = kv_name(o, n, "fused_activation_function", x->pool.activation, rip_tfl_activation_name(x->pool.activation));
        break;
    case RIP_TFL_OPT_FULLY_CONNECTED:
        n = kv_name(o, n, "fused_activation_function", x->fc.activation, rip_tfl_activation_name(x->fc.activation));
        n = kv_name(o, n, "weights_format", x->fc.weights_format, x->fc.weights_format == 0 ? "DEFAULT" : NULL);
        n = kv_bool(o, n, "keep_num_dims", x->fc.keep_num_dims);
        n = kv_bool(o, n, "asymmetric_quantize_inputs", x->fc.asymmetric_quantize_inputs);
        n = kv_name(o, n, "quantized_bias_type", x->fc.quantized_bias_type, rip_tfl_type_name(x->fc.quantized_bias_type));
        break;
    case RIP_TFL_OPT_SOFTMAX:
        o[n++] = (kv){.key = "beta", .kind = KV_REAL, .real = x->softmax.beta};
        break;
    case RIP_TFL_OPT_CONCATENATION:
        n = kv_int(o, n, "axis", x->concat.axis);
        n = kv_name(o, n, "fused_activation_function", x->concat.activation,
                    rip_tfl_activation_name(x->concat.activation));
        break;
    case RIP_TFL_OPT_ADD:
        n = kv_name(o, n, "fused_activation_function", x->add.activation, rip_tfl_activation_name(x->add.activation));
        n = kv_bool(o, n, "pot_scale_int16", x->add.pot_scale_int16);
        break;
    case RIP_TFL_OPT_REDUCER:
        n = kv_bool(o, n, "keep_dims", x->reducer.keep_dims);
        break;
    case RIP_TFL_OPT_RESHAPE:
        if (x->reshape.has_new_shape)
            o[n++] = (kv){.key = "new_shape", .kind = KV_INTS, .ints = x->reshape.new_shape,
                          .n_ints = x->reshape.n_new_shape};
        break;
    case RIP_TFL_OPT_RESIZE_NEAREST_NEIGHBOR:
        n = kv_bool(o, n, "align_corners", x->resize_nn.align_corners);
        n = kv_bool(o, n, "half_pixel_centers", x->resize_nn.half_pixel_centers);
        break;
    }
    return n;
}

/* The options type whose fields op->opt holds (the stored one, or the operator's own when none is stored). */
static int options_shown(const rip_tfl_model *m, const rip_tfl_operator *op)
{
    const rip_tfl_opcode *code = rip_tfl_op_code(m, op);
    if (op->options_type == RIP_TFL_OPT_NONE && code)
        return rip_tfl_options_of_op(code->builtin);
    return op->options_type;
}

/* ---- small printers ----------------------------------------------------- */

static void print_ints(FILE *f, const int32_t *v, size_t n)
{
    fputc('[', f);
    for (size_t i = 0; i < n; i++)
        fprintf(f, "%s%ld", i ? "," : "", (long)v[i]);
    fputc(']', f);
}

/* A float as JSON: 9 significant digits (float32 round trip), null when not finite. */
static void json_real(FILE *f, double x)
{
    if (isfinite(x))
        fprintf(f, "%.9g", x);
    else
        fputs("null", f);
}

static const char *name_or(const char *name, char *buf, size_t len, long long v)
{
    if (name)
        return name;
    snprintf(buf, len, "%lld", v);
    return buf;
}

static const char *op_name(const rip_tfl_model *m, const rip_tfl_operator *op, char *buf, size_t len)
{
    const rip_tfl_opcode *code = rip_tfl_op_code(m, op);
    if (!code)
        return "?";
    if (code->builtin == RIP_TFL_OP_CUSTOM && code->custom_code) {
        snprintf(buf, len, "CUSTOM %s", code->custom_code);
        return buf;
    }
    return name_or(rip_tfl_op_name(code->builtin), buf, len, code->builtin);
}

/* ---- the readable summary ----------------------------------------------- */

/* Text from the file, control bytes as '?' (a name holding a newline stays on its line). */
static void print_clean(const char *s)
{
    for (; *s; s++)
        putchar((unsigned char)*s < 0x20 || *s == 0x7f ? '?' : *s);
}

static void print_quant_text(const rip_tfl_tensor *t)
{
    const rip_tfl_quant *q = &t->quant;
    if (!q->present || q->n_scale == 0)
        return;
    if (q->n_scale == 1)
        printf(" scale %.9g zero point %lld", (double)q->scale[0], q->n_zero_point ? (long long)q->zero_point[0] : 0);
    else
        printf(" %zu scales along dimension %ld", q->n_scale, (long)q->quantized_dimension);
}

static void print_tensor_text(const rip_tfl_model *m, const rip_tfl_subgraph *sg, int32_t i)
{
    const rip_tfl_tensor *t = &sg->tensors[i];
    char buf[24];
    const char *type = name_or(rip_tfl_type_name(t->type), buf, sizeof buf, t->type);
    printf("  %4ld  %-7s ", (long)i, type);
    print_ints(stdout, t->shape, t->rank);
    if (rip_tfl_is_constant(m, t))
        printf("  constant %zu B (buffer %lu)", m->buffers[t->buffer].size, (unsigned long)t->buffer);
    if (t->is_variable)
        printf("  variable");
    print_quant_text(t);
    printf("  ");
    print_clean(t->name);
    printf("\n");
}

static void print_text(const rip_tfl_model *m, bool checked)
{
    const rip_tfl_subgraph *sg = &m->subgraphs[0];
    size_t n_const = 0, const_bytes = 0;
    for (size_t i = 0; i < sg->n_tensors; i++)
        if (rip_tfl_is_constant(m, &sg->tensors[i])) {
            n_const++;
            const_bytes += m->buffers[sg->tensors[i].buffer].size;
        }
    printf("model        ");
    print_clean(m->label);
    printf(" (%zu B), schema version %lu", m->file_len, (unsigned long)m->version);
    if (m->description[0]) {
        printf(", \"");
        print_clean(m->description);
        printf("\"");
    }
    printf("\n");
    printf("check        %s\n", checked ? "supported by ripsim" : "not run (--no-check)");
    printf("subgraphs    %zu; subgraph 0 \"", m->n_subgraphs);
    print_clean(sg->name);
    printf("\": %zu tensors (%zu constant, %zu B), %zu operators\n", sg->n_tensors, n_const, const_bytes,
           sg->n_operators);
    for (int side = 0; side < 2; side++) {
        size_t n = side ? sg->n_outputs : sg->n_inputs;
        const int32_t *ix = side ? sg->outputs : sg->inputs;
        printf("%s\n", side ? "outputs" : "inputs");
        for (size_t i = 0; i < n; i++)
            if (ix[i] >= 0 && (size_t)ix[i] < sg->n_tensors)
                print_tensor_text(m, sg, ix[i]);
    }
    printf("operators\n");
    for (size_t i = 0; i < sg->n_operators; i++) {
        const rip_tfl_operator *op = &sg->operators[i];
        char buf[80];
        kv o[KV_MAX];
        printf("  %4zu  ", i);
        print_clean(op_name(m, op, buf, sizeof buf));
        printf(" ");
        print_ints(stdout, op->inputs, op->n_inputs);
        printf(" -> ");
        print_ints(stdout, op->outputs, op->n_outputs);
        size_t n = options_kv(op, options_shown(m, op), o);
        for (size_t k = 0; k < n; k++) {
            printf(" %s=", o[k].key);
            switch (o[k].kind) {
            case KV_INT: printf("%lld", o[k].i); break;
            case KV_BOOL: printf("%s", o[k].i ? "true" : "false"); break;
            case KV_NAME: printf("%s", name_or(o[k].name, buf, sizeof buf, o[k].i)); break;
            case KV_REAL: printf("%.9g", o[k].real); break;
            case KV_INTS: print_ints(stdout, o[k].ints, o[k].n_ints); break;
            }
        }
        if (!op->options_decoded && op->options_type != RIP_TFL_OPT_NONE)
            printf(" options=%s (not decoded)",
                   name_or(rip_tfl_options_name(op->options_type), buf, sizeof buf, op->options_type));
        printf("\n");
    }
    printf("tensors\n");
    for (size_t i = 0; i < sg->n_tensors; i++)
        print_tensor_text(m, sg, (int32_t)i);
    printf("metadata    ");
    if (m->n_metadata == 0)
        printf(" none");
    for (size_t i = 0; i < m->n_metadata; i++) {
        const rip_tfl_metadata *md = &m->metadata[i];
        printf(" ");
        print_clean(md->name);
        printf(" (buffer %lu", (unsigned long)md->buffer);
        if (md->buffer < m->n_buffers)
            printf(", %zu B", m->buffers[md->buffer].size);
        printf(")%s", i + 1 < m->n_metadata ? "," : "");
    }
    printf("\n");
}

/* ---- JSON --------------------------------------------------------------- */

static void json_tensor(const rip_tfl_model *m, const rip_tfl_tensor *t, size_t i)
{
    const rip_tfl_quant *q = &t->quant;
    printf("{\"index\":%zu,\"name\":", i);
    rip_json_string(stdout, t->name);
    const char *type = rip_tfl_type_name(t->type);
    printf(",\"type\":");
    if (type)
        printf("\"%s\"", type);
    else
        printf("%d", t->type);
    printf(",\"shape\":");
    print_ints(stdout, t->shape, t->rank);
    printf(",\"shape_signature\":");
    if (t->has_shape_signature)
        print_ints(stdout, t->shape_signature, t->n_shape_signature);
    else
        printf("null");
    printf(",\"buffer\":%lu,\"constant_bytes\":%zu,\"is_variable\":%s,\"quantization\":", (unsigned long)t->buffer,
           rip_tfl_is_constant(m, t) ? m->buffers[t->buffer].size : 0, t->is_variable ? "true" : "false");
    if (!q->present) {
        printf("null}");
        return;
    }
    printf("{\"scale\":[");
    for (size_t k = 0; k < q->n_scale; k++) {
        printf("%s", k ? "," : "");
        json_real(stdout, q->scale[k]);
    }
    printf("],\"zero_point\":[");
    for (size_t k = 0; k < q->n_zero_point; k++)
        printf("%s%lld", k ? "," : "", (long long)q->zero_point[k]);
    printf("],\"quantized_dimension\":%ld}}", (long)q->quantized_dimension);
}

static void json_operator(const rip_tfl_model *m, const rip_tfl_operator *op, size_t i)
{
    char buf[80];
    kv o[KV_MAX];
    printf("{\"index\":%zu,\"opcode_index\":%lu,\"op\":", i, (unsigned long)op->opcode_index);
    rip_json_string(stdout, op_name(m, op, buf, sizeof buf));
    printf(",\"inputs\":");
    print_ints(stdout, op->inputs, op->n_inputs);
    printf(",\"outputs\":");
    print_ints(stdout, op->outputs, op->n_outputs);
    printf(",\"intermediates\":");
    print_ints(stdout, op->intermediates, op->n_intermediates);
    const char *oname = rip_tfl_options_name(op->options_type);
    printf(",\"options_type\":");
    if (oname)
        printf("\"%s\"", oname);
    else
        printf("%d", op->options_type);
    printf(",\"options\":");
    if (!op->options_decoded) {
        printf("null}");
        return;
    }
    printf("{");
    size_t n = options_kv(op, options_shown(m, op), o);
    for (size_t k = 0; k < n; k++) {
        printf("%s\"%s\":", k ? "," : "", o[k].key);
        switch (o[k].kind) {
        case KV_INT: printf("%lld", o[k].i); break;
        case KV_BOOL: printf("%s", o[k].i ? "true" : "false"); break;
        case KV_NAME:
            if (o[k].name)
                printf("\"%s\"", o[k].name);
            else
                printf("%lld", o[k].i);
            break;
        case KV_REAL: json_real(stdout, o[k].real); break;
        case KV_INTS: print_ints(stdout, o[k].ints, o[k].n_ints); break;
        }
    }
    printf("}}");
}

static void print_json(const rip_tfl_model *m, bool checked)
{
    printf("{\"model\":");
    rip_json_string(stdout, m->label);
    printf(",\"bytes\":%zu,\"version\":%lu,\"description\":", m->file_len, (unsigned long)m->version);
    rip_json_string(stdout, m->description);
    printf(",\"checked\":%s,\"operator_codes\":[", checked ? "true" : "false");
    for (size_t i = 0; i < m->n_opcodes; i++) {
        const rip_tfl_opcode *c = &m->opcodes[i];
        const char *name = rip_tfl_op_name(c->builtin);
        printf("%s{\"builtin\":%ld,\"name\":", i ? "," : "", (long)c->builtin);
        if (name)
            printf("\"%s\"", name);
        else
            printf("null");
        printf(",\"deprecated_builtin_code\":%d,\"builtin_code\":%ld,\"custom_code\":", c->deprecated_builtin_code,
               (long)c->builtin_code);
        if (c->custom_code)
            rip_json_string(stdout, c->custom_code);
        else
            printf("null");
        printf(",\"version\":%ld}", (long)c->version);
    }
    printf("],\"subgraphs\":[");
    for (size_t s = 0; s < m->n_subgraphs; s++) {
        const rip_tfl_subgraph *sg = &m->subgraphs[s];
        printf("%s{\"name\":", s ? "," : "");
        rip_json_string(stdout, sg->name);
        printf(",\"inputs\":");
        print_ints(stdout, sg->inputs, sg->n_inputs);
        printf(",\"outputs\":");
        print_ints(stdout, sg->outputs, sg->n_outputs);
        printf(",\"tensors\":[");
        for (size_t i = 0; i < sg->n_tensors; i++) {
            printf("%s", i ? "," : "");
            json_tensor(m, &sg->tensors[i], i);
        }
        printf("],\"operators\":[");
        for (size_t i = 0; i < sg->n_operators; i++) {
            printf("%s", i ? "," : "");
            json_operator(m, &sg->operators[i], i);
        }
        printf("]}");
    }
    printf("],\"metadata\":[");
    for (size_t i = 0; i < m->n_metadata; i++) {
        const rip_tfl_metadata *md = &m->metadata[i];
        printf("%s{\"name\":", i ? "," : "");
        rip_json_string(stdout, md->name);
        printf(",\"buffer\":%lu,\"bytes\":", (unsigned long)md->buffer);
        if (md->buffer < m->n_buffers)
            printf("%zu}", m->buffers[md->buffer].size);
        else
            printf("null}");
    }
    printf("]}\n");
}

int rip_cmd_model(int argc, char **argv)
{
    bool json = false, no_check = false;
    const char *path = NULL;
    const rip_opt opts[] = {
        {.name = "--json", .kind = RIP_OPT_FLAG, .dest = &json, .flag_value = true,
         .help = "one JSON object instead of the readable summary"},
        {.name = "--no-check", .kind = RIP_OPT_FLAG, .dest = &no_check, .flag_value = true,
         .help = "read only (the file is still bounds-checked): show a model\nripsim does not support"},
    };
    const rip_cmd cmd = {
        .name = "model", .synopsis = "MODEL.tflite [--json] [--no-check]", .about = about, .opts = opts,
        .n_opts = sizeof opts / sizeof opts[0], .pos = &path, .min_pos = 1, .max_pos = 1,
        .missing = "missing MODEL.tflite", .notes = notes, .exits = exits, .n_exits = sizeof exits / sizeof exits[0],
        .example = "ripsim model person_detect.tflite --json",
    };
    int rc = rip_args_parse(&cmd, argc, argv, stdout, stderr);
    if (rc != RIP_ARGS_CONTINUE)
        return rc;
    rip_tfl_model m;
    char err[RIP_ERR_LEN];
    rip_status st = rip_tfl_model_load(path, &m, err);
    if (st == RIP_OK && !no_check)
        st = rip_tfl_check(&m, err);
    if (st == RIP_OK && m.n_subgraphs == 0) {
        snprintf(err, sizeof err, "%.200s: no subgraph", path);
        st = RIP_S_DATA;
    }
    if (st != RIP_OK) {
        fprintf(stderr, "ripsim model: %s\n", err);
        rip_tfl_model_free(&m);
        return rip_exit_status(st);
    }
    if (json)
        print_json(&m, !no_check);
    else
        print_text(&m, !no_check);
    rip_tfl_model_free(&m);
    return rip_out_check_stdout("model");
}
