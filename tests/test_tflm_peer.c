/*
** test_tflm_peer.c — the TensorFlow Lite Micro peer (tests/tflm/README.md):
** TFLM built from the vendored tree by tests/tflm/build-peer.sh, with its
** reference kernels and with its CMSIS-NN kernels, and the harness
** tflm_peer run on every model of tests/tflm/cases.tsv.
**
** What pins it to the outside:
**   - TFLM's own person_detection_test (its source, our libtflm.a, its
**     images converted by ripsim's BMP reader) passes, with the scores its
**     authors' run gives (person.bmp: person 113, no person -113;
**     no_person.bmp: -57 / 57), and the harness gives the same scores;
**   - arena_used_bytes and the smallest arena AllocateTensors accepts equal
**     what the vendored tree's own probe (tools/tflm_probe.cc beside
**     lib_sources.txt) measured with TFLM's stock MicroMutableOpResolver:
**     the harness's observed invokes do not change TFLM's memory plan;
**   - the reference and CMSIS-NN builds agree byte for byte, outputs and
**     every operator's outputs (two kernel libraries, not one);
**   - hello_world's model approximates sin(x).
** Run-to-run stability of the arena and of the outputs is checked too.
**
** Before the tests, a PRE_ALL hook runs tests/tflm/build-peer.sh (it keeps
** its objects: the first run compiles TFLM, later ones find it built);
** tflm_peer.h has it, and the helpers the suites share.
*/
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "json_need.h"
#include "rk_crc32.h"
#include "skip.h"
#include "tmpdir.h"

TEST_SUITE_WITH_TMPDIR(tflm_peer, 1800);

#include "tflm_peer.h"

/* ---- person detection: TFLM's own test and its scores ---- */

/* int8 [no person, person] of a person_detect report's output 0. */
static void scores(const run_out *r, int *no_person, int *person)
{
    uint8_t b[8];
    jm *doc = report(r);
    cr_assert_eq(output_bytes(doc, 0, b, sizeof b), 2u);
    jm_free(doc);
    *no_person = (int8_t)b[0];
    *person = (int8_t)b[1];
}

static void check_person_scores(const char *variant)
{
    struct { const char *name; int person, no_person; } want[] = {
        {"person", 113, -113}, {"no_person", -57, 57}};
    for (int i = 0; i < 2; i++) {
        run_out r = peer_case_run(variant, find_case(want[i].name), NULL);
        int np, p;
        scores(&r, &np, &p);
        cr_expect_eq(p, want[i].person, "%s %s: person %d", variant, want[i].name, p);
        cr_expect_eq(np, want[i].no_person, "%s %s: no person %d", variant, want[i].name, np);
        run_free(&r);
    }
}

Test(tflm_peer, person_detect_scores_are_those_of_tflms_test_reference)
{
    check_person_scores("ref");
}

Test(tflm_peer, person_detect_scores_are_those_of_tflms_test_cmsis_nn)
{
    if (!have_cmsis())
        rip_skip("no CMSIS-NN tree: the cmsis variant is not built");
    check_person_scores("cmsis");
}

/* The harness reading the .bmp itself (ripsim's BMP reader) gives the
** bytes build-peer.sh saved and the same scores. */
Test(tflm_peer, a_bmp_input_is_read_as_tflms_test_reads_it)
{
    const peer_case *c = find_case("person");
    char bmp[1200], args[4000], saved[400];
    const char *tree = getenv("RIPSIM_TFLM_PATH");
    cr_assert_not_null(tree);
    snprintf(bmp, sizeof bmp,
             "%s/tflite-micro/tensorflow/lite/micro/examples/person_detection/testdata/person.bmp", tree);
    snprintf(saved, sizeof saved, "%s", tmp("person.in"));
    snprintf(args, sizeof args, "'%s' --input '%s' --save-input '%s'", c->model, bmp, saved);
    run_out r = peer("ref", args);
    cr_assert_eq(r.status, 0, "%s", r.err);
    int np, p;
    scores(&r, &np, &p);
    cr_expect_eq(p, 113);
    cr_expect_eq(np, -113);
    char cmd[3000];
    snprintf(cmd, sizeof cmd, "cmp -s '%s' '%s'", saved, c->input);
    cr_expect_eq(system(cmd), 0, "the BMP path and the saved input differ");
    run_free(&r);
}

static void check_tflm_test(const char *variant)
{
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "'%s/%s/person_detection_test'", peer_dir(), variant);
    run_out r = run_sh(cmd);
    cr_assert_eq(r.status, 0, "%s: status %d\n%s%s", cmd, r.status, r.out, r.err);
    /* TFLM prints through stderr on the host. */
    char both[1 << 14];
    snprintf(both, sizeof both, "%s%s", r.out, r.err);
    cr_expect(strstr(both, "~~~ALL TESTS PASSED~~~"), "%s", both);
    cr_expect(strstr(both, "person data.  person score: 113, no person score: -113"), "%s", both);
    cr_expect(strstr(both, "no person data.  person score: -57, no person score: 57"), "%s", both);
    run_free(&r);
}

Test(tflm_peer, tflms_own_person_detection_test_passes_reference)
{
    check_tflm_test("ref");
}

Test(tflm_peer, tflms_own_person_detection_test_passes_cmsis_nn)
{
    if (!have_cmsis())
        rip_skip("no CMSIS-NN tree: the cmsis variant is not built");
    check_tflm_test("cmsis");
}

/* ---- the arena ---- */

/* TFLM's own figures for the reference build, measured by the vendored
** tree's tflm_probe with TFLM's stock MicroMutableOpResolver (its notes,
** "TFLM's own arena"): arena_used_bytes and the smallest arena
** AllocateTensors accepts, found in 16-byte steps. */
static const struct { const char *name; long long used, min; } probe_arena[] = {
    {"person", 85024, 85024},
    {"vww_96_int8", 103392, 103392},
    {"pretrainedResnet_quant", 55712, 55712},
    {"kws_ref_model", 24000, 24000},
    {"ad01_int8", 3424, 4080},
    {"tinyengine_vww", 224704, 224704},
    {"tinyengine_detection", 386032, 386032},
};

Test(tflm_peer, arena_figures_are_tflms_own_and_stable_run_to_run)
{
    load_cases();
    for (int i = 0; i < n_cases; i++) {
        run_out a = peer_case_run("ref", &cases[i], "--find-min-arena");
        run_out b = peer_case_run("ref", &cases[i], "--find-min-arena");
        jm *ja = report(&a), *jb = report(&b);
        long long used = jn_int(ja, "arena_used_bytes"), min = jn_int(ja, "min_arena_bytes");
        cr_expect_eq(used, jn_int(jb, "arena_used_bytes"), "%s: arena differs run to run", cases[i].name);
        cr_expect_eq(min, jn_int(jb, "min_arena_bytes"), "%s", cases[i].name);
        cr_expect_eq(jn_int(ja, "arena_size"), 8388608);
        cr_expect(jn_bool(ja, "min_arena_same_outputs"), "%s: outputs differ at the smallest arena",
                  cases[i].name);
        cr_expect(jn_bool(ja, "repeats_identical"), "%s", cases[i].name);
        jm_free(ja);
        jm_free(jb);
        for (size_t k = 0; k < sizeof probe_arena / sizeof probe_arena[0]; k++)
            if (!strcmp(probe_arena[k].name, cases[i].name)) {
                cr_expect_eq(used, probe_arena[k].used, "%s: arena_used_bytes %lld, TFLM's probe %lld",
                             cases[i].name, used, probe_arena[k].used);
                /* The probe searched in 16-byte steps, the harness byte by byte. */
                cr_expect(min <= probe_arena[k].min && min > probe_arena[k].min - 16,
                          "%s: smallest arena %lld, TFLM's probe %lld (16-byte steps)", cases[i].name,
                          min, probe_arena[k].min);
            }
        /* One byte less than the smallest arena is refused, in one line. */
        char extra[64];
        snprintf(extra, sizeof extra, "--arena %lld", min - 1);
        char args[3200];
        snprintf(args, sizeof args, "'%s' --input '%s' %s", cases[i].model, cases[i].input, extra);
        run_out c = peer("ref", args);
        cr_expect_eq(c.status, 65, "%s: arena %lld: status %d", cases[i].name, min - 1, c.status);
        cr_expect(strstr(c.err, "AllocateTensors failed with an arena of") && count_nl(c.err) == 1,
                  "%s", c.err);
        run_free(&a);
        run_free(&b);
        run_free(&c);
    }
}

/* ---- reference against CMSIS-NN ---- */

Test(tflm_peer, reference_and_cmsis_nn_agree_on_every_operator_of_every_model)
{
    if (!have_cmsis())
        rip_skip("no CMSIS-NN tree: the cmsis variant is not built");
    load_cases();
    for (int i = 0; i < n_cases; i++) {
        run_out a = peer_case_run("ref", &cases[i], NULL);
        run_out b = peer_case_run("cmsis", &cases[i], NULL);
        jm *ja = report(&a), *jb = report(&b);
        cr_expect_str_eq(jn_str(ja, "kernels"), "reference");
        cr_expect_str_eq(jn_str(jb, "kernels"), "cmsis-nn");
        const jm *oa = jn_get(ja, "outputs"), *ob = jn_get(jb, "outputs");
        cr_assert_eq(oa->n, ob->n);
        for (size_t k = 0; k < oa->n; k++)
            cr_expect_str_eq(jn_str(jn_item(oa, k), "hex"), jn_str(jn_item(ob, k), "hex"), "%s: output %zu differs",
                             cases[i].name, k);
        /* Every operator's outputs: type, bytes and CRC in order (arena
        ** offsets may differ: CMSIS-NN asks for scratch buffers). */
        const jm *pa = jn_get(ja, "operators"), *pb = jn_get(jb, "operators");
        cr_assert_eq(pa->n, pb->n, "%s: operator counts differ", cases[i].name);
        size_t n = 0;
        for (size_t op = 0; op < pa->n; op++) {
            const jm *xa = jn_get(jn_item(pa, op), "outputs"), *xb = jn_get(jn_item(pb, op), "outputs");
            cr_assert_eq(xa->n, xb->n);
            for (size_t k = 0; k < xa->n; k++, n++) {
                cr_expect_str_eq(jn_str(jn_item(xa, k), "type"), jn_str(jn_item(xb, k), "type"));
                cr_expect_eq(jn_int(jn_item(xa, k), "bytes"), jn_int(jn_item(xb, k), "bytes"));
                cr_expect_str_eq(jn_str(jn_item(xa, k), "crc32"), jn_str(jn_item(xb, k), "crc32"),
                                 "%s: operator %zu (%s) output %zu differs", cases[i].name, op,
                                 jn_str(jn_item(pa, op), "op"), k);
            }
        }
        jm_free(ja);
        jm_free(jb);
        cr_expect_gt(n, 0u);
        run_free(&a);
        run_free(&b);
    }
}

/* ---- dumps ---- */

Test(tflm_peer, dumps_hold_every_operators_outputs_and_do_not_change_the_run)
{
    const peer_case *c = find_case("kws_ref_model");
    char dir[400], extra[600];
    snprintf(dir, sizeof dir, "%s", tmp("dump"));
    snprintf(extra, sizeof extra, "--dump '%s'", dir);
    run_out plain = peer_case_run("ref", c, NULL);
    run_out d = peer_case_run("ref", c, extra);
    jm *jp = report(&plain), *jd = report(&d);
    cr_expect_eq(jn_int(jp, "arena_used_bytes"), jn_int(jd, "arena_used_bytes"));
    const jm *ops = jn_get(jd, "operators");
    size_t files = 0, last_n = 0;
    uint8_t last[64];
    for (size_t op = 0; op < ops->n; op++) {
        const jm *outs = jn_get(jn_item(ops, op), "outputs");
        for (size_t k = 0; k < outs->n; k++, files++) {
            const jm *o = jn_item(outs, k);
            char name[64], path[600];
            snprintf(name, sizeof name, "op-%03zu-out-%zu.bin", op, k);
            cr_expect_str_eq(jn_str(o, "file"), name);
            snprintf(path, sizeof path, "%s/%s", dir, name);
            size_t n = (size_t)jn_int(o, "bytes");
            FILE *f = fopen(path, "rb");
            cr_assert_not_null(f, "%s", path);
            uint8_t *buf = malloc(n + 1);
            cr_assert_eq(fread(buf, 1, n + 1, f), n, "%s: size", name);
            fclose(f);
            char crc[16];
            snprintf(crc, sizeof crc, "%08x", (unsigned)rk_crc32(buf, n));
            cr_expect_str_eq(crc, jn_str(o, "crc32"), "%s: CRC", name);
            /* The same operator in the run without --dump. */
            cr_expect_str_eq(jn_str(jn_item(jn_get(jn_item(jn_get(jp, "operators"), op), "outputs"), k), "crc32"), crc);
            if (n <= sizeof last) {
                memcpy(last, buf, n);
                last_n = n;
            }
            free(buf);
        }
    }
    /* One file per operator output (13 operators), the last one the model's output. */
    cr_expect_eq(ops->n, 13u);
    cr_expect_eq(files, 13u);
    uint8_t out[64];
    size_t n_out = output_bytes(jd, 0, out, sizeof out);
    cr_expect_eq(last_n, n_out);
    cr_expect_arr_eq(last, out, n_out, "the last operator's dump is not the model's output");
    jm_free(jp);
    jm_free(jd);
    run_free(&plain);
    run_free(&d);
}

/* ---- hello_world approximates sin ---- */

Test(tflm_peer, hello_world_gives_sin_of_its_input)
{
    run_out r = peer_case_run("ref", find_case("hello_world"), NULL);
    uint8_t b[4];
    jm *doc = report(&r);
    cr_assert_eq(output_bytes(doc, 0, b, sizeof b), 1u);
    const jm *o = jn_item(jn_get(doc, "outputs"), 0);
    double scale = jn_get(o, "scale")->num, zp = (double)jn_int(o, "zero_point");
    double y = ((int8_t)b[0] - zp) * scale;
    /* x = pi/2 (quantized to the input's scale): sin x = 1, within the
    ** coarse fit of a 3-layer model of 16 units. */
    cr_expect(fabs(y - 1.0) < 0.1, "y = %g", y);
    jm_free(doc);
    run_free(&r);
}

/* ---- errors, one line each ---- */

Test(tflm_peer, bad_uses_are_one_line_errors_with_sysexits)
{
    const peer_case *c = find_case("kws_ref_model");
    char args[3000];
    run_out r = peer("ref", "/nonexistent/m.tflite");
    cr_expect_eq(r.status, 66);
    cr_expect(strstr(r.err, "tflm_peer: /nonexistent/m.tflite: cannot read") && count_nl(r.err) == 1,
              "%s", r.err);
    run_free(&r);

    snprintf(args, sizeof args, "'%s' --input '%s'", c->model, find_case("person")->input);
    r = peer("ref", args);
    cr_expect_eq(r.status, 65);
    cr_expect(strstr(r.err, "9216 bytes, but input 0 (INT8) takes 490") && count_nl(r.err) == 1, "%s",
              r.err);
    run_free(&r);

    /* An arena too small for TFLM's own objects (TFLM would crash): refused. */
    for (int a = 1; a <= 1024; a *= 4) {
        snprintf(args, sizeof args, "'%s' --input '%s' --arena %d", c->model, c->input, a);
        r = peer("ref", args);
        cr_expect_eq(r.status, 65, "arena %d: status %d", a, r.status);
        cr_expect(strstr(r.err, "AllocateTensors failed with an arena of") && count_nl(r.err) == 1,
                  "%s", r.err);
        run_free(&r);
    }

    snprintf(args, sizeof args, "'%s' --frobnicate", c->model);
    r = peer("ref", args);
    cr_expect_eq(r.status, 64);
    cr_expect(count_nl(r.err) == 1, "%s", r.err);
    run_free(&r);

    /* SVDF is not in the vendored tree: refused by name. */
    const char *models = getenv("RIPSIM_MODELS_PATH");
    if (models) {
        snprintf(args, sizeof args, "'%s/tflite-micro/keyword_scrambled_8bit.tflite'", models);
        r = peer("ref", args);
        cr_expect_eq(r.status, 65);
        cr_expect(strstr(r.err, "is SVDF, which the vendored TFLM tree does not have") &&
                      count_nl(r.err) == 1,
                  "%s", r.err);
        run_free(&r);
    }
}
