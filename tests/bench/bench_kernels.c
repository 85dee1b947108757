/*
** bench_kernels.c — throughput of the int8 convolution kernels
** (firmware/kernels/) on one layer: rk_conv2d dual buffer and
** rk_conv2d_rip in each rip_* configuration at its simulated truth, in
** multiply-accumulates per second (median of R runs) and the in-place to
** dual time ratio; then the instrumented rk_conv2d_rip_checked (shadow
** tags, as `sweep --execute` runs it) at the same gaps.
**
** usage: bench_kernels CIN COUT H K P [RUNS]   (square input, stride 1)
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "layer.h"
#include "rk_conv2d.h"
#include "rk_conv2d_rip.h"
#include "sim.h"

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int cmp_d(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    if (argc < 6) {
        fprintf(stderr, "usage: bench_kernels CIN COUT H K P [RUNS]\n");
        return 64;
    }
    const int cin = atoi(argv[1]), cout = atoi(argv[2]), h = atoi(argv[3]), k = atoi(argv[4]), pad = atoi(argv[5]);
    const int runs = argc > 6 ? atoi(argv[6]) : 5;
    rip_layer L = rip_layer_make(cin, cout, h, h, k, k, 1, 1, 1, 1, pad, pad);
    char err[RIP_ERR_LEN];
    if (rip_layer_derive(&L, err) != 0 || runs < 1 || runs > 101) {
        fprintf(stderr, "bench_kernels: %s\n", err);
        return 65;
    }
    rk_conv_params p = {k, k, 1, 1, 1, 1, pad, pad, pad, pad, 3, -5, {-128, 127}};
    const rk_dims in = {h, h, cin}, out = {(int32_t)L.h_out, (int32_t)L.w_out, cout};
    const size_t n_in = (size_t)L.n_in_dense, n_out = (size_t)L.n_out, n_f = (size_t)cout * k * k * cin;
    int8_t *input = malloc(n_in), *filter = malloc(n_f), *want = malloc(n_out);
    int32_t *bias = malloc((size_t)cout * 4), *mult = malloc((size_t)cout * 4), *shift = malloc((size_t)cout * 4);
    int8_t *scratch = malloc(rk_conv2d_buffer_size(&p, in, out));
    uint32_t s = 1;
    for (size_t i = 0; i < n_in; i++)
        input[i] = (int8_t)((s = s * 1664525u + 1013904223u) >> 24);
    for (size_t i = 0; i < n_f; i++)
        filter[i] = (int8_t)((s = s * 1664525u + 1013904223u) >> 24);
    for (int i = 0; i < cout; i++) {
        bias[i] = i * 17 - 300;
        mult[i] = 1300000000 + i;
        shift[i] = -9;
    }
    const rk_quant q = {mult, shift};
    const double macs = (double)L.n_out * k * k * cin;
    double t[101], dual_med;
    for (int r = 0; r < runs; r++) {
        const double t0 = now();
        rk_conv2d(&p, &q, in, input, filter, bias, out, want, scratch);
        t[r] = now() - t0;
    }
    qsort(t, (size_t)runs, sizeof t[0], cmp_d);
    dual_med = t[runs / 2];
    printf("layer cin=%d cout=%d h=%d k=%d p=%d: %.1f M MAC\n", cin, cout, h, k, pad, macs / 1e6);
    printf("%-20s %10.3f ms  %8.3f GMAC/s\n", "rk_conv2d (dual)", 1e3 * dual_med, macs / dual_med / 1e9);
    const rip_config cfg[4] = {RIP_CONFIG_PADDED_GATHER, RIP_CONFIG_PADDED_TAPS, RIP_CONFIG_DENSE_GATHER, RIP_CONFIG_DENSE_TAPS};
    int status = 0;
    for (int e = 0; e < 4; e++) {
        int64_t gap;
        if (rip_sim_truth(&L, cfg[e], RIP_ENGINE_FAST, &gap) != 0)
            return 71;
        rk_inplace ip = {(e < 2) ? RK_PADDED : RK_DENSE, (e % 2 == 0) ? RK_GATHER : RK_TAPS, gap};
        const int64_t ws_size = rk_conv2d_rip_workspace_size(&p, in, &ip);
        int8_t *ws = malloc((size_t)ws_size), *sc = malloc(rk_conv2d_rip_buffer_size(&p, in, out, &ip) + 1);
        for (int r = 0; r < runs; r++) {
            rk_rip_store_input(&p, in, input, &ip, ws);
            const double t0 = now();
            rk_conv2d_rip(&p, &q, in, out, filter, bias, &ip, ws, ws_size, sc);
            t[r] = now() - t0;
            if (memcmp(ws, want, n_out) != 0)
                status = 1;
        }
        qsort(t, (size_t)runs, sizeof t[0], cmp_d);
        printf("%-20s %10.3f ms  %8.3f GMAC/s  in place / dual %.3f  (gap %ld)\n", rip_config_name(cfg[e]),
               1e3 * t[runs / 2], macs / t[runs / 2] / 1e9, t[runs / 2] / dual_med, (long)gap);
        uint8_t *shadow = malloc((size_t)ws_size);
        for (int r = 0; r < runs; r++) {
            rk_violation v;
            rk_rip_store_input(&p, in, input, &ip, ws);
            const double t0 = now();
            rk_conv2d_rip_checked(&p, &q, in, out, filter, bias, &ip, ws, ws_size, sc, shadow, false, &v);
            t[r] = now() - t0;
            if (v.found || memcmp(ws, want, n_out) != 0)
                status = 1;
        }
        free(shadow);
        qsort(t, (size_t)runs, sizeof t[0], cmp_d);
        printf("%-20s %10.3f ms  %8.3f GMAC/s  checked / dual %.3f\n", "  instrumented", 1e3 * t[runs / 2],
               macs / t[runs / 2] / 1e9, t[runs / 2] / dual_med);
        free(ws);
        free(sc);
    }
    if (status)
        printf("MISMATCH: an in-place output differs from dual\n");
    free(input);
    free(filter);
    free(want);
    free(bias);
    free(mult);
    free(shift);
    free(scratch);
    return status;
}
