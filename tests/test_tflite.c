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
*/
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

TEST_SUITE_WITH_TMPDIR(tflite, 900);

/* ---- the vendor models ---------------------------------------------------- */

#define MAX_MODELS 32

static char vendor_dir[1024];             /* .../shared/vendor, "" when absent */
static char models[MAX_MODELS][1400];
static int n_models;

static int cmp_str(const void *a, const void *b)
{
    return strcmp((const char *)a, (const char *)b);
}

/* Find ../shared/vendor (beside the source tree) and its .tflite models, once. */
static void find_models(void)
{
    static bool done;
    if (done)
        return;
    done = true;
    const char *res = getenv("RIPSIM_RESULTS_DIR");
    struct stat sb;
    snprintf(vendor_dir, sizeof vendor_dir, "%.900s/../../shared/vendor", res ? res : ".");
    if (stat(vendor_dir, &sb) != 0 || !S_ISDIR(sb.st_mode))
        vendor_dir[0] = '\0';
    static const char *const dirs[] = {"models/mlperf-tiny", "models/tinyengine", "models/tflite-micro",
                                       "tflite-micro/tflite-micro/tensorflow/lite/micro/models"};
    for (size_t d = 0; vendor_dir[0] && d < sizeof dirs / sizeof dirs[0]; d++) {
        char dir[1200];
        snprintf(dir, sizeof dir, "%s/%s", vendor_dir, dirs[d]);
        DIR *dp = opendir(dir);
        struct dirent *e;
        while (dp && (e = readdir(dp)) && n_models < MAX_MODELS) {
            size_t len = strlen(e->d_name);
            if (len > 7 && strcmp(e->d_name + len - 7, ".tflite") == 0)
                snprintf(models[n_models++], sizeof models[0], "%s/%.180s", dir, e->d_name);
        }
        if (dp)
            closedir(dp);
    }
    qsort(models, (size_t)n_models, sizeof models[0], cmp_str);
}

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

static void need_models(void)
{
    find_models();
    if (n_models == 0)
        rip_skip("no vendor models");
}

/* The vendor model whose file name is name (skips the test when absent). */
static const char *model(const char *name)
{
    need_models();
    for (int i = 0; i < n_models; i++) {
        const char *slash = strrchr(models[i], '/');
        if (strcmp(slash + 1, name) == 0)
            return models[i];
    }
    rip_skip("no %s among the vendor models", name);
    return NULL;
}

static uint8_t *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f, "%s", path);
    cr_assert_eq(fseek(f, 0, SEEK_END), 0);
    long n = ftell(f);
    cr_assert_geq(n, 0);
    rewind(f);
    uint8_t *b = malloc((size_t)n + 1);
    cr_assert_not_null(b);
    cr_assert_eq(fread(b, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    *len = (size_t)n;
    return b;
}

static void spit(const char *path, const uint8_t *b, size_t len)
{
    FILE *f = fopen(path, "wb");
    cr_assert_not_null(f, "%s", path);
    cr_assert_eq(fwrite(b, 1, len, f), len);
    cr_assert_eq(fclose(f), 0);
}

/* One line, ending in a newline, nothing before it. */
static bool one_line(const char *s)
{
    size_t n = strlen(s);
    return n > 1 && s[n - 1] == '\n' && count_lines(s) == 1;
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

/* ---- (b) bad models made from a real one -------------------------------------- */

/* `ripsim model FILE` refuses: 65, one line on stderr containing want (or any line when NULL), no stdout. */
static void expect_refused(const char *file, const char *want, const char *what)
{
    run_result *r = RUN("model", file);
    cr_expect_eq(r->status, 65, "%s: exit %d, stderr %s", what, r->status, r->err);
    cr_expect(one_line(r->err), "%s: not one line: '%s'", what, r->err);
    cr_expect(strncmp(r->err, "ripsim model: ", 14) == 0, "%s: %s", what, r->err);
    cr_expect_str_eq(r->out, "", "%s: wrote to stdout", what);
    if (want)
        cr_expect(strstr(r->err, want) != NULL, "%s: '%s' lacks '%s'", what, r->err, want);
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

/* A table the reader reads, where it is, and the path its error names. */
typedef struct table_ref {
    size_t pos;
    char path[96];
} table_ref;

#define MAX_TABLES 4096

typedef struct walk {
    const rip_fbs *f;
    table_ref *t;
    size_t n;
} walk;

static void walk_add(walk *w, const rip_fbs_table *t, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void walk_add(walk *w, const rip_fbs_table *t, const char *fmt, ...)
{
    cr_assert_lt(w->n, MAX_TABLES);
    w->t[w->n].pos = t->pos;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(w->t[w->n].path, sizeof w->t[w->n].path, fmt, ap);
    va_end(ap);
    w->n++;
}

/* The tables of vector field `field` of t: their positions, named "WHAT i: " under prefix. */
static void walk_vec(walk *w, const rip_fbs_table *t, unsigned field, const char *prefix, const char *what,
                     void (*inner)(walk *, const rip_fbs_table *, const char *))
{
    rip_fbs_vec v;
    bool present;
    char why[RIP_FBS_WHY_LEN];
    cr_assert_eq(rip_fbs_vec_field(w->f, t, field, 4, &v, &present, why), RIP_OK, "%s", why);
    for (uint32_t i = 0; i < v.n; i++) {
        rip_fbs_table x;
        char path[96];
        cr_assert_eq(rip_fbs_vec_table(w->f, &v, i, &x, why), RIP_OK, "%s", why);
        snprintf(path, sizeof path, "%s%s %u: ", prefix, what, i);
        walk_add(w, &x, "%s", path);
        if (inner)
            inner(w, &x, path);
    }
}

/* A sub-table in field `field` of t, if present. */
static void walk_sub(walk *w, const rip_fbs_table *t, unsigned field, const char *path)
{
    rip_fbs_table x;
    bool present;
    char why[RIP_FBS_WHY_LEN];
    cr_assert_eq(rip_fbs_table_field(w->f, t, field, &x, &present, why), RIP_OK, "%s", why);
    if (present)
        walk_add(w, &x, "%s", path);
}

static void walk_tensor(walk *w, const rip_fbs_table *t, const char *path)
{
    char p[120];
    snprintf(p, sizeof p, "%squantization: ", path);
    walk_sub(w, t, 4, p);
}

static void walk_operator(walk *w, const rip_fbs_table *t, const char *path)
{
    char p[120];
    snprintf(p, sizeof p, "%sbuiltin_options: ", path);
    walk_sub(w, t, 4, p);
}

static void walk_subgraph(walk *w, const rip_fbs_table *t, const char *path)
{
    walk_vec(w, t, 0, path, "tensor", walk_tensor);
    walk_vec(w, t, 3, path, "operator", walk_operator);
}

/* Every table of a TFLite model the reader reads (Model, operator codes, buffers, metadata,
** subgraphs, tensors, quantization, operators, options), found with the reader's own bounds checks. */
static size_t model_tables(const uint8_t *b, size_t len, table_ref *out)
{
    rip_fbs f = {.buf = b, .len = len};
    rip_fbs_table root;
    char why[RIP_FBS_WHY_LEN];
    walk w = {.f = &f, .t = out};
    cr_assert_eq(rip_fbs_root(&f, "TFL3", &root, why), RIP_OK, "%s", why);
    walk_add(&w, &root, "not a TFLite model: root table: ");
    walk_vec(&w, &root, 1, "", "operator code", NULL);
    walk_vec(&w, &root, 4, "", "buffer", NULL);
    walk_vec(&w, &root, 6, "", "metadata", NULL);
    walk_vec(&w, &root, 2, "", "subgraph", walk_subgraph);
    return w.n;
}

Test(tflite, a_flipped_byte_in_each_table_is_refused_naming_the_table)
{
    const char *path = model("kws_ref_model.tflite");
    size_t len;
    uint8_t *b = slurp(path, &len);
    table_ref *tables = calloc(MAX_TABLES, sizeof *tables);
    size_t n = model_tables(b, len, tables);
    /* Model, 6 codes, 37 buffers, 1 metadata, 1 subgraph, 35 tensors with 35 quantizations, 13 operators with
    ** 12 options (RESHAPE has none) */
    cr_expect_eq(n, 1 + 6 + 37 + 1 + 1 + 35 + 35 + 13 + 12, "%zu tables", n);
    const char *bad = tmp("flipped.tflite");
    for (size_t i = 0; i < n; i++) {
        /* the high byte of the table's soffset: its vtable moves 2 GiB away, outside any file */
        b[tables[i].pos + 3] ^= 0x80;
        spit(bad, b, len);
        b[tables[i].pos + 3] ^= 0x80;
        char want[200];
        snprintf(want, sizeof want, "%s: %svtable offset points outside the file", bad, tables[i].path);
        expect_refused(bad, want, tables[i].path);
    }
    free(tables);
    free(b);
}

Test(tflite, every_flipped_byte_of_a_small_model_is_read_or_refused)
{
    const char *path = model("hello_world_int8.tflite");
    size_t len;
    uint8_t *b = slurp(path, &len);
    size_t refused = 0;
    for (size_t i = 0; i < len; i++)
        for (int mask = 0x01; mask <= 0x80; mask <<= 7) {   /* the lowest and the highest bit */
            b[i] ^= (uint8_t)mask;
            rip_tfl_model m;
            char err[RIP_ERR_LEN];
            rip_status st = rip_tfl_model_parse(b, len, "flip.tflite", &m, err);
            if (st == RIP_OK) {
                st = rip_tfl_check(&m, err);
                rip_tfl_model_free(&m);
            }
            b[i] ^= (uint8_t)mask;
            cr_assert(st == RIP_OK || st == RIP_S_DATA, "byte %zu: status %d", i, st);
            if (st != RIP_OK) {
                refused++;
                cr_assert(strncmp(err, "flip.tflite: ", 13) == 0 && !strchr(err, '\n'), "byte %zu: %s", i, err);
            }
        }
    cr_expect_gt(refused, len / 8, "a flip in the tables and offsets is found (%zu of %zu refused)", refused, 2 * len);
    free(b);
}

/* kws_ref_model with its position of field `field` of the table at tables[] whose path is path. */
static size_t field_at(const uint8_t *b, size_t len, const char *path, unsigned field)
{
    table_ref *tables = calloc(MAX_TABLES, sizeof *tables);
    size_t n = model_tables(b, len, tables), at = 0;
    rip_fbs f = {.buf = b, .len = len};
    char why[RIP_FBS_WHY_LEN];
    for (size_t i = 0; i < n && !at; i++)
        if (strcmp(tables[i].path, path) == 0) {
            rip_fbs_table t;
            cr_assert_eq(rip_fbs_table_at(&f, tables[i].pos, &t, why), RIP_OK, "%s", why);
            at = rip_fbs_field_pos(&f, &t, field);
        }
    free(tables);
    cr_assert_neq(at, 0, "no field %u in %s", field, path);
    return at;
}

/* The first element of the vector held by the offset field at pos. */
static size_t vector_at(const uint8_t *b, size_t pos)
{
    uint32_t off = (uint32_t)b[pos] | (uint32_t)b[pos + 1] << 8 | (uint32_t)b[pos + 2] << 16 | (uint32_t)b[pos + 3] << 24;
    return pos + off;   /* the count; elements follow */
}

static void put32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

/* Patch kws_ref_model, write it and expect `ripsim model` to refuse it with want. */
typedef void (*patch_fn)(uint8_t *b, size_t len);

static void refused_after(patch_fn patch, const char *want_fmt, const char *what)
{
    const char *path = model("kws_ref_model.tflite");
    size_t len;
    uint8_t *b = slurp(path, &len);
    patch(b, len);
    const char *bad = tmp("patched.tflite");
    spit(bad, b, len);
    char want[600];
    snprintf(want, sizeof want, want_fmt, bad);
    expect_refused(bad, want, what);
    free(b);
}

static void patch_overflowing_shape(uint8_t *b, size_t len)
{
    size_t v = vector_at(b, field_at(b, len, "subgraph 0: tensor 0: ", 0));   /* shape [1,49,10,1] */
    for (int i = 1; i < 4; i++)
        put32(b + v + 4 + 4 * i, 0x7fffffff);
}

Test(tflite, a_shape_whose_byte_count_overflows)
{
    refused_after(patch_overflowing_shape,
                  "ripsim model: %s: tensor 0 (input_1): shape [1,2147483647,2147483647,2147483647] of int8: "
                  "the byte count overflows (over 2^46 bytes)\n",
                  "overflowing shape");
}

static void patch_buffer_index(uint8_t *b, size_t len)
{
    put32(b + field_at(b, len, "subgraph 0: tensor 2: ", 2), 9999);   /* functional_1/flatten/Const */
}

Test(tflite, a_buffer_index_out_of_range)
{
    refused_after(patch_buffer_index,
                  "%s: tensor 2 (functional_1/flatten/Const): buffer 9999 out of range (37 buffers)\n",
                  "buffer index");
}

static void patch_stride(uint8_t *b, size_t len)
{
    put32(b + field_at(b, len, "subgraph 0: operator 0: builtin_options: ", 1), 1);   /* stride_w 2 -> 1 */
}

Test(tflite, an_operator_whose_output_does_not_match_its_options)
{
    /* op 0: CONV_2D 10x4 over [1,49,10,1], stride 2x2 SAME -> [1,25,5,64]; with stride_w 1 the options give
    ** width ceil(10/1) = 10 */
    refused_after(patch_stride, "%s: operator 0 (CONV_2D): output tensor 22 (", "stride");
    refused_after(patch_stride, "has shape [1,25,5,64], the input, weights and options give [1,25,10,64]\n",
                  "stride");
}

static void patch_weight_shape(uint8_t *b, size_t len)
{
    /* tensor 17, the weights of op 0: [64,10,4,1] -> [64,5,4,2], the same bytes and scales */
    size_t v = vector_at(b, field_at(b, len, "subgraph 0: tensor 17: ", 0));
    put32(b + v + 8, 5);
    put32(b + v + 16, 2);
}

static void patch_weight_scales(uint8_t *b, size_t len)
{
    /* 64 per-channel scales and zero points of tensor 17 -> 63 of each */
    size_t q = field_at(b, len, "subgraph 0: tensor 17: quantization: ", 2);
    put32(b + vector_at(b, q), 63);
    q = field_at(b, len, "subgraph 0: tensor 17: quantization: ", 3);
    put32(b + vector_at(b, q), 63);
}

Test(tflite, weights_whose_shape_or_channels_do_not_match)
{
    refused_after(patch_weight_shape, "%s: operator 0 (CONV_2D): weights tensor 17 (functional_1/conv2d/Conv2D) "
                                      "have 2 input channels, the input 1",
                  "weight shape");
    refused_after(patch_weight_scales,
                  "%s: operator 0 (CONV_2D): weights tensor 17 (functional_1/conv2d/Conv2D): 63 scales along "
                  "dimension 0 for 64 channels along dimension 0",
                  "weight scales");
}

static void patch_int16(uint8_t *b, size_t len)
{
    b[field_at(b, len, "subgraph 0: tensor 22: ", 1)] = 7;   /* INT8 -> INT16, the output of op 0 */
}

Test(tflite, int16_activations_are_refused)
{
    refused_after(patch_int16, "%s: tensor 22 (", "int16");
    refused_after(patch_int16, "...): int16 activations are not supported\n", "int16");
}

/* ---- (d) hand-built flatbuffers ------------------------------------------------- */

/*
** A flatbuffer written front to back (the reverse of flatc's builder, and
** just as valid: uoffsets point forward, a vtable may sit on either side
** of its table).  fb_table lays out one table: its vtable, then the table
** (4-aligned) with the fields in order, each aligned to its size; a field
** of size 0 is absent.  Offset fields are written 0 and patched by
** fb_link once their target exists.
*/
typedef struct fbb {
    uint8_t b[1 << 18];
    size_t n;
} fbb;

typedef struct fbf {
    int size;          /* 0 absent, 1, 2, 4 or 8 */
    uint64_t val;
} fbf;

#define F_ABSENT {0, 0}
#define F8(v) {1, (uint64_t)(v)}
#define F32(v) {4, (uint64_t)(uint32_t)(v)}
#define F64(v) {8, (uint64_t)(v)}
#define FOFF {4, 0}    /* an offset, linked later */

static void fb_bytes(fbb *f, const void *p, size_t n)
{
    cr_assert_leq(f->n + n, sizeof f->b);
    memcpy(f->b + f->n, p, n);
    f->n += n;
}

static void fb_le(fbb *f, uint64_t v, int size)
{
    for (int i = 0; i < size; i++) {
        uint8_t byte = (uint8_t)(v >> (8 * i));
        fb_bytes(f, &byte, 1);
    }
}

static void fb_align(fbb *f, size_t a)
{
    while (f->n % a)
        fb_le(f, 0, 1);
}

/* The header: root offset (linked by fb_root) and the identifier. */
static void fb_begin(fbb *f, const char *ident)
{
    f->n = 0;
    fb_le(f, 0, 4);
    fb_bytes(f, ident, 4);
}

/* Write uoffset at `at` to point at `target`. */
static void fb_link(fbb *f, size_t at, size_t target)
{
    cr_assert_gt(target, at);
    put32(f->b + at, (uint32_t)(target - at));
}

static void fb_root(fbb *f, size_t table)
{
    put32(f->b, (uint32_t)table);
}

/* A table of nf fields; pos[i] receives field i's position (0 when absent).  Returns the table's position. */
static size_t fb_table(fbb *f, int nf, const fbf *fields, size_t *pos)
{
    uint16_t off[32] = {0};
    size_t at = 4;
    cr_assert_leq(nf, 32);
    for (int i = 0; i < nf; i++) {
        if (!fields[i].size)
            continue;
        at = (at + (size_t)fields[i].size - 1) / (size_t)fields[i].size * (size_t)fields[i].size;
        off[i] = (uint16_t)at;
        at += (size_t)fields[i].size;
    }
    size_t tbl = (at + 3) / 4 * 4;
    fb_align(f, 4);
    size_t vt = f->n;
    fb_le(f, 4 + 2 * (uint64_t)nf, 2);
    fb_le(f, tbl, 2);
    for (int i = 0; i < nf; i++)
        fb_le(f, off[i], 2);
    fb_align(f, 8);
    size_t t = f->n;
    fb_le(f, (uint32_t)(int32_t)(t - vt), 4);
    while (f->n < t + tbl)
        fb_le(f, 0, 1);
    for (int i = 0; i < nf; i++) {
        if (pos)
            pos[i] = off[i] ? t + off[i] : 0;
        if (off[i])
            for (int k = 0; k < fields[i].size; k++)
                f->b[t + off[i] + k] = (uint8_t)(fields[i].val >> (8 * k));
    }
    return t;
}

/* A vector of n elements of size bytes each (values in v, or zero when v is NULL). */
static size_t fb_vec(fbb *f, uint32_t n, int size, const int64_t *v)
{
    fb_align(f, size > 4 ? (size_t)size : 4);
    if (size > 4)   /* the elements, not the count, are 8-aligned */
        fb_le(f, 0, 4);
    size_t at = f->n;
    fb_le(f, n, 4);
    for (uint32_t i = 0; i < n; i++)
        fb_le(f, v ? (uint64_t)v[i] : 0, size);
    return at;
}

static size_t fb_string(fbb *f, const char *s, bool nul)
{
    fb_align(f, 4);
    size_t at = f->n;
    fb_le(f, strlen(s), 4);
    fb_bytes(f, s, strlen(s));
    if (nul)
        fb_le(f, 0, 1);
    return at;
}

/* A vector of n uoffsets, to be linked (fb_elem) to tables written after it. */
static size_t fb_vec_of(fbb *f, uint32_t n)
{
    return fb_vec(f, n, 4, NULL);
}

/* Link element i of the vector of uoffsets at v to target. */
static void fb_elem(fbb *f, size_t v, uint32_t i, size_t target)
{
    fb_link(f, v + 4 + 4 * (size_t)i, target);
}

/*
** The small model: one CONV_2D 3x3, stride 1, SAME, RELU6 over [1,4,4,2] with 3 output channels (weights
** per channel along 0, bias), a RESHAPE with no options stored, in one subgraph "g"; description "tiny".
** Options of the convolution store padding (VALID = 1 would change the shape: SAME = 0 is absent),
** stride_h/stride_w 1 and the activation; the dilations are left to their default 1.
*/
typedef struct tiny_knobs {
    int conv_options_type;       /* 1 = Conv2DOptions; others test unknown / mismatched types */
    bool conv_options_table;     /* store the table (false: the type alone) */
    uint64_t buffer_offset;      /* Buffer.offset of the weights' buffer */
    uint32_t external_buffer;    /* Tensor.external_buffer of tensor 0 */
} tiny_knobs;

static const tiny_knobs tiny_default = {.conv_options_type = 1, .conv_options_table = true};

static size_t tiny_tensor(fbb *f, const char *name, int type, uint32_t buffer, uint32_t n_shape,
                          const int64_t *shape, uint32_t n_scale, const float *scale, int32_t qdim, uint32_t external)
{
    size_t pos[11], qpos[7];
    fbf fields[11] = {FOFF, F8(type), F32(buffer), FOFF, n_scale ? (fbf)FOFF : (fbf)F_ABSENT, F_ABSENT, F_ABSENT,
                      F_ABSENT, F_ABSENT, F_ABSENT, external ? (fbf)F32(external) : (fbf)F_ABSENT};
    size_t t = fb_table(f, 11, fields, pos);
    fb_link(f, pos[0], fb_vec(f, n_shape, 4, shape));
    fb_link(f, pos[3], fb_string(f, name, true));
    if (n_scale) {
        fbf q[7] = {F_ABSENT, F_ABSENT, FOFF, FOFF, F_ABSENT, F_ABSENT, qdim ? (fbf)F32(qdim) : (fbf)F_ABSENT};
        size_t qt = fb_table(f, 7, q, qpos);
        fb_link(f, pos[4], qt);
        int64_t bits[8], zp[8] = {0};
        for (uint32_t i = 0; i < n_scale; i++) {
            uint32_t u;
            memcpy(&u, &scale[i], 4);
            bits[i] = u;
        }
        fb_link(f, qpos[2], fb_vec(f, n_scale, 4, bits));
        fb_link(f, qpos[3], fb_vec(f, n_scale, 8, zp));
    }
    return t;
}

static size_t tiny_model(fbb *f, const tiny_knobs *k)
{
    fb_begin(f, "TFL3");
    size_t mpos[8];
    fbf mf[8] = {F32(3), FOFF, FOFF, FOFF, FOFF, F_ABSENT, F_ABSENT, F_ABSENT};
    size_t root = fb_table(f, 8, mf, mpos);
    fb_root(f, root);
    fb_link(f, mpos[3], fb_string(f, "tiny", true));

    /* operator codes: CONV_2D in the deprecated field only; RESHAPE in builtin_code only */
    size_t codes = fb_vec_of(f, 2);
    fb_link(f, mpos[1], codes);
    fb_elem(f, codes, 0, fb_table(f, 4, (fbf[]){F8(3), F_ABSENT, F32(2), F_ABSENT}, NULL));
    fb_elem(f, codes, 1, fb_table(f, 4, (fbf[]){F_ABSENT, F_ABSENT, F_ABSENT, F32(22)}, NULL));

    /* buffers: 0 empty, 1 weights (3*3*3*2 = 54 bytes), 2 bias (3 int32), 3 reshape's shape (2 int32) */
    size_t bpos[3], bufs = fb_vec_of(f, 4);
    fb_link(f, mpos[4], bufs);
    fb_elem(f, bufs, 0, fb_table(f, 3, (fbf[]){F_ABSENT, F_ABSENT, F_ABSENT}, NULL));
    fb_elem(f, bufs, 1,
            fb_table(f, 3, (fbf[]){FOFF, k->buffer_offset ? (fbf)F64(k->buffer_offset) : (fbf)F_ABSENT, F_ABSENT},
                     bpos));
    int64_t w[54];
    for (int i = 0; i < 54; i++)
        w[i] = i % 5;
    fb_link(f, bpos[0], fb_vec(f, 54, 1, w));
    fb_elem(f, bufs, 2, fb_table(f, 3, (fbf[]){FOFF, F_ABSENT, F_ABSENT}, bpos));
    fb_link(f, bpos[0], fb_vec(f, 12, 1, (int64_t[]){1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0}));
    fb_elem(f, bufs, 3, fb_table(f, 3, (fbf[]){FOFF, F_ABSENT, F_ABSENT}, bpos));
    fb_link(f, bpos[0], fb_vec(f, 8, 1, (int64_t[]){1, 0, 0, 0, 48, 0, 0, 0}));

    size_t spos[5], sgs = fb_vec_of(f, 1);
    fb_link(f, mpos[2], sgs);
    fb_elem(f, sgs, 0, fb_table(f, 5, (fbf[]){FOFF, FOFF, FOFF, FOFF, FOFF}, spos));
    fb_link(f, spos[4], fb_string(f, "g", true));
    size_t tensors = fb_vec_of(f, 6);
    fb_link(f, spos[0], tensors);
    const float s1 = 0.5f, s3[3] = {0.25f, 0.125f, 0.0625f}, b3[3] = {0.125f, 0.0625f, 0.03125f}, s4 = 0.75f;
    fb_elem(f, tensors, 0, tiny_tensor(f, "in", 9, 0, 4, (int64_t[]){1, 4, 4, 2}, 1, &s1, 0, k->external_buffer));
    fb_elem(f, tensors, 1, tiny_tensor(f, "w", 9, 1, 4, (int64_t[]){3, 3, 3, 2}, 3, s3, 0, 0));
    fb_elem(f, tensors, 2, tiny_tensor(f, "b", 2, 2, 1, (int64_t[]){3}, 3, b3, 0, 0));
    fb_elem(f, tensors, 3, tiny_tensor(f, "conv", 9, 0, 4, (int64_t[]){1, 4, 4, 3}, 1, &s4, 0, 0));
    fb_elem(f, tensors, 4, tiny_tensor(f, "shape", 2, 3, 1, (int64_t[]){2}, 0, NULL, 0, 0));
    fb_elem(f, tensors, 5, tiny_tensor(f, "out", 9, 0, 2, (int64_t[]){1, 48}, 1, &s4, 0, 0));
    fb_link(f, spos[1], fb_vec(f, 1, 4, (int64_t[]){0}));
    fb_link(f, spos[2], fb_vec(f, 1, 4, (int64_t[]){5}));

    size_t opos[13], ops = fb_vec_of(f, 2);
    fb_link(f, spos[3], ops);
    fbf conv[13] = {F_ABSENT, FOFF, FOFF, F8(k->conv_options_type), k->conv_options_table ? (fbf)FOFF : (fbf)F_ABSENT};
    fb_elem(f, ops, 0, fb_table(f, 13, conv, opos));
    fb_link(f, opos[1], fb_vec(f, 3, 4, (int64_t[]){0, 1, 2}));
    fb_link(f, opos[2], fb_vec(f, 1, 4, (int64_t[]){3}));
    if (k->conv_options_table)   /* Conv2DOptions: padding absent (SAME), stride_w 1, stride_h 1, RELU6 */
        fb_link(f, opos[4], fb_table(f, 4, (fbf[]){F_ABSENT, F32(1), F32(1), F8(3)}, NULL));
    fbf reshape[13] = {F32(1), FOFF, FOFF};
    fb_elem(f, ops, 1, fb_table(f, 13, reshape, opos));
    fb_link(f, opos[1], fb_vec(f, 2, 4, (int64_t[]){3, 4}));
    fb_link(f, opos[2], fb_vec(f, 1, 4, (int64_t[]){5}));
    return f->n;
}

static rip_status parse(const fbb *f, size_t len, rip_tfl_model *m, char *err)
{
    return rip_tfl_model_parse(f->b, len, "hand.tflite", m, err);
}

Test(tflite, a_hand_built_model_decodes_to_what_was_written)
{
    static fbb f;
    size_t len = tiny_model(&f, &tiny_default);
    rip_tfl_model m;
    char err[RIP_ERR_LEN];
    cr_assert_eq(parse(&f, len, &m, err), RIP_OK, "%s", err);
    cr_expect_eq(m.version, 3);
    cr_expect_str_eq(m.description, "tiny");
    cr_assert_eq(m.n_opcodes, 2);
    cr_expect_eq(m.opcodes[0].builtin, 3, "CONV_2D from deprecated_builtin_code");
    cr_expect_eq(m.opcodes[0].version, 2);
    cr_expect_eq(m.opcodes[1].builtin, 22, "RESHAPE from builtin_code");
    cr_expect_eq(m.opcodes[1].deprecated_builtin_code, 0);
    cr_expect_eq(m.opcodes[1].version, 1, "version defaults to 1");
    cr_expect_null(m.opcodes[1].custom_code);
    cr_assert_eq(m.n_buffers, 4);
    cr_expect_eq(m.buffers[0].size, 0);
    cr_expect_null(m.buffers[0].data);
    cr_expect_eq(m.buffers[1].size, 54);
    cr_expect_eq(m.buffers[1].data[7], 2);
    cr_expect_eq(m.buffers[1].data, m.file + (m.buffers[1].data - m.file), "data points into the model's copy");
    cr_expect(m.buffers[1].data > m.file && m.buffers[1].data < m.file + m.file_len);
    cr_assert_eq(m.n_subgraphs, 1);
    const rip_tfl_subgraph *sg = &m.subgraphs[0];
    cr_expect_str_eq(sg->name, "g");
    cr_assert_eq(sg->n_tensors, 6);
    const rip_tfl_tensor *w = &sg->tensors[1];
    cr_expect_str_eq(w->name, "w");
    cr_expect_eq(w->type, RIP_TFL_INT8);
    cr_assert_eq(w->rank, 4);
    cr_expect_eq(w->shape[0], 3);
    cr_expect_eq(w->shape[3], 2);
    cr_expect_eq(w->buffer, 1);
    cr_assert_eq(w->quant.n_scale, 3);
    cr_expect_eq(w->quant.scale[2], 0.0625f);
    cr_expect_eq(w->quant.n_zero_point, 3);
    cr_expect_eq(w->quant.zero_point[1], 0);
    cr_expect_eq(w->quant.n_min, 0);
    cr_expect_not(sg->tensors[4].quant.present, "no quantization table");
    cr_expect_not(w->has_shape_signature);
    cr_assert_eq(sg->n_operators, 2);
    const rip_tfl_operator *conv = &sg->operators[0], *rs = &sg->operators[1];
    cr_expect_eq(conv->opcode_index, 0, "absent: 0");
    cr_expect_eq(conv->n_inputs, 3);
    cr_expect_eq(conv->options_type, RIP_TFL_OPT_CONV_2D);
    cr_assert(conv->options_decoded);
    cr_expect_eq(conv->opt.conv.padding, RIP_TFL_PAD_SAME);
    cr_expect_eq(conv->opt.conv.stride_w, 1);
    cr_expect_eq(conv->opt.conv.activation, RIP_TFL_ACT_RELU6);
    cr_expect_eq(conv->opt.conv.dilation_w, 1, "schema default");
    cr_expect_eq(conv->opt.conv.dilation_h, 1, "schema default");
    cr_expect_eq(rs->options_type, RIP_TFL_OPT_NONE);
    cr_expect(rs->options_decoded, "RESHAPE without options: its defaults");
    cr_expect_not(rs->opt.reshape.has_new_shape);
    /* and it is a model the check accepts: [1,4,4,2] 3x3 SAME stride 1 -> [1,4,4,3] -> [1,48] */
    cr_expect_eq(rip_tfl_check(&m, err), RIP_OK, "%s", err);
    rip_tfl_model_free(&m);
    rip_tfl_model_free(&m);   /* harmless twice */
}

Test(tflite, options_of_an_unknown_or_absent_table)
{
    static fbb f;
    rip_tfl_model m;
    char err[RIP_ERR_LEN];
    tiny_knobs k = tiny_default;
    k.conv_options_type = 200;   /* not in the union: kept as its number */
    size_t len = tiny_model(&f, &k);
    cr_assert_eq(parse(&f, len, &m, err), RIP_OK, "%s", err);
    cr_expect_eq(m.subgraphs[0].operators[0].options_type, 200);
    cr_expect_not(m.subgraphs[0].operators[0].options_decoded);
    cr_expect_eq(rip_tfl_check(&m, err), RIP_S_DATA);
    cr_expect_str_eq(err, "hand.tflite: operator 0 (CONV_2D): options type 200 is not in the schema (Conv2DOptions "
                          "needed)");
    rip_tfl_model_free(&m);

    k.conv_options_type = RIP_TFL_OPT_POOL_2D;   /* a decoded type, the wrong one */
    len = tiny_model(&f, &k);
    cr_assert_eq(parse(&f, len, &m, err), RIP_OK, "%s", err);
    cr_expect_eq(rip_tfl_check(&m, err), RIP_S_DATA);
    cr_expect_str_eq(err, "hand.tflite: operator 0 (CONV_2D): options are Pool2DOptions, not Conv2DOptions");
    rip_tfl_model_free(&m);

    k.conv_options_type = RIP_TFL_OPT_CONV_2D;   /* the type without its table: the defaults, stride 0 */
    k.conv_options_table = false;
    len = tiny_model(&f, &k);
    cr_assert_eq(parse(&f, len, &m, err), RIP_OK, "%s", err);
    cr_expect(m.subgraphs[0].operators[0].options_decoded);
    cr_expect_eq(m.subgraphs[0].operators[0].opt.conv.stride_w, 0);
    cr_expect_eq(m.subgraphs[0].operators[0].opt.conv.dilation_w, 1);
    cr_expect_eq(rip_tfl_check(&m, err), RIP_S_DATA);
    cr_expect_str_eq(err, "hand.tflite: operator 0 (CONV_2D): height stride 0 and dilation 1: both must be at "
                          "least 1");
    rip_tfl_model_free(&m);
}

Test(tflite, data_outside_the_flatbuffer_is_refused)
{
    static fbb f;
    rip_tfl_model m;
    char err[RIP_ERR_LEN];
    tiny_knobs k = tiny_default;
    k.buffer_offset = 1;   /* "only valid if > 1": 1 is no offset */
    size_t len = tiny_model(&f, &k);
    cr_expect_eq(parse(&f, len, &m, err), RIP_OK, "%s", err);
    rip_tfl_model_free(&m);
    k.buffer_offset = 4096;
    len = tiny_model(&f, &k);
    cr_expect_eq(parse(&f, len, &m, err), RIP_S_DATA);
    cr_expect_str_eq(err, "hand.tflite: buffer 1: data outside the flatbuffer (offset 4096, size 0; models over "
                          "2 GiB) is not supported");
    k = tiny_default;
    k.external_buffer = 3;
    len = tiny_model(&f, &k);
    cr_expect_eq(parse(&f, len, &m, err), RIP_S_DATA);
    cr_expect_str_eq(err, "hand.tflite: subgraph 0: tensor 0: external buffer 3: tensor data outside the file is "
                          "not supported");
}

/* The bytes of a fresh small model with the uint32 at `at` replaced by v; the result of reading it. */
static rip_status read_patched(fbb *f, size_t len, size_t at, uint32_t v, char *err)
{
    uint32_t old;
    memcpy(&old, f->b + at, 4);
    put32(f->b + at, v);
    rip_tfl_model m;
    rip_status st = parse(f, len, &m, err);
    if (st == RIP_OK)
        rip_tfl_model_free(&m);
    memcpy(f->b + at, &old, 4);
    return st;
}

Test(tflite, the_file_header_and_the_root)
{
    static fbb f;
    rip_tfl_model m;
    char err[RIP_ERR_LEN];
    size_t len = tiny_model(&f, &tiny_default);
    cr_expect_eq(parse(&f, 0, &m, err), RIP_S_DATA);
    cr_expect_str_eq(err, "hand.tflite: not a TFLite model: 0 bytes: too short for a flatbuffer");
    cr_expect_eq(parse(&f, 7, &m, err), RIP_S_DATA);
    cr_expect_str_eq(err, "hand.tflite: not a TFLite model: 7 bytes: too short for a flatbuffer");
    memcpy(f.b + 4, "TFL2", 4);
    cr_expect_eq(parse(&f, len, &m, err), RIP_S_DATA);
    cr_expect_str_eq(err, "hand.tflite: not a TFLite model: no \"TFL3\" file identifier at byte 4");
    memcpy(f.b + 4, "TFL3", 4);
    cr_expect_eq(read_patched(&f, len, 0, (uint32_t)len, err), RIP_S_DATA);
    cr_expect_str_eq(err, "hand.tflite: not a TFLite model: root table offset points past the end of the file");
    cr_expect_eq(read_patched(&f, len, 0, 0xffffffffu, err), RIP_S_DATA);
    cr_expect_str_eq(err, "hand.tflite: not a TFLite model: root table offset points past the end of the file");
    /* a root that is not a table: its "vtable" is the file's first bytes read as a soffset */
    cr_expect_eq(read_patched(&f, len, 0, 4, err), RIP_S_DATA);
    cr_expect(strstr(err, "hand.tflite: not a TFLite model: root table: ") == err, "%s", err);
}

Test(tflite, vtables_and_fields_outside_their_bounds)
{
    static fbb f;
    char err[RIP_ERR_LEN];
    size_t len = tiny_model(&f, &tiny_default);
    uint32_t root;
    memcpy(&root, f.b, 4);
    /* the root table's soffset: the vtable before the file, after its end, at its very end */
    cr_expect_eq(read_patched(&f, len, root, root + 1, err), RIP_S_DATA);
    cr_expect_str_eq(err, "hand.tflite: not a TFLite model: root table: vtable offset points outside the file");
    cr_expect_eq(read_patched(&f, len, root, (uint32_t) - (int32_t)(len - root), err), RIP_S_DATA);
    cr_expect_str_eq(err, "hand.tflite: not a TFLite model: root table: vtable offset points outside the file");
    cr_expect_eq(read_patched(&f, len, root, (uint32_t) - (int32_t)(len - root - 2), err), RIP_S_DATA);
    cr_expect_str_eq(err, "hand.tflite: not a TFLite model: root table: vtable offset points outside the file");
    /* the vtable's own two sizes (vtable just before the table: soffset = table - vtable) */
    uint32_t soff;
    memcpy(&soff, f.b + root, 4);
    size_t vt = root - soff;
    uint8_t keep[4];
    memcpy(keep, f.b + vt, 4);
    rip_tfl_model m;
    static const struct { uint16_t vt_bytes, tbl_bytes; const char *why; } bad[] = {
        {5, 8, "vtable size 5 is not an even number of at least 4 bytes"},
        {2, 8, "vtable size 2 is not an even number of at least 4 bytes"},
        {0xfffe, 8, "vtable of 65534 bytes runs past the end of the file"},
        {20, 2, "table of 2 bytes is shorter than its vtable offset"},
        {20, 0xfff0, "table of 65520 bytes runs past the end of the file"},
        /* version (field 0) at offset 4 of a table of 6 bytes: a 4-byte field that does not fit */
        {20, 6, "version: field 0 (4 bytes at offset 4) lies outside its table of 6 bytes"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        f.b[vt] = (uint8_t)bad[i].vt_bytes;
        f.b[vt + 1] = (uint8_t)(bad[i].vt_bytes >> 8);
        f.b[vt + 2] = (uint8_t)bad[i].tbl_bytes;
        f.b[vt + 3] = (uint8_t)(bad[i].tbl_bytes >> 8);
        cr_expect_eq(parse(&f, len, &m, err), RIP_S_DATA, "%s", bad[i].why);
        cr_expect(strstr(err, bad[i].why) != NULL, "'%s' lacks '%s'", err, bad[i].why);
        memcpy(f.b + vt, keep, 4);
    }
    /* a field offset inside the vtable pointing past the table: version at offset 200 */
    f.b[vt + 4] = 200;
    cr_expect_eq(parse(&f, len, &m, err), RIP_S_DATA);
    cr_expect_str_eq(err, "hand.tflite: version: field 0 (4 bytes at offset 200) lies outside its table of 24 bytes");
    memcpy(f.b + vt, keep, 4);
    f.b[vt + 4] = 4;
    cr_expect_eq(parse(&f, len, &m, err), RIP_OK, "%s", err);
    rip_tfl_model_free(&m);
}

/* The position of field `field` in the table at pos of the hand-built model. */
static size_t hand_field(const fbb *f, size_t len, size_t pos, unsigned field)
{
    rip_fbs fb = {.buf = f->b, .len = len};
    rip_fbs_table t;
    char why[RIP_FBS_WHY_LEN];
    cr_assert_eq(rip_fbs_table_at(&fb, pos, &t, why), RIP_OK, "%s", why);
    size_t at = rip_fbs_field_pos(&fb, &t, field);
    cr_assert_neq(at, 0);
    return at;
}

/* Follow the uoffset at `at`. */
static size_t follow_at(const fbb *f, size_t at)
{
    return vector_at(f->b, at);
}

Test(tflite, offsets_vectors_and_strings_outside_the_file)
{
    static fbb f;
    char err[RIP_ERR_LEN];
    size_t len = tiny_model(&f, &tiny_default);
    uint32_t root;
    memcpy(&root, f.b, 4);
    size_t desc = hand_field(&f, len, root, 3), subgraphs = hand_field(&f, len, root, 2);
    /* a huge uoffset (they are unsigned: "negative" is huge) */
    cr_expect_eq(read_patched(&f, len, subgraphs, 0xfffffff0u, err), RIP_S_DATA);
    cr_expect_str_eq(err, "hand.tflite: subgraphs: offset points past the end of the file");
    cr_expect_eq(read_patched(&f, len, desc, (uint32_t)(len - desc), err), RIP_S_DATA);
    cr_expect_str_eq(err, "hand.tflite: description: offset points past the end of the file");
    /* the description's string: no NUL after its bytes, bytes past the end, ending the file */
    size_t s = follow_at(&f, desc);
    cr_expect_eq(read_patched(&f, len, s, 3, err), RIP_S_DATA);   /* "tin" followed by 'y' */
    cr_expect_str_eq(err, "hand.tflite: description: string has no NUL terminator");
    cr_expect_eq(read_patched(&f, len, s, 0x7fffffff, err), RIP_S_DATA);
    cr_expect_str_eq(err, "hand.tflite: description: string of 2147483647 bytes runs past the end of the file");
    cr_expect_eq(read_patched(&f, len, s, (uint32_t)(len - s - 4), err), RIP_S_DATA);
    cr_expect_str_eq(err, "hand.tflite: description: string has no NUL terminator (it ends the file)");
    /* vector counts whose byte size overflows 32 bits, or simply does not fit */
    size_t v = follow_at(&f, subgraphs);
    cr_expect_eq(read_patched(&f, len, v, 0x40000000u, err), RIP_S_DATA);
    cr_expect_str_eq(err, "hand.tflite: subgraphs: vector of 1073741824 4-byte elements runs past the end of the file");
    cr_expect_eq(read_patched(&f, len, v, 0xffffffffu, err), RIP_S_DATA);
    cr_expect_str_eq(err, "hand.tflite: subgraphs: vector of 4294967295 4-byte elements runs past the end of the file");
    /* a vector ending exactly at the end of the file is fine; one element more is not */
    rip_fbs fb = {.buf = f.b, .len = len};
    rip_fbs_vec vec;
    bool present;
    char why[RIP_FBS_WHY_LEN];
    rip_fbs_table t;
    cr_assert_eq(rip_fbs_root(&fb, "TFL3", &t, why), RIP_OK, "%s", why);
    fb.len = v + 4 + 4;   /* the count and the one element */
    cr_expect_eq(rip_fbs_vec_field(&fb, &t, 2, 4, &vec, &present, why), RIP_OK, "%s", why);
    cr_expect_eq(vec.n, 1);
    fb.len = v + 4 + 3;
    cr_expect_eq(rip_fbs_vec_field(&fb, &t, 2, 4, &vec, &present, why), RIP_S_DATA);
    cr_expect_str_eq(why, "vector of 1 4-byte elements runs past the end of the file");
    /* an element of a vector of tables pointing out */
    cr_expect_eq(read_patched(&f, len, v + 4, (uint32_t)(len - v - 4), err), RIP_S_DATA);
    cr_expect_str_eq(err, "hand.tflite: subgraph 0: offset points past the end of the file");
}

Test(tflite, a_deep_path_names_the_tensor_and_its_field)
{
    static fbb f;
    char err[RIP_ERR_LEN];
    size_t len = tiny_model(&f, &tiny_default);
    rip_tfl_model m;
    cr_assert_eq(parse(&f, len, &m, err), RIP_OK, "%s", err);
    rip_tfl_model_free(&m);
    /* find tensor 3's shape vector through the reader and make its count absurd */
    rip_fbs fb = {.buf = f.b, .len = len};
    rip_fbs_table root, sg, t;
    rip_fbs_vec v;
    bool present;
    char why[RIP_FBS_WHY_LEN];
    cr_assert_eq(rip_fbs_root(&fb, "TFL3", &root, why), RIP_OK);
    cr_assert_eq(rip_fbs_vec_field(&fb, &root, 2, 4, &v, &present, why), RIP_OK);
    cr_assert_eq(rip_fbs_vec_table(&fb, &v, 0, &sg, why), RIP_OK);
    cr_assert_eq(rip_fbs_vec_field(&fb, &sg, 0, 4, &v, &present, why), RIP_OK);
    cr_assert_eq(rip_fbs_vec_table(&fb, &v, 3, &t, why), RIP_OK);
    size_t shape = follow_at(&f, rip_fbs_field_pos(&fb, &t, 0));
    cr_expect_eq(read_patched(&f, len, shape, 0x40000000u, err), RIP_S_DATA);
    cr_expect_str_eq(err, "hand.tflite: subgraph 0: tensor 3: shape: vector of 1073741824 4-byte elements runs past "
                          "the end of the file");
    size_t name = follow_at(&f, rip_fbs_field_pos(&fb, &t, 3));
    cr_expect_eq(read_patched(&f, len, name, 3, err), RIP_S_DATA);   /* "conv" cut to "con" + 'v' */
    cr_expect_str_eq(err, "hand.tflite: subgraph 0: tensor 3: name: string has no NUL terminator");
}

Test(tflite, tables_shared_beyond_the_decoding_budget_are_refused)
{
    /* one tensor table with a shape of 4000 dimensions, referenced 30000 times: a 136 KB file that would
    ** decode to 30000 copies of 16 KB (480 MB) */
    static fbb f;
    fb_begin(&f, "TFL3");
    size_t mpos[8], spos[5], tpos[11];
    size_t root = fb_table(&f, 8, (fbf[8]){F32(3), F_ABSENT, FOFF}, mpos);
    fb_root(&f, root);
    size_t sgs = fb_vec_of(&f, 1);
    fb_link(&f, mpos[2], sgs);
    fb_elem(&f, sgs, 0, fb_table(&f, 5, (fbf[5]){FOFF}, spos));
    size_t tensors = fb_vec_of(&f, 30000);
    fb_link(&f, spos[0], tensors);
    size_t t = fb_table(&f, 11, (fbf[11]){FOFF, F8(9)}, tpos);
    fb_link(&f, tpos[0], fb_vec(&f, 4000, 4, NULL));
    for (uint32_t i = 0; i < 30000; i++)
        fb_elem(&f, tensors, i, t);
    rip_tfl_model m;
    char err[RIP_ERR_LEN];
    cr_expect_eq(parse(&f, f.n, &m, err), RIP_S_DATA);
    cr_expect(strstr(err, "hand.tflite: subgraph 0: tensor ") == err, "%s", err);
    cr_expect(strstr(err, ": shape: the decoded model would exceed ") != NULL, "%s", err);
    cr_expect(strstr(err, "tables in the file share data") != NULL, "%s", err);
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

/* ---- the semantic check, on small models built here ------------------------------- */

/*
** A model described as tensors and operators, written as a flatbuffer
** with fbb: one operator code per operator (the code in both fields when
** it fits deprecated_builtin_code, else in builtin_code alone), one
** buffer per constant tensor after the empty buffer 0.
*/
#define GM_T 20
#define GM_OPS 8

typedef struct gm_tensor {
    const char *name;
    int type, rank;
    int32_t shape[6];
    bool konst, variable, no_quant;
    uint8_t data[1024];
    size_t bytes;
    int n_scale, qdim;
    float scale[16];
    int64_t zp[16];
} gm_tensor;

typedef struct gm_op {
    int code, n_in, n_out, opt_type, n_opt;
    int32_t in[6], out[2];
    fbf opt[8];
    bool new_shape;
    int n_new_shape;
    int64_t new_shape_v[6];
} gm_op;

typedef struct gmodel {
    int n_t, n_op, n_in, n_out, n_subgraphs;
    gm_tensor t[GM_T];
    gm_op op[GM_OPS];
    int32_t in[4], out[4];
} gmodel;

static int gm_tensor_add(gmodel *g, const char *name, int type, int rank, const int32_t *shape)
{
    cr_assert_lt(g->n_t, GM_T);
    gm_tensor *t = &g->t[g->n_t];
    memset(t, 0, sizeof *t);
    t->name = name;
    t->type = type;
    t->rank = rank;
    memcpy(t->shape, shape, (size_t)rank * sizeof *shape);
    return g->n_t++;
}

/* An int8 activation (scale 0.5, zero point -3), or float32 without quantization. */
static int gm_act(gmodel *g, const char *name, int type, int rank, const int32_t *shape)
{
    int i = gm_tensor_add(g, name, type, rank, shape);
    if (type == RIP_TFL_FLOAT32)
        g->t[i].no_quant = true;
    else {
        g->t[i].n_scale = 1;
        g->t[i].scale[0] = 0.5f;
        g->t[i].zp[0] = -3;
    }
    return i;
}

/* A constant of type `type`; int32 values from v (NULL: bytes 1, 2, 3, ...); n_scale scales along qdim. */
static int gm_const(gmodel *g, const char *name, int type, int rank, const int32_t *shape, const int32_t *v,
                    int n_scale, int qdim)
{
    int i = gm_tensor_add(g, name, type, rank, shape);
    gm_tensor *t = &g->t[i];
    int64_t n = 1;
    for (int k = 0; k < rank; k++)
        n *= shape[k];
    t->konst = true;
    t->bytes = (size_t)n * (size_t)rip_tfl_type_bytes(type);
    cr_assert_leq(t->bytes, sizeof t->data);
    for (size_t k = 0; k < t->bytes; k++)
        t->data[k] = (uint8_t)(k % 7 + 1);
    if (v)
        for (int64_t k = 0; k < n; k++)
            put32(t->data + 4 * k, (uint32_t)v[k]);
    t->n_scale = n_scale;
    t->qdim = qdim;
    for (int k = 0; k < n_scale; k++)
        t->scale[k] = 0.01f * (float)(k + 1);
    if (n_scale == 0)
        t->no_quant = true;
    return i;
}

static gm_op *gm_op_add(gmodel *g, int code, int n_in, const int32_t *in, int32_t out, int opt_type)
{
    cr_assert_lt(g->n_op, GM_OPS);
    gm_op *o = &g->op[g->n_op++];
    memset(o, 0, sizeof *o);
    o->code = code;
    o->n_in = n_in;
    memcpy(o->in, in, (size_t)n_in * sizeof *in);
    o->n_out = 1;
    o->out[0] = out;
    o->opt_type = opt_type;
    return o;
}

static size_t gm_write_tensor(fbb *f, const gm_tensor *t, uint32_t buffer)
{
    size_t pos[11], qpos[7];
    fbf fields[11] = {FOFF, F8(t->type), F32(buffer), FOFF, t->no_quant ? (fbf)F_ABSENT : (fbf)FOFF,
                      t->variable ? (fbf)F8(1) : (fbf)F_ABSENT};
    size_t at = fb_table(f, 11, fields, pos);
    int64_t shape[6];
    for (int k = 0; k < t->rank; k++)
        shape[k] = t->shape[k];
    fb_link(f, pos[0], fb_vec(f, (uint32_t)t->rank, 4, shape));
    fb_link(f, pos[3], fb_string(f, t->name, true));
    if (!t->no_quant) {
        size_t q = fb_table(f, 7, (fbf[7]){F_ABSENT, F_ABSENT, FOFF, FOFF, F_ABSENT, F_ABSENT, F32(t->qdim)}, qpos);
        fb_link(f, pos[4], q);
        int64_t bits[16];
        for (int k = 0; k < t->n_scale; k++) {
            uint32_t u;
            memcpy(&u, &t->scale[k], 4);
            bits[k] = u;
        }
        fb_link(f, qpos[2], fb_vec(f, (uint32_t)t->n_scale, 4, bits));
        fb_link(f, qpos[3], fb_vec(f, (uint32_t)t->n_scale, 8, t->zp));
    }
    return at;
}

/* The flatbuffer of g in f; returns its length. */
static size_t gm_write(fbb *f, const gmodel *g)
{
    fb_begin(f, "TFL3");
    size_t mpos[8];
    size_t root = fb_table(f, 8, (fbf[8]){F32(3), FOFF, FOFF, F_ABSENT, FOFF}, mpos);
    fb_root(f, root);
    size_t codes = fb_vec_of(f, (uint32_t)g->n_op);
    fb_link(f, mpos[1], codes);
    for (int i = 0; i < g->n_op; i++) {
        int c = g->op[i].code;
        fb_elem(f, codes, (uint32_t)i, fb_table(f, 4, (fbf[4]){F8(c < 127 ? c : 127), F_ABSENT, F_ABSENT, F32(c)}, NULL));
    }
    int n_const = 0;
    for (int i = 0; i < g->n_t; i++)
        n_const += g->t[i].konst;
    size_t bufs = fb_vec_of(f, (uint32_t)(1 + n_const));
    fb_link(f, mpos[4], bufs);
    fb_elem(f, bufs, 0, fb_table(f, 3, (fbf[3]){F_ABSENT}, NULL));
    uint32_t buffer_of[GM_T] = {0}, b = 1;
    for (int i = 0; i < g->n_t; i++) {
        if (!g->t[i].konst)
            continue;
        size_t bpos[3];
        fb_elem(f, bufs, b, fb_table(f, 3, (fbf[3]){FOFF}, bpos));
        int64_t bytes[1024];
        for (size_t k = 0; k < g->t[i].bytes; k++)
            bytes[k] = g->t[i].data[k];
        fb_link(f, bpos[0], fb_vec(f, (uint32_t)g->t[i].bytes, 1, bytes));
        buffer_of[i] = b++;
    }
    int n_sg = g->n_subgraphs ? g->n_subgraphs : 1;
    size_t sgs = fb_vec_of(f, (uint32_t)n_sg);
    fb_link(f, mpos[2], sgs);
    for (int s = 0; s < n_sg; s++) {
        size_t spos[5];
        fb_elem(f, sgs, (uint32_t)s, fb_table(f, 5, (fbf[5]){FOFF, FOFF, FOFF, FOFF}, spos));
        size_t tv = fb_vec_of(f, (uint32_t)g->n_t);
        fb_link(f, spos[0], tv);
        for (int i = 0; i < g->n_t; i++)
            fb_elem(f, tv, (uint32_t)i, gm_write_tensor(f, &g->t[i], buffer_of[i]));
        int64_t io[4];
        for (int i = 0; i < g->n_in; i++)
            io[i] = g->in[i];
        fb_link(f, spos[1], fb_vec(f, (uint32_t)g->n_in, 4, io));
        for (int i = 0; i < g->n_out; i++)
            io[i] = g->out[i];
        fb_link(f, spos[2], fb_vec(f, (uint32_t)g->n_out, 4, io));
        size_t ov = fb_vec_of(f, (uint32_t)g->n_op);
        fb_link(f, spos[3], ov);
        for (int i = 0; i < g->n_op; i++) {
            const gm_op *o = &g->op[i];
            size_t opos[13];
            fbf fields[13] = {F32(i), FOFF, FOFF, F8(o->opt_type), o->opt_type ? (fbf)FOFF : (fbf)F_ABSENT};
            fb_elem(f, ov, (uint32_t)i, fb_table(f, 13, fields, opos));
            int64_t v[6];
            for (int k = 0; k < o->n_in; k++)
                v[k] = o->in[k];
            fb_link(f, opos[1], fb_vec(f, (uint32_t)o->n_in, 4, v));
            v[0] = o->out[0];
            fb_link(f, opos[2], fb_vec(f, 1, 4, v));
            if (o->opt_type) {
                size_t xpos[8];
                fb_link(f, opos[4], fb_table(f, o->n_opt, o->opt, xpos));
                if (o->new_shape)
                    fb_link(f, xpos[0], fb_vec(f, (uint32_t)o->n_new_shape, 4, o->new_shape_v));
            }
        }
    }
    return f->n;
}

/* rip_tfl_check of g: "" when accepted, else the message without "gm.tflite: ". */
static const char *gm_check(const gmodel *g)
{
    static fbb f;
    static char msg[RIP_ERR_LEN];
    size_t len = gm_write(&f, g);
    rip_tfl_model m;
    char err[RIP_ERR_LEN];
    cr_assert_eq(rip_tfl_model_parse(f.b, len, "gm.tflite", &m, err), RIP_OK, "%s", err);
    rip_status st = rip_tfl_check(&m, err);
    rip_tfl_model_free(&m);
    if (st == RIP_OK)
        return "";
    cr_assert_eq(st, RIP_S_DATA);
    cr_assert(strncmp(err, "gm.tflite: ", 11) == 0, "%s", err);
    snprintf(msg, sizeof msg, "%s", err + 11);
    return msg;
}

#define S(...) ((const int32_t[]){__VA_ARGS__})
#define CONV_OPTS(pad, sw, sh, act) {F8(pad), F32(sw), F32(sh), F8(act)}

/* A convolution model: input [1,h,w,c], weights [o,k,k,c] per channel, bias, output [1,oh,ow,o]. */
static void conv_model(gmodel *g, int h, int w, int c, int o, int k, int stride, int pad, int oh, int ow)
{
    memset(g, 0, sizeof *g);
    int in = gm_act(g, "in", RIP_TFL_INT8, 4, S(1, h, w, c));
    int wt = gm_const(g, "w", RIP_TFL_INT8, 4, S(o, k, k, c), NULL, o, 0);
    int b = gm_const(g, "b", RIP_TFL_INT32, 1, S(o), NULL, 0, 0);
    int out = gm_act(g, "out", RIP_TFL_INT8, 4, S(1, oh, ow, o));
    gm_op *op = gm_op_add(g, RIP_TFL_OP_CONV_2D, 3, S(in, wt, b), out, RIP_TFL_OPT_CONV_2D);
    op->n_opt = 4;
    memcpy(op->opt, (fbf[4])CONV_OPTS(pad, stride, stride, RIP_TFL_ACT_RELU), sizeof(fbf[4]));
    g->n_in = g->n_out = 1;
    g->in[0] = in;
    g->out[0] = out;
}

Test(tflite, conv_output_shapes_follow_tflite_padding)
{
    static gmodel g;
    /* SAME, stride 2 over 7: ceil(7/2) = 4 (total padding (4-1)*2+3-7 = 2, one each side) */
    conv_model(&g, 7, 7, 1, 2, 3, 2, RIP_TFL_PAD_SAME, 4, 4);
    cr_expect_str_eq(gm_check(&g), "");
    conv_model(&g, 7, 7, 1, 2, 3, 2, RIP_TFL_PAD_SAME, 3, 3);
    cr_expect_str_eq(gm_check(&g), "operator 0 (CONV_2D): output tensor 3 (out) has shape [1,3,3,2], the input, "
                                   "weights and options give [1,4,4,2]");
    /* VALID, stride 2 over 8 with 3 taps: floor((8-3)/2)+1 = 3 */
    conv_model(&g, 8, 8, 1, 2, 3, 2, RIP_TFL_PAD_VALID, 3, 3);
    cr_expect_str_eq(gm_check(&g), "");
    /* VALID with a kernel larger than the input */
    conv_model(&g, 2, 2, 1, 2, 3, 1, RIP_TFL_PAD_VALID, 1, 1);
    cr_expect_str_eq(gm_check(&g), "operator 0 (CONV_2D): height: a kernel of 3 (dilation 1) over 2 leaves no VALID "
                                   "output");
    /* a fused TANH */
    conv_model(&g, 4, 4, 1, 2, 3, 1, RIP_TFL_PAD_SAME, 4, 4);
    g.op[0].opt[3] = (fbf)F8(RIP_TFL_ACT_TANH);
    cr_expect_str_eq(gm_check(&g), "operator 0 (CONV_2D): fused activation TANH is not supported (NONE, RELU or "
                                   "RELU6)");
    /* weights with a non-zero zero point, bias of the wrong length, per-channel scales along the wrong axis */
    conv_model(&g, 4, 4, 1, 2, 3, 1, RIP_TFL_PAD_SAME, 4, 4);
    g.t[1].zp[1] = 5;
    cr_expect_str_eq(gm_check(&g), "tensor 1 (w): zero point 1 is 5: int8 weights are symmetric (0)");
    conv_model(&g, 4, 4, 1, 2, 3, 1, RIP_TFL_PAD_SAME, 4, 4);
    g.t[2] = g.t[2];
    g.t[2].shape[0] = 3;
    g.t[2].bytes = 12;
    cr_expect_str_eq(gm_check(&g), "operator 0 (CONV_2D): bias tensor 2 (b) has 3 elements for 2 output channels");
    conv_model(&g, 4, 4, 1, 2, 3, 1, RIP_TFL_PAD_SAME, 4, 4);
    g.t[1].qdim = 3;
    cr_expect_str_eq(gm_check(&g), "operator 0 (CONV_2D): weights tensor 1 (w): 2 scales along dimension 3 for 2 "
                                   "channels along dimension 0");
    /* no bias at all (two inputs), or -1 for it */
    conv_model(&g, 4, 4, 1, 2, 3, 1, RIP_TFL_PAD_SAME, 4, 4);
    g.op[0].n_in = 2;
    cr_expect_str_eq(gm_check(&g), "");
    g.op[0].n_in = 3;
    g.op[0].in[2] = -1;
    cr_expect_str_eq(gm_check(&g), "");
    g.op[0].in[0] = -1;
    cr_expect_str_eq(gm_check(&g), "operator 0 (CONV_2D): input 0: tensor index -1 out of range (4 tensors)");
}

Test(tflite, activations_types_and_dataflow)
{
    static gmodel g;
    conv_model(&g, 4, 4, 1, 2, 3, 1, RIP_TFL_PAD_SAME, 4, 4);
    g.t[3].type = RIP_TFL_INT16;
    cr_expect_str_eq(gm_check(&g), "tensor 3 (out): int16 activations are not supported");
    conv_model(&g, 4, 4, 1, 2, 3, 1, RIP_TFL_PAD_SAME, 4, 4);
    g.t[0].type = RIP_TFL_UINT8;
    cr_expect_str_eq(gm_check(&g), "tensor 0 (in): uint8 activations are not supported");
    conv_model(&g, 4, 4, 1, 2, 3, 1, RIP_TFL_PAD_SAME, 4, 4);
    g.t[0].type = RIP_TFL_FLOAT32;
    g.t[0].no_quant = true;
    cr_expect_str_eq(gm_check(&g), "tensor 0 (in): float32 activations are not supported (float only at a model "
                                   "input feeding QUANTIZE or an output fed by DEQUANTIZE)");
    conv_model(&g, 4, 4, 1, 2, 3, 1, RIP_TFL_PAD_SAME, 4, 4);
    g.t[3].n_scale = 2;
    g.t[3].scale[1] = 1;
    cr_expect_str_eq(gm_check(&g), "tensor 3 (out): int8 activation with 2 scales and 2 zero points: one of each "
                                   "(per tensor) needed");
    conv_model(&g, 4, 4, 1, 2, 3, 1, RIP_TFL_PAD_SAME, 4, 4);
    g.t[3].zp[0] = 200;
    cr_expect_str_eq(gm_check(&g), "tensor 3 (out): zero point 200 outside int8 [-128, 127]");
    conv_model(&g, 4, 4, 1, 2, 3, 1, RIP_TFL_PAD_SAME, 4, 4);
    g.t[0].variable = true;
    cr_expect_str_eq(gm_check(&g), "tensor 0 (in): variable tensors are not supported");
    conv_model(&g, 4, 4, 1, 2, 3, 1, RIP_TFL_PAD_SAME, 4, 4);
    g.n_in = 0;   /* the input is then read before anything writes it */
    cr_expect_str_eq(gm_check(&g), "operator 0 (CONV_2D): input tensor 0 (in) is read before any operator writes it "
                                   "(not a model input or a constant)");
    conv_model(&g, 4, 4, 1, 2, 3, 1, RIP_TFL_PAD_SAME, 4, 4);
    g.out[0] = 0;
    cr_expect_str_eq(gm_check(&g), "tensor 0 (in): a model output no operator writes");
    conv_model(&g, 4, 4, 1, 2, 3, 1, RIP_TFL_PAD_SAME, 4, 4);
    g.op[1] = g.op[0];   /* the same output written twice */
    g.n_op = 2;
    cr_expect_str_eq(gm_check(&g), "operator 1 (CONV_2D): output tensor 3 (out) is already written by operator 0");
    conv_model(&g, 4, 4, 1, 2, 3, 1, RIP_TFL_PAD_SAME, 4, 4);
    g.n_subgraphs = 2;
    cr_expect_str_eq(gm_check(&g), "2 subgraphs: only models with one are supported");
    conv_model(&g, 4, 4, 1, 2, 3, 1, RIP_TFL_PAD_SAME, 4, 4);
    g.op[0].code = 300;   /* beyond the schema */
    cr_expect_str_eq(gm_check(&g), "operator 0 (builtin 300): not supported");
    g.op[0].code = 209;
    cr_expect_str_eq(gm_check(&g), "operator 0 (STABLEHLO_CASE): not supported");
    /* a constant whose buffer is one byte short */
    conv_model(&g, 4, 4, 1, 2, 3, 1, RIP_TFL_PAD_SAME, 4, 4);
    g.t[1].bytes--;
    cr_expect_str_eq(gm_check(&g), "tensor 1 (w): buffer 1 holds 17 bytes, the shape [2,3,3,1] of int8 needs 18");
}

Test(tflite, depthwise_with_a_depth_multiplier)
{
    static gmodel g;
    memset(&g, 0, sizeof g);
    int in = gm_act(&g, "in", RIP_TFL_INT8, 4, S(1, 5, 5, 3));
    int w = gm_const(&g, "w", RIP_TFL_INT8, 4, S(1, 3, 3, 6), NULL, 6, 3);
    int b = gm_const(&g, "b", RIP_TFL_INT32, 1, S(6), NULL, 0, 0);
    int out = gm_act(&g, "out", RIP_TFL_INT8, 4, S(1, 3, 3, 6));
    gm_op *op = gm_op_add(&g, RIP_TFL_OP_DEPTHWISE_CONV_2D, 3, S(in, w, b), out, RIP_TFL_OPT_DEPTHWISE_CONV_2D);
    op->n_opt = 4;
    memcpy(op->opt, (fbf[4]){F8(RIP_TFL_PAD_VALID), F32(1), F32(1), F32(2)}, sizeof(fbf[4]));
    g.n_in = g.n_out = 1;
    g.in[0] = in;
    g.out[0] = out;
    cr_expect_str_eq(gm_check(&g), "", "M = 6 / 3 = 2");
    g.op[0].opt[3] = (fbf)F32(0);   /* depth_multiplier absent or 0: taken from the shapes */
    cr_expect_str_eq(gm_check(&g), "");
    g.op[0].opt[3] = (fbf)F32(3);
    cr_expect_str_eq(gm_check(&g), "operator 0 (DEPTHWISE_CONV_2D): depth_multiplier 3, but weights of 6 channels "
                                   "over 3 input channels give 2");
    g.op[0].opt[3] = (fbf)F32(2);
    g.t[w].qdim = 0;
    cr_expect_str_eq(gm_check(&g), "operator 0 (DEPTHWISE_CONV_2D): weights tensor 1 (w): 6 scales along dimension "
                                   "0 for 6 channels along dimension 3");
}

/* One operator from a to out with options; a and out int8 of the given shapes. */
static void unary_model(gmodel *g, int code, int rank, const int32_t *a, int orank, const int32_t *o, int opt_type)
{
    memset(g, 0, sizeof *g);
    int in = gm_act(g, "a", RIP_TFL_INT8, rank, a);
    int out = gm_act(g, "o", RIP_TFL_INT8, orank, o);
    gm_op_add(g, code, 1, S(in), out, opt_type);
    g->n_in = g->n_out = 1;
    g->in[0] = in;
    g->out[0] = out;
}

Test(tflite, pools_softmax_and_fully_connected)
{
    static gmodel g;
    unary_model(&g, RIP_TFL_OP_MAX_POOL_2D, 4, S(1, 5, 5, 2), 4, S(1, 3, 3, 2), RIP_TFL_OPT_POOL_2D);
    g.op[0].n_opt = 6;   /* SAME, stride 2, 3x3: ceil(5/2) = 3 */
    memcpy(g.op[0].opt, (fbf[6]){F8(RIP_TFL_PAD_SAME), F32(2), F32(2), F32(3), F32(3), F8(0)}, sizeof(fbf[6]));
    cr_expect_str_eq(gm_check(&g), "");
    g.t[1].zp[0] = 0;
    cr_expect_str_eq(gm_check(&g), "operator 0 (MAX_POOL_2D): output tensor 1 (o) has scale 0.5 and zero point 0, "
                                   "the input 0.5 and -3: MAX_POOL_2D does not requantize");
    unary_model(&g, RIP_TFL_OP_SOFTMAX, 2, S(1, 10), 2, S(1, 10), RIP_TFL_OPT_SOFTMAX);
    g.op[0].n_opt = 1;
    uint32_t one;
    memcpy(&one, &(float){1.0f}, 4);
    g.op[0].opt[0] = (fbf)F32(one);
    cr_expect_str_eq(gm_check(&g), "operator 0 (SOFTMAX): output tensor 1 (o) has scale 0.5 and zero point -3: int8 "
                                   "softmax needs 1/256 and -128");
    g.t[1].scale[0] = 1.0f / 256;
    g.t[1].zp[0] = -128;
    cr_expect_str_eq(gm_check(&g), "");
    g.op[0].n_opt = 0;   /* beta absent: 0 */
    cr_expect_str_eq(gm_check(&g), "operator 0 (SOFTMAX): beta 0: a finite positive beta needed");

    /* FULLY_CONNECTED: [1,2,2,3] flattens to rows of 12 -> [1,5]; keep_num_dims keeps the rank */
    memset(&g, 0, sizeof g);
    int in = gm_act(&g, "a", RIP_TFL_INT8, 4, S(1, 2, 2, 3));
    int w = gm_const(&g, "w", RIP_TFL_INT8, 2, S(5, 12), NULL, 1, 0);
    int out = gm_act(&g, "o", RIP_TFL_INT8, 2, S(1, 5));
    gm_op_add(&g, RIP_TFL_OP_FULLY_CONNECTED, 2, S(in, w), out, RIP_TFL_OPT_NONE);
    g.n_in = g.n_out = 1;
    g.in[0] = in;
    g.out[0] = out;
    cr_expect_str_eq(gm_check(&g), "", "no options stored: the defaults");
    g.t[out].shape[1] = 6;
    cr_expect_str_eq(gm_check(&g), "operator 0 (FULLY_CONNECTED): output tensor 2 (o) has shape [1,6], the input and "
                                   "weights give [1,5]");
    g.t[w].shape[1] = 5;
    g.t[w].shape[0] = 12;
    cr_expect_str_eq(gm_check(&g), "operator 0 (FULLY_CONNECTED): input tensor 0 (a) has 12 elements, not rows of the "
                                   "weights' 5");
}

Test(tflite, add_mean_concatenation_and_friends)
{
    static gmodel g;
    /* ADD broadcasting [1,4,4,3] + [1,1,1,3] */
    memset(&g, 0, sizeof g);
    int a = gm_act(&g, "a", RIP_TFL_INT8, 4, S(1, 4, 4, 3));
    int b = gm_act(&g, "b", RIP_TFL_INT8, 4, S(1, 1, 1, 3));
    int o = gm_act(&g, "o", RIP_TFL_INT8, 4, S(1, 4, 4, 3));
    gm_op_add(&g, RIP_TFL_OP_ADD, 2, S(a, b), o, RIP_TFL_OPT_NONE);
    g.n_in = 2, g.n_out = 1;
    g.in[0] = a, g.in[1] = b, g.out[0] = o;
    cr_expect_str_eq(gm_check(&g), "");
    g.t[b].shape[2] = 2;
    cr_expect_str_eq(gm_check(&g), "operator 0 (ADD): inputs of shapes [1,4,4,3] and [1,1,2,3] do not broadcast");

    /* MEAN over H and W, keep_dims and not */
    memset(&g, 0, sizeof g);
    a = gm_act(&g, "a", RIP_TFL_INT8, 4, S(1, 3, 3, 4));
    int ax = gm_const(&g, "axes", RIP_TFL_INT32, 1, S(2), S(1, -2), 0, 0);
    o = gm_act(&g, "o", RIP_TFL_INT8, 4, S(1, 1, 1, 4));
    gm_op *op = gm_op_add(&g, RIP_TFL_OP_MEAN, 2, S(a, ax), o, RIP_TFL_OPT_REDUCER);
    op->n_opt = 1;
    op->opt[0] = (fbf)F8(1);
    g.n_in = g.n_out = 1;
    g.in[0] = a, g.out[0] = o;
    cr_expect_str_eq(gm_check(&g), "", "axes 1 and -2 = 2, kept");
    g.op[0].opt[0] = (fbf)F8(0);
    cr_expect_str_eq(gm_check(&g), "operator 0 (MEAN): output tensor 2 (o) has shape [1,1,1,4], the input, axes and "
                                   "keep_dims give [1,4]");

    /* CONCATENATION along -1 */
    memset(&g, 0, sizeof g);
    a = gm_act(&g, "a", RIP_TFL_INT8, 4, S(1, 2, 2, 3));
    b = gm_act(&g, "b", RIP_TFL_INT8, 4, S(1, 2, 2, 5));
    o = gm_act(&g, "o", RIP_TFL_INT8, 4, S(1, 2, 2, 8));
    op = gm_op_add(&g, RIP_TFL_OP_CONCATENATION, 2, S(a, b), o, RIP_TFL_OPT_CONCATENATION);
    op->n_opt = 1;
    op->opt[0] = (fbf)F32(-1);
    g.n_in = 2, g.n_out = 1;
    g.in[0] = a, g.in[1] = b, g.out[0] = o;
    cr_expect_str_eq(gm_check(&g), "");
    g.op[0].opt[0] = (fbf)F32(2);
    cr_expect_str_eq(gm_check(&g), "operator 0 (CONCATENATION): input 1 of shape [1,2,2,5] does not join input 0 of "
                                   "shape [1,2,2,3] along axis 2");

    /* PAD [1,2,2,1] by 1 before, 2 after in H and W */
    memset(&g, 0, sizeof g);
    a = gm_act(&g, "a", RIP_TFL_INT8, 4, S(1, 2, 2, 1));
    int p = gm_const(&g, "pads", RIP_TFL_INT32, 2, S(4, 2), S(0, 0, 1, 2, 1, 2, 0, 0), 0, 0);
    o = gm_act(&g, "o", RIP_TFL_INT8, 4, S(1, 5, 5, 1));
    gm_op_add(&g, RIP_TFL_OP_PAD, 2, S(a, p), o, RIP_TFL_OPT_PAD);
    g.n_in = g.n_out = 1;
    g.in[0] = a, g.out[0] = o;
    cr_expect_str_eq(gm_check(&g), "");
    put32(g.t[p].data + 8, (uint32_t)-1);
    cr_expect_str_eq(gm_check(&g), "operator 0 (PAD): padding of dimension 1 is -1 before and 2 after: 0 to 2^31-1 "
                                   "needed");

    /* TRANSPOSE NHWC -> NCHW */
    memset(&g, 0, sizeof g);
    a = gm_act(&g, "a", RIP_TFL_INT8, 4, S(1, 2, 3, 4));
    p = gm_const(&g, "perm", RIP_TFL_INT32, 1, S(4), S(0, 3, 1, 2), 0, 0);
    o = gm_act(&g, "o", RIP_TFL_INT8, 4, S(1, 4, 2, 3));
    gm_op_add(&g, RIP_TFL_OP_TRANSPOSE, 2, S(a, p), o, RIP_TFL_OPT_NONE);
    g.n_in = g.n_out = 1;
    g.in[0] = a, g.out[0] = o;
    cr_expect_str_eq(gm_check(&g), "");
    put32(g.t[p].data + 4, 1);
    cr_expect_str_eq(gm_check(&g), "operator 0 (TRANSPOSE): perm tensor 1 (perm) is not a permutation of 0..3");

    /* RESIZE_NEAREST_NEIGHBOR to 4x6, RESHAPE with a -1 in new_shape */
    memset(&g, 0, sizeof g);
    a = gm_act(&g, "a", RIP_TFL_INT8, 4, S(1, 2, 3, 2));
    int sz = gm_const(&g, "size", RIP_TFL_INT32, 1, S(2), S(4, 6), 0, 0);
    o = gm_act(&g, "o", RIP_TFL_INT8, 4, S(1, 4, 6, 2));
    int r = gm_act(&g, "r", RIP_TFL_INT8, 2, S(1, 48));
    gm_op_add(&g, RIP_TFL_OP_RESIZE_NEAREST_NEIGHBOR, 2, S(a, sz), o, RIP_TFL_OPT_NONE);
    op = gm_op_add(&g, RIP_TFL_OP_RESHAPE, 1, S(o), r, RIP_TFL_OPT_RESHAPE);
    op->n_opt = 1;
    op->opt[0] = (fbf)FOFF;
    op->new_shape = true;
    op->n_new_shape = 2;
    op->new_shape_v[0] = -1, op->new_shape_v[1] = 48;
    g.n_in = g.n_out = 1;
    g.in[0] = a, g.out[0] = r;
    cr_expect_str_eq(gm_check(&g), "");
    g.op[1].new_shape_v[1] = 24;
    cr_expect_str_eq(gm_check(&g), "operator 1 (RESHAPE): output tensor 3 (r) has shape [1,48], the target shape is "
                                   "[2,24]");
}

Test(tflite, quantize_and_dequantize_at_the_edges_only)
{
    static gmodel g;
    memset(&g, 0, sizeof g);
    int f = gm_act(&g, "f", RIP_TFL_FLOAT32, 2, S(1, 8));
    int q = gm_act(&g, "q", RIP_TFL_INT8, 2, S(1, 8));
    int d = gm_act(&g, "d", RIP_TFL_FLOAT32, 2, S(1, 8));
    gm_op_add(&g, RIP_TFL_OP_QUANTIZE, 1, S(f), q, RIP_TFL_OPT_NONE);
    gm_op_add(&g, RIP_TFL_OP_DEQUANTIZE, 1, S(q), d, RIP_TFL_OPT_NONE);
    g.n_in = g.n_out = 1;
    g.in[0] = f, g.out[0] = d;
    cr_expect_str_eq(gm_check(&g), "");
    g.out[0] = q;   /* the float result is no model output */
    cr_expect_str_eq(gm_check(&g), "operator 1 (DEQUANTIZE): output tensor 2 (d) is float32 but not a model output: "
                                   "float tensors only at the model's edges");
    g.out[0] = d;
    g.t[f].type = RIP_TFL_INT8;   /* int8 -> int8 requantization */
    g.t[f].no_quant = false;
    g.t[f].n_scale = 1;
    g.t[f].scale[0] = 1;
    cr_expect_str_eq(gm_check(&g), "operator 0 (QUANTIZE): input tensor 0 (f) is int8: QUANTIZE is supported only "
                                   "from a float32 model input");
}

/* TFLite's window arithmetic against its definition, counted by brute force. */
Test(tflite, window_arithmetic_by_brute_force)
{
    for (int64_t in = 1; in <= 24; in++)
        for (int64_t k = 1; k <= 7; k++)
            for (int64_t s = 1; s <= 4; s++)
                for (int64_t d = 1; d <= 3; d++) {
                    int64_t eff = (k - 1) * d + 1, out, before, after;
                    /* VALID: window starts p*s with the whole window inside [0, in) */
                    int64_t valid = 0;
                    for (int64_t p = 0; p * s + eff <= in; p++)
                        valid++;
                    bool ok = rip_tfl_window(RIP_TFL_PAD_VALID, in, k, s, d, &out, &before, &after);
                    cr_assert_eq(ok, valid > 0, "VALID in %ld k %ld s %ld d %ld", (long)in, (long)k, (long)s, (long)d);
                    if (ok)
                        cr_assert(out == valid && before == 0 && after == 0, "VALID in %ld k %ld s %ld d %ld",
                                  (long)in, (long)k, (long)s, (long)d);
                    /* SAME: one output per stride step started inside the input; the smallest padding that
                    ** lets the last window end inside the padded input, the odd pixel after */
                    int64_t same = 0;
                    for (int64_t p = 0; p * s < in; p++)
                        same++;
                    cr_assert(rip_tfl_window(RIP_TFL_PAD_SAME, in, k, s, d, &out, &before, &after));
                    int64_t need = 0;
                    while ((same - 1) * s + eff > in + need)
                        need++;
                    cr_assert(out == same && before + after == need && before == need / 2,
                              "SAME in %ld k %ld s %ld d %ld: out %ld (%ld) pad %ld+%ld (%ld)", (long)in, (long)k,
                              (long)s, (long)d, (long)out, (long)same, (long)before, (long)after, (long)need);
                }
    int64_t out, b, a;
    cr_expect_not(rip_tfl_window(RIP_TFL_PAD_SAME, 5, 3, 0, 1, &out, &b, &a), "stride 0");
    cr_expect_not(rip_tfl_window(2, 5, 3, 1, 1, &out, &b, &a), "padding not in the schema");
    cr_expect(rip_tfl_window(RIP_TFL_PAD_SAME, INT32_MAX, INT32_MAX, INT32_MAX, INT32_MAX, &out, &b, &a),
              "no overflow at the int32 limits");
}

Test(tflite, tensor_byte_counts_with_overflow)
{
    rip_tfl_tensor t = {.type = RIP_TFL_INT32, .rank = 3, .shape = (int32_t[]){2, 3, 5}};
    int64_t n, bytes;
    cr_assert(rip_tfl_tensor_bytes(&t, &n, &bytes));
    cr_expect(n == 30 && bytes == 120);
    t.shape = (int32_t[]){1 << 15, 1 << 15, 1 << 14};   /* 2^44 elements, 2^46 bytes: the limit */
    cr_expect(rip_tfl_tensor_bytes(&t, &n, &bytes) && bytes == RIP_TFL_TENSOR_BYTES_MAX);
    t.shape = (int32_t[]){1 << 15, 1 << 15, (1 << 14) + 1};
    cr_expect_not(rip_tfl_tensor_bytes(&t, &n, &bytes));
    t.shape = (int32_t[]){INT32_MAX, INT32_MAX, INT32_MAX};
    cr_expect_not(rip_tfl_tensor_bytes(&t, &n, &bytes));
    t.shape = (int32_t[]){0, INT32_MAX, INT32_MAX};   /* zero elements whatever follows */
    cr_expect(rip_tfl_tensor_bytes(&t, &n, &bytes) && bytes == 0);
    t.shape = (int32_t[]){2, -1, 3};
    cr_expect_not(rip_tfl_tensor_bytes(&t, &n, &bytes));
    t.rank = 0;
    cr_expect(rip_tfl_tensor_bytes(&t, &n, &bytes) && n == 1 && bytes == 4, "a scalar");
    t.type = RIP_TFL_STRING;
    cr_expect_not(rip_tfl_tensor_bytes(&t, &n, &bytes));
}
