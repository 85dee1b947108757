/*
** bench_cmsis.c — ripsim's rk_conv2d and rk_depthwise against CMSIS-NN's
** pure-C arm_convolve_s8 and arm_depthwise_conv_s8 on real layers, on the
** host, both compiled by the same build with the same flags (issue 9,
** Speed).  Usage:
**
**   bench_cmsis LAYERS_DIR [MAX_GMAC [REPS [MATCH]]]
**
** Convolutions: the layers of paper Tab. 6 as `ripsim tables table6`
** selects them (per network the layers of largest real input + output,
** channel-mixing only, as many as Tab. 6 takes from that network; listed
** in results/table6.md).  Depthwise: per network of sweeps/layers the
** depthwise layer (multiplier 1) of largest input + output.  Layers above
** MAX_GMAC billion multiply-accumulates are skipped (default, 0: none);
** with MATCH only the layers whose "network layer" label contains it run.
**
** Each layer gets seeded random int8 data and per-channel quantization;
** each kernel runs at least REPS times (default 3; small layers until
** 0.5 s are spent, at most 25 times), alternating ours and CMSIS-NN, and
** its best time (thread CPU time) counts.  Printed per layer: both times, the ratio
** ours / CMSIS-NN (below 1: ours is faster), and whether the outputs are
** bit-identical; then the median and worst ratio per kernel and per shape
** class.  For 1x1 layers CMSIS-NN's wrapper (arm_convolve_wrapper_s8, its
** 1x1 path) is timed too, as the call a CMSIS-NN user would make.
** Exit status 0, or 1 when an output differs or a kernel refuses a layer.
*/
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "arm_nnfunctions.h"

#include "layer_csv.h"
#include "pcg32.h"
#include "rk_conv2d.h"
#include "rk_depthwise.h"

/* How many layers Tab. 6 takes from each network (results/table6.md). */
static const struct { const char *net; int n; } tab6[] = {
    {"resnet50", 11}, {"vgg16", 4}, {"mobilenet_v1", 6}, {"mobilenet_v2", 5},
    {"mcunet_in1", 4}, {"mcunet_in2", 4}, {"mcunet_in3", 4}, {"mcunet_in4", 4},
    {"efficientnet_b0", 4}, {"convnext_tiny", 2}, {"densenet121", 2}, {"shufflenet_v2_x1_0", 1},
    {"squeezenet1_0", 1}, {"squeezenet1_1", 1}, {"xception", 1},
    {"yolov5n", 1}, {"yolov5s", 1}, {"yolov5m", 1}, {"yolov5l", 1}, {"yolov5x", 1},
    {"yolov8n", 1}, {"yolov8s", 1}, {"yolov8m", 1}, {"yolov8l", 1}, {"yolov8x", 1},
    {"yolo11n", 1}, {"yolo11s", 1}, {"yolo11m", 1}, {"yolo11l", 1}, {"yolo11x", 1},
    {"rtdetr_l", 3}, {"inception_v3", 2}, {"deepspeech2", 2},
};
enum { N_TAB6 = sizeof tab6 / sizeof tab6[0] };

typedef struct pick {
    char net[64];
    rip_csv_layer row;
    long order;       /* position in its file: ties keep network order */
} pick;

typedef struct result {
    char label[200];
    bool depthwise, pointwise;
    double gmac, t_ours, t_cmsis, t_wrap;   /* seconds; t_wrap < 0: not timed */
    bool same;
} result;

/* CPU time of this thread: on a shared machine, time spent preempted by
** other processes does not count against either kernel. */
static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int by_footprint(const void *a, const void *b)
{
    const pick *x = a, *y = b;
    int64_t fx = x->row.L.n_in_dense + x->row.L.n_out, fy = y->row.L.n_in_dense + y->row.L.n_out;
    if (fx != fy)
        return fx > fy ? -1 : 1;
    return x->order < y->order ? -1 : x->order > y->order;
}

static int by_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/*
** Append to *out (n / cap) the `n_conv` largest channel-mixing layers of
** dir/net.csv and, when want_dw, its largest depthwise layer.  A missing
** table is skipped with a note; a bad one stops (returns false).
*/
static bool pick_from(const char *dir, const char *net, int n_conv, bool want_dw, pick **out, size_t *n, size_t *cap)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s.csv", dir, net);
    FILE *f = fopen(path, "r");
    if (f == NULL) {
        fprintf(stderr, "bench_cmsis: %s: cannot open, skipped\n", path);
        return true;
    }
    rip_layer_table t;
    char err[RIP_ERR_LEN];
    rip_status st = rip_layer_csv_read(f, path, false, NULL, &t, err);
    fclose(f);
    if (st != RIP_OK) {
        fprintf(stderr, "bench_cmsis: %s\n", err);
        return false;
    }
    pick *conv = calloc(t.n + 1, sizeof *conv), *dw = calloc(t.n + 1, sizeof *dw);
    size_t nc = 0, nd = 0;
    for (size_t i = 0; conv && dw && i < t.n; i++) {
        const rip_csv_layer *r = &t.rows[i];
        pick p = {.row = *r, .order = (long)i};
        snprintf(p.net, sizeof p.net, "%s", net);
        if (r->groups == 1)
            conv[nc++] = p;
        else if (r->groups == r->L.cin && r->L.cin == r->L.cout)
            dw[nd++] = p;
    }
    bool ok = conv && dw;
    if (ok) {
        qsort(conv, nc, sizeof *conv, by_footprint);
        qsort(dw, nd, sizeof *dw, by_footprint);
        size_t want = (size_t)n_conv < nc ? (size_t)n_conv : nc;
        for (size_t i = 0; ok && i < want + (want_dw && nd > 0); i++) {
            if (*n == *cap) {
                size_t nc2 = *cap ? 2 * *cap : 64;
                pick *q = realloc(*out, nc2 * sizeof *q);
                if (q == NULL) {
                    ok = false;
                    break;
                }
                *out = q;
                *cap = nc2;
            }
            (*out)[(*n)++] = i < want ? conv[i] : dw[0];
        }
    }
    if (!ok)
        fprintf(stderr, "bench_cmsis: out of memory\n");
    free(conv);
    free(dw);
    rip_layer_table_free(&t);
    return ok;
}

static void fill(rip_pcg32 *g, int8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (int8_t)rip_pcg32_next(g);
}

/*
** Time one layer: ours and CMSIS-NN's generic kernel (and, for 1x1, its
** wrapper), best of reps, and compare their outputs.  false: a kernel
** refused the layer or out of memory (message printed).  Long on purpose
** (over 100 lines): setting up both kernels' buffers side by side keeps
** the comparison fair to read.
*/
static bool run_layer(const pick *pk, int reps, result *res)
{
    const rip_layer *L = &pk->row.L;
    bool dw = pk->row.groups != 1;
    memset(res, 0, sizeof *res);
    snprintf(res->label, sizeof res->label, "%s %s %ld->%ld %ldx%ld k%ldx%ld s%ld p%ld/%ld/%ld/%ld", pk->net,
             pk->row.name, (long)L->cin, (long)L->cout, (long)L->h_in, (long)L->w_in, (long)L->k_h, (long)L->k_w,
             (long)L->s_h, (long)L->p_top, (long)L->p_bottom, (long)L->p_left, (long)L->p_right);
    res->depthwise = dw;
    res->pointwise = !dw && L->k_h == 1 && L->k_w == 1;
    res->t_wrap = -1;
    double taps = dw ? (double)(L->k_h * L->k_w) : (double)(L->k_h * L->k_w * L->cin);
    res->gmac = (double)L->n_out * taps * 1e-9;

    size_t n_in = (size_t)L->n_in_dense, n_out = (size_t)L->n_out;
    size_t n_f = (size_t)(L->k_h * L->k_w) * (size_t)(dw ? L->cout : L->cin * L->cout);
    int32_t cout = (int32_t)L->cout;
    int8_t *in = malloc(n_in), *flt = malloc(n_f), *o1 = malloc(n_out), *o2 = malloc(n_out), *o3 = malloc(n_out);
    int32_t *bias = malloc((size_t)cout * sizeof *bias), *mult = malloc((size_t)cout * sizeof *mult);
    int32_t *shift = malloc((size_t)cout * sizeof *shift);
    int8_t *scratch = NULL, *cbuf = NULL, *wbuf = NULL;
    bool ok = in && flt && o1 && o2 && o3 && bias && mult && shift;
    if (!ok) {
        fprintf(stderr, "bench_cmsis: %s: out of memory\n", res->label);
        goto done;
    }
    rip_pcg32 g;
    rip_pcg32_seed(&g, 20261130u, (uint64_t)pk->order);
    fill(&g, in, n_in);
    fill(&g, flt, n_f);
    for (int32_t i = 0; i < cout; i++) {
        bias[i] = (int32_t)rip_pcg32_range(&g, -20000, 20000);
        mult[i] = (int32_t)rip_pcg32_range(&g, 1 << 30, INT32_MAX);
        shift[i] = (int32_t)rip_pcg32_range(&g, -12, -6);
    }

    rk_conv_params p = {
        .k_h = (int32_t)L->k_h, .k_w = (int32_t)L->k_w, .s_h = (int32_t)L->s_h, .s_w = (int32_t)L->s_w,
        .d_h = (int32_t)L->d_h, .d_w = (int32_t)L->d_w,
        .p_top = (int32_t)L->p_top, .p_bottom = (int32_t)L->p_bottom,
        .p_left = (int32_t)L->p_left, .p_right = (int32_t)L->p_right,
        .input_offset = 3, .output_offset = -5, .act = {.min = -128, .max = 127},
    };
    rk_quant q = {.multiplier = mult, .shift = shift};
    rk_dims di = {.h = (int32_t)L->h_in, .w = (int32_t)L->w_in, .c = (int32_t)L->cin};
    rk_dims dout = {.h = (int32_t)L->h_out, .w = (int32_t)L->w_out, .c = cout};
    size_t ssz = dw ? rk_depthwise_buffer_size(&p, di, dout) : rk_conv2d_buffer_size(&p, di, dout);
    scratch = malloc(ssz ? ssz : 1);

    cmsis_nn_dims id = {.n = 1, .h = di.h, .w = di.w, .c = di.c};
    cmsis_nn_dims bd = {.n = 1, .h = 1, .w = 1, .c = cout};
    cmsis_nn_dims od = {.n = 1, .h = dout.h, .w = dout.w, .c = cout};
    cmsis_nn_per_channel_quant_params qp = {.multiplier = mult, .shift = shift};
    cmsis_nn_tile stride = {.w = p.s_w, .h = p.s_h}, pad = {.w = p.p_left, .h = p.p_top};
    cmsis_nn_tile dil = {.w = p.d_w, .h = p.d_h};
    cmsis_nn_activation act = {.min = -128, .max = 127};
    cmsis_nn_conv_params cp = {.input_offset = 3, .output_offset = -5, .stride = stride, .padding = pad,
                               .dilation = dil, .activation = act};
    cmsis_nn_dw_conv_params dp = {.input_offset = 3, .output_offset = -5, .ch_mult = 1, .stride = stride,
                                  .padding = pad, .dilation = dil, .activation = act};
    cmsis_nn_dims fd = dw ? (cmsis_nn_dims){.n = 1, .h = p.k_h, .w = p.k_w, .c = cout}
                          : (cmsis_nn_dims){.n = cout, .h = p.k_h, .w = p.k_w, .c = di.c};
    int32_t csz = dw ? 0 : arm_convolve_s8_get_buffer_size(&id, &fd);
    int32_t wsz = res->pointwise ? arm_convolve_wrapper_s8_get_buffer_size(&cp, &id, &fd, &od) : 0;
    cbuf = malloc(csz > 0 ? (size_t)csz : 1);
    wbuf = malloc(wsz > 0 ? (size_t)wsz : 1);
    if (scratch == NULL || cbuf == NULL || wbuf == NULL) {
        fprintf(stderr, "bench_cmsis: %s: out of memory\n", res->label);
        ok = false;
        goto done;
    }
    cmsis_nn_context cctx = {.buf = cbuf, .size = csz}, wctx = {.buf = wbuf, .size = wsz};

    res->t_ours = res->t_cmsis = res->t_wrap = 1e30;
    /* At least reps rounds; small layers repeat until 0.5 s have been spent
    ** (at most 25 rounds), so that the best time is not one noisy sample. */
    double spent = 0;
    for (int r = 0; r < reps || (spent < 0.5 && r < 25); r++) {
        double t0 = now();
        rk_status rs = dw ? rk_depthwise(&p, &q, di, in, flt, bias, dout, o1)
                          : rk_conv2d(&p, &q, di, in, flt, bias, dout, o1, scratch);
        double t1 = now();
        arm_cmsis_nn_status cs =
            dw ? arm_depthwise_conv_s8(&cctx, &dp, &qp, &id, in, &fd, flt, &bd, bias, &od, o2)
               : arm_convolve_s8(&cctx, &cp, &qp, &id, in, &fd, flt, &bd, bias, NULL, &od, o2);
        double t2 = now();
        arm_cmsis_nn_status ws = ARM_CMSIS_NN_SUCCESS;
        if (res->pointwise) {
            ws = arm_convolve_wrapper_s8(&wctx, &cp, &qp, &id, in, &fd, flt, &bd, bias, &od, o3);
            double t3 = now();
            if (t3 - t2 < res->t_wrap)
                res->t_wrap = t3 - t2;
        }
        if (rs != RK_OK || cs != ARM_CMSIS_NN_SUCCESS || ws != ARM_CMSIS_NN_SUCCESS) {
            fprintf(stderr, "bench_cmsis: %s: refused (ours %d, CMSIS-NN %d, wrapper %d)\n", res->label, (int)rs,
                    (int)cs, (int)ws);
            ok = false;
            goto done;
        }
        spent += now() - t0;
        if (t1 - t0 < res->t_ours)
            res->t_ours = t1 - t0;
        if (t2 - t1 < res->t_cmsis)
            res->t_cmsis = t2 - t1;
    }
    if (!res->pointwise)
        res->t_wrap = -1;
    res->same = memcmp(o1, o2, n_out) == 0 && (!res->pointwise || memcmp(o1, o3, n_out) == 0);
done:
    free(in);
    free(flt);
    free(o1);
    free(o2);
    free(o3);
    free(bias);
    free(mult);
    free(shift);
    free(scratch);
    free(cbuf);
    free(wbuf);
    return ok;
}

/* Median and worst (largest) ratio ours / CMSIS-NN of the results matching a class. */
static void summary(const char *what, const result *r, size_t n, int cls)
{
    double *v = malloc((n ? n : 1) * sizeof *v);
    size_t k = 0;
    if (v == NULL)
        return;
    const char *worst = "";
    double wv = 0, t_ours = 0, t_cm = 0;
    for (size_t i = 0; i < n; i++) {
        bool in = cls == 0 ? !r[i].depthwise : cls == 1 ? r[i].pointwise : cls == 2 ? !r[i].depthwise && !r[i].pointwise
                                                                                    : r[i].depthwise;
        if (!in)
            continue;
        double x = r[i].t_ours / r[i].t_cmsis;
        v[k++] = x;
        t_ours += r[i].t_ours;
        t_cm += r[i].t_cmsis;
        if (x > wv) {
            wv = x;
            worst = r[i].label;
        }
    }
    if (k > 0) {
        qsort(v, k, sizeof *v, by_double);
        double med = k % 2 ? v[k / 2] : 0.5 * (v[k / 2 - 1] + v[k / 2]);
        printf("%-28s %3zu layers: median %.3f, worst %.3f (%s), total time %.3f\n", what, k, med, wv, worst,
               t_ours / t_cm);
    }
    free(v);
}

int main(int argc, char **argv)
{
    if (argc < 2 || argc > 5) {
        fprintf(stderr, "usage: bench_cmsis LAYERS_DIR [MAX_GMAC [REPS [MATCH]]]\n");
        return 64;
    }
    const char *dir = argv[1];
    double max_gmac = argc > 2 ? atof(argv[2]) : 0;
    int reps = argc > 3 ? atoi(argv[3]) : 3;
    const char *match = argc > 4 ? argv[4] : NULL;
    if (reps < 1)
        reps = 1;

    pick *picks = NULL;
    size_t n = 0, cap = 0;
    for (size_t i = 0; i < N_TAB6; i++)
        if (!pick_from(dir, tab6[i].net, tab6[i].n, true, &picks, &n, &cap))
            return 1;
    /* Depthwise layers of networks outside Tab. 6's list. */
    DIR *d = opendir(dir);
    if (d == NULL) {
        fprintf(stderr, "bench_cmsis: %s: cannot open the layer folder\n", dir);
        return 1;
    }
    struct dirent *e;
    char names[64][64];
    size_t n_names = 0;
    while ((e = readdir(d)) != NULL && n_names < 64) {
        size_t len = strlen(e->d_name);
        if (len < 5 || len >= 64 || strcmp(e->d_name + len - 4, ".csv") != 0)
            continue;
        char net[64];
        snprintf(net, sizeof net, "%.*s", (int)(len - 4), e->d_name);
        bool known = false;
        for (size_t i = 0; i < N_TAB6; i++)
            known = known || strcmp(tab6[i].net, net) == 0;
        if (!known)
            snprintf(names[n_names++], sizeof names[0], "%s", net);
    }
    closedir(d);
    for (size_t i = 0; i < n_names; i++)
        if (!pick_from(dir, names[i], 0, true, &picks, &n, &cap))
            return 1;

    result *res = calloc(n ? n : 1, sizeof *res);
    if (res == NULL)
        return 1;
    size_t nr = 0;
    int rc = 0;
    printf("%-70s %9s %10s %10s %7s %10s %7s %s\n", "layer", "GMAC", "ours s", "CMSIS s", "ratio", "wrapper s",
           "ratio", "bit-exact");
    for (size_t i = 0; i < n; i++) {
        const rip_layer *L = &picks[i].row.L;
        double taps = picks[i].row.groups != 1 ? (double)(L->k_h * L->k_w) : (double)(L->k_h * L->k_w * L->cin);
        if (max_gmac > 0 && (double)L->n_out * taps * 1e-9 > max_gmac)
            continue;
        char label[200];
        snprintf(label, sizeof label, "%s %s", picks[i].net, picks[i].row.name);
        if (match != NULL && strstr(label, match) == NULL)
            continue;
        if (!run_layer(&picks[i], reps, &res[nr])) {
            rc = 1;
            continue;
        }
        const result *r = &res[nr++];
        if (r->t_wrap >= 0)
            printf("%-70.70s %9.3f %10.4f %10.4f %7.3f %10.4f %7.3f %s\n", r->label, r->gmac, r->t_ours, r->t_cmsis,
                   r->t_ours / r->t_cmsis, r->t_wrap, r->t_ours / r->t_wrap, r->same ? "yes" : "NO");
        else
            printf("%-70.70s %9.3f %10.4f %10.4f %7.3f %10s %7s %s\n", r->label, r->gmac, r->t_ours, r->t_cmsis,
                   r->t_ours / r->t_cmsis, "-", "-", r->same ? "yes" : "NO");
        fflush(stdout);
        if (!r->same)
            rc = 1;
    }
    printf("\nratio = ours / CMSIS-NN pure C (arm_convolve_s8, arm_depthwise_conv_s8); below 1: ours is faster\n");
    summary("conv2d, all Tab. 6 layers", res, nr, 0);
    summary("conv2d, 1x1", res, nr, 1);
    summary("conv2d, k > 1", res, nr, 2);
    summary("depthwise", res, nr, 3);
    free(res);
    free(picks);
    return rc;
}
