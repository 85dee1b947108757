/*
** tflite_patched.c — the tflite suite (tests/test_tflite.c) on real models
** broken on purpose: a flipped byte in each table the reader reads, every
** byte of a small model flipped in turn, and patched shapes, buffer
** indices, strides, weights and activation types, each refused by
** `ripsim model` in one line.
*/
#define TMPDIR_EXTERN
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
#include "tfl_check.h"
#include "tfl_model.h"
#include "tmpdir.h"
#include "tflite_util.h"

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
