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
** its objects: the first run compiles TFLM, later ones find it built).  Its
** arguments come from tests/meson.build: TFLM_PEER_BUILD (the script),
** TFLM_PEER_DIR (its output folder), RIPSIM_TFLM_PATH, RIPSIM_SOURCE_ROOT,
** RIPSIM_MODELS_PATH, TFLM_PEER_CMSIS (empty: no CMSIS-NN variant); its
** output goes to TFLM_PEER_DIR/build.log.
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

#include "rk_crc32.h"
#include "tmpdir.h"

TEST_SUITE_WITH_TMPDIR(tflm_peer, 1800);

/* ---- running things ---- */

typedef struct run_out {
    int status;     /* exit status, or 128 + signal */
    char *out;      /* stdout, NUL-terminated, malloc'd */
    char *err;      /* stderr */
} run_out;

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f, "%s", path);
    size_t cap = 1 << 16, n = 0, k;
    char *b = malloc(cap + 1);
    cr_assert_not_null(b);
    while ((k = fread(b + n, 1, cap - n, f)) > 0) {
        n += k;
        if (n == cap) {
            cap *= 2;
            b = realloc(b, cap + 1);
            cr_assert_not_null(b);
        }
    }
    fclose(f);
    b[n] = '\0';
    return b;
}

/* Run the shell command cmd (already quoted), stdout and stderr to files. */
static run_out run_sh(const char *cmd)
{
    char o[400], e[400], full[8192];
    snprintf(o, sizeof o, "%s", tmp("run.out"));
    snprintf(e, sizeof e, "%s", tmp("run.err"));
    snprintf(full, sizeof full, "%s > '%s' 2> '%s'", cmd, o, e);
    int st = system(full);
    run_out r;
    r.status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    r.out = slurp(o);
    r.err = slurp(e);
    return r;
}

/* Lines in s. */
static int count_nl(const char *s)
{
    int n = 0;
    for (; *s; s++)
        n += *s == '\n';
    return n;
}

/* Occurrences of needle in s. */
static int count_of(const char *s, const char *needle)
{
    int n = 0;
    for (const char *p = s; (p = strstr(p, needle)) != NULL; p++)
        n++;
    return n;
}

static void run_free(run_out *r)
{
    free(r->out);
    free(r->err);
}

/* ---- building the peer, once before the tests ---- */

ReportHook(PRE_ALL)(struct criterion_test_set *set)
{
    (void)set;
    const char *script = getenv("TFLM_PEER_BUILD"), *out = getenv("TFLM_PEER_DIR");
    const char *tree = getenv("RIPSIM_TFLM_PATH"), *src = getenv("RIPSIM_SOURCE_ROOT");
    const char *models = getenv("RIPSIM_MODELS_PATH"), *cmsis = getenv("TFLM_PEER_CMSIS");
    if (!script || !out || !tree || !src || !models) {
        setenv("TFLM_PEER_SETUP_ERR", "run me through meson test (TFLM_PEER_BUILD, TFLM_PEER_DIR, "
               "RIPSIM_TFLM_PATH, RIPSIM_SOURCE_ROOT, RIPSIM_MODELS_PATH)", 1);
        return;
    }
    char log[1024];
    snprintf(log, sizeof log, "%s/build.log", out);
    mkdir(out, 0777);
    const char *argv[] = {"bash", script, "--tflm", tree, "--src", src, "--models", models,
                          "--out", out, cmsis && *cmsis ? "--cmsis" : NULL, cmsis, NULL};
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        if (!freopen(log, "w", stdout) || dup2(1, 2) < 0)
            _exit(127);
        execvp("bash", (char *const *)argv);
        _exit(127);
    }
    int st = 0;
    if (pid < 0 || waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
        static char msg[1200];
        snprintf(msg, sizeof msg, "tests/tflm/build-peer.sh failed: see %s", log);
        setenv("TFLM_PEER_SETUP_ERR", msg, 1);
    }
}

/* The peer's folder; fails the test when the build before the tests failed. */
static const char *peer_dir(void)
{
    const char *err = getenv("TFLM_PEER_SETUP_ERR");
    cr_assert_null(err, "%s", err);
    const char *d = getenv("TFLM_PEER_DIR");
    cr_assert_not_null(d, "TFLM_PEER_DIR must name build-peer.sh's output folder");
    return d;
}

/* Is the cmsis variant built (build-peer.sh --cmsis)? */
static bool have_cmsis(void)
{
    char p[1024];
    snprintf(p, sizeof p, "%s/cmsis/tflm_peer", peer_dir());
    return exists(p);
}

/* Run VARIANT/tflm_peer (variant "ref" or "cmsis") with the text args
** (appended unquoted: the suite's paths hold no spaces or quotes). */
static run_out peer(const char *variant, const char *args)
{
    char cmd[6000];
    snprintf(cmd, sizeof cmd, "'%s/%s/tflm_peer' %s", peer_dir(), variant, args);
    return run_sh(cmd);
}

/* ---- the cases (build-peer.sh's cases.tsv: name, model, input) ---- */

typedef struct peer_case {
    char name[64];
    char model[1024];
    char input[1024];
} peer_case;

static peer_case cases[32];
static int n_cases;

static void load_cases(void)
{
    if (n_cases)
        return;
    char p[1024];
    snprintf(p, sizeof p, "%s/cases.tsv", peer_dir());
    FILE *f = fopen(p, "r");
    cr_assert_not_null(f, "%s", p);
    char line[3000];
    while (fgets(line, sizeof line, f) && n_cases < 32) {
        peer_case *c = &cases[n_cases];
        if (sscanf(line, "%63[^\t]\t%1023[^\t]\t%1023[^\t\n]", c->name, c->model, c->input) == 3)
            n_cases++;
    }
    fclose(f);
    cr_assert_geq(n_cases, 10, "cases.tsv lists %d cases", n_cases);
}

static const peer_case *find_case(const char *name)
{
    load_cases();
    for (int i = 0; i < n_cases; i++)
        if (!strcmp(cases[i].name, name))
            return &cases[i];
    cr_assert_fail("no case %s in cases.tsv", name);
    return NULL;
}

/* Run a case with extra options; the run must succeed. */
static run_out peer_case_run(const char *variant, const peer_case *c, const char *extra)
{
    char args[3200];
    snprintf(args, sizeof args, "'%s' --input '%s' %s", c->model, c->input, extra ? extra : "");
    run_out r = peer(variant, args);
    cr_assert_eq(r.status, 0, "%s %s: status %d: %s", variant, c->name, r.status, r.err);
    return r;
}

/* ---- reading the report (its fixed layout: tests/tflm/README.md) ---- */

/* The whole number after "key": in json (the first one). */
static long long json_int(const char *json, const char *key)
{
    char k[128];
    snprintf(k, sizeof k, "\"%s\": ", key);
    const char *p = strstr(json, k);
    cr_assert_not_null(p, "no %s in the report", key);
    return strtoll(p + strlen(k), NULL, 10);
}

/* The hex string of output k, decoded into out (at most cap bytes); returns its length. */
static size_t output_bytes(const char *json, int k, uint8_t *out, size_t cap)
{
    const char *p = strstr(json, "\"outputs\": [");
    cr_assert_not_null(p);
    for (int i = 0; i <= k; i++) {
        p = strstr(p, "\"hex\": \"");
        cr_assert_not_null(p, "no output %d", k);
        p += 8;
    }
    size_t n = 0;
    while (p[0] != '"') {
        unsigned v;
        cr_assert(sscanf(p, "%2x", &v) == 1);
        cr_assert_lt(n, cap);
        out[n++] = (uint8_t)v;
        p += 2;
    }
    return n;
}

/* The "operators" part of the report (from its key on). */
static const char *operators_of(const char *json)
{
    const char *p = strstr(json, "\"operators\": [");
    cr_assert_not_null(p);
    return p;
}

/* The double after "key": inside the first output's entry. */
static double output_double(const char *json, const char *key)
{
    const char *p = strstr(json, "\"outputs\": [");
    char k[128];
    snprintf(k, sizeof k, "\"%s\": ", key);
    p = strstr(p, k);
    cr_assert_not_null(p);
    return strtod(p + strlen(k), NULL);
}

/* ---- person detection: TFLM's own test and its scores ---- */

/* int8 [no person, person] of a person_detect report's output 0. */
static void scores(const char *json, int *no_person, int *person)
{
    uint8_t b[8];
    cr_assert_eq(output_bytes(json, 0, b, sizeof b), 2u);
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
        scores(r.out, &np, &p);
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
        cr_skip_test("no CMSIS-NN tree: the cmsis variant is not built");
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
    scores(r.out, &np, &p);
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
        cr_skip_test("no CMSIS-NN tree: the cmsis variant is not built");
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
        long long used = json_int(a.out, "arena_used_bytes"), min = json_int(a.out, "min_arena_bytes");
        cr_expect_eq(used, json_int(b.out, "arena_used_bytes"), "%s: arena differs run to run",
                     cases[i].name);
        cr_expect_eq(min, json_int(b.out, "min_arena_bytes"), "%s", cases[i].name);
        cr_expect(strstr(a.out, "\"min_arena_same_outputs\": true"), "%s: outputs differ at the smallest arena",
                  cases[i].name);
        cr_expect(strstr(a.out, "\"repeats_identical\": true"), "%s", cases[i].name);
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
        cr_skip_test("no CMSIS-NN tree: the cmsis variant is not built");
    load_cases();
    for (int i = 0; i < n_cases; i++) {
        run_out a = peer_case_run("ref", &cases[i], NULL);
        run_out b = peer_case_run("cmsis", &cases[i], NULL);
        cr_expect(strstr(b.out, "\"kernels\": \"cmsis-nn\""));
        /* Outputs, then every operator's output tensors (their CRCs, shapes,
        ** types): the operators' part of the report is the same text. */
        const char *oa = strstr(a.out, "\"outputs\": ["), *ob = strstr(b.out, "\"outputs\": [");
        cr_assert(oa && ob);
        const char *ea = strstr(oa, "\"operators\": ["), *eb = strstr(ob, "\"operators\": [");
        cr_expect(ea - oa == eb - ob && !strncmp(oa, ob, (size_t)(ea - oa)), "%s: outputs differ",
                  cases[i].name);
        /* Arena offsets may differ (CMSIS-NN asks for scratch buffers):
        ** compare the CRCs in order. */
        const char *pa = operators_of(a.out), *pb = operators_of(b.out);
        int n = 0;
        for (;;) {
            pa = strstr(pa, "\"crc32\": \"");
            pb = strstr(pb, "\"crc32\": \"");
            cr_assert_eq(pa == NULL, pb == NULL, "%s: operator counts differ", cases[i].name);
            if (pa == NULL)
                break;
            cr_expect(!strncmp(pa, pb, 20), "%s: operator output %d differs (%.20s vs %.20s)",
                      cases[i].name, n, pa, pb);
            pa += 10;
            pb += 10;
            n++;
        }
        cr_expect_gt(n, 0);
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
    cr_expect_eq(json_int(plain.out, "arena_used_bytes"), json_int(d.out, "arena_used_bytes"));
    const char *p = operators_of(d.out);
    int files = 0;
    uint8_t last[64];
    size_t last_n = 0;
    while ((p = strstr(p, "\"file\": \"")) != NULL) {
        /* ... "bytes": N, "arena_offset": ..., "crc32": "xxxxxxxx", "file": "op-..." */
        char name[64];
        cr_assert(sscanf(p + 9, "%63[^\"]", name) == 1);
        const char *crc = p;
        while (strncmp(crc, "\"crc32\": \"", 10) != 0)
            crc--;
        const char *bytes = crc;
        while (strncmp(bytes, "\"bytes\": ", 9) != 0)
            bytes--;
        unsigned want;
        cr_assert(sscanf(crc + 10, "%8x", &want) == 1);
        long n = strtol(bytes + 9, NULL, 10);
        char path[600];
        snprintf(path, sizeof path, "%s/%s", dir, name);
        FILE *f = fopen(path, "rb");
        cr_assert_not_null(f, "%s", path);
        uint8_t *buf = malloc((size_t)n + 1);
        cr_assert_eq(fread(buf, 1, (size_t)n + 1, f), (size_t)n, "%s: size", name);
        fclose(f);
        cr_expect_eq(rk_crc32(buf, (size_t)n), want, "%s: CRC", name);
        if ((size_t)n <= sizeof last) {
            memcpy(last, buf, (size_t)n);
            last_n = (size_t)n;
        }
        free(buf);
        files++;
        p += 9;
    }
    /* One file per operator output; the last is the model's output. */
    cr_expect_eq(files, count_of(operators_of(d.out), "\"crc32\": "));
    cr_expect_gt(files, 5);
    uint8_t out[64];
    size_t n_out = output_bytes(d.out, 0, out, sizeof out);
    cr_expect_eq(last_n, n_out);
    cr_expect_arr_eq(last, out, n_out, "the last operator's dump is not the model's output");
    run_free(&plain);
    run_free(&d);
}

/* ---- hello_world approximates sin ---- */

Test(tflm_peer, hello_world_gives_sin_of_its_input)
{
    run_out r = peer_case_run("ref", find_case("hello_world"), NULL);
    uint8_t b[4];
    cr_assert_eq(output_bytes(r.out, 0, b, sizeof b), 1u);
    double scale = output_double(r.out, "scale"), zp = output_double(r.out, "zero_point");
    double y = ((int8_t)b[0] - zp) * scale;
    /* x = pi/2, quantized to the input's scale: sin is 1 within the
    ** model's error (TFLM's hello_world test allows 0.05 after quantizing). */
    cr_expect(fabs(y - 1.0) < 0.1, "y = %g", y);
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
