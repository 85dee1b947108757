/*
** codegen_folders.c — the codegen suite (tests/test_codegen.c) on the
** output folder (an interrupted or failed regeneration leaves it whole,
** its mode is kept, a folder holding other files is refused), refused
** graphs, plans and command lines, runtime shifts run bit exact, and a
** depthwise outgrowing its input.
*/
#define TMPDIR_EXTERN
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

/* ------------------------------------------- the folder replaced whole */

static const char *const cg_files[] = {"model.c", "model_blob.S", "model.bin", "model.json"};

/* Do the four files of folders a and b hold the same bytes? */
static bool same_folder(const char *a, const char *b)
{
    bool same = true;
    for (size_t k = 0; k < 4; k++) {
        char x[400], y[400];
        snprintf(x, sizeof x, "%s/%s", a, cg_files[k]);
        snprintf(y, sizeof y, "%s/%s", b, cg_files[k]);
        same = same && exists(x) && exists(y) && same_file(x, y);
    }
    return same;
}

/* tmp(name), a copy that outlives the rotating buffers. */
static void path_of(const char *name, char *out, size_t n)
{
    snprintf(out, n, "%s", tmp(name));
}

/* What a regeneration killed by SIGTERM (r) leaves: dir holds exactly the
** four files of folder want (want NULL: dir does not exist), and parent,
** dir's folder, holds n_parent entries (dir or nothing: no temporary). */
static void expect_whole(const char *what, const run_result *r, const char *dir, const char *want, const char *parent,
                         int n_parent)
{
    cr_expect_eq(r->status, 128 + SIGTERM, "%s: ended by SIGTERM, got %d: %s", what, r->status, r->err);
    if (want) {
        cr_expect(same_folder(dir, want), "%s: %s is not the whole of one generation", what, dir);
        char first[256];
        cr_expect_eq(entries(dir, first, sizeof first), 4, "%s: %s holds more than the four files", what, dir);
    } else {
        cr_expect(!exists(dir), "%s: %s was made", what, dir);
    }
    char first[256];
    cr_expect_eq(entries(parent, first, sizeof first), n_parent, "%s: a temporary was left in %s (%s, ...)", what,
                 parent, first);
}

/*
** Issue 19, item 9: a SIGTERM during a regeneration left a new model.bin
** beside the old model.c and model.json, and temporaries.  The folder is
** replaced whole or not at all: ripsim-testhooks stops the command with
** SIGTERM once every file is written but none is in place (all old), and
** once the new folder is in place but the old one not yet removed (all
** new), with renameat2's exchange and with its two-rename fallback
** (RIPSIM_TEST_OUT_NO_EXCHANGE), over an existing folder and a new one.
** Seeds 1 and 2 give different weights, so old and new differ in every
** file but model_blob.S.
*/
Test(codegen, interrupted_regeneration_leaves_the_folder_whole)
{
    char a[400], b[400], parent[400], dir[450], cmd[1400];
    path_of("seed1", a, sizeof a);
    path_of("seed2", b, sizeof b);
    const char *g = graph_path("mcunet-in0");
    cr_assert_eq(RUN("codegen", g, "--plan", "base", "--seed", "1", "--out", a)->status, 0);
    cr_assert_eq(RUN("codegen", g, "--plan", "base", "--seed", "2", "--out", b)->status, 0);
    char x[450], y[450];
    snprintf(x, sizeof x, "%s/model.bin", a);
    snprintf(y, sizeof y, "%s/model.bin", b);
    cr_assert(!same_file(x, y), "the two seeds must give different weights");

    static const struct {
        const char *hook, *what;
        bool new_wins;
    } points[] = {
        {"RIPSIM_TEST_OUT_SIGTERM=staged", "every file written, none in place", false},
        {"RIPSIM_TEST_OUT_SIGTERM=renamed:1", "the new folder in place, the old not yet removed", true},
    };
    for (int exchange = 0; exchange < 2; exchange++)
        for (size_t i = 0; i < 2; i++)
            for (int existed = 0; existed < 2; existed++) {
                char what[200];
                snprintf(what, sizeof what, "%s (%s, %s folder)", points[i].what,
                         exchange ? "renameat2 exchange" : "two renames", existed ? "an existing" : "a new");
                char name[64];
                snprintf(name, sizeof name, "regen-%d-%zu-%d", exchange, i, existed);
                path_of(name, parent, sizeof parent);
                snprintf(dir, sizeof dir, "%s/in0", parent);
                cr_assert_eq(mkdir(parent, 0755), 0);
                if (existed) {
                    snprintf(cmd, sizeof cmd, "cp -p -r '%s' '%s'", a, dir);
                    cr_assert_eq(sh(cmd), 0);
                }
                const char *env[] = {points[i].hook, exchange ? NULL : "RIPSIM_TEST_OUT_NO_EXCHANGE=1", NULL};
                run_result *r = run_env_hooks(env, (const char *const[]){"codegen", g, "--plan", "base", "--seed", "2",
                                                                         "--out", dir, NULL});
                expect_whole(what, r, dir, points[i].new_wins ? b : existed ? a : NULL, parent,
                             points[i].new_wins || existed ? 1 : 0);
            }
}

/* tmp(name) made as a folder (path into parent), MCUNet-in0 base with
** seed 1 generated into parent/in0 (its path into dir) and, for
** comparison, into tmp(name-old) (into old). */
static void seed1_twice(const char *name, char *parent, char *dir, char *old, size_t n)
{
    char o[64];
    snprintf(o, sizeof o, "%s-old", name);
    path_of(name, parent, n);
    path_of(o, old, n);
    cr_assert_eq(mkdir(parent, 0755), 0);
    snprintf(dir, n, "%s/in0", parent);
    const char *g = graph_path("mcunet-in0");
    cr_assert_eq(RUN("codegen", g, "--plan", "base", "--seed", "1", "--out", dir)->status, 0);
    cr_assert_eq(RUN("codegen", g, "--plan", "base", "--seed", "1", "--out", old)->status, 0);
}

/* A regeneration keeps the folder's mode, replaces it whole (no file of
** the old left), and a failed one (--arena below the peak) leaves it as it
** was and nothing beside it. */
Test(codegen, regeneration_keeps_the_folder_mode_and_a_failure_keeps_the_folder)
{
    char parent[450], dir[450], old[450];
    seed1_twice("mode", parent, dir, old, sizeof dir);
    const char *g = graph_path("mcunet-in0");
    cr_assert_eq(chmod(dir, 0750), 0);
    run_result *r = RUN("codegen", g, "--plan", "base", "--seed", "1", "--out", dir, "--arena", "100");
    cr_expect_eq(r->status, 65, "an arena below the peak: %d %s", r->status, r->err);
    cr_expect(same_folder(dir, old), "a failed run changed the folder");
    char first[256];
    cr_expect_eq(entries(parent, first, sizeof first), 1, "a failed run left %s beside the folder", first);
    r = RUN("codegen", g, "--plan", "base", "--seed", "2", "--out", dir);
    cr_assert_eq(r->status, 0, "%s", r->err);
    struct stat st;
    cr_assert_eq(stat(dir, &st), 0);
    cr_expect_eq(st.st_mode & 07777, 0750, "the folder's mode: %o", (unsigned)(st.st_mode & 07777));
    cr_expect_eq(entries(parent, first, sizeof first), 1, "%s was left beside the folder", first);
    cr_expect_eq(entries(dir, first, sizeof first), 4);
}

/* The folder is replaced whole, so a file codegen did not write would be
** lost: such a folder is refused (73, one line naming the file) and left
** as it was. */
Test(codegen, a_folder_holding_other_files_is_refused)
{
    char parent[450], dir[450], note[500], old[450];
    seed1_twice("foreign", parent, dir, old, sizeof dir);
    const char *g = graph_path("mcunet-in0");
    snprintf(note, sizeof note, "%s/notes.txt", dir);
    FILE *f = fopen(note, "w");
    cr_assert_not_null(f);
    fputs("mine\n", f);
    cr_assert_eq(fclose(f), 0);
    run_result *r = RUN("codegen", g, "--plan", "base", "--seed", "2", "--out", dir);
    cr_expect_eq(r->status, 73, "%d %s", r->status, r->err);
    cr_expect_eq(count_lines(r->err), 1, "%s", r->err);
    cr_expect_not_null(strstr(r->err, "notes.txt"), "%s", r->err);
    cr_expect(same_folder(dir, old) && exists(note), "the refused folder was changed");
    char first[256];
    cr_expect_eq(entries(parent, first, sizeof first), 1, "%s was left beside the folder", first);
}

/* An op outside the eleven models' set: one line naming FILE, op id and op, exit 65, nothing written. */
Test(codegen, unsupported_ops_are_refused)
{
    static const struct {
        const char *rows, *what;
    } cases[] = {
        {"0,conv2d,-1,8,8,3,8,8,4,3,3,1,1,1,1,1,1,1,1,1\n1,relu,0,8,8,4,8,8,4,1,1,1,1,0,0,0,0,1,1,1\n",
         "op 1 (relu)"},
        {"0,conv2d,-1,8,8,3,8,8,4,3,3,1,1,1,1,1,1,1,1,1\n1,pointwise,0,8,8,4,8,8,4,1,1,1,1,0,0,0,0,1,1,1\n"
         "7,concat,0;1,8,8,4,8,8,8,1,1,1,1,0,0,0,0,1,1,1\n",
         "op 7 (concat)"},
        {"0,conv2d,-1,8,8,3,8,8,4,3,3,1,1,1,1,1,1,1,1,1\n1,add,0,8,8,4,8,8,4,1,1,1,1,0,0,0,0,1,1,1\n",
         "op 1 (add)"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char name[32];
        snprintf(name, sizeof name, "bad%zu.csv", i);
        const char *g = write_graph(name, cases[i].rows);
        char out[400];
        snprintf(out, sizeof out, "%s", tmp("bad-out"));
        run_result *r = RUN("codegen", g, "--plan", "base", "--out", out);
        cr_expect_eq(r->status, 65, "%s: exit %d: %s", cases[i].what, r->status, r->err);
        cr_expect_eq(count_lines(r->err), 1, "%s", r->err);
        cr_expect_not_null(strstr(r->err, g), "%s", r->err);
        cr_expect_not_null(strstr(r->err, cases[i].what), "%s", r->err);
        char path[450];
        snprintf(path, sizeof path, "%s/model.c", out);
        cr_expect(!exists(path));
    }
}

Test(codegen, command_line_errors)
{
    const char *g = graph_path("mcunet-in0");
    char out[400];
    snprintf(out, sizeof out, "%s", tmp("cli"));
    cr_expect_eq(RUN("codegen", g, "--out", out)->status, 64, "--plan is required");
    cr_expect_eq(RUN("codegen", g, "--plan", "base")->status, 64, "--out is required");
    cr_expect_eq(RUN("codegen", g, "--plan", "tiny", "--out", out)->status, 64);
    cr_expect_eq(RUN("codegen", g, "--plan", "rip", "--out", out, "--arena", "0")->status, 64);
    cr_expect_eq(RUN("codegen", tmp("missing.csv"), "--plan", "rip", "--out", out)->status, 66);
    run_result *r = RUN("codegen", g, "--plan", "rip", "--out", g);
    cr_expect_eq(r->status, 73, "--out naming a file: exit %d: %s", r->status, r->err);
    cr_expect_eq(RUN("codegen", "--help")->status, 0);
}

/* ------------------------------------------------------ runtime shifts */

/*
** A runtime shift (no MCUNet plan has one; the MILP may choose one
** elsewhere): a hand-made plan puts a convolution's output at its input's
** offset and shifts the input up by the gap before the op.  The plan passes
** the checker, the generated model moves the input (memmove) and still
** computes the reference logits bit for bit.
*/
Test(codegen, runtime_shift_runs_bit_exact)
{
    const char *gpath = write_graph("shift.csv", "0,conv2d,-1,8,8,4,8,8,8,3,3,1,1,1,1,1,1,1,1,1\n"
                                                 "1,fc,0,8,8,8,1,1,10,1,1,1,1,0,0,0,0,1,1,1\n");
    rip_graph g;
    rip_problem p;
    char err[RIP_ERR_LEN];
    cr_assert_eq(rip_graph_load(gpath, &g, err), RIP_OK, "%s", err);
    cr_assert_eq(rip_cg_check_graph(&g, gpath, err), RIP_OK, "%s", err);
    rip_graph_opts go = {.rip = true, .inplace_depthwise = true, .align = 4};
    cr_assert_eq(rip_problem_from_graph(&g, &go, &p, err), RIP_OK, "%s", err);
    long k = -1;
    for (size_t c = 0; c < p.n_cand; c++)
        if (p.cand[c].op == 0 && p.cand[c].kind == RIP_INPLACE_GAP && p.cand[c].has_layer)
            k = (long)c;
    cr_assert_geq(k, 0, "no RiP candidate for the convolution");
    const int64_t gap = p.cand[k].gap;
    cr_assert_gt(gap, 0);
    rip_plan *plan = rip_plan_new(&p, "by-hand");
    cr_assert_not_null(plan);
    plan->offset[0] = 0;   /* input */
    plan->offset[1] = 0;   /* conv output over it, the input shifted up by gap during op 0 */
    plan->offset[2] = 512; /* fc output beside the conv output */
    plan->in_place[k] = true;
    plan->shift[k] = true;
    plan->peak = rip_plan_peak(&p, plan);
    cr_assert_eq(plan->peak, gap + 256 > 522 ? gap + 256 : 522);
    cr_assert_eq(rip_plan_check(&p, plan, true, err), RIP_OK, "%s", err);

    char dir[400];
    snprintf(dir, sizeof dir, "%s", tmp("shift"));
    cr_assert_eq(mkdir(dir, 0777), 0);
    rip_cg_summary s;
    cr_assert_eq(rip_cg_write(&g, &p, plan, RIP_CG_RIP, 0, RIP_CG_SEED_DEFAULT, dir, &s, err), RIP_OK, "%s", err);
    cr_expect_eq(s.n_shifts, 1);
    cr_expect_eq(s.arena, plan->peak);
    char path[450], want[128];
    snprintf(path, sizeof path, "%s/model.c", dir);
    char *c = slurp(path, NULL);
    cr_assert_not_null(c);
    snprintf(want, sizeof want, "memmove(A(%lld), A(0), 256u)", (long long)gap);
    cr_expect_not_null(strstr(c, want), "no %s in the model", want);
    free(c);

    compile_kernels("k", "");
    cr_assert_eq(build_model("shift", "k", ""), 0, "the model does not compile (see %s/cc.log)", dir);
    host_run h;
    run_model("shift", &h);
    cr_expect_eq(h.status, 0);
    cr_expect_eq(h.n, 10, "shifted model: %lld logits", (long long)h.n);
    expect_reference_run(gpath, &h, "shifted model");
    rip_plan_free(plan);
    rip_problem_free(&p);
    rip_graph_free(&g);
}

/*
** A plan that places an in-place pair closer than its kernel allows is
** refused before any file is written (internal error), never turned into
** code that computes from overwritten input.
*/
Test(codegen, plans_too_tight_are_refused)
{
    const char *gpath = write_graph("tight.csv", "0,conv2d,-1,8,8,4,8,8,8,3,3,1,1,1,1,1,1,1,1,1\n"
                                                 "1,fc,0,8,8,8,1,1,10,1,1,1,1,0,0,0,0,1,1,1\n");
    rip_graph g;
    rip_problem p;
    char err[RIP_ERR_LEN];
    cr_assert_eq(rip_graph_load(gpath, &g, err), RIP_OK, "%s", err);
    rip_graph_opts go = {.rip = true, .inplace_depthwise = true, .align = 4};
    cr_assert_eq(rip_problem_from_graph(&g, &go, &p, err), RIP_OK, "%s", err);
    cr_assert_geq(p.n_cand, 1);
    cr_assert(p.cand[0].op == 0 && p.cand[0].kind == RIP_INPLACE_GAP);
    const int64_t gap = p.cand[0].gap;
    rip_plan *plan = rip_plan_new(&p, "by-hand");
    cr_assert_not_null(plan);
    plan->in_place[0] = true;
    plan->offset[1] = 0;         /* conv output */
    plan->offset[0] = gap - 4;   /* its input one alignment step too close */
    plan->offset[2] = rip_align_up(gap + 256 > 512 ? gap + 256 : 512, 4);
    plan->peak = rip_plan_peak(&p, plan);
    char dir[400];
    snprintf(dir, sizeof dir, "%s", tmp("tight"));
    cr_assert_eq(mkdir(dir, 0777), 0);
    rip_cg_summary s;
    cr_expect_eq(rip_cg_write(&g, &p, plan, RIP_CG_RIP, 0, RIP_CG_SEED_DEFAULT, dir, &s, err), RIP_S_INTERNAL);
    cr_expect_not_null(strstr(err, "fails its check"), "%s", err);
    char first[256];
    cr_expect_eq(entries(dir, first, sizeof first), 0, "a refused plan wrote %s", first);

    plan->offset[0] = gap;       /* at the gap: accepted */
    plan->peak = rip_plan_peak(&p, plan);
    cr_expect_eq(rip_cg_write(&g, &p, plan, RIP_CG_RIP, 0, RIP_CG_SEED_DEFAULT, dir, &s, err), RIP_OK, "%s", err);
    cr_expect_eq(s.n_inplace, 1);
    rip_plan_free(plan);
    rip_problem_free(&p);
    rip_graph_free(&g);
}

/*
** Item 4's graph, a depthwise whose 6x6x3 output (108 B) outgrows its
** 4x4x3 input (48 B): once planned at 108 B with the output over the input,
** which the kernel refuses (codegen exit 70).  Now both plans keep the two
** apart in 156 B, generate, compile and compute the reference logits.
*/
Test(codegen, depthwise_outgrowing_its_input_runs_dual_buffered)
{
    const char *gpath = write_graph("dw-grows.csv", "0,depthwise,-1,4,4,3,6,6,3,3,3,1,1,2,2,2,2,1,1,1\n");
    compile_kernels("k", "");
    for (int p = 0; p < 2; p++) {
        int64_t arena = 0;
        generate_build_run(gpath, p ? "rip" : "base", p ? "dw-grows-rip" : "dw-grows-base", &arena);
        cr_expect_eq(arena, 156, "%s: arena %lld", p ? "rip" : "base", (long long)arena);
    }
}
