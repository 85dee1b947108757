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
** CMSIS-NN variant); its output goes to TFLM_PEER_DIR/build.log.  A
** failed build fails every test that asks for peer_dir().
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

static inline char *slurp(const char *path)
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
