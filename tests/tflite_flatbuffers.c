/*
** tflite_flatbuffers.c — the tflite suite (tests/test_tflite.c) on
** flatbuffers built by hand: a small model decodes to what was written,
** and the reader's edge cases (vtables and fields outside their bounds,
** huge offsets, strings without NUL, overflowing vector lengths, tables
** shared beyond the decoding budget) are refused with their path.
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
#include "tflite_util.h"

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
