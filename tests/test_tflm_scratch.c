/*
** test_tflm_scratch.c — TFLM's scratch requests and arena head
** (src/tflm/tflm_scratch.h), on hand-checked cases:
**   - the hand-written models of tests/data/tflite, each request worked out
**     by hand from the kernels' Prepare (the formulas are cited in
**     tflm_scratch.h): convnet's CONV_2D 3x3 under CMSIS-NN (2 x align4(18)
**     x 2 = 80 B), its AVERAGE_POOL_2D with DSP only (4 x 8 = 32 B), its
**     depthwise (multiplier 2: none), its rank-2 FULLY_CONNECTED (none);
**     MEAN's three requests under both libraries; an SVDF named as not
**     modelled;
**   - the head on hand-built buffers: a scratch buffer goes above the
**     buffers alive at its operator, or into a gap they leave;
**   - `ripsim plan --for` prints the requests and both heads.
** The heads of the real models are pinned to TFLM's own figure
** (GetNonPersistentUsedBytes, measured by tests/tflm/measure-tflm.sh into
** results/tflm.tsv, checked by the tflm_offline_peer and tflm_table suites).
*/
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tflm/tflm_scratch.h"
/* the shared helpers this file does not all use */
#pragma GCC diagnostic ignored "-Wunused-function"
#include "run_cmd.h"
#include "tmpdir.h"
#include "tflm_files.h"

static rip_tflm_scratch requests(const char *name, rip_tflm_lib lib, bool dsp)
{
    rip_tfl_model m;
    rip_tflm_scratch s;
    char err[RIP_ERR_LEN];
    load(data_path(name), &m);
    cr_assert_eq(rip_tflm_scratch_build(&m, lib, dsp, &s, err), RIP_OK, "%s", err);
    rip_tfl_model_free(&m);
    return s;
}

Test(tflm_scratch, convnet_requests_by_hand)
{
    rip_tflm_scratch s = requests("convnet", RIP_TFLM_REFERENCE, false);
    cr_expect_eq(s.n, 0, "the reference kernels request nothing for int8 filters");
    cr_expect_eq(s.unmodelled_op, -1);
    rip_tflm_scratch_free(&s);

    /* pure C: only the 3x3 convolution (operator 0): k_w k_h c_in = 18, aligned to 20, x 2 pixels x 2 bytes */
    s = requests("convnet", RIP_TFLM_CMSIS_NN, false);
    cr_assert_eq(s.n, 1);
    cr_expect_eq(s.op[0], 0);
    cr_expect_eq(s.bytes[0], 80);
    rip_tflm_scratch_free(&s);

    /* DSP: the same, and the average pool's 4 x depth (8) */
    s = requests("convnet", RIP_TFLM_CMSIS_NN, true);
    cr_assert_eq(s.n, 2);
    cr_expect_eq(s.op[0], 0);
    cr_expect_eq(s.bytes[0], 80);
    cr_expect_eq(s.op[1], 2);
    cr_expect_eq(s.bytes[1], 32);
    cr_expect_eq(s.total, 112);
    rip_tflm_scratch_free(&s);
}

Test(tflm_scratch, mean_requests_under_both_libraries)
{
    /* ops' MEAN (operator 6): input [1,6,6,6] int8, axes [2], output [1,6]:
    ** 4 x 6 accumulators, 4 x rank 4, 4 x 2 axes */
    for (int lib = 0; lib < 2; lib++) {
        rip_tflm_scratch s = requests("ops", lib ? RIP_TFLM_CMSIS_NN : RIP_TFLM_REFERENCE, lib == 1);
        cr_assert_eq(s.n, 3, "lib %d", lib);
        for (size_t i = 0; i < 3; i++)
            cr_expect_eq(s.op[i], 6);
        cr_expect_eq(s.bytes[0], 24);
        cr_expect_eq(s.bytes[1], 16);
        cr_expect_eq(s.bytes[2], 8);
        rip_tflm_scratch_free(&s);
    }
}

Test(tflm_scratch, svdf_is_named_not_modelled)
{
    rip_tflm_scratch s = requests("svdf_custom", RIP_TFLM_CMSIS_NN, false);
    cr_expect_eq(s.unmodelled_op, 0);
    cr_expect(strstr(s.why, "operator 0 (SVDF)"), "%s", s.why);
    rip_tflm_scratch_free(&s);
}

Test(tflm_scratch, head_places_scratch_as_tflms_greedy_by_hand)
{
    /* A alive at scopes 0-1 at offset 0, B at 1-2 at offset 32, 32 B each */
    rip_tflm_buf buf[2] = {{.tensor = 0, .bytes = 32, .size = 32, .first = 0, .last = 1},
                           {.tensor = 1, .bytes = 32, .size = 32, .first = 1, .last = 2}};
    rip_tflm_alloc a = {.n_tensors = 2, .n_ops = 2, .n = 2, .buf = buf};
    int64_t off[2] = {0, 32}, head;
    size_t op[1];
    int64_t bytes[1] = {20};   /* placed as 32 */
    rip_tflm_scratch s = {.n = 1, .op = op, .bytes = bytes, .total = 20, .unmodelled_op = -1};
    char err[RIP_ERR_LEN];
    cr_assert_eq(rip_tflm_head(&a, off, NULL, &head, err), RIP_OK);
    cr_expect_eq(head, 64);
    /* operator 0 is scope 1, where A and B are both alive: above them */
    op[0] = 0;
    cr_assert_eq(rip_tflm_head(&a, off, &s, &head, err), RIP_OK);
    cr_expect_eq(head, 96);
    /* operator 1 is scope 2: A is dead, its 32 B at 0 take the scratch */
    op[0] = 1;
    cr_assert_eq(rip_tflm_head(&a, off, &s, &head, err), RIP_OK);
    cr_expect_eq(head, 64);
    /* 40 B (48 placed) do not fit A's 32: above B */
    bytes[0] = 40;
    cr_assert_eq(rip_tflm_head(&a, off, &s, &head, err), RIP_OK);
    cr_expect_eq(head, 112);
}

Test(tflm_scratch, plan_prints_requests_and_heads)
{
    run_result *r = RUN("plan", data_path("convnet"), "--for", "tflm-cmsis-nn", "--dsp");
    cr_assert_eq(r->status, 0, "%s", r->err);
    cr_expect(strstr(r->out, "scratch      2 requests, 112 B (CMSIS-NN kernels, DSP path"), "%s", r->out);
    cr_expect(strstr(r->out, "  operator 0 (CONV_2D): 80 B\n"), "%s", r->out);
    cr_expect(strstr(r->out, "  operator 2 (AVERAGE_POOL_2D): 32 B\n"), "%s", r->out);
    cr_expect(strstr(r->out, "arena head   "), "%s", r->out);
    /* SVDF's scratch is not modelled: both heads are lower bounds, the arena is not known */
    r = RUN("plan", data_path("svdf_custom"), "--for", "tflm-cmsis-nn");
    cr_assert_eq(r->status, 0, "%s", r->err);
    cr_expect(strstr(r->out, "arena head   >= 32 B with this plan, >= 32 B with TFLM's own"), "%s", r->out);
    cr_expect(strstr(r->out, "not modelled operator 0 (SVDF)"), "%s", r->out);
    cr_expect(strstr(r->out, "arena        not known"), "%s", r->out);
    r = RUN("plan", data_path("convnet"), "--for", "tflm-reference", "--dsp");
    cr_expect_eq(r->status, 64, "%s", r->out);
    cr_expect(strstr(r->err, "--dsp chooses CMSIS-NN's DSP path"), "%s", r->err);
    r = RUN("plan", data_path("convnet"), "--dsp");
    cr_expect_eq(r->status, 64, "%s", r->out);
}

Test(tflm_scratch, tflm_arena_gives_the_plans_arena)
{
    /* the chain has no scratch; its own head is TFLM's greedy (128 B), the plan's 96 B
    ** (test_tflm_write.c): 1,000 B measured on the unchanged model -> 968 B */
    run_result *r = RUN("plan", data_path("tflm_chain"), "--for", "tflm-reference", "--tflm-arena", "1000");
    cr_assert_eq(r->status, 0, "%s", r->err);
    cr_expect(strstr(r->out, "arena head   96 B with this plan, 128 B with TFLM's own (-32 B)"), "%s", r->out);
    cr_expect(strstr(r->out, "arena        968 B: TFLM's arena_used_bytes 1,000 B - own head 128 B + this head"),
              "%s", r->out);
    const char *out = tmp("chain_scratch.tflite");
    remove(out);
    r = RUN("plan", data_path("tflm_chain"), "--for", "tflm-reference", "--tflm-arena", "100", "--write", out);
    cr_expect_eq(r->status, 65, "%s", r->out);
    cr_expect(strstr(r->err, "ripsim plan: --tflm-arena 100 B is below TFLM's own head of this model (128 B)"), "%s",
              r->err);
    cr_expect_null(fopen(out, "rb"), "nothing written on an error");
}
