/*
** test_tflm_offline_peer.c — the offline plans ripsim writes, run by
** TensorFlow Lite Micro itself (the peer of tests/tflm/, reference and
** CMSIS-NN kernels):
**   - every case of the peer's cases.tsv planned with `ripsim plan --for
**     LIB --write` for each kernel library (overlaps where the library's
**     modelled kernel orders allow) and run by TFLM with that library: TFLM
**     loads OUT, places every operator's output at the planned offset, every
**     operator's output is that of its own plan byte for byte, and its arena
**     is below its own by at most the tensor area saved;
**   - person_detect planned with a hand oracle allowing operator 2 (1x1
**     conv) its input 18,448 B above its output, the gap found safe for
**     TFLM's reference kernels: 75,808 B instead of 85,024 and every
**     operator's output identical under the reference kernels; under CMSIS-NN
**     the same file corrupts operator 2's output first, the operator
**     rip_tflm_check names with an oracle refusing that overlap;
**   - results/tflm.tsv is what tests/tflm/measure-tflm.sh measures now,
**     byte for byte (results/tflm.md regenerating from it: tflm_table).
**   - TFLM's own person_detection_test passes with its model array the
**     bytes of ripsim's written plan (reference and CMSIS-NN), a plan that
**     overlaps operator outputs with their inputs as TFLM places them.
** Built only with the TFLM tree (tests/meson.build), the peer built once by
** the PRE_ALL hook of tflm_peer.h.
*/
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_need.h"
#include "skip.h"
#include "tmpdir.h"

TEST_SUITE_WITH_TMPDIR(tflm_offline_peer, 3600);

#include "tflm/tflm_offline.h"
#include "tflm/tflm_plan.h"
#include "tflm_peer.h"

/* The peer's report of model on case c's input. */
static jm *run_peer(const char *variant, const char *model, const peer_case *c)
{
    char args[3200];
    snprintf(args, sizeof args, "'%s' --input '%s'", model, c->input);
    run_out r = peer(variant, args);
    cr_assert_eq(r.status, 0, "%s %s: %s", variant, model, r.err);
    jm *doc = report(&r);
    run_free(&r);
    return doc;
}

/* Every operator's output 0 CRC equal in a and b (or the index of the first that differs; -1: none). */
static long first_differing_op(const jm *a, const jm *b)
{
    const jm *oa = jn_get(a, "operators"), *ob = jn_get(b, "operators");
    cr_assert_eq(oa->n, ob->n);
    for (size_t i = 0; i < oa->n; i++) {
        const char *ca = jn_str(jn_item(jn_get(jn_item(oa, i), "outputs"), 0), "crc32");
        const char *cb = jn_str(jn_item(jn_get(jn_item(ob, i), "outputs"), 0), "crc32");
        if (strcmp(ca, cb) != 0)
            return (long)i;
    }
    return -1;
}

/* TFLM put every operator's outputs where off says (off: per tensor, -1 online). */
static void expect_placed(const jm *doc, const int32_t *off, size_t n, const char *what)
{
    const jm *ops = jn_get(doc, "operators");
    for (size_t i = 0; i < ops->n; i++) {
        const jm *outs = jn_get(jn_item(ops, i), "outputs");
        for (size_t k = 0; k < outs->n; k++) {
            long long t = jn_int(jn_item(outs, k), "tensor"), at = jn_int(jn_item(outs, k), "arena_offset");
            cr_assert(t >= 0 && (size_t)t < n);
            if (off[t] >= 0)
                cr_expect_eq(at, off[t], "%s: operator %zu: tensor %lld at %lld, planned at %d", what, i, t, at, off[t]);
        }
    }
}

/* The plan OUT carries. */
static rip_tflm_offline plan_of(const char *path, rip_tfl_model *m)
{
    char err[RIP_ERR_LEN];
    cr_assert_eq(rip_tfl_model_load(path, m, err), RIP_OK, "%s", err);
    rip_tflm_offline o;
    bool present;
    cr_assert_eq(rip_tflm_offline_read(m, &present, &o, err), RIP_OK, "%s", err);
    cr_assert(present);
    return o;
}

Test(tflm_offline_peer, every_case_runs_on_ripsims_plan)
{
    load_cases();
    const char *bin = getenv("RIPSIM_BIN");
    cr_assert_not_null(bin);
    /* each case planned for each kernel library, and run by TFLM with that library */
    for (int i = 0; i < n_cases; i++)
        for (int v = 0; v < (have_cmsis() ? 2 : 1); v++) {
            const peer_case *c = &cases[i];
            const char *var = v ? "cmsis" : "ref", *lib = v ? "tflm-cmsis-nn" : "tflm-reference";
            char out[1200], cmd[4000];
            snprintf(out, sizeof out, "%.250s/%.60s-%s.tflite", tmpdir, c->name, var);
            snprintf(cmd, sizeof cmd, "'%.900s' plan '%.1023s' --for %s --write '%.1200s'", bin, c->model, lib, out);
            run_out r = run_sh(cmd);
            cr_assert_eq(r.status, 0, "%s: %s", c->name, r.err);
            long long area = -1, greedy = -1;
            const char *p = strstr(r.out, "tensor area  "), *g = strstr(r.out, "TFLM greedy  ");
            cr_assert(p && g, "%s", r.out);
            char num[32];
            size_t k = 0;
            for (p += 13; *p && *p != ' ' && k < 31; p++)
                if (*p != ',')
                    num[k++] = *p;
            num[k] = 0, area = atoll(num), k = 0;
            for (g += 13; *g && *g != ' ' && k < 31; g++)
                if (*g != ',')
                    num[k++] = *g;
            num[k] = 0, greedy = atoll(num);
            run_free(&r);
            cr_expect_leq(area, greedy, "%s: the exact plan above TFLM's greedy one", c->name);
            rip_tfl_model m;
            rip_tflm_offline o = plan_of(out, &m);
            jm *own = run_peer(var, c->model, c), *ours = run_peer(var, out, c);
            cr_expect(jn_bool(ours, "offline_memory_allocation"), "%s %s", var, c->name);
            cr_expect_eq(first_differing_op(own, ours), -1, "%s %s: an operator's output differs", var, c->name);
            cr_expect_str_eq(jn_str(jn_item(jn_get(own, "outputs"), 0), "hex"),
                             jn_str(jn_item(jn_get(ours, "outputs"), 0), "hex"), "%s %s", var, c->name);
            expect_placed(ours, o.offset, o.n, c->name);
            /* TFLM's arena is its own minus at most the tensor area saved: scratch and persistent
            ** data do not depend on the plan, but TFLM places scratch online around the offline
            ** tensors, where an overlapping plan can leave it a few bytes less room (CMSIS-NN on
            ** ResNet: 48 B) */
            const long long arena = jn_int(ours, "arena_used_bytes"), own_arena = jn_int(own, "arena_used_bytes");
            cr_expect_geq(arena, own_arena - (greedy - area), "%s %s: arena %lld below TFLM's own %lld minus the %lld B saved",
                          var, c->name, arena, own_arena, greedy - area);
            cr_expect(area == greedy ? arena == own_arena : arena < own_arena,
                      "%s %s: arena %lld, TFLM's own %lld, tensor area %lld vs %lld", var, c->name, arena, own_arena,
                      area, greedy);
            printf("tflm_offline_peer: %s %s: arena %lld (TFLM's own plan %lld), tensor area %lld (greedy %lld)\n",
                   var, c->name, jn_int(ours, "arena_used_bytes"), jn_int(own, "arena_used_bytes"), area, greedy);
            jm_free(own);
            jm_free(ours);
            rip_tflm_offline_free(&o);
            rip_tfl_model_free(&m);
        }
}

/* The probe's oracle for person_detect: operator 2's input 0 at 18,448 B (reference kernels); none else. */
static rip_status probe_gap(void *ctx, const rip_tfl_model *m, size_t op, int k, int64_t *gap, char err[RIP_ERR_LEN])
{
    (void)m, (void)err;
    *gap = ctx && op == 2 && k == 0 ? 18448 : -1;
    return RIP_OK;
}

Test(tflm_offline_peer, person_detect_overlap_safe_for_reference_corrupt_for_cmsis)
{
    const peer_case *c = find_case("person");
    rip_tfl_model m;
    rip_tflm_alloc a;
    rip_tflm_plan_out po;
    char err[RIP_ERR_LEN];
    cr_assert_eq(rip_tfl_model_load(c->model, &m, err), RIP_OK, "%s", err);
    cr_assert_eq(rip_tflm_alloc_build(&m, &a, err), RIP_OK, "%s", err);
    static int on;
    rip_tflm_oracle ref = {probe_gap, &on}, cmsis = {probe_gap, NULL};
    cr_assert_eq(rip_tflm_plan(&m, &a, &ref, &po, err), RIP_OK, "%s", err);
    cr_expect_eq(po.area, 46080);
    uint8_t *b;
    size_t len;
    cr_assert_eq(rip_tflm_offline_write(&m, po.offset, po.n_offset, &b, &len, err), RIP_OK, "%s", err);
    char out[1200];
    snprintf(out, sizeof out, "%.250s/person_rip.tflite", tmpdir);
    FILE *f = fopen(out, "wb");
    cr_assert(f && fwrite(b, 1, len, f) == len && fclose(f) == 0);
    free(b);
    jm *own = run_peer("ref", c->model, c), *ours = run_peer("ref", out, c);
    cr_expect_eq(jn_int(own, "arena_used_bytes"), 85024);
    cr_expect_eq(jn_int(ours, "arena_used_bytes"), 75808);
    cr_expect_eq(first_differing_op(own, ours), -1, "reference kernels: an operator's output differs");
    expect_placed(ours, po.offset, po.n_offset, "person_rip");
    jm_free(own);
    jm_free(ours);
    rip_tflm_verdict v;
    cr_assert_eq(rip_tflm_check(&m, &a, po.offset, &cmsis, &v, err), RIP_OK, "%s", err);
    cr_expect(!v.safe && v.op == 2, "%s", v.why);
    if (have_cmsis()) {
        own = run_peer("cmsis", c->model, c), ours = run_peer("cmsis", out, c);
        cr_expect_eq(first_differing_op(own, ours), 2, "CMSIS-NN: operator 2 is the first corrupted");
        jm_free(own);
        jm_free(ours);
    } else {
        printf("tflm_offline_peer: skipped: no CMSIS-NN peer: the negative control ran on ripsim's check only\n");
    }
    rip_tflm_plan_out_free(&po);
    rip_tflm_alloc_free(&a);
    rip_tfl_model_free(&m);
}

/* results/tflm.tsv is what tests/tflm/measure-tflm.sh measures now (with CMSIS-NN: both libraries). */
Test(tflm_offline_peer, committed_measurement_is_the_peers)
{
    const char *bin = getenv("RIPSIM_BIN"), *root = getenv("RIPSIM_SOURCE_ROOT");
    cr_assert(bin && root, "RIPSIM_BIN and RIPSIM_SOURCE_ROOT must be set (meson test)");
    if (!have_cmsis())
        rip_skip("no CMSIS-NN peer: results/tflm.tsv holds both libraries");
    char cmd[4000], committed[1200];
    snprintf(cmd, sizeof cmd, "'%.1000s/tests/tflm/measure-tflm.sh' '%.1000s' '%.1000s'", root, peer_dir(), bin);
    run_out r = run_sh(cmd);
    cr_assert_eq(r.status, 0, "%s", r.err);
    snprintf(committed, sizeof committed, "%.1000s/results/tflm.tsv", root);
    char *y = slurp(committed);
    cr_expect_str_eq(r.out, y, "results/tflm.tsv is stale: tests/tflm/measure-tflm.sh build-tflm-peer build/ripsim > "
                               "results/tflm.tsv, then ripsim tables tflm");
    free(y);
    run_free(&r);
}

/* Does hay (n bytes) hold needle (k bytes)? */
static bool holds(const uint8_t *hay, size_t n, const uint8_t *needle, size_t k)
{
    for (size_t i = 0; k <= n && i <= n - k; i++)
        if (hay[i] == needle[0] && memcmp(hay + i, needle, k) == 0)
            return true;
    return false;
}

/* How many operators' output 0 TFLM placed over one of their inputs, in
** the peer's report doc (offsets as TFLM placed them; the inputs from the
** model m). */
static int outputs_over_inputs(const jm *doc, const rip_tfl_model *m)
{
    const rip_tfl_subgraph *g = &m->subgraphs[0];
    long long *at = malloc(g->n_tensors * sizeof *at), *len = malloc(g->n_tensors * sizeof *len);
    cr_assert(at && len);
    for (size_t t = 0; t < g->n_tensors; t++)
        at[t] = -1, len[t] = 0;
    const jm *ops = jn_get(doc, "operators");
    cr_assert_eq(ops->n, g->n_operators);
    for (size_t i = 0; i < ops->n; i++) {
        const jm *o = jn_item(jn_get(jn_item(ops, i), "outputs"), 0);
        long long t = jn_int(o, "tensor");
        cr_assert(t >= 0 && (size_t)t < g->n_tensors);
        if (jn_get(o, "arena_offset")->kind != JM_NULL)
            at[t] = jn_int(o, "arena_offset"), len[t] = jn_int(o, "bytes");
    }
    int overlaps = 0;
    for (size_t i = 0; i < g->n_operators; i++) {
        int32_t out = g->operators[i].outputs[0];
        for (size_t k = 0; k < g->operators[i].n_inputs; k++) {
            int32_t in = g->operators[i].inputs[k];
            if (in >= 0 && in != out && at[in] >= 0 && at[out] >= 0 && at[in] < at[out] + len[out] &&
                at[out] < at[in] + len[in])
                overlaps++;
        }
    }
    free(at);
    free(len);
    return overlaps;
}

/* TFLM's own person_detection_test (its source, unchanged) built by
** build-peer.sh --ripsim with g_person_detect_model_data the bytes of
** `ripsim plan person_detect.tflite --for LIB --write` (LIB the variant's
** library): it must pass as on TFLM's own plan (its pass line and the
** scores tflm_peer's test pins), the array it was built with must be that
** file (its bytes are in the executable), and the file must carry an
** overlapping plan, seen by TFLM itself: the peer on it reports offline
** placement, some operator's output placed over one of its inputs where
** TFLM's own plan places none (offsets from the peer's reports, the
** operators' inputs from the model), and an arena not above its own
** (below it for the reference plan). */
static void check_tflm_test_on_rip(const char *variant)
{
    const char *d = peer_dir();
    char exe[1200], model[1200], cmd[1300];
    snprintf(exe, sizeof exe, "%s/%s/person_detection_test_rip", d, variant);
    snprintf(model, sizeof model, "%s/%s/person_detect_rip.tflite", d, variant);
    cr_assert(exists(exe) && exists(model), "no %s: build-peer.sh ran without --ripsim (RIPSIM_BIN unset?)", exe);
    snprintf(cmd, sizeof cmd, "'%s'", exe);
    run_out r = run_sh(cmd);
    cr_assert_eq(r.status, 0, "%s: status %d\n%s%s", exe, r.status, r.out, r.err);
    char both[1 << 14];
    snprintf(both, sizeof both, "%s%s", r.out, r.err); /* TFLM prints through stderr on the host */
    cr_expect(strstr(both, "~~~ALL TESTS PASSED~~~"), "%s", both);
    cr_expect(strstr(both, "person data.  person score: 113, no person score: -113"), "%s", both);
    cr_expect(strstr(both, "no person data.  person score: -57, no person score: 57"), "%s", both);
    run_free(&r);

    size_t n_exe, n_model;
    uint8_t *e = (uint8_t *)slurp_n(exe, &n_exe), *b = (uint8_t *)slurp_n(model, &n_model);
    cr_expect(holds(e, n_exe, b, n_model), "%s does not hold the bytes of %s", exe, model);
    free(e);
    free(b);

    const peer_case *c = find_case("person");
    jm *own = run_peer(variant, c->model, c), *ours = run_peer(variant, model, c);
    cr_expect(jn_bool(ours, "offline_memory_allocation"), "%s: no OfflineMemoryAllocation", model);
    const long long arena = jn_int(ours, "arena_used_bytes"), own_arena = jn_int(own, "arena_used_bytes");
    char err[RIP_ERR_LEN];
    rip_tfl_model m;
    cr_assert_eq(rip_tfl_model_load(model, &m, err), RIP_OK, "%s", err);
    const int n_ours = outputs_over_inputs(ours, &m), n_own = outputs_over_inputs(own, &m);
    cr_expect_eq(n_own, 0, "TFLM's own plan puts %d outputs over their inputs", n_own);
    cr_expect_gt(n_ours, 0, "%s: no operator's output is placed over its input", model);
    /* the reference plan saves 18,416 B (every_case_runs_on_ripsims_plan); CMSIS-NN's kernel orders
    ** allow person_detect only overlaps away from its peak (the tail's pool, conv and reshape) */
    if (!strcmp(variant, "ref"))
        cr_expect_lt(arena, own_arena, "%s", model);
    else
        cr_expect_leq(arena, own_arena, "%s", model);
    printf("tflm_offline_peer: %s person_detection_test_rip passed: arena %lld (TFLM's own plan %lld), "
           "%d operator outputs over their input (TFLM's own plan %d)\n", variant, arena, own_arena, n_ours, n_own);
    rip_tfl_model_free(&m);
    jm_free(own);
    jm_free(ours);
}

Test(tflm_offline_peer, tflms_own_person_detection_test_passes_on_ripsims_reference_plan)
{
    check_tflm_test_on_rip("ref");
}

Test(tflm_offline_peer, tflms_own_person_detection_test_passes_on_ripsims_cmsis_nn_plan)
{
    if (!have_cmsis())
        rip_skip("no CMSIS-NN tree: the cmsis variant is not built");
    check_tflm_test_on_rip("cmsis");
}
