/*
** test_codegen.c — `ripsim codegen` (src/codegen/, firmware/runtime/):
** the eleven MCUNet models under both plans, generated, compiled natively
** with the host compiler and run.
**
** What is held against what:
**   the generated model's logits against the library's reference run (every
**   tensor in its own malloc'd buffer, dual-buffer kernels, the plan never
**   consulted), bit for bit, and base against rip (one checksum);
**   arena_bytes against Tab. 3's peaks (firmware/models/mcunet/
**   table3_reference.csv, pinned to the paper), read here from the CSV;
**   the CRC against the standard check value of CRC-32/IEEE.
** The kernels and the runtime are compiled once (objects in the suite's
** folder), then each model's model.c and model_blob.S against them.
** The suite's tests are in this file (the generated models run bit exact,
** memory clean, in place, under the firmware's flags) and in codegen_folders.c (the output folder,
** refusals, runtime shifts); their shared helpers in codegen_util.h.
*/
#define TMPDIR_SHARED
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/stat.h>

#include "codegen/codegen.h"
#include "codegen_build.h"
#include "rk_crc32.h"
#include "run_cmd.h"
#include "tmpdir.h"
#include "codegen_util.h"

TEST_SUITE_WITH_TMPDIR(codegen, 900);

static const char *const models[] = {
    "mcunet-in0", "mcunet-in1", "mcunet-in2", "mcunet-in3", "mcunet-in4", "mbv2-w0.35",
    "proxyless-w0.3", "mcunet-vww0", "mcunet-vww1", "mcunet-vww2", "person-det",
};

enum { N_MODELS = sizeof models / sizeof models[0] };

/* Tab. 3's base and rip peaks of model, from the reference CSV (columns by header name). */
static void table3_peaks(const char *model, int64_t *base, int64_t *rip)
{
    char path[600], line[1024];
    snprintf(path, sizeof path, "%s/firmware/models/mcunet/table3_reference.csv", root());
    FILE *f = fopen(path, "r");
    cr_assert_not_null(f, "%s", path);
    int c_model = -1, c_base = -1, c_rip = -1;
    *base = *rip = -1;
    for (int row = 0; fgets(line, sizeof line, f); row++) {
        line[strcspn(line, "\r\n")] = '\0';
        char *save = NULL, *tok = strtok_r(line, ",", &save);
        const char *name = NULL;
        for (int col = 0; tok; col++, tok = strtok_r(NULL, ",", &save)) {
            if (row == 0) {
                if (strcmp(tok, "model") == 0)
                    c_model = col;
                if (strcmp(tok, "table3_base_peak_bytes") == 0)
                    c_base = col;
                if (strcmp(tok, "table3_rip_peak_bytes") == 0)
                    c_rip = col;
            } else if (col == c_model) {
                name = tok;
            } else if (name && strcmp(name, model) == 0 && col == c_base) {
                *base = atoll(tok);
            } else if (name && strcmp(name, model) == 0 && col == c_rip) {
                *rip = atoll(tok);
            }
        }
    }
    fclose(f);
    cr_assert(*base > 0 && *rip > 0, "%s: no Tab. 3 peaks in the reference CSV", model);
}

/* Generate model under plan into tmp(dir); asserts exit 0. */
static void generate(const char *model, const char *plan, const char *dir)
{
    char out[400];
    snprintf(out, sizeof out, "%s", tmp(dir));
    run_result *r = RUN("codegen", graph_path(model), "--plan", plan, "--out", out);
    cr_assert_eq(r->status, 0, "codegen %s %s: exit %d: %s", model, plan, r->status, r->err);
}

/* Compile tmp(dir)/model.c and model_blob.S with arm-none-eabi-gcc under
** CROSS_CFLAGS, objects only; the compiler's status (log in
** tmp(dir)/cross.log), or 0 when the toolchain is not installed (said once). */
static int cross_compile(const char *dir)
{
    if (!have_cross())
        return 0;
    char d[320], cmd[2048];
    snprintf(d, sizeof d, "%s", tmp(dir));
    snprintf(cmd, sizeof cmd,
             "cd '%s' && arm-none-eabi-gcc " CROSS_CFLAGS " -I '%s/firmware/kernels' -I '%s/firmware/runtime' "
             "-Wa,-I,'%s' -c model.c model_blob.S 2>cross.log",
             d, root(), root(), d);
    return sh(cmd);
}

static int distinct(const int8_t *v, int64_t n)
{
    bool seen[256] = {false};
    int d = 0;
    for (int64_t i = 0; i < n; i++)
        if (!seen[(uint8_t)v[i]]) {
            seen[(uint8_t)v[i]] = true;
            d++;
        }
    return d;
}

/* ---------------------------------------------------------------- CRC */

Test(codegen, crc32_is_ieee)
{
    cr_assert_eq(rk_crc32("123456789", 9), 0xCBF43926u, "the CRC-32/IEEE check value");
    cr_assert_eq(rk_crc32(NULL, 0), 0u);
    cr_assert_eq(rk_crc32("a", 1), 0xE8B7BE43u); /* zlib.crc32(b"a") */
    cr_assert_eq(rk_crc32_update(rk_crc32("1234", 4), "56789", 5), 0xCBF43926u, "incremental == whole");
}

/* ------------------------------------------------- the eleven models */

/*
** Each model under both plans: generated, compiled, run.  Checksums equal
** between plans and equal to the reference run, logits byte for byte equal
** to it, arenas equal to Tab. 3, many distinct logits, the same blob.
*/
Test(codegen, eleven_models_run_bit_exact_under_both_plans)
{
    compile_kernels("k", "");
    for (int i = 0; i < N_MODELS; i++) {
        const char *m = models[i];
        int64_t peak[2];
        table3_peaks(m, &peak[0], &peak[1]);

        rip_graph g;
        char err[RIP_ERR_LEN];
        cr_assert_eq(rip_graph_load(graph_path(m), &g, err), RIP_OK, "%s", err);
        rip_cg_model *ref = NULL;
        cr_assert_eq(rip_cg_model_build(&g, RIP_CG_SEED_DEFAULT, &ref, err), RIP_OK, "%s", err);
        int64_t n_ref = 0;
        const int8_t *y_ref = rip_cg_model_logits(ref, &n_ref);
        cr_assert(n_ref > 0 && n_ref <= 16384);

        host_run h[2];
        for (int p = 0; p < 2; p++) {
            const char *plan = p ? "rip" : "base";
            char dir[48], path[400];
            snprintf(dir, sizeof dir, "%s-%s", m, plan);
            generate(m, plan, dir);
            snprintf(path, sizeof path, "%s/model.json", tmp(dir));
            char *json = slurp(path, NULL);
            cr_assert_not_null(json, "%s", path);
            cr_expect_eq(json_int(json, "arena_bytes"), peak[p], "%s %s: arena %lld, Tab. 3 %lld", m, plan,
                         (long long)json_int(json, "arena_bytes"), (long long)peak[p]);
            cr_expect_eq(json_int(json, "n_ops"), (int64_t)g.n_ops);
            cr_expect_eq(json_int(json, "n_logits"), n_ref);
            cr_expect(json_int(json, "scratch_bytes") > 0);
            free(json);
            cr_assert_eq(build_model(dir, "k", ""), 0, "%s %s does not compile (see %s/cc.log)", m, plan, tmp(dir));
            run_model(dir, &h[p]);
            cr_expect_eq(h[p].status, 0, "%s %s: rk_model_run returned %d", m, plan, h[p].status);
            cr_expect_eq(h[p].arena, peak[p]);
            cr_assert_eq(h[p].n, n_ref, "%s %s: %lld logits printed, %lld expected", m, plan, (long long)h[p].n,
                         (long long)n_ref);
            cr_expect(memcmp(h[p].logits, y_ref, (size_t)n_ref) == 0,
                      "%s %s: the logits differ from the dual-buffer reference run", m, plan);
            cr_expect_eq(h[p].checksum, rip_cg_model_checksum(ref), "%s %s: checksum %08x, reference %08x", m,
                         plan, h[p].checksum, rip_cg_model_checksum(ref));
        }
        cr_expect_eq(h[0].checksum, h[1].checksum, "%s: checksum base %08x != rip %08x", m, h[0].checksum,
                     h[1].checksum);
        cr_expect_lt(peak[1], peak[0], "%s: the rip arena is not smaller", m);
        /* "many distinct values": at least 16, or every logit differing on the 2-logit VWW heads */
        int want = n_ref >= 32 ? 16 : (int)n_ref;
        cr_expect_geq(distinct(h[1].logits, h[1].n), want, "%s: %d distinct logits", m,
                      distinct(h[1].logits, h[1].n));
        char a[400], b[400];
        snprintf(a, sizeof a, "%s-base/model.bin", tmp(m));
        snprintf(b, sizeof b, "%s-rip/model.bin", tmp(m));
        cr_expect(same_file(a, b), "%s: model.bin differs between the plans (the seed stream must not)", m);
        rip_cg_model_free(ref);
        rip_graph_free(&g);
    }
}

/*
** The generated code stays inside its arena and scratch: two models built
** with AddressSanitizer and UBSan run clean and still match the reference
** (Person-Det under rip: RiP convolutions, pools and upsampling in place,
** adds over an input, three outputs; MCUNet-in0 under base: TinyEngine's
** in-place depthwise, global pooling, fc).
*/
Test(codegen, generated_models_are_memory_clean)
{
    static const struct {
        const char *model, *plan;
    } cases[] = {{"person-det", "rip"}, {"mcunet-in0", "base"}};
    compile_kernels("k-san", SANITIZE);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char dir[48];
        snprintf(dir, sizeof dir, "san-%s-%s", cases[i].model, cases[i].plan);
        generate(cases[i].model, cases[i].plan, dir);
        cr_assert_eq(build_model(dir, "k-san", SANITIZE), 0, "%s does not compile (see %s/cc.log)", dir, tmp(dir));
        host_run h;
        run_model(dir, &h);
        cr_expect_eq(h.status, 0);
        expect_reference_run(graph_path(cases[i].model), &h, dir);
    }
}

/* ------------------------------------------- the arena one byte smaller */

/*
** --arena below the plan's peak is refused (exit 65, one line naming the
** option), for every model and plan, and writes nothing; the peak itself
** and more are accepted.  A generated model.c whose arena is edited below
** the peak does not compile.
*/
Test(codegen, arena_one_byte_smaller_is_refused)
{
    for (int i = 0; i < N_MODELS; i++) {
        int64_t peak[2];
        table3_peaks(models[i], &peak[0], &peak[1]);
        for (int p = 0; p < 2; p++) {
            char arena[32], dir[64];
            snprintf(arena, sizeof arena, "%lld", (long long)(peak[p] - 1));
            snprintf(dir, sizeof dir, "%s", tmp("small"));
            run_result *r = RUN("codegen", graph_path(models[i]), "--plan", p ? "rip" : "base", "--out", dir,
                                "--arena", arena);
            cr_expect_eq(r->status, 65, "%s: --arena peak - 1: exit %d", models[i], r->status);
            cr_expect_eq(count_lines(r->err), 1, "%s", r->err);
            cr_expect_not_null(strstr(r->err, "--arena"), "%s", r->err);
            char path[400];
            snprintf(path, sizeof path, "%s/model.c", dir);
            cr_expect(!exists(path), "a refused --arena wrote %s", path);
        }
    }
    char big[32], dir[64], path[400];
    int64_t base, rip;
    table3_peaks("mcunet-in0", &base, &rip);
    snprintf(big, sizeof big, "%lld", (long long)(rip + 100));
    snprintf(dir, sizeof dir, "%s", tmp("big"));
    run_result *r = RUN("codegen", graph_path("mcunet-in0"), "--plan", "rip", "--out", dir, "--arena", big);
    cr_assert_eq(r->status, 0, "%s", r->err);
    snprintf(path, sizeof path, "%s/model.json", dir);
    char *json = slurp(path, NULL);
    cr_assert_not_null(json);
    cr_expect_eq(json_int(json, "arena_bytes"), rip + 100);
    cr_expect_eq(json_int(json, "peak_bytes"), rip);
    free(json);

    /* edit the generated arena one byte below the peak: the build must fail */
    char cmd[1200];
    snprintf(cmd, sizeof cmd,
             "sed -i 's/^#define RK_ARENA_BYTES .*/#define RK_ARENA_BYTES %lldu/' '%s/model.c' && "
             "cc -std=c11 -fsyntax-only -I '%s/firmware/kernels' -I '%s/firmware/runtime' '%s/model.c' 2>/dev/null",
             (long long)(rip - 1), dir, root(), root(), dir);
    cr_expect_neq(sh(cmd), 0, "a model.c with an arena below the peak compiled");
}

/* ------------------------------------------------- in place, for real */

/*
** The rip plans really overlap: for every model some in-place convolution
** writes its output over bytes of its own input, and a plain dual-buffer
** execution (input and output of each op apart, every live tensor apart)
** needs more than the rip arena: the dual problem's live-bytes lower bound
** exceeds it.  The generated model.c calls the in-place kernels.
*/
Test(codegen, rip_plans_run_in_place)
{
    for (int i = 0; i < N_MODELS; i++) {
        rip_graph g;
        rip_problem p, dual;
        rip_plan *plan = NULL;
        char err[RIP_ERR_LEN];
        cr_assert_eq(rip_cg_plan(graph_path(models[i]), RIP_CG_RIP, &g, &p, &plan, err), RIP_OK, "%s", err);
        int overlapping = 0;
        for (size_t k = 0; k < p.n_cand; k++) {
            const rip_candidate *c = &p.cand[k];
            if (!plan->in_place[k] || c->kind != RIP_INPLACE_GAP || !c->has_layer)
                continue;
            int64_t xi = plan->offset[c->in], xo = plan->offset[c->out];
            overlapping += xo < xi + p.t[c->in].size && xi < xo + p.t[c->out].size;
        }
        cr_expect_gt(overlapping, 0, "%s: no in-place convolution overlaps its input", models[i]);
        rip_graph_opts go = {.rip = false, .inplace_depthwise = false, .align = 4};
        cr_assert_eq(rip_problem_from_graph(&g, &go, &dual, err), RIP_OK, "%s", err);
        int64_t need = rip_problem_lower_bound(&dual);
        cr_expect_gt(need, plan->peak, "%s: dual buffers need %lld, the rip arena is %lld", models[i],
                     (long long)need, (long long)plan->peak);
        rip_problem_free(&dual);
        rip_plan_free(plan);
        rip_problem_free(&p);
        rip_graph_free(&g);
    }
    generate("mcunet-in3", "rip", "in3-rip");
    generate("mcunet-in3", "base", "in3-base");
    char path[400];
    snprintf(path, sizeof path, "%s/model.c", tmp("in3-rip"));
    char *c = slurp(path, NULL);
    cr_assert_not_null(c);
    cr_expect_not_null(strstr(c, "rk_conv2d_rip("));
    free(c);
    snprintf(path, sizeof path, "%s/model.c", tmp("in3-base"));
    c = slurp(path, NULL);
    cr_assert_not_null(c);
    cr_expect_not_null(strstr(c, "rk_depthwise_inplace("));
    cr_expect_null(strstr(c, "rk_conv2d_rip("), "the base plan has no RiP convolution");
    free(c);
}

/* ------------------------------------------------------- the weights */

/*
** Activations stay informative through the whole network: in the
** reference run of every model, every tensor of at least 64 bytes takes at
** least 16 distinct values and at most 5% of it is clamped to -128 or 127.
*/
Test(codegen, activations_stay_informative)
{
    for (int i = 0; i < N_MODELS; i++) {
        rip_graph g;
        char err[RIP_ERR_LEN];
        cr_assert_eq(rip_graph_load(graph_path(models[i]), &g, err), RIP_OK, "%s", err);
        rip_cg_model *m = NULL;
        cr_assert_eq(rip_cg_model_build(&g, RIP_CG_SEED_DEFAULT, &m, err), RIP_OK, "%s", err);
        for (size_t t = 0; t <= g.n_ops; t++) {
            int64_t n = 0;
            const int8_t *v = rip_cg_model_tensor(m, t, &n);
            cr_assert_not_null(v);
            if (n < 64)
                continue;
            int64_t clamped = 0;
            for (int64_t k = 0; k < n; k++)
                clamped += v[k] == -128 || v[k] == 127;
            cr_expect_geq(distinct(v, n), 16, "%s tensor %zu: %d distinct values", models[i], t, distinct(v, n));
            cr_expect_leq(clamped * 20, n, "%s tensor %zu: %lld of %lld clamped", models[i], t, (long long)clamped,
                          (long long)n);
        }
        cr_expect_null(rip_cg_model_tensor(m, g.n_ops + 1, &(int64_t){0}));
        rip_cg_model_free(m);
        rip_graph_free(&g);
    }
}

/* Another seed gives other weights and logits; the same seed the same. */
Test(codegen, seed_changes_the_model)
{
    rip_graph g;
    char err[RIP_ERR_LEN];
    cr_assert_eq(rip_graph_load(graph_path("mcunet-vww0"), &g, err), RIP_OK, "%s", err);
    rip_cg_model *a = NULL, *b = NULL, *c = NULL;
    cr_assert_eq(rip_cg_model_build(&g, 1, &a, err), RIP_OK, "%s", err);
    cr_assert_eq(rip_cg_model_build(&g, 2, &b, err), RIP_OK, "%s", err);
    cr_assert_eq(rip_cg_model_build(&g, 1, &c, err), RIP_OK, "%s", err);
    size_t na, nb, nc;
    const uint8_t *ba = rip_cg_model_blob(a, &na), *bb = rip_cg_model_blob(b, &nb), *bc = rip_cg_model_blob(c, &nc);
    cr_expect(na == nb && memcmp(ba, bb, na) != 0, "seeds 1 and 2 drew the same blob");
    cr_expect(na == nc && memcmp(ba, bc, na) == 0, "seed 1 twice drew different blobs");
    rip_cg_model_free(a);
    rip_cg_model_free(b);
    rip_cg_model_free(c);
    rip_graph_free(&g);
}

/* ------------------------------------------------------ determinism */

Test(codegen, same_command_same_bytes)
{
    static const char *const files[] = {"model.c", "model_blob.S", "model.bin", "model.json"};
    generate("person-det", "rip", "pd1");
    generate("person-det", "rip", "pd2");
    for (size_t k = 0; k < 4; k++) {
        char a[400], b[400];
        snprintf(a, sizeof a, "%s/%s", tmp("pd1"), files[k]);
        snprintf(b, sizeof b, "%s/%s", tmp("pd2"), files[k]);
        cr_expect(same_file(a, b), "%s differs between two runs of the same command", files[k]);
    }
}

/*
** Item 12: graphs where no operator needs scratch (fc alone, upsampling
** alone, pools that run in dual buffers) once generated a model.c whose
** unused rk_scratch broke the firmware's -Werror.  Each compiles under the
** firmware's flags (host gcc, and arm-none-eabi-gcc for the Cortex-M0+ as
** firmware/meson.build builds it, when installed) and runs bit exact.
*/
Test(codegen, models_without_scratch_compile_under_the_firmware_flags)
{
    static const struct {
        const char *name, *rows;
    } cases[] = {
        {"fc", "0,fc,-1,2,2,3,1,1,5,1,1,1,1,0,0,0,0,1,1,1\n"},
        {"up", "0,upsample,-1,2,2,3,4,6,3,1,1,2,3,0,0,0,0,1,1,1\n"},
        {"pools", "0,maxpool,-1,4,4,3,2,2,3,2,2,2,2,0,0,0,0,1,1,1\n1,avgpool,0,2,2,3,1,1,3,2,2,1,1,0,0,0,0,1,1,1\n"},
        {"fc2", "0,fc,-1,1,1,4,1,1,3,1,1,1,1,0,0,0,0,1,1,1\n1,fc,-1,1,1,4,1,1,2,1,1,1,1,0,0,0,0,1,1,1\n"},
    };
    compile_kernels("k", "");
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char file[48];
        snprintf(file, sizeof file, "%s.csv", cases[i].name);
        const char *gpath = write_graph(file, cases[i].rows);
        for (int p = 0; p < 2; p++) {
            char dir[48];
            snprintf(dir, sizeof dir, "noscratch-%s-%s", cases[i].name, p ? "rip" : "base");
            int64_t arena = 0;
            generate_build_run(gpath, p ? "rip" : "base", dir, &arena);
            cr_expect_eq(cross_compile(dir), 0, "%s: arm-none-eabi-gcc refuses model.c (see %s/cross.log)", dir,
                         tmp(dir));
        }
    }
}
