/*
** tflm_peer.h — what the suites that run the TensorFlow Lite Micro peer
** (tests/tflm/README.md) share: running a shell command with its output
** captured, building the peer once before the tests (a Criterion PRE_ALL
** hook running tests/tflm/build-peer.sh), the cases of its cases.tsv, and
** reading its JSON reports.  Header-only, for tests/test_tflm_peer.c and
** tests/test_tflm_compare.c; include it after tmpdir.h (it writes into
** the suite's folder).
**
** The hook's arguments come from tests/meson.build: TFLM_PEER_BUILD (the
** script), TFLM_PEER_DIR (its output folder), RIPSIM_TFLM_PATH,
** RIPSIM_SOURCE_ROOT, RIPSIM_MODELS_PATH, TFLM_PEER_CMSIS (empty: no
** CMSIS-NN variant), RIPSIM_BIN (optional: build-peer.sh --ripsim); its
** output goes to TFLM_PEER_DIR/build.log.  A
** failed build fails every test that asks for peer_dir().  When
** TFLM_M33_BUILD is set too (tests/test_tflm_m33.c), the hook then runs
** that script, tests/tflm/build-m33.sh, into TFLM_M33_DIR over the peer's
** cases (log TFLM_M33_DIR/build.log; a failure is kept for m33_dir()),
** and, with RIPSIM_BIN, over each case's model as ripsim plans it for
** CMSIS-NN (NAME_rip, m33_rip_cases).
*/
#ifndef RIPSIM_TEST_TFLM_PEER_H
#define RIPSIM_TEST_TFLM_PEER_H

#include <criterion/criterion.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "json_need.h"

/* ---- running things ---- */

typedef struct run_out {
    int status;     /* exit status, or 128 + signal */
    char *out;      /* stdout, NUL-terminated, malloc'd */
    char *err;      /* stderr */
} run_out;

/* The file at path, NUL-terminated (malloc'd); its length in *len when len is not NULL. */
static inline char *slurp_n(const char *path, size_t *len)
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
    if (len)
        *len = n;
    return b;
}

static inline char *slurp(const char *path)
{
    return slurp_n(path, NULL);
}

/* Run the shell command cmd (already quoted), stdout and stderr to files. */
static inline run_out run_sh(const char *cmd)
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
static inline int count_nl(const char *s)
{
    int n = 0;
    for (; *s; s++)
        n += *s == '\n';
    return n;
}

static inline void run_free(run_out *r)
{
    free(r->out);
    free(r->err);
}

/* ---- building the peer, once before the tests ---- */

/* Run bash with argv (argv[0] "bash"), its output to log; false when it
** failed. */
static inline bool run_build(const char *const *argv, const char *log)
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        if (!freopen(log, "w", stdout) || dup2(1, 2) < 0)
            _exit(127);
        execvp("bash", (char *const *)argv);
        _exit(127);
    }
    int st = 0;
    return pid > 0 && waitpid(pid, &st, 0) >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

/* The M33 cases NAME_rip (tests/test_tflm_m33.c): each peer case's model
** planned by `RIPSIM_BIN plan MODEL --for tflm-cmsis-nn --write` into
** m33_out/rip/NAME.tflite (replaced only when its bytes change, so that
** build-m33.sh relinks only what changed), on the case's input, appended
** to o from the peer's cases in (read again from the start).  Without
** RIPSIM_BIN there are none; false, with TFLM_M33_SETUP_ERR set, when a
** plan fails. */
static inline bool m33_rip_cases(FILE *in, FILE *o, const char *m33_out)
{
    const char *bin = getenv("RIPSIM_BIN");
    if (!bin || !*bin)
        return true;
    static char msg[2400];
    char dir[1100], line[3000], name[64], model[1024], input[1024], cmd[4000];
    snprintf(dir, sizeof dir, "%s/rip", m33_out);
    mkdir(dir, 0777);
    rewind(in);
    while (fgets(line, sizeof line, in)) {
        if (sscanf(line, "%63[^\t]\t%1023[^\t]\t%1023[^\t\n]", name, model, input) != 3)
            continue;
        snprintf(cmd, sizeof cmd,
                 "f='%s/%s.tflite'; '%s' plan '%s' --for tflm-cmsis-nn --write \"$f.new\" > \"$f.log\" 2>&1 && "
                 "{ cmp -s \"$f.new\" \"$f\" && rm \"$f.new\" || mv \"$f.new\" \"$f\"; }",
                 dir, name, bin, model);
        if (system(cmd) != 0) {
            snprintf(msg, sizeof msg, "ripsim plan %.1023s --for tflm-cmsis-nn failed: see %.1099s/%.63s.tflite.log",
                     model, dir, name);
            setenv("TFLM_M33_SETUP_ERR", msg, 1);
            return false;
        }
        fprintf(o, "%s_rip\t%s/%s.tflite\t%s\n", name, dir, name, input);
    }
    return true;
}

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
    static char log[1024], msg[1200];
    snprintf(log, sizeof log, "%s/build.log", out);
    mkdir(out, 0777);
    /* with RIPSIM_BIN, person_detection_test_rip too (build-peer.sh --ripsim) */
    const char *bin = getenv("RIPSIM_BIN");
    const char *argv[16] = {"bash", script, "--tflm", tree, "--src", src, "--models", models, "--out", out};
    int argc = 10;
    if (cmsis && *cmsis) {
        argv[argc++] = "--cmsis";
        argv[argc++] = cmsis;
    }
    if (bin && *bin) {
        argv[argc++] = "--ripsim";
        argv[argc++] = bin;
    }
    argv[argc] = NULL;
    if (!run_build(argv, log)) {
        snprintf(msg, sizeof msg, "tests/tflm/build-peer.sh failed: see %s", log);
        setenv("TFLM_PEER_SETUP_ERR", msg, 1);
        return;
    }
    const char *m33 = getenv("TFLM_M33_BUILD"), *m33_out = getenv("TFLM_M33_DIR");
    if (!m33)
        return;
    if (!m33_out || !cmsis || !*cmsis) {
        setenv("TFLM_M33_SETUP_ERR", "TFLM_M33_DIR and TFLM_PEER_CMSIS must be set with TFLM_M33_BUILD", 1);
        return;
    }
    /* The M33 cases: the peer's, and person_detect_vela (a model with
    ** OfflineMemoryAllocation metadata) on person's input. */
    static char cases_tsv[1024], log2[1024], msg2[1200];
    char peer_cases[1024], line[3000];
    snprintf(peer_cases, sizeof peer_cases, "%s/cases.tsv", out);
    snprintf(cases_tsv, sizeof cases_tsv, "%s/cases.tsv", m33_out);
    snprintf(log2, sizeof log2, "%s/build.log", m33_out);
    mkdir(m33_out, 0777);
    FILE *in = fopen(peer_cases, "r"), *o = fopen(cases_tsv, "w");
    if (!in || !o) {
        if (in)
            fclose(in);
        if (o)
            fclose(o);
        setenv("TFLM_M33_SETUP_ERR", "cannot copy the peer's cases.tsv", 1);
        return;
    }
    while (fgets(line, sizeof line, in))
        fputs(line, o);
    if (!m33_rip_cases(in, o, m33_out)) {
        fclose(in);
        fclose(o);
        return;
    }
    char vela[1024];
    snprintf(vela, sizeof vela, "%s/tflite-micro/person_detect_vela.tflite", models);
    if (access(vela, R_OK) == 0)
        fprintf(o, "person_detect_vela\t%s\t%s/inputs/person.in\n", vela, out);
    fclose(in);
    if (fclose(o) != 0) {
        setenv("TFLM_M33_SETUP_ERR", "cannot write the M33 cases.tsv", 1);
        return;
    }
    const char *argv2[] = {"bash", m33, "--tflm", tree, "--cmsis", cmsis, "--src", src,
                           "--cases", cases_tsv, "--out", m33_out, NULL};
    if (!run_build(argv2, log2)) {
        snprintf(msg2, sizeof msg2, "tests/tflm/build-m33.sh failed: see %s", log2);
        setenv("TFLM_M33_SETUP_ERR", msg2, 1);
    }
}

/* The peer's folder; fails the test when the build before the tests failed. */
static inline const char *peer_dir(void)
{
    const char *err = getenv("TFLM_PEER_SETUP_ERR");
    cr_assert_null(err, "%s", err);
    const char *d = getenv("TFLM_PEER_DIR");
    cr_assert_not_null(d, "TFLM_PEER_DIR must name build-peer.sh's output folder");
    return d;
}

/* Is the cmsis variant built (build-peer.sh --cmsis)? */
static inline bool have_cmsis(void)
{
    char p[1024];
    snprintf(p, sizeof p, "%s/cmsis/tflm_peer", peer_dir());
    return exists(p);
}

/* Run VARIANT/tflm_peer (variant "ref" or "cmsis") with the text args
** (appended unquoted: the suite's paths hold no spaces or quotes). */
static inline run_out peer(const char *variant, const char *args)
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

static inline void load_cases(void)
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

static inline const peer_case *find_case(const char *name)
{
    load_cases();
    for (int i = 0; i < n_cases; i++)
        if (!strcmp(cases[i].name, name))
            return &cases[i];
    cr_assert_fail("no case %s in cases.tsv", name);
    return NULL;
}

/* Run a case with extra options; the run must succeed. */
static inline run_out peer_case_run(const char *variant, const peer_case *c, const char *extra)
{
    char args[3200];
    snprintf(args, sizeof args, "'%s' --input '%s' %s", c->model, c->input, extra ? extra : "");
    run_out r = peer(variant, args);
    cr_assert_eq(r.status, 0, "%s %s: status %d: %s", variant, c->name, r.status, r.err);
    return r;
}

/* ---- reading the report (tests/tflm/README.md), with the tests' own JSON reader ---- */

/* The report of a run: it must be one JSON document. */
static inline jm *report(const run_out *r)
{
    char err[200];
    jm *doc = jm_parse(r->out, strlen(r->out), err, sizeof err);
    cr_assert_not_null(doc, "the report is not JSON: %s\n%s", err, r->out);
    return doc;
}

/* The bytes of output k (its "hex"), into out (at most cap); returns their count. */
static inline size_t output_bytes(const jm *doc, size_t k, uint8_t *out, size_t cap)
{
    const char *h = jn_str(jn_item(jn_get(doc, "outputs"), k), "hex");
    size_t n = strlen(h) / 2;
    cr_assert(strlen(h) % 2 == 0 && n <= cap, "output %zu: hex of %zu chars", k, strlen(h));
    for (size_t i = 0; i < n; i++) {
        unsigned v;
        cr_assert(sscanf(h + 2 * i, "%2x", &v) == 1);
        out[i] = (uint8_t)v;
    }
    return n;
}

#endif
