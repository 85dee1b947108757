/*
** bench_tflite.c — reading, checking and planning a TFLite model (issue 20:
** under 100 ms a model) and running it on the host: per .tflite file found
** under the folders given, the median wall time over RUNS runs of
**   read   rip_tfl_model_load (read the file, decode every table);
**   check  rip_tfl_check;
**   net    rip_net_build (the check again, the steps' prepare-time integers);
**   base   rip_net_plan base: the problem, tinyengine, rip_plan_check with
**          simulated gaps, the layout;
**   rip    the same with milp (on its budgets) and every RiP candidate;
**   run    rip_net_run under the base layout (zero inputs);
** and read + check + net + the slower plan as "to plan".  A benchmark,
** not a timed test: nothing fails on time.  Models the check refuses get
** read and check only.
**
** usage: bench_tflite RUNS DIR...   (DIRs that do not exist are skipped)
*/
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_time.h"
#include "net/net.h"
#include "tfl_check.h"
#include "tfl_model.h"

enum { T_READ, T_CHECK, T_NET, T_BASE, T_RIP, T_RUN, N_T };

/* One timed run of every phase of the model at path into t[] (ms); false on an error (printed). */
static bool once(const char *path, double t[N_T], bool *refused, rip_tfl_model *m)
{
    char err[RIP_ERR_LEN];
    double t0 = bench_now();
    if (rip_tfl_model_load(path, m, err) != RIP_OK) {
        fprintf(stderr, "bench_tflite: %s\n", err);
        return false;
    }
    double t1 = bench_now();
    *refused = rip_tfl_check(m, err) != RIP_OK;
    double t2 = bench_now();
    t[T_READ] = 1e3 * (t1 - t0), t[T_CHECK] = 1e3 * (t2 - t1);
    if (*refused)
        return true;
    rip_net net;
    rip_net_layout base;
    bool ok = rip_net_build(m, &net, err) == RIP_OK;
    double t3 = bench_now();
    ok = ok && rip_net_plan(&net, RIP_NET_PLAN_BASE, NULL, NULL, &base, err) == RIP_OK;
    double t4 = bench_now();
    ok = ok && rip_net_plan(&net, RIP_NET_PLAN_RIP, NULL, NULL, NULL, err) == RIP_OK;
    double t5 = bench_now();
    int8_t *arena = ok ? calloc((size_t)base.arena_bytes + 1, 1) : NULL;
    int8_t *scratch = ok ? calloc((size_t)base.scratch_bytes + 1, 1) : NULL;
    void *in[16] = {NULL}, *out[16] = {NULL};
    for (size_t i = 0; ok && i < net.n_inputs && i < 16; i++)
        in[i] = calloc((size_t)net.inputs[i].bytes, 1);
    for (size_t i = 0; ok && i < net.n_outputs && i < 16; i++)
        out[i] = calloc((size_t)net.outputs[i].bytes, 1);
    double t6 = bench_now();
    ok = ok && rip_net_run(&net, &base, arena, scratch, (const void *const *)in, out, NULL, NULL, err) == RIP_OK;
    double t7 = bench_now();
    t[T_NET] = 1e3 * (t3 - t2), t[T_BASE] = 1e3 * (t4 - t3), t[T_RIP] = 1e3 * (t5 - t4), t[T_RUN] = 1e3 * (t7 - t6);
    if (!ok)
        fprintf(stderr, "bench_tflite: %s\n", err);
    for (size_t i = 0; i < 16; i++)
        free(in[i]), free(out[i]);
    free(arena);
    free(scratch);
    if (ok)
        rip_net_layout_free(&base);
    rip_net_free(&net);
    return ok;
}

/* One model: the medians of RUNS runs; 1 when it cannot be read, built or planned. */
static int bench(const char *path, int runs, double *worst)
{
    static double t[N_T][101];
    double one[N_T] = {0};
    bool refused = false;
    rip_tfl_model m;
    for (int r = 0; r < runs; r++) {
        if (!once(path, one, &refused, &m))
            return 1;
        for (int k = 0; k < N_T; k++)
            t[k][r] = one[k];
        if (r + 1 < runs)
            rip_tfl_model_free(&m);
    }
    double med[N_T];
    for (int k = 0; k < N_T; k++) {
        qsort(t[k], (size_t)runs, sizeof t[k][0], bench_cmp_double);
        med[k] = t[k][runs / 2];
    }
    const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
    size_t n_t = m.n_subgraphs ? m.subgraphs[0].n_tensors : 0, n_op = m.n_subgraphs ? m.subgraphs[0].n_operators : 0;
    double plan = med[T_BASE] > med[T_RIP] ? med[T_BASE] : med[T_RIP];
    double total = med[T_READ] + med[T_CHECK] + med[T_NET] + plan;
    printf("%-32s %7zu B %4zu tensors %3zu ops  read %7.3f  check %7.3f", base, m.file_len, n_t, n_op, med[T_READ],
           med[T_CHECK]);
    if (refused)
        printf("   (refused by the check)\n");
    else
        printf("  net %7.3f  base %7.3f  rip %8.3f  to plan %8.3f  run %8.3f ms\n", med[T_NET], med[T_BASE],
               med[T_RIP], total, med[T_RUN]);
    if (total > *worst)
        *worst = total;
    rip_tfl_model_free(&m);
    return 0;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

int main(int argc, char **argv)
{
    if (argc < 3 || atoi(argv[1]) < 1 || atoi(argv[1]) > 101) {
        fprintf(stderr, "usage: bench_tflite RUNS(1..101) DIR...\n");
        return 64;
    }
    int runs = atoi(argv[1]), rc = 0, n = 0;
    double worst = 0;
    printf("bench_tflite: median of %d runs per model, ms (read, check, net build, base and rip plans with the\n"
           "checker, to plan = read + check + net + the slower plan, run = one inference under the base plan)\n",
           runs);
    for (int a = 2; a < argc; a++) {
        DIR *d = opendir(argv[a]);
        if (!d) {
            printf("bench_tflite: %s: no such folder, skipped\n", argv[a]);
            continue;
        }
        char *names[256];
        size_t k = 0;
        struct dirent *e;
        while ((e = readdir(d)) && k < 256) {
            size_t len = strlen(e->d_name);
            if (len > 7 && strcmp(e->d_name + len - 7, ".tflite") == 0)
                names[k++] = strdup(e->d_name);
        }
        closedir(d);
        qsort(names, k, sizeof *names, cmp_str);
        for (size_t i = 0; i < k; i++) {
            char path[4096];
            snprintf(path, sizeof path, "%s/%s", argv[a], names[i]);
            rc |= bench(path, runs, &worst);
            n++;
            free(names[i]);
        }
    }
    printf("bench_tflite: %d models, the slowest to plan %.3f ms (read + check + net + plan)\n", n, worst);
    return rc;
}
