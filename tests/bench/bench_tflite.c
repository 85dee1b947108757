/*
** bench_tflite.c — reading and checking a TFLite model (issue 20: under
** 100 ms a model): per .tflite file found under the folders given, the
** median wall time of rip_tfl_model_load (read the file, decode every
** table) and of rip_tfl_check over RUNS runs, with the file's size and
** counts.  A benchmark, not a timed test: nothing fails on time.
**
** usage: bench_tflite RUNS DIR...   (DIRs that do not exist are skipped)
*/
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_time.h"
#include "tfl_check.h"
#include "tfl_model.h"

/* One model: median read and check times in ms; 1 when it cannot be read. */
static int bench(const char *path, int runs, double *worst)
{
    double t_read[101], t_check[101];
    rip_tfl_model m;
    char err[RIP_ERR_LEN];
    rip_status checked = RIP_OK;
    for (int r = 0; r < runs; r++) {
        double t0 = bench_now();
        if (rip_tfl_model_load(path, &m, err) != RIP_OK) {
            fprintf(stderr, "bench_tflite: %s\n", err);
            return 1;
        }
        double t1 = bench_now();
        checked = rip_tfl_check(&m, err);
        double t2 = bench_now();
        t_read[r] = 1e3 * (t1 - t0);
        t_check[r] = 1e3 * (t2 - t1);
        if (r + 1 < runs)
            rip_tfl_model_free(&m);
    }
    qsort(t_read, (size_t)runs, sizeof *t_read, bench_cmp_double);
    qsort(t_check, (size_t)runs, sizeof *t_check, bench_cmp_double);
    const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
    size_t n_t = m.n_subgraphs ? m.subgraphs[0].n_tensors : 0, n_op = m.n_subgraphs ? m.subgraphs[0].n_operators : 0;
    double total = t_read[runs / 2] + t_check[runs / 2];
    printf("%-32s %9zu B %4zu tensors %3zu ops   read %7.3f ms   check %7.3f ms   total %7.3f ms%s\n", base,
           m.file_len, n_t, n_op, t_read[runs / 2], t_check[runs / 2], total,
           checked == RIP_OK ? "" : "   (refused by the check)");
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
    printf("bench_tflite: median of %d runs per model (read = open, read and decode; check = rip_tfl_check)\n",
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
    printf("bench_tflite: %d models, the slowest %.3f ms (read + check)\n", n, worst);
    return rc;
}
