/*
** tflite_util.h — helpers shared by the files of the tflite suite
** (tests/test_tflite.c, tflite_patched.c, tflite_flatbuffers.c,
** tflite_graphs.c): the vendor models found by the suite's PRE_ALL hook
** (defined in test_tflite.c), reading and writing files, a model's
** reader and the small hand-built flatbuffer writer.
*/
#ifndef RIPSIM_TEST_TFLITE_UTIL_H
#define RIPSIM_TEST_TFLITE_UTIL_H

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
#include "run_cmd.h"
#include "skip.h"
#include "tfl_check.h"
#include "tfl_model.h"

/* ---- the vendor models ---------------------------------------------------- */

#define MAX_MODELS 32

extern char vendor_dir[1024];             /* .../shared/vendor, "" when absent */

extern char models[MAX_MODELS][1400];

extern int n_models;

/* qsort comparison of two strings stored in place (char arrays). */
static inline int cmp_str(const void *a, const void *b)
{
    return strcmp((const char *)a, (const char *)b);
}

/* Find ../shared/vendor (beside the source tree) and its .tflite models, once. */
static inline void find_models(void)
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

/* Finds the vendor models; skips the test (rip_skip) when there are none. */
static inline void need_models(void)
{
    find_models();
    if (n_models == 0)
        rip_skip("no vendor models");
}

/* The vendor model whose file name is name (skips the test when absent). */
static inline const char *model(const char *name)
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

/* The whole file at path (malloc'd, one spare byte), its size in *len; fails
** the test when it cannot be read. */
static inline uint8_t *slurp(const char *path, size_t *len)
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

/* Writes the len bytes of b to path; fails the test on an error. */
static inline void spit(const char *path, const uint8_t *b, size_t len)
{
    FILE *f = fopen(path, "wb");
    cr_assert_not_null(f, "%s", path);
    cr_assert_eq(fwrite(b, 1, len, f), len);
    cr_assert_eq(fclose(f), 0);
}

/* One line, ending in a newline, nothing before it. */
static inline bool one_line(const char *s)
{
    size_t n = strlen(s);
    return n > 1 && s[n - 1] == '\n' && count_lines(s) == 1;
}

/* ---- (b) bad models made from a real one -------------------------------------- */

/* `ripsim model FILE` refuses: 65, one line on stderr containing want (or any line when NULL), no stdout. */
static inline void expect_refused(const char *file, const char *want, const char *what)
{
    run_result *r = RUN("model", file);
    cr_expect_eq(r->status, 65, "%s: exit %d, stderr %s", what, r->status, r->err);
    cr_expect(one_line(r->err), "%s: not one line: '%s'", what, r->err);
    cr_expect(strncmp(r->err, "ripsim model: ", 14) == 0, "%s: %s", what, r->err);
    cr_expect_str_eq(r->out, "", "%s: wrote to stdout", what);
    if (want)
        cr_expect(strstr(r->err, want) != NULL, "%s: '%s' lacks '%s'", what, r->err, want);
}

/* The first element of the vector held by the offset field at pos. */
static inline size_t vector_at(const uint8_t *b, size_t pos)
{
    uint32_t off = (uint32_t)b[pos] | (uint32_t)b[pos + 1] << 8 | (uint32_t)b[pos + 2] << 16 | (uint32_t)b[pos + 3] << 24;
    return pos + off;   /* the count; elements follow */
}

/* Stores v at p as 4 little-endian bytes. */
static inline void put32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
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

static inline void fb_bytes(fbb *f, const void *p, size_t n)
{
    cr_assert_leq(f->n + n, sizeof f->b);
    memcpy(f->b + f->n, p, n);
    f->n += n;
}

static inline void fb_le(fbb *f, uint64_t v, int size)
{
    for (int i = 0; i < size; i++) {
        uint8_t byte = (uint8_t)(v >> (8 * i));
        fb_bytes(f, &byte, 1);
    }
}

static inline void fb_align(fbb *f, size_t a)
{
    while (f->n % a)
        fb_le(f, 0, 1);
}

/* The header: root offset (linked by fb_root) and the identifier. */
static inline void fb_begin(fbb *f, const char *ident)
{
    f->n = 0;
    fb_le(f, 0, 4);
    fb_bytes(f, ident, 4);
}

/* Write uoffset at `at` to point at `target`. */
static inline void fb_link(fbb *f, size_t at, size_t target)
{
    cr_assert_gt(target, at);
    put32(f->b + at, (uint32_t)(target - at));
}

static inline void fb_root(fbb *f, size_t table)
{
    put32(f->b, (uint32_t)table);
}

/* A table of nf fields; pos[i] receives field i's position (0 when absent).  Returns the table's position. */
static inline size_t fb_table(fbb *f, int nf, const fbf *fields, size_t *pos)
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
static inline size_t fb_vec(fbb *f, uint32_t n, int size, const int64_t *v)
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

static inline size_t fb_string(fbb *f, const char *s, bool nul)
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
static inline size_t fb_vec_of(fbb *f, uint32_t n)
{
    return fb_vec(f, n, 4, NULL);
}

/* Link element i of the vector of uoffsets at v to target. */
static inline void fb_elem(fbb *f, size_t v, uint32_t i, size_t target)
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

/* Writes one Tensor table (shape, type, buffer, name, and quantization with
** n_scale scales along qdim when n_scale > 0, external buffer when not 0); returns its position. */
static inline size_t tiny_tensor(fbb *f, const char *name, int type, uint32_t buffer, uint32_t n_shape,
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

/* Writes the small model with the knobs k into f; returns its size in bytes. */
static inline size_t tiny_model(fbb *f, const tiny_knobs *k)
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

#endif
