/*
** test_tflm_offline.c — plans for an unchanged TensorFlow Lite Micro
** (src/tflm/, `ripsim plan --for`, `ripsim check`):
**   - the OfflineMemoryAllocation reader on Arm Vela's person_detect and a
**     hand-written model, and its refusals of malformed metadata;
**   - the writer: flatc (an outside reader) dumps OUT.tflite exactly as
**     MODEL.tflite but for the new metadata entry and buffer, and ripsim's
**     own reader reads the plan back;
**   - TFLM's buffers, lifetimes and greedy plan: a hand-checked chain, and
**     person_detect's greedy tensor area as TFLM itself reported it
**     (55,296 B, measured with the vendored TFLM);
**   - exact plans with hand-written gap oracles (the real ones are another
**     item's): the chain's hand optimum, person_detect's op 2 overlap at the
**     probe's measured gap (18,448 B, bit-identical under TFLM's reference
**     kernels), and the negative control: that plan checked with the
**     CMSIS-NN oracle (no overlap of op 2) is refused naming operator 2;
**   - the command line: exit statuses, one-line errors, nothing written on
**     an error.
** The vendor models (RIPSIM_TFLM_PATH, RIPSIM_MODELS_PATH) and flatc are
** optional: their tests skip with one line.
*/
#include <criterion/criterion.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run_cmd.h"
#include "plan/plan.h"
#include "tflm/tflm_offline.h"
#include "tflm/tflm_plan.h"
#include "tmpdir.h"
#include "tflm_files.h"

TEST_SUITE_WITH_TMPDIR(tflm_offline, 600);

/* ---- hand oracles: a list of (op, input k, gap) that are allowed, every other overlap refused ---- */

typedef struct hand_gap {
    size_t op;
    int k;
    int64_t gap;
} hand_gap;

typedef struct hand_oracle {
    const hand_gap *g;
    size_t n;
} hand_oracle;

static rip_status hand_gap_fn(void *ctx, const rip_tfl_model *m, size_t op, int k, int64_t *gap,
                              char err[RIP_ERR_LEN])
{
    (void)m, (void)err;
    const hand_oracle *h = ctx;
    *gap = -1;
    for (size_t i = 0; i < h->n; i++)
        if (h->g[i].op == op && h->g[i].k == k)
            *gap = h->g[i].gap;
    return RIP_OK;
}

/* ---- reading ---- */

Test(tflm_offline, reads_the_hand_written_plan)
{
    rip_tfl_model m;
    load(data_path("tflm_chain_offline"), &m);
    rip_tflm_offline o;
    bool present;
    char err[RIP_ERR_LEN];
    cr_assert_eq(rip_tflm_offline_read(&m, &present, &o, err), RIP_OK, "%s", err);
    cr_assert(present);
    /* tests/data/tflite/tflm_chain_offline.json: [0, 1, 12, offsets] */
    const int32_t want[12] = {0, -1, -1, 32, -1, -1, 0, -1, 0, -1, -1, 64};
    cr_assert_eq(o.version, 0);
    cr_assert_eq(o.n_subgraphs, 1);
    cr_assert_eq(o.n, 12);
    for (size_t i = 0; i < 12; i++)
        cr_expect_eq(o.offset[i], want[i], "offset %zu", i);
    rip_tflm_offline_free(&o);
    rip_tfl_model_free(&m);
    load(data_path("tflm_chain"), &m);
    cr_assert_eq(rip_tflm_offline_read(&m, &present, &o, err), RIP_OK);
    cr_expect(!present, "tflm_chain carries no plan");
    rip_tfl_model_free(&m);
}

Test(tflm_offline, reads_velas_plan)
{
    const char *p = vela_model();
    NEED(p, "no person_detect_vela.tflite (RIPSIM_MODELS_PATH)");
    rip_tfl_model m;
    load(p, &m);
    rip_tflm_offline o;
    bool present;
    char err[RIP_ERR_LEN];
    cr_assert_eq(rip_tflm_offline_read(&m, &present, &o, err), RIP_OK, "%s", err);
    cr_assert(present);
    /* flatc's dump of its buffer 4: int32 [0, 1, 6, 0, -1, -1, 0, 0, 0] */
    const int32_t want[6] = {0, -1, -1, 0, 0, 0};
    cr_assert_eq(o.n, 6);
    for (size_t i = 0; i < 6; i++)
        cr_expect_eq(o.offset[i], want[i], "offset %zu", i);
    rip_tflm_offline_free(&o);
    rip_tfl_model_free(&m);
}

/* tflm_chain_offline's bytes with its plan's header found: *hdr the position of [0, 1, 12]. */
static uint8_t *chain_offline_bytes(size_t *len, size_t *hdr)
{
    uint8_t *b = slurp(data_path("tflm_chain_offline"), len);
    const uint8_t pat[12] = {0, 0, 0, 0, 1, 0, 0, 0, 12, 0, 0, 0};
    for (size_t i = 4; i + 12 <= *len; i++)
        if (memcmp(b + i, pat, 12) == 0 && b[i - 4] == 60) {   /* the vector's length: 15 words */
            *hdr = i;
            return b;
        }
    cr_assert_fail("no plan header in tflm_chain_offline.tflite");
    return NULL;
}

static void put32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v, p[1] = (uint8_t)(v >> 8), p[2] = (uint8_t)(v >> 16), p[3] = (uint8_t)(v >> 24);
}

Test(tflm_offline, refuses_malformed_metadata)
{
    static const struct {
        long at;          /* word index from the header (-1: the vector's length) */
        uint32_t value;
        const char *says;
    } cases[] = {
        {0, 1, "version 1, not 0"},
        {1, 2, "2 subgraphs"},
        {2, 11, "N = 11 offsets, the model has 12 tensors"},
        {2, 0xffffffffu, "N = -1"},
        {-1, 56, "buffer holds 11 offsets, N is 12"},
        {-1, 8, "holds 8 bytes"},
        {-1, 58, "holds 58 bytes"},
        {3 + 5, 0xfffffffeu, "offset 5 is -2"},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        size_t len, hdr;
        uint8_t *b = chain_offline_bytes(&len, &hdr);
        put32(b + hdr + 4 * cases[c].at, cases[c].value);
        rip_tfl_model m;
        char err[RIP_ERR_LEN];
        cr_assert_eq(rip_tfl_model_parse(b, len, "bad.tflite", &m, err), RIP_OK, "case %zu: %s", c, err);
        rip_tflm_offline o;
        bool present;
        cr_expect_eq(rip_tflm_offline_read(&m, &present, &o, err), RIP_S_DATA, "case %zu read", c);
        cr_expect(strstr(err, cases[c].says) && strstr(err, "bad.tflite: OfflineMemoryAllocation: "),
                  "case %zu: %s", c, err);
        rip_tfl_model_free(&m);
        if (c == 2) {   /* the command line: 65, one line */
            spill(tmp("bad.tflite"), b, len);
            run_result *r = RUN("check", tmp("bad.tflite"), "--for", "tflm-reference");
            cr_expect_eq(r->status, 65, "%s", r->err);
            cr_expect_eq(count_lines(r->err), 1, "%s", r->err);
            cr_expect(strstr(r->err, "N = 11 offsets"), "%s", r->err);
            cr_expect_str_eq(r->out, "");
        }
        free(b);
    }
}

/* ---- TFLM's buffers, lifetimes and greedy plan ---- */

Test(tflm_offline, chain_buffers_lifetimes_and_greedy_by_hand)
{
    rip_tfl_model m;
    rip_tflm_alloc a;
    char err[RIP_ERR_LEN];
    load(data_path("tflm_chain"), &m);
    cr_assert_eq(rip_tflm_alloc_build(&m, &a, err), RIP_OK, "%s", err);
    /* input 1x4x4x2, conv 1x4x4x4, conv 1x4x4x4, reshape 1x64, fc 1x2 (16 after alignment); scope 0 is
    ** before op 0, op i is scope i + 1; the input from 0, the output to the last scope */
    const struct { int32_t t; int64_t bytes, size; int first, last; } want[5] = {
        {0, 32, 32, 0, 1}, {3, 64, 64, 1, 2}, {6, 64, 64, 2, 3}, {8, 64, 64, 3, 4}, {11, 2, 16, 4, 4}};
    cr_assert_eq(a.n, 5);
    for (size_t i = 0; i < 5; i++) {
        cr_expect_eq(a.buf[i].tensor, want[i].t, "buffer %zu", i);
        cr_expect_eq(a.buf[i].bytes, want[i].bytes, "buffer %zu", i);
        cr_expect_eq(a.buf[i].size, want[i].size, "buffer %zu", i);
        cr_expect_eq(a.buf[i].first, want[i].first, "buffer %zu", i);
        cr_expect_eq(a.buf[i].last, want[i].last, "buffer %zu", i);
    }
    /* greedy by hand: order t8, t6, t3, t0 (size 64, 64, 64, 32; ties in reverse order added), t11;
    ** t8 at 0; t6 meets t8: 64; t3 fits below t6: 0; t0 meets t3: 64; t11 meets t8: 64 */
    int64_t off[5], area;
    cr_assert_eq(rip_tflm_greedy(&a, NULL, off, &area, err), RIP_OK);
    const int64_t want_off[5] = {64, 0, 64, 0, 64};
    for (size_t i = 0; i < 5; i++)
        cr_expect_eq(off[i], want_off[i], "greedy offset of buffer %zu", i);
    cr_expect_eq(area, 128);
    rip_tflm_alloc_free(&a);
    rip_tfl_model_free(&m);
}

Test(tflm_offline, person_detect_greedy_area_is_tflms)
{
    const char *p = person_detect();
    NEED(p, "no person_detect.tflite in the TFLM tree (RIPSIM_TFLM_PATH)");
    rip_tfl_model m;
    rip_tflm_alloc a;
    char err[RIP_ERR_LEN];
    load(p, &m);
    cr_assert_eq(rip_tflm_alloc_build(&m, &a, err), RIP_OK, "%s", err);
    int64_t *off = malloc(a.n * sizeof *off), area;
    cr_assert_eq(rip_tflm_greedy(&a, NULL, off, &area, err), RIP_OK);
    /* TFLM's GreedyMemoryPlanner on person_detect, measured with the vendored TFLM 90b983c2 */
    cr_expect_eq(area, 55296);
    free(off);
    rip_tflm_alloc_free(&a);
    rip_tfl_model_free(&m);
}

/* ---- plans and checks ---- */

static void plan_with(const char *path, const hand_oracle *h, rip_tfl_model *m, rip_tflm_alloc *a,
                      rip_tflm_plan_out *po)
{
    char err[RIP_ERR_LEN];
    load(path, m);
    cr_assert_eq(rip_tflm_alloc_build(m, a, err), RIP_OK, "%s", err);
    rip_tflm_oracle o = {hand_gap_fn, (void *)h};
    cr_assert_eq(rip_tflm_plan(m, a, &o, po, err), RIP_OK, "%s", err);
}

static rip_tflm_verdict check_with(const rip_tfl_model *m, const rip_tflm_alloc *a, const int32_t *off,
                                   const hand_oracle *h)
{
    char err[RIP_ERR_LEN];
    rip_tflm_oracle o = {hand_gap_fn, (void *)h};
    rip_tflm_verdict v;
    cr_assert_eq(rip_tflm_check(m, a, off, &o, &v, err), RIP_OK, "%s", err);
    return v;
}

Test(tflm_offline, chain_plans_reach_the_hand_optimum)
{
    rip_tfl_model m;
    rip_tflm_alloc a;
    rip_tflm_plan_out po;
    const hand_oracle none = {NULL, 0};
    plan_with(data_path("tflm_chain"), &none, &m, &a, &po);
    /* no overlap: scopes 2 and 3 hold 64 + 64 */
    cr_expect_eq(po.area, 128);
    cr_expect_eq(po.greedy_area, 128);
    cr_expect_eq(po.n_overlaps, 1, "only the RESHAPE in place");
    cr_expect(po.overlap[0].alias && po.overlap[0].op == 2);
    rip_tflm_plan_out_free(&po);
    /* op 1 may write its output 32 B below its input: scope 2 needs max(64, 32 + 64) = 96, scope 1 32 + 64,
    ** scope 3 64 with the RESHAPE on its input: 96 is the optimum (c1 at 0, c0 at 32, input at 0) */
    const hand_gap g[] = {{1, 0, 32}};
    const hand_oracle ref = {g, 1};
    rip_tflm_plan_out po2;
    char err[RIP_ERR_LEN];
    rip_tflm_oracle o = {hand_gap_fn, (void *)&ref};
    cr_assert_eq(rip_tflm_plan(&m, &a, &o, &po2, err), RIP_OK, "%s", err);
    cr_expect_eq(po2.area, 96);
    cr_expect_eq(po2.no_overlap_area, 128);
    cr_expect(po2.offset[3] - po2.offset[6] >= 32, "c0 at %d, c1 at %d", po2.offset[3], po2.offset[6]);
    cr_expect(po2.offset[3] % 16 == 0 && po2.offset[6] % 16 == 0 && po2.offset[0] % 16 == 0);
    cr_expect_eq(po2.offset[1], -1, "constants stay online");
    rip_tflm_verdict v = check_with(&m, &a, po2.offset, &ref);
    cr_expect(v.safe, "%s", v.why);
    /* the negative control: no overlap of op 1 allowed */
    v = check_with(&m, &a, po2.offset, &none);
    cr_expect(!v.safe);
    cr_expect_eq(v.op, 1);
    cr_expect(strstr(v.why, "operator 1 (CONV_2D)"), "%s", v.why);
    /* and one gap too small: 48 needed */
    const hand_gap g48[] = {{1, 0, 48}};
    const hand_oracle big = {g48, 1};
    if (po2.offset[3] - po2.offset[6] < 48) {
        v = check_with(&m, &a, po2.offset, &big);
        cr_expect(!v.safe && v.op == 1 && strstr(v.why, "48 B needed"), "%s", v.why);
    }
    rip_tflm_plan_out_free(&po2);
    rip_tflm_alloc_free(&a);
    rip_tfl_model_free(&m);
}

Test(tflm_offline, hand_written_plan_checked_per_library)
{
    rip_tfl_model m;
    rip_tflm_alloc a;
    rip_tflm_offline o;
    bool present;
    char err[RIP_ERR_LEN];
    load(data_path("tflm_chain_offline"), &m);
    cr_assert_eq(rip_tflm_alloc_build(&m, &a, err), RIP_OK, "%s", err);
    cr_assert_eq(rip_tflm_offline_read(&m, &present, &o, err), RIP_OK, "%s", err);
    const hand_gap g32[] = {{1, 0, 32}}, g48[] = {{1, 0, 48}};
    const hand_oracle ref = {g32, 1}, strict = {g48, 1}, none = {NULL, 0};
    rip_tflm_verdict v = check_with(&m, &a, o.offset, &ref);
    cr_expect(v.safe, "%s", v.why);
    cr_expect_eq(v.area, 96);
    cr_expect_eq(v.n_overlaps, 2, "op 1's and the RESHAPE's");
    v = check_with(&m, &a, o.offset, &strict);
    cr_expect(!v.safe && v.op == 1 && strstr(v.why, "32 B above, 48 B needed"), "%s", v.why);
    v = check_with(&m, &a, o.offset, &none);
    cr_expect(!v.safe && v.op == 1 && strstr(v.why, "no overlap of them is safe"), "%s", v.why);
    rip_tflm_offline_free(&o);
    rip_tflm_alloc_free(&a);
    rip_tfl_model_free(&m);
}

Test(tflm_offline, person_detect_reference_plan_refused_for_cmsis_nn)
{
    const char *p = person_detect();
    NEED(p, "no person_detect.tflite in the TFLM tree (RIPSIM_TFLM_PATH)");
    /* the probe: op 2 (1x1 conv 8->16) bit-identical under the reference kernels with its input 18,448 B
    ** above its output, corrupted under CMSIS-NN at any overlap */
    const hand_gap g[] = {{2, 0, 18448}};
    const hand_oracle ref = {g, 1}, cmsis = {NULL, 0};
    rip_tfl_model m;
    rip_tflm_alloc a;
    rip_tflm_plan_out po;
    plan_with(p, &ref, &m, &a, &po);
    const rip_tfl_operator *op2 = &m.subgraphs[0].operators[2];
    cr_assert_eq(rip_tfl_op_code(&m, op2)->builtin, RIP_TFL_OP_CONV_2D);
    int32_t in = op2->inputs[0], out = op2->outputs[0];
    cr_expect(po.offset[in] - po.offset[out] >= 18448, "op 2: input at %d, output at %d", po.offset[in],
              po.offset[out]);
    cr_expect_leq(po.area, 55296 - 9216, "the probe's overlap saves op 2's 9,216-byte output: area %lld",
                  (long long)po.area);
    cr_expect_eq(po.no_overlap_area, 55296);
    rip_tflm_verdict v = check_with(&m, &a, po.offset, &ref);
    cr_expect(v.safe, "%s", v.why);
    v = check_with(&m, &a, po.offset, &cmsis);
    cr_expect(!v.safe);
    cr_expect_eq(v.op, 2, "%s", v.why);
    cr_expect(strstr(v.why, "operator 2 (CONV_2D)"), "%s", v.why);
    /* deterministic: the same plan again */
    rip_tflm_plan_out po2;
    char err[RIP_ERR_LEN];
    rip_tflm_oracle o = {hand_gap_fn, (void *)&ref};
    cr_assert_eq(rip_tflm_plan(&m, &a, &o, &po2, err), RIP_OK, "%s", err);
    cr_expect_eq(memcmp(po.offset, po2.offset, po.n_offset * sizeof *po.offset), 0);
    rip_tflm_plan_out_free(&po2);
    rip_tflm_plan_out_free(&po);
    rip_tflm_alloc_free(&a);
    rip_tfl_model_free(&m);
}

/* One tensor read as two inputs: an overlap must be safe for every input that reads it. */
Test(tflm_offline, a_tensor_read_twice_needs_both_inputs_gaps)
{
    rip_tfl_model m;
    rip_tflm_alloc a;
    rip_tflm_plan_out po;
    const hand_gap only0[] = {{0, 0, 0}}, both[] = {{0, 0, 0}, {0, 1, 16}};
    const hand_oracle o0 = {only0, 1}, o2 = {both, 2};
    /* ADD(input, input) -> sum, 32 B each: input [0, 1], sum [1, 1] */
    plan_with(data_path("tflm_add_self"), &o0, &m, &a, &po);
    cr_expect_eq(po.area, 64, "input 1 refuses: no overlap");
    cr_expect_eq(po.n_candidates, 0);
    const int32_t over[2] = {0, 0};
    rip_tflm_verdict v = check_with(&m, &a, over, &o0);
    cr_expect(!v.safe && v.op == 0, "%s", v.why);
    rip_tflm_plan_out_free(&po);
    char err[RIP_ERR_LEN];
    rip_tflm_oracle o = {hand_gap_fn, (void *)&o2};
    cr_assert_eq(rip_tflm_plan(&m, &a, &o, &po, err), RIP_OK, "%s", err);
    cr_expect_eq(po.n_candidates, 1);
    cr_expect_eq(po.area, 48, "sum at 0, input 16 B above: the larger of the two gaps");
    cr_expect_eq(po.offset[0] - po.offset[1], 16);
    v = check_with(&m, &a, over, &o2);
    cr_expect(!v.safe && strstr(v.why, "0 B above, 16 B needed"), "%s", v.why);
    rip_tflm_plan_out_free(&po);
    rip_tflm_alloc_free(&a);
    rip_tfl_model_free(&m);
}
