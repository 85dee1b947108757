/*
** kcount.c — the host driver of the kernel-count comparison (issue 24,
** items 3 and 5): builds the layer sets, has the bare-metal harness
** (kcount_target.c, built per core by build-kcount.sh) run each layer in
** QEMU through ripsim's dual-buffer kernel, its in-place kernel and
** CMSIS-NN's, with the instructions of each counted by the TCG plugin
** firmware/tools/icount.c, and writes results/kernels.md.
**
**   kcount --src ROOT --cmsis DIR --work DIR [--out FILE] [--check FILE]
**          [--models DIR [--tflm DIR]] [--every K] [--random N] [--cores m0,m33] [--timeout S]
**
** Layers (deduplicated by geometry: a geometry's data are drawn from a seed
** hashed from it, so a layer's row is the same in every run and subset):
**   tab6    the convolutions of paper Tab. 6 as tests/bench/bench_cmsis.c
**           selects them from sweeps/layers/ (per network the largest by
**           input + output, channel-mixing, as many as Tab. 6 takes), and per
**           network its largest depthwise layer;
**   mcunet  every conv2d, pointwise, depthwise, fc and add of the eleven
**           MCUNet graphs (firmware/models/mcunet/, execution order);
**   real    with --models DIR: the conv, depthwise, fc and add operators of
**           every .tflite one level under DIR (the real models), name order,
**           after TFLM's person_detect when --tflm names the TFLM tree;
**   random  with --random N: N seeded random conv/depthwise/fc layers (the
**           bit-exact peer; only with --random, never in kernels.md).
** A layer runs on a core when its input, output, filter and per-channel
** values fit the core's Pico model budget (firmware/README.md: 253,232 B
** for the M0, 515,412 B for the M33); the others are listed as skipped.
** Convolutions also run rk_conv2d_rip (dense, gather: the layout the code
** generator emits) at the simulator's truth gap for that configuration;
** depthwise layers with multiplier 1 rk_depthwise_inplace.
**
** --out FILE: write the markdown (kernels.md).  --check FILE: every
** per-layer row of this run must appear verbatim in FILE (the committed
** file), and the run's summary is not written unless --out is given.
** --every K: only every K-th distinct layer per core (a deterministic
** subset).  Exit status 0 when every layer ran, every kernel succeeded and
** every output equalled CMSIS-NN's byte for byte (and --check found every
** row); 1 otherwise (each failure named on stderr); 64 usage; 70 the
** harness did not build or QEMU failed.
*/
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "kcount_job.h"
#include "layer.h"
#include "layer_csv.h"
#include "sim.h"
#include "tfl_check.h"
#include "tfl_model.h"
#include "splitmix.h"

enum { CORE_M0, CORE_M33, N_CORES };
static const char *const core_name[N_CORES] = { "M0", "M33" };
static const char *const core_id[N_CORES] = { "m0", "m33" };
static const int64_t core_budget[N_CORES] = { 253232, 515412 };

enum { CLS_CONVK, CLS_CONV1, CLS_DW, CLS_FC, CLS_ADD, N_CLS };
static const char *const cls_name[N_CLS] = { "conv kxk (gathered)", "conv 1x1", "depthwise", "fully connected",
                                             "add" };

/* One distinct layer and what each core measured. */
typedef struct kc_layer {
    char name[160];          /* where it was first found: "mcunet-in1 op3", "resnet50 layer3.0.conv1" */
    char set[8];             /* tab6, mcunet, random */
    int cls;
    int users;               /* how many graph layers have this geometry */
    int32_t j[KC_FIELDS];
    int64_t bytes;           /* input + output + filter + per-channel values */
    bool run[N_CORES], done[N_CORES];
    uint64_t count[N_CORES][KC_RUNS];
    int st[N_CORES][KC_RUNS];            /* -1: no in-place run */
    int same[N_CORES][2];                /* dual, in place (-1: not run) */
    char crc[N_CORES][12];
} kc_layer;

static kc_layer *layers;
static long n_real_models = -1, n_real_skipped;   /* -1: no models folder given */
static char real_left_out[2048];                   /* "a.tflite (why); b.tflite (why)" */
static char real_read[4096];                       /* "a.tflite, b.tflite": the models read */
static size_t n_layers, cap_layers;

/* A graph layer of a model (for the per-model sums): the distinct layer it is. */
typedef struct kc_use {
    int model;
    size_t layer;
} kc_use;
static kc_use *uses;
static size_t n_uses, cap_uses;

/* The eleven MCUNet models (firmware/models/mcunet/<file>.csv). */
static const char *const models[] = { "mcunet-in0", "mcunet-in1", "mcunet-in2", "mcunet-in3", "mcunet-in4",
                                      "mbv2-w0.35", "proxyless-w0.3", "mcunet-vww0", "mcunet-vww1",
                                      "mcunet-vww2", "person-det" };
enum { N_MODELS = sizeof models / sizeof models[0] };

/* How many layers Tab. 6 takes from each network (as tests/bench/bench_cmsis.c, results/table6.md). */
static const struct {
    const char *net;
    int n;
} tab6[] = {
    { "resnet50", 11 }, { "vgg16", 4 }, { "mobilenet_v1", 6 }, { "mobilenet_v2", 5 }, { "mcunet_in1", 4 },
    { "mcunet_in2", 4 }, { "mcunet_in3", 4 }, { "mcunet_in4", 4 }, { "efficientnet_b0", 4 },
    { "convnext_tiny", 2 }, { "densenet121", 2 }, { "shufflenet_v2_x1_0", 1 }, { "squeezenet1_0", 1 },
    { "squeezenet1_1", 1 }, { "xception", 1 }, { "yolov5n", 1 }, { "yolov5s", 1 }, { "yolov5m", 1 },
    { "yolov5l", 1 }, { "yolov5x", 1 }, { "yolov8n", 1 }, { "yolov8s", 1 }, { "yolov8m", 1 }, { "yolov8l", 1 },
    { "yolov8x", 1 }, { "yolo11n", 1 }, { "yolo11s", 1 }, { "yolo11m", 1 }, { "yolo11l", 1 }, { "yolo11x", 1 },
    { "rtdetr_l", 3 }, { "inception_v3", 2 }, { "deepspeech2", 2 },
};
enum { N_TAB6 = sizeof tab6 / sizeof tab6[0] };

/* realloc, or exit 70 when memory runs out (n 0: one byte). */
static void *xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    if (q == NULL) {
        fprintf(stderr, "kcount: out of memory\n");
        exit(70);
    }
    return q;
}

/* The seed of a geometry: FNV-1a over its fields (the seed field excluded). */
static int32_t geometry_seed(const int32_t *j)
{
    uint32_t h = 2166136261u;
    for (int f = 0; f < KC_FIELDS; f++) {
        if (f == J_SEED)
            continue;
        uint32_t v = (uint32_t)j[f];
        for (int b = 0; b < 4; b++) {
            h ^= (v >> (8 * b)) & 0xffu;
            h *= 16777619u;
        }
    }
    return (int32_t)(h & 0x7fffffffu);
}

/* The class of a descriptor. */
static int class_of(const int32_t *j)
{
    switch (j[J_KIND]) {
    case KC_CONV: return j[J_K_H] == 1 && j[J_K_W] == 1 ? CLS_CONV1 : CLS_CONVK;
    case KC_DW: return CLS_DW;
    case KC_FC: return CLS_FC;
    default: return CLS_ADD;
    }
}

/* The simulator's truth gap of a convolution under rip_dense_gather; -1 when it has none. */
static int32_t truth_gap(const int32_t *j)
{
    rip_layer L = { .cin = j[J_C_IN], .cout = j[J_C_OUT], .h_in = j[J_H_IN], .w_in = j[J_W_IN],
                    .k_h = j[J_K_H], .k_w = j[J_K_W], .s_h = j[J_S_H], .s_w = j[J_S_W], .d_h = j[J_D_H],
                    .d_w = j[J_D_W], .p_top = j[J_P_TOP], .p_bottom = j[J_P_BOTTOM], .p_left = j[J_P_LEFT],
                    .p_right = j[J_P_RIGHT] };
    char err[RIP_ERR_LEN];
    int64_t gap = -1;
    if (rip_layer_derive(&L, err) != 0 || rip_sim_truth(&L, RIP_CONFIG_DENSE_GATHER, RIP_ENGINE_FAST, &gap) != 0)
        return -1;
    return gap <= INT32_MAX ? (int32_t)gap : -1;
}

/* Add a layer (or count one more user of an identical geometry); returns its index. */
static size_t add_layer(const char *set, const char *name, int32_t *j)
{
    j[J_GAP] = -1;
    j[J_SEED] = 0;
    j[J_SEED] = geometry_seed(j);
    for (size_t i = 0; i < n_layers; i++) {
        if (memcmp(layers[i].j, j, sizeof layers[i].j) == 0 && strcmp(layers[i].set, set) == 0) {
            layers[i].users++;
            return i;
        }
    }
    if (n_layers == cap_layers) {
        cap_layers = cap_layers ? 2 * cap_layers : 256;
        layers = xrealloc(layers, cap_layers * sizeof *layers);
    }
    kc_layer *l = &layers[n_layers];
    memset(l, 0, sizeof *l);
    snprintf(l->name, sizeof l->name, "%s", name);
    snprintf(l->set, sizeof l->set, "%s", set);
    l->users = 1;
    l->cls = class_of(j);
    const int64_t n_in = (int64_t)j[J_H_IN] * j[J_W_IN] * j[J_C_IN];
    const int64_t n_out = j[J_KIND] == KC_ADD ? n_in : (int64_t)j[J_H_OUT] * j[J_W_OUT] * j[J_C_OUT];
    const int64_t n_f = j[J_KIND] == KC_CONV ? (int64_t)j[J_C_OUT] * j[J_K_H] * j[J_K_W] * j[J_C_IN]
                        : j[J_KIND] == KC_DW ? (int64_t)j[J_C_OUT] * j[J_K_H] * j[J_K_W]
                        : j[J_KIND] == KC_FC ? (int64_t)j[J_C_IN] * j[J_C_OUT]
                                             : n_in;        /* ADD: the second operand */
    l->bytes = n_in + n_out + n_f + (j[J_KIND] == KC_ADD ? 0 : 12 * (int64_t)j[J_C_OUT]);
    memcpy(l->j, j, sizeof l->j);
    return n_layers++;
}

/* Record that a graph layer of model is the distinct layer `layer` (for the per-model sums). */
static void add_use(int model, size_t layer)
{
    if (n_uses == cap_uses) {
        cap_uses = cap_uses ? 2 * cap_uses : 1024;
        uses = xrealloc(uses, cap_uses * sizeof *uses);
    }
    uses[n_uses++] = (kc_use){ model, layer };
}

/* A convolution descriptor from a geometry (groups 1 or depthwise). */
static void conv_job(int32_t *j, bool dw, int64_t cin, int64_t cout, int64_t h, int64_t w, int64_t kh, int64_t kw,
                     int64_t sh, int64_t sw, int64_t dh, int64_t dw_, int64_t pt, int64_t pb, int64_t pl, int64_t pr,
                     int64_t ho, int64_t wo)
{
    memset(j, 0, KC_FIELDS * sizeof *j);
    const int64_t v[] = { dw ? KC_DW : KC_CONV, h, w, cin, ho, wo, cout, kh, kw, sh, sw, dh, dw_, pt, pb, pl, pr };
    for (size_t f = 0; f < sizeof v / sizeof v[0]; f++)
        j[f] = (int32_t)v[f];
}

/* qsort: the largest input + output first, ties in file order (bench_cmsis.c's rule). */
static int by_footprint(const void *a, const void *b)
{
    const rip_csv_layer *x = a, *y = b;
    const int64_t fx = x->L.n_in_dense + x->L.n_out, fy = y->L.n_in_dense + y->L.n_out;
    if (fx != fy)
        return fx > fy ? -1 : 1;
    return x->row < y->row ? -1 : x->row > y->row;
}

/* The Tab. 6 layers of sweeps/layers/ (as bench_cmsis.c picks them). */
static bool read_tab6(const char *root)
{
    for (int t = 0; t < N_TAB6; t++) {
        char path[4200];
        snprintf(path, sizeof path, "%s/sweeps/layers/%s.csv", root, tab6[t].net);
        FILE *f = fopen(path, "r");
        if (f == NULL) {
            fprintf(stderr, "kcount: %s: %s\n", path, strerror(errno));
            return false;
        }
        rip_layer_table tab;
        char err[RIP_ERR_LEN];
        const rip_status st = rip_layer_csv_read(f, path, false, NULL, &tab, err);
        fclose(f);
        if (st != RIP_OK) {
            fprintf(stderr, "kcount: %s\n", err);
            return false;
        }
        rip_csv_layer *conv = xrealloc(NULL, (tab.n + 1) * sizeof *conv), *dw = xrealloc(NULL, (tab.n + 1) * sizeof *dw);
        size_t nc = 0, nd = 0;
        for (size_t i = 0; i < tab.n; i++) {
            const rip_csv_layer *r = &tab.rows[i];
            if (r->groups == 1)
                conv[nc++] = *r;
            else if (r->groups == r->L.cin && r->L.cin == r->L.cout)
                dw[nd++] = *r;
        }
        qsort(conv, nc, sizeof *conv, by_footprint);
        qsort(dw, nd, sizeof *dw, by_footprint);
        const size_t want = (size_t)tab6[t].n < nc ? (size_t)tab6[t].n : nc;
        for (size_t i = 0; i < want + (nd > 0); i++) {
            const rip_csv_layer *r = i < want ? &conv[i] : &dw[0];
            const rip_layer *L = &r->L;
            int32_t j[KC_FIELDS];
            conv_job(j, i >= want, L->cin, L->cout, L->h_in, L->w_in, L->k_h, L->k_w, L->s_h, L->s_w, L->d_h, L->d_w,
                     L->p_top, L->p_bottom, L->p_left, L->p_right, L->h_out, L->w_out);
            char name[160];
            snprintf(name, sizeof name, "tab6 %s %s", tab6[t].net, r->name);
            add_layer("tab6", name, j);
        }
        free(conv);
        free(dw);
        rip_layer_table_free(&tab);
    }
    return true;
}

/* The conv2d, pointwise, depthwise, fc and add rows of the MCUNet graphs (README of firmware/models:
** op_id, op, inputs, h_in, w_in, c_in, h_out, w_out, c_out, k_h, k_w, s_h, s_w, p_top, p_left, p_bottom,
** p_right, d_h, d_w, dtype_bytes). */
static bool read_mcunet(const char *root)
{
    for (int m = 0; m < N_MODELS; m++) {
        char path[4200], line[1024];
        snprintf(path, sizeof path, "%s/firmware/models/mcunet/%s.csv", root, models[m]);
        FILE *f = fopen(path, "r");
        if (f == NULL) {
            fprintf(stderr, "kcount: %s: %s\n", path, strerror(errno));
            return false;
        }
        bool header = true;
        while (fgets(line, sizeof line, f)) {
            if (header) {
                header = false;
                continue;
            }
            char op[32], inputs[128];
            long v[17];
            if (sscanf(line, "%ld,%31[^,],%127[^,],%ld,%ld,%ld,%ld,%ld,%ld,%ld,%ld,%ld,%ld,%ld,%ld,%ld,%ld,%ld,%ld",
                       &v[0], op, inputs, &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7], &v[8], &v[9], &v[10],
                       &v[11], &v[12], &v[13], &v[14], &v[15], &v[16]) != 19) {
                fprintf(stderr, "kcount: %s: a row kcount cannot read: %s", path, line);
                fclose(f);
                return false;
            }
            /* v: 1 h_in 2 w_in 3 c_in 4 h_out 5 w_out 6 c_out 7 k_h 8 k_w 9 s_h 10 s_w 11 p_top 12 p_left
            **    13 p_bottom 14 p_right 15 d_h 16 d_w */
            int32_t j[KC_FIELDS];
            const bool conv = strcmp(op, "conv2d") == 0 || strcmp(op, "pointwise") == 0;
            const bool dw = strcmp(op, "depthwise") == 0;
            if (conv || dw) {
                conv_job(j, dw, v[3], v[6], v[1], v[2], v[7], v[8], v[9], v[10], v[15], v[16], v[11], v[13], v[12],
                         v[14], v[4], v[5]);
            } else if (strcmp(op, "fc") == 0 || strcmp(op, "add") == 0) {
                memset(j, 0, sizeof j);
                const bool fc = op[0] == 'f';
                j[J_KIND] = fc ? KC_FC : KC_ADD;
                j[J_H_IN] = fc ? 1 : (int32_t)v[1];
                j[J_W_IN] = fc ? 1 : (int32_t)v[2];
                j[J_C_IN] = (int32_t)(fc ? v[1] * v[2] * v[3] : v[3]);
                j[J_H_OUT] = fc ? 1 : (int32_t)v[4];
                j[J_W_OUT] = fc ? 1 : (int32_t)v[5];
                j[J_C_OUT] = (int32_t)v[6];
                j[J_K_H] = j[J_K_W] = j[J_S_H] = j[J_S_W] = j[J_D_H] = j[J_D_W] = 1;
            } else {
                continue;
            }
            char name[160];
            snprintf(name, sizeof name, "%s op%ld", models[m], v[0]);
            add_use(m, add_layer("mcunet", name, j));
        }
        fclose(f);
    }
    return true;
}

/* SAME padding's top (or left) and bottom (or right) of one axis, TFLite's rule; VALID: none. */
static void tfl_pad(int padding, int64_t in, int64_t out, int64_t k, int64_t s, int64_t d, int64_t *lo, int64_t *hi)
{
    const int64_t total = (out - 1) * s + d * (k - 1) + 1 - in;
    *lo = padding == RIP_TFL_PAD_SAME && total > 0 ? total / 2 : 0;
    *hi = padding == RIP_TFL_PAD_SAME && total > 0 ? total - total / 2 : 0;
}

/* A tensor's shape as NHWC of rank 4 batch 1: false otherwise. */
static bool nhwc(const rip_tfl_subgraph *sg, int32_t t, int64_t v[3])
{
    if (t < 0 || (size_t)t >= sg->n_tensors || sg->tensors[t].rank != 4 || sg->tensors[t].shape[0] != 1)
        return false;
    for (int i = 0; i < 3; i++)
        v[i] = sg->tensors[t].shape[i + 1];
    return true;
}

/* The number of elements of tensor t. */
static int64_t elements(const rip_tfl_subgraph *sg, int32_t t)
{
    int64_t n = 1;
    for (size_t i = 0; i < sg->tensors[t].rank; i++)
        n *= sg->tensors[t].shape[i];
    return n;
}

/* The conv, depthwise, fc and add operators of one .tflite model (subgraph 0); false when it does not
** load or check (reported, named in real_left_out, left out); an operator kcount cannot express (batch above 1, groups,
** a broadcast add) is counted in *n_skipped. */
static bool read_model(const char *path, const char *label, long *n_skipped)
{
    rip_tfl_model m = { 0 };
    char err[RIP_ERR_LEN];
    if (rip_tfl_model_load(path, &m, err) != RIP_OK || rip_tfl_check(&m, err) != RIP_OK) {
        fprintf(stderr, "kcount: %s: left out (%s)\n", path, err);
        const size_t used = strlen(real_left_out);
        const size_t pl = strlen(path);                 /* err is "PATH: WHERE: WHAT" */
        const char *why = strncmp(err, path, pl) == 0 && err[pl] == ':' ? err + pl + 2 : err;
        snprintf(real_left_out + used, sizeof real_left_out - used, "%s%.100s (%.100s)", used ? "; " : "", label,
                 why);
        rip_tfl_model_free(&m);
        return false;
    }
    const size_t used = strlen(real_read);
    snprintf(real_read + used, sizeof real_read - used, "%s%.120s", used ? ", " : "", label);
    const rip_tfl_subgraph *sg = &m.subgraphs[0];
    for (size_t o = 0; o < sg->n_operators; o++) {
        const rip_tfl_operator *op = &sg->operators[o];
        const int32_t code = rip_tfl_op_code(&m, op)->builtin;
        int32_t j[KC_FIELDS];
        memset(j, 0, sizeof j);
        int64_t in[3], out[3], pt, pb, pl, pr;
        bool ok = false;
        if ((code == RIP_TFL_OP_CONV_2D || code == RIP_TFL_OP_DEPTHWISE_CONV_2D) && op->n_inputs >= 2 &&
            op->n_outputs == 1 && op->options_decoded && nhwc(sg, op->inputs[0], in) && nhwc(sg, op->outputs[0], out) &&
            op->inputs[1] >= 0 && sg->tensors[op->inputs[1]].rank == 4) {
            const int32_t *f = sg->tensors[op->inputs[1]].shape;
            const bool dw = code == RIP_TFL_OP_DEPTHWISE_CONV_2D;
            const int pad = dw ? op->opt.dw.padding : op->opt.conv.padding;
            const int64_t sh = dw ? op->opt.dw.stride_h : op->opt.conv.stride_h;
            const int64_t sw = dw ? op->opt.dw.stride_w : op->opt.conv.stride_w;
            const int64_t dh = dw ? op->opt.dw.dilation_h : op->opt.conv.dilation_h;
            const int64_t dwd = dw ? op->opt.dw.dilation_w : op->opt.conv.dilation_w;
            tfl_pad(pad, in[0], out[0], f[1], sh, dh, &pt, &pb);
            tfl_pad(pad, in[1], out[1], f[2], sw, dwd, &pl, &pr);
            ok = dw ? f[3] == out[2] && out[2] % in[2] == 0 : f[0] == out[2] && f[3] == in[2];
            if (ok)
                conv_job(j, dw, in[2], out[2], in[0], in[1], f[1], f[2], sh, sw, dh, dwd, pt, pb, pl, pr, out[0],
                         out[1]);
        } else if (code == RIP_TFL_OP_FULLY_CONNECTED && op->n_inputs >= 2 && op->inputs[1] >= 0 &&
                   sg->tensors[op->inputs[1]].rank == 2) {
            const int32_t *f = sg->tensors[op->inputs[1]].shape;
            ok = elements(sg, op->inputs[0]) == f[1];          /* batch 1 */
            j[J_KIND] = KC_FC;
            j[J_H_IN] = j[J_W_IN] = j[J_H_OUT] = j[J_W_OUT] = 1;
            j[J_C_IN] = f[1];
            j[J_C_OUT] = f[0];
            j[J_K_H] = j[J_K_W] = j[J_S_H] = j[J_S_W] = j[J_D_H] = j[J_D_W] = 1;
        } else if (code == RIP_TFL_OP_ADD && op->n_inputs == 2 && op->inputs[0] >= 0 && op->inputs[1] >= 0) {
            const int64_t n = elements(sg, op->inputs[0]);
            ok = n == elements(sg, op->inputs[1]) && n == elements(sg, op->outputs[0]) && n <= INT32_MAX;
            j[J_KIND] = KC_ADD;
            j[J_H_IN] = j[J_W_IN] = j[J_H_OUT] = j[J_W_OUT] = 1;
            j[J_C_IN] = j[J_C_OUT] = (int32_t)n;
            j[J_K_H] = j[J_K_W] = j[J_S_H] = j[J_S_W] = j[J_D_H] = j[J_D_W] = 1;
        } else {
            continue;
        }
        if (!ok) {
            ++*n_skipped;
            continue;
        }
        char name[300];
        snprintf(name, sizeof name, "%.120s op%zu", label, o);
        add_layer("real", name, j);
    }
    rip_tfl_model_free(&m);
    return true;
}

/* qsort: strings in byte order. */
static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The sorted entries of folder dir ending in suffix ("" any), not hidden; n of them. */
static char **list_dir(const char *dir, const char *suffix, size_t *n)
{
    DIR *d = opendir(dir);
    char **v = NULL;
    size_t cap = 0;
    *n = 0;
    for (struct dirent *e; d && (e = readdir(d)) != NULL;) {
        const size_t len = strlen(e->d_name), sl = strlen(suffix);
        if (e->d_name[0] == '.' || len < sl || strcmp(e->d_name + len - sl, suffix) != 0)
            continue;
        if (*n == cap)
            v = xrealloc(v, (cap = cap ? 2 * cap : 16) * sizeof *v);
        v[*n] = xrealloc(NULL, len + 1);
        memcpy(v[(*n)++], e->d_name, len + 1);
    }
    if (d)
        closedir(d);
    if (*n)
        qsort(v, *n, sizeof *v, by_name);
    return v;
}

/* How many models were read of the real models: TFLM's person_detect when tflm_dir (the TFLM tree) is given, then every .tflite
** one level under the models folder, in name order. */
static long read_real(const char *tflm_dir, const char *models_dir, long *n_skipped)
{
    size_t n_sub, n_files;
    char **sub = list_dir(models_dir, "", &n_sub);
    long n_models = 0;
    if (tflm_dir != NULL) {
        char path[4400];
        snprintf(path, sizeof path, "%s/tflite-micro/tensorflow/lite/micro/models/person_detect.tflite", tflm_dir);
        n_models += read_model(path, "tflm/person_detect.tflite", n_skipped);
    }
    for (size_t a = 0; a < n_sub; a++) {
        char dir[4200], path[8400], label[256];
        snprintf(dir, sizeof dir, "%s/%s", models_dir, sub[a]);
        char **files = list_dir(dir, ".tflite", &n_files);
        for (size_t b = 0; b < n_files; b++) {
            snprintf(path, sizeof path, "%s/%s", dir, files[b]);
            snprintf(label, sizeof label, "%s/%s", sub[a], files[b]);
            n_models += read_model(path, label, n_skipped);
            free(files[b]);
        }
        free(files);
        free(sub[a]);
    }
    free(sub);
    return n_models;
}

/* n seeded random layers: conv (k 1-5, stride 1-2, dilation 1-2), depthwise (multiplier 1-3), fc; the
** padding top/left in [0, k_eff) as CMSIS-NN takes it, the bottom/right what the output size implies. */
static void random_layers(long n)
{
    rng_state = 0x24u;
    for (long i = 0; i < n; i++) {
        int32_t j[KC_FIELDS];
        memset(j, 0, sizeof j);
        const int kind = (int)rng_int(0, 2);
        if (kind == 2) {
            j[J_KIND] = KC_FC;
            j[J_H_IN] = j[J_W_IN] = j[J_H_OUT] = j[J_W_OUT] = 1;
            j[J_C_IN] = (int32_t)rng_int(1, 300);
            j[J_C_OUT] = (int32_t)rng_int(1, 64);
            j[J_K_H] = j[J_K_W] = j[J_S_H] = j[J_S_W] = j[J_D_H] = j[J_D_W] = 1;
        } else {
            const bool dw = kind == 1;
            j[J_KIND] = dw ? KC_DW : KC_CONV;
            j[J_C_IN] = (int32_t)rng_int(1, dw ? 32 : 24);
            j[J_C_OUT] = dw ? j[J_C_IN] * (int32_t)(rng_int(0, 3) == 0 ? rng_int(2, 3) : 1) : (int32_t)rng_int(1, 24);
            for (int a = 0; a < 2; a++) {
                const int32_t in = (int32_t)rng_int(1, 16), k = (int32_t)rng_int(1, 5), s = (int32_t)rng_int(1, 2);
                const int32_t d = rng_int(0, 4) == 0 ? 2 : 1, keff = d * (k - 1) + 1;
                const int32_t p = (int32_t)rng_int(0, keff - 1), p2 = (int32_t)rng_int(0, keff - 1);
                const int32_t span = in + p + p2 - keff;
                if (span < 0) {
                    a--;
                    continue;
                }
                const int32_t out = span / s + 1, pb = (out - 1) * s + keff - in - p;
                j[a ? J_W_IN : J_H_IN] = in;
                j[a ? J_W_OUT : J_H_OUT] = out;
                j[a ? J_K_W : J_K_H] = k;
                j[a ? J_S_W : J_S_H] = s;
                j[a ? J_D_W : J_D_H] = d;
                j[a ? J_P_LEFT : J_P_TOP] = p;
                j[a ? J_P_RIGHT : J_P_BOTTOM] = pb > 0 ? pb : 0;
            }
        }
        char name[64];
        snprintf(name, sizeof name, "random %ld", i);
        const size_t k = add_layer("random", name, j);
        layers[k].j[J_SEED] ^= (int32_t)(i & 0xffff) << 8;   /* each draw its own data, even on a repeated shape */
    }
}

/* The address of symbol sym in elf (from nm), or "" */
static void symbol(const char *elf, const char *sym, char out[32])
{
    char cmd[4400];
    snprintf(cmd, sizeof cmd, "arm-none-eabi-nm '%s'", elf);
    out[0] = '\0';
    FILE *p = popen(cmd, "r");
    if (p == NULL)
        return;
    char addr[24], type[8], name[256];
    while (fscanf(p, "%23s %7s %255s", addr, type, name) == 3)
        if (strcmp(name, sym) == 0 && out[0] == '\0')
            snprintf(out, 32, "0x%s", addr);
    pclose(p);
}

/* Run the layers selected for core c in QEMU and read what the harness and the plugin wrote. */
static bool run_core(int c, const char *work, const char *qemu, int timeout_s)
{
    char elf[4200], jobs[4200], answers[4200], counts[4200], errs[4200], plugin[4200];
    snprintf(elf, sizeof elf, "%s/kcount_%s.elf", work, core_id[c]);
    snprintf(jobs, sizeof jobs, "%s/jobs_%s.bin", work, core_id[c]);
    snprintf(answers, sizeof answers, "%s/answers_%s.txt", work, core_id[c]);
    snprintf(counts, sizeof counts, "%s/icount_%s.txt", work, core_id[c]);
    snprintf(errs, sizeof errs, "%s/stderr_%s.txt", work, core_id[c]);
    snprintf(plugin, sizeof plugin, "%s/libicount.so", work);
    FILE *f = fopen(jobs, "wb");
    if (f == NULL) {
        fprintf(stderr, "kcount: %s: %s\n", jobs, strerror(errno));
        return false;
    }
    size_t n = 0;
    for (size_t i = 0; i < n_layers; i++)
        if (layers[i].run[c]) {
            fwrite(layers[i].j, sizeof layers[i].j, 1, f);
            n++;
        }
    if (fclose(f) != 0)
        return false;
    char b[32], e[32];
    symbol(elf, "rk_mark_begin", b);
    symbol(elf, "rk_mark_end", e);
    if (!b[0] || !e[0]) {
        fprintf(stderr, "kcount: %s: no rk_mark_begin/rk_mark_end\n", elf);
        return false;
    }
    remove(counts);
    char cmd[30000];
    snprintf(cmd, sizeof cmd,
             "timeout %d '%s' %s -display none -monitor none -serial none "
             "-semihosting-config enable=on,target=native -plugin 'file=%s,begin=%s,end=%s,out=%s' "
             "-kernel '%s' < '%s' > '%s' 2> '%s'",
             timeout_s, qemu,
             c == CORE_M0 ? "-M microbit -global nrf51-soc.sram-size=0x400000 -global nrf51-soc.flash-size=0x200000"
                          : "-M mps2-an505",
             plugin, b, e, counts, elf, jobs, answers, errs);
    const int rc = system(cmd);
    FILE *a = fopen(answers, "r"), *k = fopen(counts, "r");
    bool ok = a && k;
    size_t got = 0;
    for (size_t i = 0; ok && i < n_layers; i++) {
        kc_layer *l = &layers[i];
        if (!l->run[c])
            continue;
        long idx;
        char sd[12], si[12], sc[12], qd[4], qi[4];
        if (fscanf(a, " kc %ld dual=%11s inplace=%11s cmsis=%11s same_dual=%3s same_inplace=%3s crc=%11s", &idx, sd,
                   si, sc, qd, qi, l->crc[c]) != 7)
            break;
        unsigned long long cnt[KC_RUNS];
        for (int r = 0; r < KC_RUNS; r++)
            if (fscanf(k, " icount total=%llu ops=", &cnt[r]) != 1)
                ok = false;
        if (!ok)
            break;
        const char *s3[KC_RUNS] = { sd, si, sc };
        for (int r = 0; r < KC_RUNS; r++) {
            l->count[c][r] = cnt[r];
            l->st[c][r] = strcmp(s3[r], "-") == 0 ? -1 : atoi(s3[r]);
        }
        l->same[c][0] = atoi(qd);
        l->same[c][1] = strcmp(qi, "-") == 0 ? -1 : atoi(qi);
        l->done[c] = true;
        got++;
    }
    if (a)
        fclose(a);
    if (k)
        fclose(k);
    if (rc != 0 || got != n) {
        fprintf(stderr, "kcount: %s: QEMU ran %zu of %zu layers (status %d; see %s)\n", core_name[c], got, n, rc, errs);
        return false;
    }
    return true;
}

/* "12x12x8 > 12x12x16 k3x3 s1x1 d1x1 p1,1,1,1" */
static void geometry(const int32_t *j, char *buf, size_t len)
{
    if (j[J_KIND] == KC_FC)
        snprintf(buf, len, "%d > %d", j[J_C_IN], j[J_C_OUT]);
    else if (j[J_KIND] == KC_ADD)
        snprintf(buf, len, "%dx%dx%d", j[J_H_IN], j[J_W_IN], j[J_C_IN]);
    else
        snprintf(buf, len, "%dx%dx%d > %dx%dx%d k%dx%d s%dx%d d%dx%d p%d,%d,%d,%d", j[J_H_IN], j[J_W_IN], j[J_C_IN],
                 j[J_H_OUT], j[J_W_OUT], j[J_C_OUT], j[J_K_H], j[J_K_W], j[J_S_H], j[J_S_W], j[J_D_H], j[J_D_W],
                 j[J_P_TOP], j[J_P_BOTTOM], j[J_P_LEFT], j[J_P_RIGHT]);
}

/* Whether layer l is bit-exact and every kernel succeeded on core c. */
static bool exact(const kc_layer *l, int c)
{
    return l->done[c] && l->st[c][KC_RUN_DUAL] == 0 && l->st[c][KC_RUN_CMSIS] == 0 && l->same[c][0] == 1 &&
           (l->st[c][KC_RUN_INPLACE] == -1 || (l->st[c][KC_RUN_INPLACE] == 0 && l->same[c][1] == 1));
}

/* The per-layer row of l on core c (the rows --check looks for). */
static void layer_row(const kc_layer *l, int c, char *buf, size_t len)
{
    char g[160], gap[16], ip[32], r2[32];
    geometry(l->j, g, sizeof g);
    const bool has_ip = l->st[c][KC_RUN_INPLACE] != -1;
    snprintf(gap, sizeof gap, l->j[J_KIND] == KC_CONV && l->j[J_GAP] >= 0 ? "%d" : "-", l->j[J_GAP]);
    snprintf(ip, sizeof ip, has_ip ? "%" PRIu64 : "-", l->count[c][KC_RUN_INPLACE]);
    snprintf(r2, sizeof r2, has_ip ? "%.3f" : "-",
             (double)l->count[c][KC_RUN_INPLACE] / (double)l->count[c][KC_RUN_DUAL]);
    snprintf(buf, len, "| %s | %s | %s | %s | %s | %" PRIu64 " | %s | %" PRIu64 " | %.3f | %s | %s |", core_name[c],
             l->name, cls_name[l->cls], g, gap, l->count[c][KC_RUN_DUAL], ip, l->count[c][KC_RUN_CMSIS],
             (double)l->count[c][KC_RUN_DUAL] / (double)l->count[c][KC_RUN_CMSIS], r2, exact(l, c) ? "yes" : "NO");
}

/* qsort: doubles ascending. */
static int by_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The median of v[0..n-1], n >= 1 (v is sorted in place). */
static double median(double *v, size_t n)
{
    qsort(v, n, sizeof *v, by_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* a and b equal but for the case of ASCII letters. */
static bool same_name(const char *a, const char *b)
{
    for (; *a && *b; a++, b++)
        if (tolower((unsigned char)*a) != tolower((unsigned char)*b))
            return false;
    return *a == *b;
}

/* model's M33 instructions per inference in deployment.json (plan base or rip), -1 when absent. */
static long long deployment(const char *root, const char *model, const char *plan)
{
    char path[4200], line[65536];
    snprintf(path, sizeof path, "%s/results/deployment.json", root);
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return -1;
    long long r = -1;
    while (r < 0 && fgets(line, sizeof line, f)) {
        char m[64], p[16];
        long long n;
        const char *s = strstr(line, "\"model\": \""), *t = strstr(line, "\"target\": \"qemu-m33\"");
        const char *q = strstr(line, "\"plan\": \""), *i = strstr(line, "\"instructions\": ");
        if (!s || !t || !q || !i || sscanf(s, "\"model\": \"%63[^\"]", m) != 1 ||
            sscanf(q, "\"plan\": \"%15[^\"]", p) != 1 || sscanf(i, "\"instructions\": %lld", &n) != 1)
            continue;
        if (same_name(m, model) && strcmp(p, plan) == 0)
            r = n;
    }
    fclose(f);
    return r;
}

/* The paper's Pico 2 cycles of the model, millions (firmware/models/mcunet/table3_deployment_reference.csv). */
static double paper_mcycles(const char *root, const char *model)
{
    char path[4200], line[512];
    snprintf(path, sizeof path, "%s/firmware/models/mcunet/table3_deployment_reference.csv", root);
    FILE *f = fopen(path, "r");
    double r = -1;
    while (f && r < 0 && fgets(line, sizeof line, f)) {
        char m[64];
        double v;
        if (sscanf(line, "%63[^,],%lf", m, &v) == 2 && strcmp(m, model) == 0)
            r = v;
    }
    if (f)
        fclose(f);
    return r;
}

/* The rows of the per-class table: every set but random (set NULL) or only set, whose name then
** opens each row. */
static void class_rows(FILE *o, const char *set)
{
    double *v = xrealloc(NULL, (n_layers + 1) * sizeof *v), *w = xrealloc(NULL, (n_layers + 1) * sizeof *w);
    for (int c = 0; c < N_CORES; c++)
        for (int k = 0; k < N_CLS; k++) {
            size_t n = 0, nw = 0, over = 0, ex = 0, iover = 0;
            double worst = 0, wworst = 0, iworst = 0;
            for (size_t i = 0; i < n_layers; i++) {
                const kc_layer *l = &layers[i];
                if (!l->done[c] || l->cls != k || strcmp(l->set, "random") == 0 ||
                    (set != NULL && strcmp(l->set, set) != 0))
                    continue;
                v[n] = (double)l->count[c][KC_RUN_DUAL] / (double)l->count[c][KC_RUN_CMSIS];
                worst = v[n] > worst ? v[n] : worst;
                over += l->count[c][KC_RUN_DUAL] > l->count[c][KC_RUN_CMSIS];
                ex += exact(l, c);
                n++;
                if (l->st[c][KC_RUN_INPLACE] != -1) {
                    w[nw] = (double)l->count[c][KC_RUN_INPLACE] / (double)l->count[c][KC_RUN_DUAL];
                    wworst = w[nw] > wworst ? w[nw] : wworst;
                    const double ic = (double)l->count[c][KC_RUN_INPLACE] / (double)l->count[c][KC_RUN_CMSIS];
                    iworst = ic > iworst ? ic : iworst;
                    iover += l->count[c][KC_RUN_INPLACE] > l->count[c][KC_RUN_CMSIS];
                    nw++;
                }
            }
            if (n == 0)
                continue;
            if (set != NULL)
                fprintf(o, "| %s ", set);
            fprintf(o, "| %s | %s | %zu | %.3f | %.3f | %zu | %zu/%zu |", core_name[c], cls_name[k], n, median(v, n),
                    worst, over, ex, n);
            if (nw)
                fprintf(o, " %.3f | %.3f | %.3f | %zu |\n", median(w, nw), wworst, iworst, iover);
            else
                fprintf(o, " - | - | - | - |\n");
        }
    free(v);
    free(w);
}

/* The first line cmd prints (a tool's version), newline dropped; "unknown" when it prints none. */
static void first_line(const char *cmd, char *out, size_t len)
{
    snprintf(out, len, "unknown");
    FILE *p = popen(cmd, "r");
    if (p == NULL)
        return;
    if (fgets(out, (int)len, p) == NULL)
        snprintf(out, len, "unknown");
    out[strcspn(out, "\n")] = '\0';
    pclose(p);
}

/* The markdown of the measured layers. */
static void write_md(FILE *o, const char *root, int every)
{
    fprintf(o, "# Kernel instructions: ripsim against CMSIS-NN, per layer, in QEMU\n\n");
    fprintf(o, "Generated by `meson compile -C build kernels-md` (tests/kcount/kcount.c); do not edit.\n"
               "Pinned by the `kernels_md` suite (tests/test_kernels_md.c).  Instruction counts\n"
               "are QEMU's (the TCG plugin firmware/tools/icount.c), deterministic; host times\n"
               "stay benchmarks.%s\n\n",
            every > 1 ? "  **This is a subset run (--every): not the committed file.**" : "");
    fprintf(o, "Each layer runs in the bare-metal harness tests/kcount/kcount_target.c on seeded\n"
               "data: ripsim's dual-buffer kernel (rk_conv2d, rk_depthwise, rk_fully_connected,\n"
               "rk_add), its in-place kernel (rk_conv2d_rip, dense gather, at the simulator's\n"
               "truth gap; rk_depthwise_inplace) and the CMSIS-NN v7 kernel TFLM's cmsis_nn\n"
               "wrappers call, each counted alone; every output is compared with CMSIS-NN's\n"
               "byte for byte on the target.  Cores: M0 = QEMU microbit, -mcpu=cortex-m0plus,\n"
               "CMSIS-NN's pure C; M33 = QEMU mps2-an505, -mcpu=cortex-m33 -mfloat-abi=softfp,\n"
               "CMSIS-NN's DSP path; both -O2 with the same compiler.  A layer runs on a core\n"
               "when its input, output, filter and per-channel values fit the core's Pico model\n"
               "budget (253,232 B M0, 515,412 B M33).  Layers: the Tab. 6 selection of\n"
               "sweeps/layers/ (tab6) and every conv, depthwise, fc and add of the eleven MCUNet\n"
               "graphs (mcunet), each distinct geometry once");
    if (n_real_models >= 0)
        fprintf(o, ", and the conv, depthwise, fc and add operators of %ld real .tflite\n"
                   "models (real: %s; from the models folder, meson option models_path, and\n"
                   "the TFLM tree, tflm_path; %ld operators left out that the harness cannot\n"
                   "express: batch above 1, grouped, broadcast)",
                n_real_models, real_read, n_real_skipped);
    fprintf(o, ".\n\n");
    if (real_left_out[0])
        fprintf(o, "Real models left out (ripsim's TFLite reader does not take them): %s.\n\n", real_left_out);
    char gcc[256], libc[256];
    first_line("arm-none-eabi-gcc --version 2>/dev/null", gcc, sizeof gcc);
    first_line("dpkg-query -W -f '${Version}' picolibc-arm-none-eabi 2>/dev/null", libc, sizeof libc);
    fprintf(o, "Compiler: %s, picolibc %s (firmware/tools/versions.sh's\n"
               "readings); the counts are of this code: another version gives other counts\n"
               "(regenerate the page).\n\n", gcc, libc);
    fprintf(o, "## Per layer class and core\n\n");
    fprintf(o, "ratio = ripsim dual-buffer instructions / CMSIS-NN instructions (below 1: ripsim\n"
               "executes fewer); RiP/dual = in-place instructions / dual-buffer instructions; RiP/CMSIS-NN =\n"
               "in-place instructions / CMSIS-NN's (the kernel the RiP and TinyEngine plans run).\n\n");
    fprintf(o, "| core | class | layers | median ratio | worst ratio | ripsim > CMSIS-NN | bit-exact | "
               "median RiP/dual | worst RiP/dual | worst RiP/CMSIS-NN | RiP > CMSIS-NN |\n"
               "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    class_rows(o, NULL);
    fprintf(o, "\nThe same per layer set (tab6: Tab. 6's selection; mcunet: the MCUNet graphs; real: the\n"
               ".tflite models):\n\n");
    fprintf(o, "| set | core | class | layers | median ratio | worst ratio | ripsim > CMSIS-NN | bit-exact | "
               "median RiP/dual | worst RiP/dual | worst RiP/CMSIS-NN | RiP > CMSIS-NN |\n"
               "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    static const char *const sets[] = { "tab6", "mcunet", "real" };
    for (size_t k = 0; k < sizeof sets / sizeof sets[0]; k++)
        class_rows(o, sets[k]);

    fprintf(o, "\n## Layers where ripsim executes more instructions than CMSIS-NN\n\n");
    fprintf(o, "Per core and class, each layer with its ratio.\n\n");
    for (int c = 0; c < N_CORES; c++)
        for (int k = 0; k < N_CLS; k++) {
            size_t n = 0;
            for (size_t i = 0; i < n_layers; i++) {
                const kc_layer *l = &layers[i];
                if (!l->done[c] || l->cls != k || strcmp(l->set, "random") == 0 ||
                    l->count[c][KC_RUN_DUAL] <= l->count[c][KC_RUN_CMSIS])
                    continue;
                if (n++ == 0)
                    fprintf(o, "- %s, %s:", core_name[c], cls_name[k]);
                fprintf(o, "%s %s (%.3f)", n > 1 ? ";" : "", l->name,
                        (double)l->count[c][KC_RUN_DUAL] / (double)l->count[c][KC_RUN_CMSIS]);
            }
            if (n)
                fprintf(o, ".\n");
        }
    fprintf(o, "\n");

    fprintf(o, "## Per model (Cortex-M33)\n\n");
    fprintf(o, "Instructions per inference of the generated firmware in QEMU (results/deployment.json,\n"
               "plan base and rip) beside the paper's Pico 2 cycles (Tab. 3); then the sums over the\n"
               "model's conv, depthwise, fc and add layers measured here, ripsim dual buffer and\n"
               "CMSIS-NN (other operators, pooling and the like, not included).\n\n");
    fprintf(o, "| model | base instr. (M) | rip instr. (M) | paper Pico 2 Mcycles | layers: ripsim (M) | "
               "layers: CMSIS-NN (M) | ratio |\n|---|---:|---:|---:|---:|---:|---:|\n");
    for (int m = 0; m < N_MODELS; m++) {
        uint64_t rs = 0, cs = 0;
        bool all = true;
        for (size_t u = 0; u < n_uses; u++) {
            if (uses[u].model != m)
                continue;
            const kc_layer *l = &layers[uses[u].layer];
            all = all && l->done[CORE_M33];
            rs += l->count[CORE_M33][KC_RUN_DUAL];
            cs += l->count[CORE_M33][KC_RUN_CMSIS];
        }
        const long long base = deployment(root, models[m], "base"), rip = deployment(root, models[m], "rip");
        const double paper = paper_mcycles(root, models[m]);
        fprintf(o, "| %s | %.1f | %.1f | %.1f |", models[m], (double)base / 1e6, (double)rip / 1e6, paper);
        if (all && cs > 0)
            fprintf(o, " %.1f | %.1f | %.3f |\n", (double)rs / 1e6, (double)cs / 1e6, (double)rs / (double)cs);
        else
            fprintf(o, " - | - | - |\n");
    }

    fprintf(o, "\n## Skipped layers\n\n");
    for (int c = 0; c < N_CORES; c++) {
        size_t n = 0;
        fprintf(o, "%s, above its budget:", core_name[c]);
        for (size_t i = 0; i < n_layers; i++)
            if (!layers[i].run[c] && strcmp(layers[i].set, "random") != 0 && layers[i].bytes > core_budget[c])
                n++;
        fprintf(o, " %zu layers", n);
        size_t shown = 0;
        for (size_t i = 0; i < n_layers; i++)
            if (!layers[i].run[c] && strcmp(layers[i].set, "random") != 0 && layers[i].bytes > core_budget[c])
                fprintf(o, "%s %s (%" PRId64 " B)", shown++ ? ";" : ":", layers[i].name, layers[i].bytes);
        fprintf(o, ".\n\n");
    }

    fprintf(o, "## Every layer\n\n");
    fprintf(o, "| core | layer | class | geometry (in > out, kernel, stride, dilation, pad t,b,l,r) | gap | "
               "ripsim dual | ripsim in place | CMSIS-NN | ratio | RiP/dual | bit-exact |\n"
               "|---|---|---|---|---:|---:|---:|---:|---:|---:|---|\n");
    char row[2048];
    for (int c = 0; c < N_CORES; c++)
        for (size_t i = 0; i < n_layers; i++)
            if (layers[i].done[c] && strcmp(layers[i].set, "random") != 0) {
                layer_row(&layers[i], c, row, sizeof row);
                fprintf(o, "%s\n", row);
            }
}

/* Every measured row in the file at path; false (each missing row on stderr) otherwise. */
static bool check_rows(const char *path)
{
    FILE *f = fopen(path, "r");
    if (f == NULL) {
        fprintf(stderr, "kcount: %s: %s\n", path, strerror(errno));
        return false;
    }
    size_t cap = 1 << 16, len = 0;
    char *text = xrealloc(NULL, cap);
    for (size_t got; (got = fread(text + len, 1, cap - len - 1, f)) > 0;) {
        len += got;
        if (cap - len < 4096)
            text = xrealloc(text, cap *= 2);
    }
    text[len] = '\0';
    fclose(f);
    bool ok = true;
    char row[2048], needle[2100];
    for (int c = 0; c < N_CORES; c++)
        for (size_t i = 0; i < n_layers; i++)
            if (layers[i].done[c] && strcmp(layers[i].set, "random") != 0) {
                layer_row(&layers[i], c, row, sizeof row);
                snprintf(needle, sizeof needle, "\n%s\n", row);
                if (strstr(text, needle) == NULL) {
                    fprintf(stderr, "kcount: not in %s as measured: %s\n", path, row);
                    ok = false;
                }
            }
    free(text);
    return ok;
}

/* The usage line on stderr, exit 64. */
static void usage(void)
{
    fprintf(stderr, "usage: kcount --src ROOT --cmsis DIR --work DIR [--out FILE] [--check FILE] [--every K]\n"
                    "              [--models DIR [--tflm DIR]] [--random N] [--cores m0,m33] [--timeout SECONDS]\n");
    exit(64);
}

/* The file's head says what it does. */
int main(int argc, char **argv)
{
    const char *root = NULL, *cmsis = NULL, *work = NULL, *out = NULL, *check = NULL, *cores = "m0,m33";
    const char *qemu = getenv("QEMU_SYSTEM_ARM"), *models_dir = NULL, *tflm_dir = NULL;
    long every = 1, n_random = 0;
    int timeout_s = 3600;
    for (int i = 1; i < argc; i++) {
        if (i + 1 >= argc)
            usage();
        const char *a = argv[i], *v = argv[++i];
        if (strcmp(a, "--src") == 0) root = v;
        else if (strcmp(a, "--cmsis") == 0) cmsis = v;
        else if (strcmp(a, "--work") == 0) work = v;
        else if (strcmp(a, "--out") == 0) out = v;
        else if (strcmp(a, "--check") == 0) check = v;
        else if (strcmp(a, "--every") == 0) every = atol(v);
        else if (strcmp(a, "--random") == 0) n_random = atol(v);
        else if (strcmp(a, "--cores") == 0) cores = v;
        else if (strcmp(a, "--models") == 0) models_dir = v;
        else if (strcmp(a, "--tflm") == 0) tflm_dir = v;
        else if (strcmp(a, "--timeout") == 0) timeout_s = atoi(v);
        else usage();
    }
    if (root == NULL || cmsis == NULL || work == NULL || every < 1 || n_random < 0 || timeout_s < 1)
        usage();
    for (const char *s = root; *s; s++)
        if (*s == '\'')
            usage();
    if (mkdir(work, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "kcount: %s: %s\n", work, strerror(errno));
        return 70;
    }
    if (qemu == NULL || *qemu == '\0')
        qemu = "qemu-system-arm";
    bool want[N_CORES];
    for (int c = 0; c < N_CORES; c++)
        want[c] = strstr(cores, core_id[c]) != NULL;   /* "m0" is no part of "m33" */

    if (n_random > 0) {
        random_layers(n_random);
    } else if (!read_tab6(root) || !read_mcunet(root)) {
        return 70;
    } else if (models_dir != NULL) {
        n_real_models = read_real(tflm_dir, models_dir, &n_real_skipped);
    }
    for (int c = 0; c < N_CORES; c++) {
        long k = 0;
        for (size_t i = 0; i < n_layers; i++)
            if (want[c] && (n_random > 0 || layers[i].bytes <= core_budget[c]))
                layers[i].run[c] = k++ % every == 0;
    }
    for (size_t i = 0; i < n_layers; i++) {
        kc_layer *l = &layers[i];
        if (!l->run[CORE_M0] && !l->run[CORE_M33])
            continue;
        if (l->j[J_KIND] == KC_CONV)
            l->j[J_GAP] = truth_gap(l->j);
        else if (l->j[J_KIND] == KC_DW && l->j[J_C_OUT] == l->j[J_C_IN] &&
                 (int64_t)l->j[J_H_OUT] * l->j[J_W_OUT] <= (int64_t)l->j[J_H_IN] * l->j[J_W_IN])
            l->j[J_GAP] = 0;
    }
    bool ok = true;
    for (int c = 0; c < N_CORES; c++) {
        if (!want[c])
            continue;
        char cmd[13000], elf[4200];
        snprintf(elf, sizeof elf, "%s/kcount_%s.elf", work, core_id[c]);
        snprintf(cmd, sizeof cmd, "'%s/tests/kcount/build-kcount.sh' --core %s --cmsis '%s' --src '%s' --out '%s'",
                 root, core_id[c], cmsis, root, elf);
        if (system(cmd) != 0) {
            fprintf(stderr, "kcount: the %s harness did not build\n", core_name[c]);
            return 70;
        }
        if (!run_core(c, work, qemu, timeout_s))
            return 70;
    }
    size_t n_run = 0, n_exact = 0;
    for (int c = 0; c < N_CORES; c++)
        for (size_t i = 0; i < n_layers; i++) {
            const kc_layer *l = &layers[i];
            if (!l->run[c])
                continue;
            n_run++;
            if (exact(l, c)) {
                n_exact++;
            } else {
                char row[2048];
                layer_row(l, c, row, sizeof row);
                fprintf(stderr, "kcount: not bit-exact or a kernel failed (dual %d, in place %d, CMSIS-NN %d): %s\n",
                        l->st[c][0], l->st[c][1], l->st[c][2], row);
                ok = false;
            }
        }
    printf("kcount: %zu layer runs, %zu bit-exact with CMSIS-NN\n", n_run, n_exact);
    if (out != NULL) {
        FILE *o = fopen(out, "w");
        if (o == NULL) {
            fprintf(stderr, "kcount: %s: %s\n", out, strerror(errno));
            return 70;
        }
        write_md(o, root, (int)every);
        if (fclose(o) != 0)
            return 70;
    }
    if (check != NULL && !check_rows(check))
        ok = false;
    return ok ? 0 : 1;
}
