/*
** codegen_util.h — helpers shared by the files of the codegen suite
** (tests/test_codegen.c, codegen_folders.c): the eleven models, their
** graphs and Tab. 3 peaks, generating, building and running a model on
** the host, and comparing files.
*/
#ifndef RIPSIM_TEST_CODEGEN_UTIL_H
#define RIPSIM_TEST_CODEGEN_UTIL_H

#include <criterion/criterion.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/stat.h>

#include "codegen/codegen.h"
#include "codegen_build.h"
#include "host_model.h"
#include "rk_crc32.h"
#include "run_cmd.h"
#include "tmpdir.h"

/* firmware/models/mcunet/<model>.csv under the source root (one of 4 rotating buffers). */
static inline const char *graph_path(const char *model)
{
    static char buf[4][600];
    static int k;
    k = (k + 1) % 4;
    snprintf(buf[k], sizeof buf[k], "%s/firmware/models/mcunet/%s.csv", root(), model);
    return buf[k];
}

/* The whole of a (small) file; NULL when missing.  *n receives its bytes
** (0 when missing). */
static inline char *slurp(const char *path, size_t *n)
{
    if (n)
        *n = 0;
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 1 << 16, len = 0;
    char *b = malloc(cap + 1);
    cr_assert_not_null(b);
    size_t k;
    while ((k = fread(b + len, 1, cap - len, f)) > 0) {
        len += k;
        if (len == cap) {
            cap *= 2;
            b = realloc(b, cap + 1);
            cr_assert_not_null(b);
        }
    }
    fclose(f);
    b[len] = '\0';
    if (n)
        *n = len;
    return b;
}

/* An integer key of a flat JSON object ("key": N). */
static inline int64_t json_int(const char *json, const char *key)
{
    char pat[64];
    snprintf(pat, sizeof pat, "\"%s\": ", key);
    const char *p = strstr(json, pat);
    cr_assert_not_null(p, "no %s in %s", key, json);
    return atoll(p + strlen(pat));
}

/* Do files a and b hold the same bytes?  Fails the test when either is missing. */
static inline bool same_file(const char *a, const char *b)
{
    size_t na, nb;
    char *x = slurp(a, &na), *y = slurp(b, &nb);
    cr_assert(x && y, "%s or %s missing", a, b);
    bool same = na == nb && memcmp(x, y, na) == 0;
    free(x);
    free(y);
    return same;
}

/* Compile the kernels and the runtime once into tmp(kdir), objects only. */
static inline void compile_kernels(const char *kdir, const char *extra)
{
    char k[320];
    snprintf(k, sizeof k, "%s", tmp(kdir));
    cr_assert_eq(host_compile_kernels(root(), k, extra), 0, "compiling the kernels into %s failed", k);
}

/* Link the model in tmp(dir) with the host main and the objects of
** tmp(kdir) into tmp(dir)/run; the compiler's status. */
static inline int build_model(const char *dir, const char *kdir, const char *extra)
{
    char d[320], k[320], exe[340], log[340];
    snprintf(d, sizeof d, "%s", tmp(dir));
    snprintf(k, sizeof k, "%s", tmp(kdir));
    snprintf(exe, sizeof exe, "%s/run", d);
    snprintf(log, sizeof log, "%s/cc.log", d);
    return host_build_model(root(), d, k, extra, exe, log);
}

typedef struct host_run {
    int status;
    unsigned checksum;
    int64_t arena, n;
    int8_t logits[16384];
} host_run;

/* Run tmp(dir)/run and parse its lines (tests/codegen_host_main.c). */
static inline void run_model(const char *dir, host_run *h)
{
    static char line[1 << 18];
    char cmd[400];
    snprintf(cmd, sizeof cmd, "'%s/run'", tmp(dir));
    fflush(NULL);
    FILE *p = popen(cmd, "r");
    cr_assert_not_null(p);
    memset(h, 0, sizeof *h);
    h->status = -1;
    while (fgets(line, sizeof line, p)) {
        long long v;
        if (sscanf(line, "status %d", &h->status) == 1 || sscanf(line, "checksum %x", &h->checksum) == 1)
            continue;
        if (sscanf(line, "arena %lld", &v) == 1)
            h->arena = v;
        if (strncmp(line, "logits", 6) == 0) {
            char *s = line + 6, *e;
            for (long x = strtol(s, &e, 10); e != s && h->n < 16384; x = strtol(s, &e, 10)) {
                h->logits[h->n++] = (int8_t)x;
                s = e;
            }
        }
    }
    cr_assert_eq(pclose(p), 0, "%s exited with an error", cmd);
}

/* The host run h of a model generated from graph gpath (default seed) must
** print the logits and checksum of the library's dual-buffer reference
** run; what names the model in a failure. */
static inline void expect_reference_run(const char *gpath, const host_run *h, const char *what)
{
    rip_graph g;
    char err[RIP_ERR_LEN];
    cr_assert_eq(rip_graph_load(gpath, &g, err), RIP_OK, "%s", err);
    rip_cg_model *ref = NULL;
    cr_assert_eq(rip_cg_model_build(&g, RIP_CG_SEED_DEFAULT, &ref, err), RIP_OK, "%s", err);
    int64_t n = 0;
    const int8_t *y = rip_cg_model_logits(ref, &n);
    cr_expect(h->n == n && memcmp(h->logits, y, (size_t)n) == 0, "%s: logits differ from the dual-buffer reference",
              what);
    cr_expect_eq(h->checksum, rip_cg_model_checksum(ref), "%s: checksum %08x, reference %08x", what, h->checksum,
                 rip_cg_model_checksum(ref));
    rip_cg_model_free(ref);
    rip_graph_free(&g);
}

/* ----------------------------------------------------------- refusals */

static inline const char *write_graph(const char *name, const char *rows)
{
    static char path[400];
    snprintf(path, sizeof path, "%s", tmp(name));
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    fprintf(f, "op_id,op,inputs,h_in,w_in,c_in,h_out,w_out,c_out,k_h,k_w,s_h,s_w,p_top,p_left,p_bottom,p_right,"
               "d_h,d_w,dtype_bytes\n%s",
            rows);
    cr_assert_eq(fclose(f), 0);
    return path;
}

/* ------------------------------------- issue 19: in-place depthwise, scratch */

/* Generate graph gpath under plan into tmp(dir), build it with the host
** compiler, run it; the logits must be the dual-buffer reference run's.
** *arena receives model.json's arena_bytes. */
static inline void generate_build_run(const char *gpath, const char *plan, const char *dir, int64_t *arena)
{
    char out[400], path[450];
    snprintf(out, sizeof out, "%s", tmp(dir));
    cr_assert_eq(mkdir(out, 0777), 0, "%s", out);
    run_result *r = RUN("codegen", gpath, "--plan", plan, "--out", out);
    cr_assert_eq(r->status, 0, "codegen %s %s: exit %d: %s", gpath, plan, r->status, r->err);
    snprintf(path, sizeof path, "%s/model.json", out);
    char *json = slurp(path, NULL);
    cr_assert_not_null(json, "%s", path);
    *arena = json_int(json, "arena_bytes");
    free(json);
    cr_assert_eq(build_model(dir, "k", ""), 0, "%s does not compile under " CFLAGS " (see %s/cc.log)", dir, out);
    host_run h;
    run_model(dir, &h);
    cr_expect_eq(h.status, 0, "%s: rk_model_run returned %d", dir, h.status);
    expect_reference_run(gpath, &h, dir);
}

#endif
