/*
** bench_inplace.c — in place against dual buffer on the host, on the
** layers paper Tab. 6 selects (results/table6.md; issue 9's speed goal:
** in-place time within 1% of dual buffering, the paper's Pico 2 figure;
** issue 24's: median <= 1.005, worst <= 1.03).
**
** For every selected channel-mixing layer of at most MAX_MMAC million
** multiply-accumulates: rk_conv2d (dual buffer) and rk_conv2d_rip in
** rip_dense_gather (the deployed configuration) and rip_padded_gather, each
** at its simulated truth, RUNS times interleaved; the time of a kernel is
** its fastest run in thread CPU time (the least disturbed by other load).
** Prints one line per layer and the median and worst in-place/dual ratio.
**
** usage: bench_inplace LAYERS_DIR [MAX_MMAC [RUNS]]
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "layer.h"
#include "rk_conv2d.h"
#include "rk_conv2d_rip.h"
#include "sim.h"
#include "table6.h"

static double cpu_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int cmp_d(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

typedef struct bufs {
    int8_t *input, *filter, *dual_out, *ws, *scratch;
    int32_t *bias, *mult, *shift;
} bufs;

/* One layer: fills ratio[0..1] (dense, padded gather / dual). 0 or -1. */
static int bench_layer(const rip_layer *L, int runs, double ratio[2], double *dual_s)
{
    const rk_conv_params p = {(int32_t)L->k_h, (int32_t)L->k_w, (int32_t)L->s_h, (int32_t)L->s_w,
                              (int32_t)L->d_h, (int32_t)L->d_w, (int32_t)L->p_top, (int32_t)L->p_bottom,
                              (int32_t)L->p_left, (int32_t)L->p_right, 3, -5, {-128, 127}};
    const rk_dims in = {(int32_t)L->h_in, (int32_t)L->w_in, (int32_t)L->cin};
    const rk_dims out = {(int32_t)L->h_out, (int32_t)L->w_out, (int32_t)L->cout};
    const size_t n_in = (size_t)L->n_in_dense, n_out = (size_t)L->n_out;
    const size_t n_f = (size_t)(L->cout * L->k_h * L->k_w * L->cin);
    const rip_config cfg[2] = {RIP_CONFIG_DENSE_GATHER, RIP_CONFIG_PADDED_GATHER};
    rk_inplace ip[2] = {{RK_DENSE, RK_GATHER, 0}, {RK_PADDED, RK_GATHER, 0}};
    int64_t ws_max = (int64_t)n_out;
    for (int c = 0; c < 2; c++) {
        if (rip_sim_truth(L, cfg[c], RIP_ENGINE_FAST, &ip[c].gap) != 0)
            return -1;
        int64_t ws = rk_conv2d_rip_workspace_size(&p, in, &ip[c]);
        ws_max = ws > ws_max ? ws : ws_max;
    }
    bufs b = {malloc(n_in), malloc(n_f), malloc(n_out), malloc((size_t)ws_max),
              malloc(rk_conv2d_buffer_size(&p, in, out) + 1), malloc((size_t)L->cout * 4),
              malloc((size_t)L->cout * 4), malloc((size_t)L->cout * 4)};
    int rc = -1;
    if (!b.input || !b.filter || !b.dual_out || !b.ws || !b.scratch || !b.bias || !b.mult || !b.shift)
        goto done;
    uint32_t s = 12345;
    for (size_t i = 0; i < n_in; i++)
        b.input[i] = (int8_t)((s = s * 1664525u + 1013904223u) >> 24);
    for (size_t i = 0; i < n_f; i++)
        b.filter[i] = (int8_t)((s = s * 1664525u + 1013904223u) >> 24);
    for (int64_t i = 0; i < L->cout; i++) {
        b.bias[i] = (int32_t)(i * 17 - 300);
        b.mult[i] = 1300000000 + (int32_t)i;
        b.shift[i] = -9;
    }
    const rk_quant q = {b.mult, b.shift};
    double best[3] = {1e30, 1e30, 1e30};
    for (int r = 0; r < runs; r++) {
        double t0 = cpu_now();
        if (rk_conv2d(&p, &q, in, b.input, b.filter, b.bias, out, b.dual_out, b.scratch) != RK_OK)
            goto done;
        double t = cpu_now() - t0;
        best[0] = t < best[0] ? t : best[0];
        for (int c = 0; c < 2; c++) {
            int64_t ws = rk_conv2d_rip_workspace_size(&p, in, &ip[c]);
            rk_rip_store_input(&p, in, b.input, &ip[c], b.ws);  /* the layout step is not timed */
            t0 = cpu_now();
            if (rk_conv2d_rip(&p, &q, in, out, b.filter, b.bias, &ip[c], b.ws, ws, b.scratch) != RK_OK)
                goto done;
            t = cpu_now() - t0;
            best[1 + c] = t < best[1 + c] ? t : best[1 + c];
            if (memcmp(b.ws, b.dual_out, n_out) != 0) {
                fprintf(stderr, "bench_inplace: in-place output differs from dual buffering\n");
                goto done;
            }
        }
    }
    ratio[0] = best[1] / best[0];
    ratio[1] = best[2] / best[0];
    *dual_s = best[0];
    rc = 0;
done:
    free(b.input), free(b.filter), free(b.dual_out), free(b.ws), free(b.scratch);
    free(b.bias), free(b.mult), free(b.shift);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: bench_inplace LAYERS_DIR [MAX_MMAC [RUNS]]\n");
        return 64;
    }
    const double max_mmac = argc > 2 ? atof(argv[2]) : 400;
    const int runs = argc > 3 ? atoi(argv[3]) : 3;
    rip_csv_layer *layers = NULL;
    size_t n = 0;
    char err[RIP_ERR_LEN];
    if (rip_table6_layers(argv[1], &layers, &n, err) != RIP_OK) {
        fprintf(stderr, "bench_inplace: %s\n", err);
        return 66;
    }
    double *rd = calloc(n + 1, sizeof *rd), *rp = calloc(n + 1, sizeof *rp);
    size_t m = 0, skipped = 0;
    printf("%-40s %9s %10s %10s %10s\n", "layer", "MMAC", "dual ms", "dense/dual", "padded/dual");
    for (size_t i = 0; i < n; i++) {
        const rip_layer *L = &layers[i].L;
        double mmac = (double)L->n_out * (double)(L->k_h * L->k_w * L->cin) / 1e6;
        if (layers[i].groups != 1 || mmac > max_mmac) {
            skipped++;
            continue;
        }
        double ratio[2], dual_s;
        if (bench_layer(L, runs, ratio, &dual_s) != 0) {
            fprintf(stderr, "bench_inplace: %s failed\n", layers[i].name);
            return 70;
        }
        printf("%-40.40s %9.1f %10.2f %10.4f %10.4f\n", layers[i].name, mmac, dual_s * 1e3, ratio[0], ratio[1]);
        rd[m] = ratio[0];
        rp[m] = ratio[1];
        m++;
    }
    if (m == 0)
        return 65;
    qsort(rd, m, sizeof *rd, cmp_d);
    qsort(rp, m, sizeof *rp, cmp_d);
    printf("\n%zu layers timed (%zu skipped: grouped or over %.0f MMAC), best of %d runs, thread CPU time\n", m,
           skipped, max_mmac, runs);
    printf("in-place / dual, rip_dense_gather:  median %.4f, worst %.4f, best %.4f\n", rd[m / 2], rd[m - 1], rd[0]);
    printf("in-place / dual, rip_padded_gather: median %.4f, worst %.4f, best %.4f\n", rp[m / 2], rp[m - 1], rp[0]);
    free(rd);
    free(rp);
    free(layers);
    return 0;
}
