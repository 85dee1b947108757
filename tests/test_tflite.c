/*
** test_tflite.c — ripsim's TFLite reader (src/tflite/) against an outside
** reader and against broken files.
**
**   - flatc: Debian's flatc (flatbuffers-compiler) dumps every vendor model
**     as JSON with the schema (../shared/vendor/models/tflite-micro/
**     schema-flatc2.fbs), with --defaults-json so that every default the
**     reader assumes is flatc's, not this test's; the JSON is read by the
**     test's own reader (json_mini.h) and every tensor (shape, type,
**     quantization, buffer size), operator (code, inputs, outputs,
**     options: every field flatc prints), the graph's inputs and outputs,
**     the operator codes, buffers and metadata must equal what
**     rip_tfl_model_load returns.  flatc prints floats with 6 decimals:
**     scales are compared within that rounding.
**   - bad models, made here from a real model (kws_ref_model.tflite):
**     truncated at every 1/64 of its length, a flipped vtable offset in
**     each table the reader reads, an overflowing shape, a buffer index
**     out of range, a convolution whose stride does not give its output,
**     weights whose shape or scale count does not match, an int16
**     activation; each through `ripsim model`: exit 65, exactly one line
**     on stderr, nothing on stdout.  Every byte of hello_world_int8
**     flipped in turn must be read or refused, never crash (ASan).
**   - keyword_scrambled_8bit.tflite (SVDF) refused with the exact message.
**   - hand-built flatbuffers for the reader's edge cases (vtables outside
**     the file, huge offsets, strings without NUL, vector lengths that
**     overflow, shared tables over the decoding budget), and the values a
**     small hand-built model decodes to.
** The vendor models live in ../shared/vendor (not part of the project):
** without them the real-model tests are skipped with one line
** ("tflite: skipped: ..."); without flatc the comparison is skipped.
** The suite's tests are in this file (flatc, the vendor models, truncated
** models, the command line) and in tflite_patched.c, tflite_flatbuffers.c
** and tflite_graphs.c; their shared helpers in tflite_util.h.
*/
#define TMPDIR_SHARED
#include <criterion/criterion.h>
#include <criterion/hooks.h>
#include <dirent.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fbs_read.h"
#include "json_need.h"
#include "run_cmd.h"
#include "skip.h"
#include "tfl_check.h"
#include "tfl_model.h"
#include "tmpdir.h"
#include "tflite_util.h"

TEST_SUITE_WITH_TMPDIR(tflite, 900);

/* Shared with the suite's other files (declared in tflite_util.h). */
char vendor_dir[1024];             /* .../shared/vendor, "" when absent */
char models[MAX_MODELS][1400];
int n_models;

static bool have_flatc(void)
{
    return system("command -v flatc >/dev/null 2>&1") == 0;
}

ReportHook(PRE_ALL)(struct criterion_test_set *set)
{
    (void)set;
    find_models();
    if (n_models == 0)
        printf("tflite: skipped: no vendor models at %s/models: the real-model tests did not run "
               "(the hand-built flatbuffer tests did)\n",
               vendor_dir[0] ? vendor_dir : "../shared/vendor");
    else if (!have_flatc())
        printf("tflite: skipped: no flatc (apt-get install flatbuffers-compiler): the reader was not "
               "compared with flatc\n");
    fflush(stdout);
}

/* ---- (a) flatc's JSON against the reader ------------------------------------ */

/* An optional string: "" when absent. */
static const char *opt_str(const jm *o, const char *key)
{
    const jm *v = jm_get(o, key);
    return v && v->kind == JM_STR ? v->str : "";
}

/* An integer array (absent: n 0) against ours. */
static void expect_ints(const jm *o, const char *key, const int32_t *ours, size_t n, const char *where)
{
    const jm *v = jm_get(o, key);
    size_t want = v ? v->n : 0;
    cr_assert(!v || v->kind == JM_ARR, "%s: \"%s\" is not an array", where, key);
    cr_expect_eq(n, want, "%s: %s has %zu entries, flatc %zu", where, key, n, want);
    for (size_t i = 0; i < n && i < want; i++)
        cr_expect_eq(ours[i], v->items[i].i, "%s: %s[%zu] is %ld, flatc %lld", where, key, i, (long)ours[i],
                     v->items[i].i);
}

/* flatc prints a float with 6 decimals (fixed): equal within that rounding. */
static bool near6(double ours, double flatc)
{
    return fabs(ours - flatc) <= 6e-7 + 2e-7 * fabs(flatc);
}

static void expect_floats(const jm *o, const char *key, const float *ours, size_t n, const char *where)
{
    const jm *v = jm_get(o, key);
    size_t want = v ? v->n : 0;
    cr_expect_eq(n, want, "%s: %s has %zu entries, flatc %zu", where, key, n, want);
    for (size_t i = 0; i < n && i < want; i++)
        cr_expect(near6(ours[i], v->items[i].num), "%s: %s[%zu] is %.9g, flatc %.9g", where, key, i, (double)ours[i],
                  v->items[i].num);
}

static void expect_name(const char *ours, const char *flatc, const char *where, const char *what)
{
    cr_expect(ours && strcmp(ours, flatc) == 0, "%s: %s is %s, flatc %s", where, what, ours ? ours : "(none)", flatc);
}

static void compare_tensor(const rip_tfl_model *m, const rip_tfl_tensor *t, const jm *j, const jm *buffers,
                           const char *where)
{
    expect_ints(j, "shape", t->shape, t->rank, where);
    expect_name(rip_tfl_type_name(t->type), jn_str(j, "type"), where, "type");
    cr_expect_eq(t->buffer, (uint32_t)jn_int(j, "buffer"), "%s: buffer", where);
    cr_expect_str_eq(t->name, opt_str(j, "name"), "%s: name", where);
    cr_expect_eq(t->is_variable, jn_bool(j, "is_variable"), "%s: is_variable", where);
    cr_expect_eq(t->has_rank, jn_bool(j, "has_rank"), "%s: has_rank", where);
    const jm *sig = jm_get(j, "shape_signature");
    cr_expect_eq(t->has_shape_signature, sig != NULL, "%s: shape_signature present", where);
    expect_ints(j, "shape_signature", t->shape_signature, t->n_shape_signature, where);
    cr_expect_eq(t->has_sparsity, jm_get(j, "sparsity") != NULL, "%s: sparsity", where);
    /* buffer size: the JSON's data array, through the tensor's buffer index */
    if (t->buffer < buffers->n) {
        const jm *data = jm_get(&buffers->items[t->buffer], "data");
        size_t want = data ? data->n : 0;
        cr_expect_eq(m->buffers[t->buffer].size, want, "%s: buffer %u holds %zu bytes, flatc %zu", where, t->buffer,
                     m->buffers[t->buffer].size, want);
    }
    const jm *q = jm_get(j, "quantization");
    cr_expect_eq(t->quant.present, q != NULL, "%s: quantization present", where);
    if (!q || !t->quant.present)
        return;
    char qw[200];
    snprintf(qw, sizeof qw, "%s: quantization", where);
    expect_floats(q, "min", t->quant.min, t->quant.n_min, qw);
    expect_floats(q, "max", t->quant.max, t->quant.n_max, qw);
    expect_floats(q, "scale", t->quant.scale, t->quant.n_scale, qw);
    const jm *zp = jm_get(q, "zero_point");
    size_t nzp = zp ? zp->n : 0;
    cr_expect_eq(t->quant.n_zero_point, nzp, "%s: zero points", qw);
    for (size_t i = 0; i < nzp && i < t->quant.n_zero_point; i++)
        cr_expect_eq(t->quant.zero_point[i], zp->items[i].i, "%s: zero_point[%zu]", qw, i);
    cr_expect_eq(t->quant.quantized_dimension, jn_int(q, "quantized_dimension"), "%s: quantized_dimension", qw);
    expect_name(rip_tfl_options_name(0), jn_str(q, "details_type"), qw, "details_type");   /* "NONE" */
    cr_expect_eq(t->quant.details_type, 0, "%s: details", qw);
}

/* The options flatc prints for a decoded type: every key it prints is one compared here. */
static void compare_options(const rip_tfl_operator *op, int type, const jm *o, const char *where)
{
    static const char *const keys[][8] = {
        [RIP_TFL_OPT_CONV_2D] = {"padding", "stride_w", "stride_h", "fused_activation_function", "dilation_w_factor",
                                 "dilation_h_factor", "quantized_bias_type"},
        [RIP_TFL_OPT_DEPTHWISE_CONV_2D] = {"padding", "stride_w", "stride_h", "depth_multiplier",
                                           "fused_activation_function", "dilation_w_factor", "dilation_h_factor"},
        [RIP_TFL_OPT_POOL_2D] = {"padding", "stride_w", "stride_h", "filter_width", "filter_height",
                                 "fused_activation_function"},
        [RIP_TFL_OPT_FULLY_CONNECTED] = {"fused_activation_function", "weights_format", "keep_num_dims",
                                         "asymmetric_quantize_inputs", "quantized_bias_type"},
        [RIP_TFL_OPT_SOFTMAX] = {"beta"},
        [RIP_TFL_OPT_CONCATENATION] = {"axis", "fused_activation_function"},
        [RIP_TFL_OPT_ADD] = {"fused_activation_function", "pot_scale_int16"},
        [RIP_TFL_OPT_RESHAPE] = {"new_shape"},
        [RIP_TFL_OPT_REDUCER] = {"keep_dims"},
        [RIP_TFL_OPT_RESIZE_NEAREST_NEIGHBOR] = {"align_corners", "half_pixel_centers"},
    };
    const rip_tfl_options *x = &op->opt;
    if (!o) {
        cr_expect(type == RIP_TFL_OPT_NONE, "%s: flatc prints no options", where);
        return;
    }
    for (size_t k = 0; k < o->n; k++) {
        bool known = false;
        for (size_t i = 0; type < (int)(sizeof keys / sizeof keys[0]) && i < 8 && keys[type][i]; i++)
            known |= strcmp(o->keys[k], keys[type][i]) == 0;
        cr_expect(known, "%s: flatc prints option \"%s\", which the test does not compare", where, o->keys[k]);
    }
    switch (type) {
    case RIP_TFL_OPT_CONV_2D:
        expect_name(rip_tfl_padding_name(x->conv.padding), jn_str(o, "padding"), where, "padding");
        cr_expect_eq(x->conv.stride_w, jn_int(o, "stride_w"), "%s", where);
        cr_expect_eq(x->conv.stride_h, jn_int(o, "stride_h"), "%s", where);
        expect_name(rip_tfl_activation_name(x->conv.activation), jn_str(o, "fused_activation_function"), where, "act");
        cr_expect_eq(x->conv.dilation_w, jn_int(o, "dilation_w_factor"), "%s", where);
        cr_expect_eq(x->conv.dilation_h, jn_int(o, "dilation_h_factor"), "%s", where);
        expect_name(rip_tfl_type_name(x->conv.quantized_bias_type), jn_str(o, "quantized_bias_type"), where, "bias");
        break;
    case RIP_TFL_OPT_DEPTHWISE_CONV_2D:
        expect_name(rip_tfl_padding_name(x->dw.padding), jn_str(o, "padding"), where, "padding");
        cr_expect_eq(x->dw.stride_w, jn_int(o, "stride_w"), "%s", where);
        cr_expect_eq(x->dw.stride_h, jn_int(o, "stride_h"), "%s", where);
        cr_expect_eq(x->dw.depth_multiplier, jn_int(o, "depth_multiplier"), "%s", where);
        expect_name(rip_tfl_activation_name(x->dw.activation), jn_str(o, "fused_activation_function"), where, "act");
        cr_expect_eq(x->dw.dilation_w, jn_int(o, "dilation_w_factor"), "%s", where);
        cr_expect_eq(x->dw.dilation_h, jn_int(o, "dilation_h_factor"), "%s", where);
        break;
    case RIP_TFL_OPT_POOL_2D:
        expect_name(rip_tfl_padding_name(x->pool.padding), jn_str(o, "padding"), where, "padding");
        cr_expect_eq(x->pool.stride_w, jn_int(o, "stride_w"), "%s", where);
        cr_expect_eq(x->pool.stride_h, jn_int(o, "stride_h"), "%s", where);
        cr_expect_eq(x->pool.filter_w, jn_int(o, "filter_width"), "%s", where);
        cr_expect_eq(x->pool.filter_h, jn_int(o, "filter_height"), "%s", where);
        expect_name(rip_tfl_activation_name(x->pool.activation), jn_str(o, "fused_activation_function"), where, "act");
        break;
    case RIP_TFL_OPT_FULLY_CONNECTED:
        expect_name(rip_tfl_activation_name(x->fc.activation), jn_str(o, "fused_activation_function"), where, "act");
        expect_name(x->fc.weights_format == 0 ? "DEFAULT" : "?", jn_str(o, "weights_format"), where, "format");
        cr_expect_eq(x->fc.keep_num_dims, jn_bool(o, "keep_num_dims"), "%s", where);
        cr_expect_eq(x->fc.asymmetric_quantize_inputs, jn_bool(o, "asymmetric_quantize_inputs"), "%s", where);
        expect_name(rip_tfl_type_name(x->fc.quantized_bias_type), jn_str(o, "quantized_bias_type"), where, "bias");
        break;
    case RIP_TFL_OPT_SOFTMAX:
        cr_expect(near6(x->softmax.beta, jn_get(o, "beta")->num), "%s: beta", where);
        break;
    case RIP_TFL_OPT_CONCATENATION:
        cr_expect_eq(x->concat.axis, jn_int(o, "axis"), "%s", where);
        expect_name(rip_tfl_activation_name(x->concat.activation), jn_str(o, "fused_activation_function"), where,
                    "act");
        break;
    case RIP_TFL_OPT_ADD:
        expect_name(rip_tfl_activation_name(x->add.activation), jn_str(o, "fused_activation_function"), where, "act");
        cr_expect_eq(x->add.pot_scale_int16, jn_bool(o, "pot_scale_int16"), "%s", where);
        break;
    case RIP_TFL_OPT_RESHAPE:
        cr_expect_eq(x->reshape.has_new_shape, jm_get(o, "new_shape") != NULL, "%s: new_shape present", where);
        expect_ints(o, "new_shape", x->reshape.new_shape, x->reshape.n_new_shape, where);
        break;
    case RIP_TFL_OPT_REDUCER:
        cr_expect_eq(x->reducer.keep_dims, jn_bool(o, "keep_dims"), "%s", where);
        break;
    case RIP_TFL_OPT_RESIZE_NEAREST_NEIGHBOR:
        cr_expect_eq(x->resize_nn.align_corners, jn_bool(o, "align_corners"), "%s", where);
        cr_expect_eq(x->resize_nn.half_pixel_centers, jn_bool(o, "half_pixel_centers"), "%s", where);
        break;
    }
}

static void compare_operator(const rip_tfl_model *m, const rip_tfl_operator *op, const jm *j, const char *where)
{
    cr_expect_eq(op->opcode_index, (uint32_t)jn_int(j, "opcode_index"), "%s: opcode_index", where);
    expect_ints(j, "inputs", op->inputs, op->n_inputs, where);
    expect_ints(j, "outputs", op->outputs, op->n_outputs, where);
    expect_ints(j, "intermediates", op->intermediates, op->n_intermediates, where);
    expect_name(rip_tfl_options_name(op->options_type), jn_str(j, "builtin_options_type"), where,
                "builtin_options_type");
    cr_expect_eq(op->options_2_type == 0, strcmp(jn_str(j, "builtin_options_2_type"), "NONE") == 0,
                 "%s: builtin_options_2_type", where);
    const jm *co = jm_get(j, "custom_options");
    cr_expect_eq(op->custom_options_size, co ? co->n : 0, "%s: custom_options", where);
    for (size_t i = 0; co && i < co->n && i < op->custom_options_size; i++)
        cr_expect_eq(op->custom_options[i], co->items[i].i, "%s: custom_options[%zu]", where, i);
    const rip_tfl_opcode *code = rip_tfl_op_code(m, op);
    cr_assert_not_null(code, "%s: opcode", where);
    const jm *o = jm_get(j, "builtin_options");
    if (op->options_type != RIP_TFL_OPT_NONE) {
        /* the BuiltinOptions members the reader decodes, by their place in the union */
        static const int decoded[] = {1, 2, 5, 8, 9, 10, 11, 17, 22, 26, 27, 38, 74, 89};
        bool want = false;
        for (size_t i = 0; i < sizeof decoded / sizeof decoded[0]; i++)
            want |= op->options_type == decoded[i];
        cr_expect_eq(op->options_decoded, want, "%s: options decoded", where);
        if (op->options_decoded)
            compare_options(op, op->options_type, o, where);
    } else {
        cr_expect_null(o, "%s: flatc prints options of type NONE", where);
        /* no table stored: the reader holds the operator's defaults, flatc has nothing to show */
        cr_expect_eq(op->options_decoded, rip_tfl_options_of_op(code->builtin) != RIP_TFL_OPT_NONE, "%s", where);
    }
}

static void compare_with_flatc(const char *path)
{
    char cmd[3 * PATH_MAX], json[PATH_MAX], err[RIP_ERR_LEN];
    const char *base = strrchr(path, '/') + 1;
    snprintf(cmd, sizeof cmd,
             "flatc --json --strict-json --raw-binary --defaults-json -o '%s' "
             "'%s/models/tflite-micro/schema-flatc2.fbs' -- '%s' 2>'%s'",
             tmpdir, vendor_dir, path, tmp("flatc.err"));
    cr_assert_eq(system(cmd), 0, "flatc failed on %s (see %s)", path, tmp("flatc.err"));
    snprintf(json, sizeof json, "%s/%.*s.json", tmpdir, (int)(strlen(base) - 7), base);
    size_t len;
    char *text = (char *)slurp(json, &len);
    jm *root = jm_parse(text, len, err, sizeof err);
    free(text);
    cr_assert_not_null(root, "%s: flatc's JSON: %s", json, err);

    rip_tfl_model m;
    cr_assert_eq(rip_tfl_model_load(path, &m, err), RIP_OK, "%s", err);
    cr_expect_eq(m.version, (uint32_t)jn_int(root, "version"), "%s: version", base);
    cr_expect_str_eq(m.description, opt_str(root, "description"), "%s: description", base);

    const jm *codes = jn_get(root, "operator_codes");
    cr_assert_eq(m.n_opcodes, codes->n, "%s: operator codes", base);
    for (size_t i = 0; i < m.n_opcodes; i++) {
        const rip_tfl_opcode *c = &m.opcodes[i];
        const jm *j = &codes->items[i];
        char where[80];
        snprintf(where, sizeof where, "%s: operator code %zu", base, i);
        long long dep = jn_int(j, "deprecated_builtin_code");
        cr_expect_eq(c->deprecated_builtin_code, dep, "%s: deprecated_builtin_code", where);
        expect_name(rip_tfl_op_name(c->builtin_code), jn_str(j, "builtin_code"), where, "builtin_code");
        cr_expect_eq(c->builtin, c->builtin_code > dep ? c->builtin_code : dep, "%s: the larger code", where);
        cr_expect_eq(c->version, jn_int(j, "version"), "%s: version", where);
        const char *custom = opt_str(j, "custom_code");
        cr_expect_str_eq(c->custom_code ? c->custom_code : "", custom, "%s: custom_code", where);
        cr_expect_eq(c->custom_code != NULL, jm_get(j, "custom_code") != NULL, "%s: custom_code present", where);
    }

    const jm *buffers = jn_get(root, "buffers");
    cr_assert_eq(m.n_buffers, buffers->n, "%s: buffers", base);
    for (size_t i = 0; i < m.n_buffers; i++) {
        const jm *data = jm_get(&buffers->items[i], "data");
        cr_expect_eq(m.buffers[i].size, data ? data->n : 0, "%s: buffer %zu size", base, i);
        for (size_t k = 0; data && k < data->n && k < m.buffers[i].size; k += 97)   /* a sample of the bytes */
            cr_expect_eq(m.buffers[i].data[k], data->items[k].i, "%s: buffer %zu byte %zu", base, i, k);
        cr_expect_eq(jn_int(&buffers->items[i], "offset"), 0, "%s: buffer %zu offset", base, i);
    }

    const jm *md = jm_get(root, "metadata");
    cr_assert_eq(m.n_metadata, md ? md->n : 0, "%s: metadata", base);
    for (size_t i = 0; i < m.n_metadata; i++) {
        cr_expect_str_eq(m.metadata[i].name, opt_str(&md->items[i], "name"), "%s: metadata %zu", base, i);
        cr_expect_eq(m.metadata[i].buffer, (uint32_t)jn_int(&md->items[i], "buffer"), "%s: metadata %zu", base, i);
    }
    const jm *sigs = jm_get(root, "signature_defs");
    cr_expect_eq(m.n_signature_defs, sigs ? sigs->n : 0, "%s: signature_defs", base);

    const jm *sgs = jn_get(root, "subgraphs");
    cr_assert_eq(m.n_subgraphs, sgs->n, "%s: subgraphs", base);
    for (size_t s = 0; s < m.n_subgraphs; s++) {
        const rip_tfl_subgraph *sg = &m.subgraphs[s];
        const jm *j = &sgs->items[s];
        char where[120];
        snprintf(where, sizeof where, "%s: subgraph %zu", base, s);
        cr_expect_str_eq(sg->name, opt_str(j, "name"), "%s: name", where);
        expect_ints(j, "inputs", sg->inputs, sg->n_inputs, where);
        expect_ints(j, "outputs", sg->outputs, sg->n_outputs, where);
        const jm *ts = jn_get(j, "tensors"), *ops = jn_get(j, "operators");
        cr_assert_eq(sg->n_tensors, ts->n, "%s: tensors", where);
        cr_assert_eq(sg->n_operators, ops->n, "%s: operators", where);
        for (size_t i = 0; i < sg->n_tensors; i++) {
            snprintf(where, sizeof where, "%s: subgraph %zu: tensor %zu", base, s, i);
            compare_tensor(&m, &sg->tensors[i], &ts->items[i], buffers, where);
        }
        for (size_t i = 0; i < sg->n_operators; i++) {
            snprintf(where, sizeof where, "%s: subgraph %zu: operator %zu", base, s, i);
            compare_operator(&m, &sg->operators[i], &ops->items[i], where);
        }
    }
    rip_tfl_model_free(&m);
    jm_free(root);
    remove(json);
}

Test(tflite, flatc_reads_every_model_as_the_reader_does)
{
    need_models();
    if (!have_flatc())
        rip_skip("no flatc");
    for (int i = 0; i < n_models; i++)
        compare_with_flatc(models[i]);
    cr_expect_geq(n_models, 11, "the eleven models of the issue");
}

/* The check accepts every vendor model but the two it must refuse, naming why. */
Test(tflite, the_check_accepts_the_supported_vendor_models)
{
    need_models();
    for (int i = 0; i < n_models; i++) {
        rip_tfl_model m;
        char err[RIP_ERR_LEN];
        cr_assert_eq(rip_tfl_model_load(models[i], &m, err), RIP_OK, "%s", err);
        rip_status st = rip_tfl_check(&m, err);
        const char *base = strrchr(models[i], '/') + 1;
        if (strcmp(base, "keyword_scrambled_8bit.tflite") == 0 || strcmp(base, "person_detect_vela.tflite") == 0)
            cr_expect_eq(st, RIP_S_DATA, "%s must be refused", base);
        else
            cr_expect_eq(st, RIP_OK, "%s", err);
        rip_tfl_model_free(&m);
    }
}

/* ---- (c) SVDF and the Ethos-U custom operator ------------------------------- */

Test(tflite, svdf_is_refused_naming_the_operator)
{
    const char *path = model("keyword_scrambled_8bit.tflite");
    char want[2 * PATH_MAX];
    snprintf(want, sizeof want, "ripsim model: %.1400s: operator 1 (SVDF): not supported\n", path);
    run_result *r = RUN("model", path);
    cr_expect_eq(r->status, 65);
    cr_expect_str_eq(r->err, want);
    cr_expect_str_eq(r->out, "");

    rip_tfl_model m;
    char err[RIP_ERR_LEN];
    cr_assert_eq(rip_tfl_model_load(path, &m, err), RIP_OK, "%s", err);
    cr_expect_eq(rip_tfl_check(&m, err), RIP_S_DATA);
    snprintf(want, sizeof want, "%.1400s: operator 1 (SVDF): not supported", path);
    cr_expect_str_eq(err, want);
    /* the reader names every operator: SVDF is builtin 27 */
    cr_expect_eq(m.opcodes[m.subgraphs[0].operators[1].opcode_index].builtin, 27);
    cr_expect_str_eq(rip_tfl_op_name(27), "SVDF");
    rip_tfl_model_free(&m);
}

Test(tflite, a_custom_operator_is_refused_with_its_code)
{
    const char *path = model("person_detect_vela.tflite");
    char want[2 * PATH_MAX];
    snprintf(want, sizeof want, "ripsim model: %.1400s: operator 0 (CUSTOM ethos-u): not supported\n", path);
    run_result *r = RUN("model", path);
    cr_expect_eq(r->status, 65);
    cr_expect_str_eq(r->err, want);
    r = RUN("model", path, "--no-check");
    cr_expect_eq(r->status, 0, "%s", r->err);
    cr_expect(strstr(r->out, "OfflineMemoryAllocation") != NULL, "the metadata names are printed");
    /* TFLM's offline plan (its docs/memory_management.md): int32 [version, subgraphs, N, offset_0..N-1] */
    rip_tfl_model m;
    char err[RIP_ERR_LEN];
    cr_assert_eq(rip_tfl_model_load(path, &m, err), RIP_OK, "%s", err);
    const rip_tfl_metadata *md = rip_tfl_metadata_find(&m, "OfflineMemoryAllocation");
    cr_assert_not_null(md);
    cr_assert_lt(md->buffer, m.n_buffers);
    const rip_tfl_buffer *b = &m.buffers[md->buffer];
    cr_assert_eq(b->size, 4 * (3 + m.subgraphs[0].n_tensors));
    int32_t head[3];
    memcpy(head, b->data, sizeof head);   /* little-endian host */
    cr_expect_eq(head[1], 1, "one subgraph");
    cr_expect_eq(head[2], (int32_t)m.subgraphs[0].n_tensors, "one offset per tensor");
    cr_expect_null(rip_tfl_metadata_find(&m, "no such metadata"));
    rip_tfl_model_free(&m);
}

/* ---- the hand-written models of tests/data/tflite (compiled by flatc) ------------ */

static const char *data_model(const char *name)
{
    static char path[1200];
    const char *res = getenv("RIPSIM_RESULTS_DIR");
    snprintf(path, sizeof path, "%.900s/../tests/data/tflite/%s.tflite", res ? res : ".", name);
    return path;
}

Test(tflite, hand_written_models_compiled_by_flatc)
{
    static const char *const accepted[] = {"convnet", "ops", "float_edges"};
    rip_tfl_model m;
    char err[RIP_ERR_LEN];
    for (size_t i = 0; i < 3; i++) {
        cr_assert_eq(rip_tfl_model_load(data_model(accepted[i]), &m, err), RIP_OK, "%s", err);
        cr_expect_eq(rip_tfl_check(&m, err), RIP_OK, "%s", err);
        const rip_tfl_subgraph *sg = &m.subgraphs[0];
        if (i == 0) {
            cr_expect_eq(sg->operators[1].opt.dw.depth_multiplier, 2);
            cr_expect_eq(sg->operators[1].opt.dw.activation, RIP_TFL_ACT_RELU6);
            cr_expect_eq(sg->tensors[sg->operators[1].inputs[1]].quant.quantized_dimension, 3);
        } else if (i == 1) {
            cr_expect_eq(sg->operators[4].opt.concat.axis, -1);
            cr_expect(sg->operators[3].opt.resize_nn.half_pixel_centers);
            cr_expect_eq(sg->n_inputs, 2);
        } else {
            cr_expect_eq(sg->operators[1].inputs[2], -1, "the absent bias");
            cr_expect_eq(sg->operators[1].options_type, RIP_TFL_OPT_NONE);
            cr_expect_eq(sg->tensors[0].type, RIP_TFL_FLOAT32);
            cr_assert_eq(m.n_metadata, 1);
            cr_expect_str_eq(m.metadata[0].name, "min_runtime_version");
            cr_expect_eq(m.buffers[m.metadata[0].buffer].size, 6);
            const rip_tfl_metadata *md = rip_tfl_metadata_find(&m, "min_runtime_version");
            cr_assert_eq(md, &m.metadata[0]);
            cr_expect_str_eq((const char *)m.buffers[md->buffer].data, "1.5.0");
            size_t bytes;
            const uint8_t *w = rip_tfl_tensor_data(&m, &sg->tensors[2], &bytes);   /* fc/w [4,8] */
            cr_expect(w == m.buffers[sg->tensors[2].buffer].data && bytes == 32);
            cr_expect_null(rip_tfl_tensor_data(&m, &sg->tensors[1], &bytes), "an activation has no data");
            cr_expect_eq(bytes, 0);
        }
        rip_tfl_model_free(&m);
    }
    const char *svdf = data_model("svdf_custom");
    cr_assert_eq(rip_tfl_model_load(svdf, &m, err), RIP_OK, "%s", err);
    cr_expect_eq(rip_tfl_check(&m, err), RIP_S_DATA);
    char want[1300];
    snprintf(want, sizeof want, "%s: operator 0 (SVDF): not supported", svdf);
    cr_expect_str_eq(err, want);
    cr_expect_str_eq(m.opcodes[1].custom_code, "my-op");
    cr_expect_eq(m.subgraphs[0].operators[1].custom_options_size, 4);
    cr_expect_eq(m.subgraphs[0].operators[1].custom_options[3], 4);
    cr_expect(m.subgraphs[0].tensors[3].is_variable);
    cr_expect_not(m.subgraphs[0].operators[0].options_decoded, "SVDFOptions are kept as their type");
    rip_tfl_model_free(&m);
    find_models();
    if (vendor_dir[0] && have_flatc()) {
        for (size_t i = 0; i < 3; i++)
            compare_with_flatc(data_model(accepted[i]));
        compare_with_flatc(svdf);
    }
}

Test(tflite, truncated_models_are_refused_in_one_line)
{
    const char *path = model("kws_ref_model.tflite");
    size_t len;
    uint8_t *b = slurp(path, &len);
    const char *cut = tmp("cut.tflite");
    for (size_t k = 0; k < 64; k++) {
        spit(cut, b, len * k / 64);
        char what[64];
        snprintf(what, sizeof what, "cut at %zu/64", k);
        expect_refused(cut, k == 0 ? "bytes: too short for a flatbuffer" : NULL, what);
    }
    free(b);
    /* every model, every 1/64, through the library: refused, one line naming the file */
    for (int i = 0; i < n_models; i++) {
        b = slurp(models[i], &len);
        for (size_t k = 1; k < 64; k++) {
            rip_tfl_model m;
            char err[RIP_ERR_LEN];
            rip_status st = rip_tfl_model_parse(b, len * k / 64, "cut.tflite", &m, err);
            if (st == RIP_OK) {
                st = rip_tfl_check(&m, err);
                rip_tfl_model_free(&m);
            }
            cr_expect_eq(st, RIP_S_DATA, "%s cut at %zu/64 was read", models[i], k);
            cr_expect(strncmp(err, "cut.tflite: ", 12) == 0 && !strchr(err, '\n'), "%s", err);
        }
        free(b);
    }
}

Test(tflite, the_command_line)
{
    static fbb f;
    size_t len = tiny_model(&f, &tiny_default);
    const char *p = tmp("tiny.tflite");
    spit(p, f.b, len);
    run_result *r = RUN("model", p, "--json");
    cr_assert_eq(r->status, 0, "%s", r->err);
    char err[160];
    jm *j = jm_parse(r->out, strlen(r->out), err, sizeof err);
    cr_assert_not_null(j, "--json is not JSON: %s", err);
    cr_expect(jn_bool(j, "checked"));
    const jm *sg = &jn_get(j, "subgraphs")->items[0];
    const jm *op = &jn_get(sg, "operators")->items[0];
    cr_expect_str_eq(jn_str(op, "op"), "CONV_2D");
    cr_expect_str_eq(jn_str(jn_get(op, "options"), "fused_activation_function"), "RELU6");
    cr_expect_eq(jn_int(jn_get(op, "options"), "dilation_h_factor"), 1);
    const jm *w = &jn_get(sg, "tensors")->items[1];
    cr_expect_eq(jn_get(jn_get(w, "quantization"), "scale")->items[2].num, 0.0625);
    cr_expect_eq(jn_int(w, "constant_bytes"), 54);
    jm_free(j);
    r = RUN("model", p);
    cr_expect_eq(r->status, 0, "%s", r->err);
    cr_expect(strstr(r->out, "CONV_2D [0,1,2] -> [3] padding=SAME stride_h=1 stride_w=1") != NULL, "%s", r->out);
    cr_expect_eq(RUN("model", tmp("missing.tflite"))->status, 66);
    cr_expect_eq(RUN("model", tmpdir)->status, 66, "a folder");
    cr_expect_eq(RUN("model")->status, 64);
    cr_expect_eq(RUN("model", p, "--bogus")->status, 64);
    r = RUN("model", "--help");
    cr_expect_eq(r->status, 0);
    for (const char *const *code = (const char *const[]){"0 ", "64 ", "65 ", "66 ", "71 ", "74 ", NULL}; *code; code++)
        cr_expect(strstr(r->out, *code) != NULL, "--help lists exit status %s", *code);
}
