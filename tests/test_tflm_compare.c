/*
** test_tflm_compare.c — `ripsim run` against TensorFlow Lite Micro, the
** runtime the models' users deploy with (tests/tflm/README.md): on every
** case of tests/tflm/cases.tsv and on the hand-written nets TFLM's tree can
** run, under the base and the rip plan, the outputs must equal TFLM's bit
** for bit, and so must every operator's output, compared with the peer's
** per-operator dumps.  The only operators without a ripsim dump are the
** PADs folded into the convolution that reads them; each one is checked to
** be exactly that (its output read once, as input 0 of a CONV_2D or
** DEPTHWISE_CONV_2D) and counted.  Also: person_detect's scores from the
** BMPs, as TFLM's own test asserts them, and every strategy's plan of every
** model passing the checker.
**
** The peer is built before the tests by the PRE_ALL hook of tflm_peer.h
** (shared with the tflm_peer suite: one build).  Without the TFLM tree
** tests/meson.build runs tflm_missing.c in this suite's place (one line,
** skipped).
*/
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_need.h"
#include "tmpdir.h"

TEST_SUITE_WITH_TMPDIR(tflm_compare, 3600);

#include "tflm_peer.h"

/* The ripsim binary, for run_sh's command lines. */
static const char *ripsim(void)
{
    const char *b = getenv("RIPSIM_BIN");
    cr_assert_not_null(b, "RIPSIM_BIN must name the ripsim binary");
    return b;
}

/* Up to cap bytes of the file at path; their count (-1: no such file). */
static long read_bytes(const char *path, uint8_t *buf, size_t cap)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return -1;
    size_t n = fread(buf, 1, cap, f);
    fclose(f);
    return (long)n;
}

/* `ripsim model MODEL --json`: the model's operators (name, inputs, outputs). */
static jm *model_json(const char *model)
{
    char cmd[2400];
    snprintf(cmd, sizeof cmd, "'%s' model '%s' --json", ripsim(), model);
    run_out r = run_sh(cmd);
    cr_assert_eq(r.status, 0, "%s: %s", model, r.err);
    jm *doc = report(&r);
    run_free(&r);
    return doc;
}

static const jm *model_ops(const jm *model)
{
    return jn_get(jn_item(jn_get(model, "subgraphs"), 0), "operators");
}

/* Is operator i of the model a PAD whose output is read once, as input 0
** of a CONV_2D or DEPTHWISE_CONV_2D (the PADs ripsim folds)? */
static bool foldable_pad(const jm *model, size_t i)
{
    const jm *ops = model_ops(model), *op = jn_item(ops, i);
    if (strcmp(jn_str(op, "op"), "PAD") != 0)
        return false;
    long long out = jn_get(op, "outputs")->items[0].i;
    const jm *graph_out = jn_get(jn_item(jn_get(model, "subgraphs"), 0), "outputs");
    for (size_t k = 0; k < graph_out->n; k++)
        if (graph_out->items[k].i == out)
            return false;
    int readers = 0;
    bool conv_input0 = false;
    for (size_t j = 0; j < ops->n; j++) {
        const jm *in = jn_get(jn_item(ops, j), "inputs");
        const char *name = jn_str(jn_item(ops, j), "op");
        for (size_t k = 0; k < in->n; k++)
            if (in->items[k].i == out) {
                readers++;
                conv_input0 = k == 0 && (!strcmp(name, "CONV_2D") || !strcmp(name, "DEPTHWISE_CONV_2D"));
            }
    }
    return readers == 1 && conv_input0;
}

/* The peer's run of model on input (raw bytes, or --input-f32 for float) with
** its dumps in dir; the report. */
static jm *peer_run(const char *model, const char *input, bool f32, const char *dir)
{
    char args[3600];
    snprintf(args, sizeof args, "'%s' %s '%s' --dump '%s'", model, f32 ? "--input-f32" : "--input", input, dir);
    run_out r = peer("ref", args);
    cr_assert_eq(r.status, 0, "%s: %s", model, r.err);
    jm *doc = report(&r);
    run_free(&r);
    return doc;
}

/*
** Compare `ripsim run MODEL --input INPUT --plan PLAN` with the peer's
** report and dumps (peer_dir): every output and every operator.  Returns
** how many operators were folded PADs (no ripsim dump).
*/
static int compare_plan(const char *name, const char *model, const char *input, const jm *rep, const jm *mj,
                        const char *peer_dumps, const char *plan)
{
    char dir[600], out[620], cmd[4000];
    snprintf(dir, sizeof dir, "%s", tmp(plan));
    snprintf(out, sizeof out, "%s.out", dir);
    snprintf(cmd, sizeof cmd, "rm -rf '%s' && '%s' run '%s' --input '%s' --plan %s --out '%s' --dump '%s'", dir,
             ripsim(), model, input, plan, out, dir);
    run_out r = run_sh(cmd);
    cr_assert_eq(r.status, 0, "%s %s: %s", name, plan, r.err);
    run_free(&r);
    static uint8_t ours[1 << 20], theirs[1 << 20];
    long n = read_bytes(out, ours, sizeof ours), at = 0;
    const jm *outs = jn_get(rep, "outputs");
    for (size_t k = 0; k < outs->n; k++) {
        size_t m = output_bytes(rep, k, theirs, sizeof theirs);
        cr_assert(at + (long)m <= n && memcmp(ours + at, theirs, m) == 0, "%s %s: output %zu differs from TFLM's",
                  name, plan, k);
        at += (long)m;
    }
    cr_assert_eq(at, n, "%s %s: --out has %ld bytes, TFLM's outputs %ld", name, plan, n, at);
    const jm *ops = jn_get(rep, "operators");
    cr_assert_eq(ops->n, model_ops(mj)->n);
    int folded = 0;
    for (size_t i = 0; i < ops->n; i++) {
        const char *file = jn_str(jn_item(jn_get(jn_item(ops, i), "outputs"), 0), "file");
        char a[900], b[900];
        snprintf(a, sizeof a, "%s/%s", dir, file);
        snprintf(b, sizeof b, "%s/%s", peer_dumps, file);
        long na = read_bytes(a, ours, sizeof ours), nb = read_bytes(b, theirs, sizeof theirs);
        cr_assert_geq(nb, 0, "%s: the peer has no %s", name, b);
        if (na < 0) {
            cr_assert(foldable_pad(mj, i), "%s %s: operator %zu (%s) has no dump and is no folded PAD", name, plan,
                      i, jn_str(jn_item(ops, i), "op"));
            folded++;
            continue;
        }
        cr_assert(na == nb && memcmp(ours, theirs, (size_t)na) == 0,
                  "%s %s: operator %zu (%s): its output differs from TFLM's (%ld and %ld bytes)", name, plan, i,
                  jn_str(jn_item(ops, i), "op"), na, nb);
    }
    return folded;
}

/* One model and input through the peer and ripsim's two plans; the folded PADs. */
static int compare_case(const char *name, const char *model, const char *input, bool f32)
{
    char peer_dumps[600];
    snprintf(peer_dumps, sizeof peer_dumps, "%s", tmp("peer"));
    char cmd[700];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", peer_dumps);
    cr_assert_eq(system(cmd), 0);
    jm *rep = peer_run(model, input, f32, peer_dumps);
    jm *mj = model_json(model);
    /* ripsim takes a float input's raw little-endian bytes, as the peer's --input-f32 */
    int folded = compare_plan(name, model, input, rep, mj, peer_dumps, "base");
    cr_expect_eq(compare_plan(name, model, input, rep, mj, peer_dumps, "rip"), folded);
    jm_free(mj);
    jm_free(rep);
    return folded;
}

Test(tflm_compare, every_case_equals_tflm_output_and_operator_by_operator_under_both_plans)
{
    load_cases();
    int total_folded = 0;
    for (int i = 0; i < n_cases; i++) {
        int folded = compare_case(cases[i].name, cases[i].model, cases[i].input, false);
        /* TinyEngine's exports pad explicitly before every stride-2 layer */
        int want = !strcmp(cases[i].name, "tinyengine_vww") ? 4 : !strcmp(cases[i].name, "tinyengine_detection") ? 5 : 0;
        cr_expect_eq(folded, want, "%s: %d PADs folded", cases[i].name, folded);
        total_folded += folded;
    }
    cr_expect_eq(n_cases, 10);
    cr_expect_eq(total_folded, 9);
}

/* The hand-written nets of tests/data/tflite that TFLM's tree runs (ops
** and data_ops need CONCATENATION, which it has not). */
Test(tflm_compare, hand_written_nets_equal_tflm)
{
    const char *src = getenv("RIPSIM_SOURCE_ROOT");
    cr_assert_not_null(src);
    static const struct { const char *name; size_t bytes; bool f32; } nets[] = {
        {"inplace_chain", 32, false}, {"convnet", 72, false}, {"float_edges", 32, true}};
    for (size_t k = 0; k < sizeof nets / sizeof nets[0]; k++) {
        char model[1200], input[600];
        snprintf(model, sizeof model, "%s/tests/data/tflite/%s.tflite", src, nets[k].name);
        snprintf(input, sizeof input, "%s", tmp(nets[k].name));
        uint8_t b[128];
        for (size_t i = 0; i < nets[k].bytes; i++)
            b[i] = (uint8_t)(i * 73 + 11);
        if (nets[k].f32)
            for (size_t i = 0; i < nets[k].bytes / 4; i++) { /* little-endian floats in [-2, 2) */
                float v = (float)((int)(i * 7 % 16) - 8) / 4.0f;
                memcpy(b + 4 * i, &v, 4);
            }
        FILE *f = fopen(input, "wb");
        cr_assert_not_null(f);
        cr_assert_eq(fwrite(b, 1, nets[k].bytes, f), nets[k].bytes);
        fclose(f);
        cr_expect_eq(compare_case(nets[k].name, model, input, nets[k].f32), k == 0 ? 1 : 0);
    }
}

/* TFLM's person_detection_test: person.bmp gives person 113 / no person
** -113, no_person.bmp -57 / 57 (output [no person, person]). */
Test(tflm_compare, person_detect_scores_from_the_bmps_under_both_plans)
{
    const char *tree = getenv("RIPSIM_TFLM_PATH");
    cr_assert_not_null(tree);
    static const struct { const char *bmp; int person, no_person; } want[] = {
        {"person.bmp", 113, -113}, {"no_person.bmp", -57, 57}};
    for (int i = 0; i < 2; i++)
        for (int plan = 0; plan < 2; plan++) {
            char cmd[3000];
            snprintf(cmd, sizeof cmd,
                     "'%s' run '%s/tflite-micro/tensorflow/lite/micro/models/person_detect.tflite' --input "
                     "'%s/tflite-micro/tensorflow/lite/micro/examples/person_detection/testdata/%s' --plan %s --json",
                     ripsim(), tree, tree, want[i].bmp, plan ? "rip" : "base");
            run_out r = run_sh(cmd);
            cr_assert_eq(r.status, 0, "%s", r.err);
            jm *doc = report(&r);
            const jm *v = jn_get(jn_item(jn_get(doc, "outputs"), 0), "values");
            cr_assert_eq(v->n, 2u);
            cr_expect_eq(v->items[1].i, want[i].person, "%s %s: person %lld", want[i].bmp, plan ? "rip" : "base",
                         v->items[1].i);
            cr_expect_eq(v->items[0].i, want[i].no_person, "%s: no person %lld", want[i].bmp, v->items[0].i);
            jm_free(doc);
            run_free(&r);
        }
}

/* Every strategy's plan of every model passes rip_plan_check (ripsim plan
** checks before it prints, gaps simulated): with RiP candidates, without
** (--no-rip) and dual buffered. */
Test(tflm_compare, every_strategy_plans_every_model_and_the_checker_passes)
{
    load_cases();
    static const char *const strategies[] = {"naive", "greedy-size", "tinyengine", "hill-climb", "milp"};
    static const char *const modes[] = {"", "--no-rip", "--dual"};
    for (int i = 0; i < n_cases; i++) {
        if (i > 0 && !strcmp(cases[i].model, cases[i - 1].model))
            continue;
        for (size_t s = 0; s < sizeof strategies / sizeof strategies[0]; s++)
            for (size_t m = 0; m < 3; m++) {
                char cmd[3000];
                snprintf(cmd, sizeof cmd, "'%s' plan '%s' --strategy %s %s --json", ripsim(), cases[i].model,
                         strategies[s], modes[m]);
                run_out r = run_sh(cmd);
                cr_assert_eq(r.status, 0, "%s: %s", cmd, r.err);
                jm *doc = report(&r);
                cr_expect(jn_bool(doc, "checked"), "%s", cmd);
                jm_free(doc);
                run_free(&r);
            }
    }
}
