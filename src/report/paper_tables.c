/*
** paper_tables.c — planning a graph file for the tables, Tab. 7 and Fig. 1
** (paper_tables.h).  Tab. 3 is in table3.c.
*/
#include "paper_tables.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "plan/graph.h"


rip_status rip_plan_graph_file(const char *path, bool rip, bool inplace_depthwise, const char *strategy,
                        const rip_plan_opts *po, rip_problem *p, rip_plan **out, char err[RIP_ERR_LEN])
{
    rip_graph g;
    int status = rip_graph_load(path, &g, err);
    if (status != RIP_OK)
        return (rip_status)status;
    rip_graph_opts go = {.rip = rip, .inplace_depthwise = inplace_depthwise, .sigma_taps = false, .align = 4};
    status = rip_problem_from_graph(&g, &go, p, err);
    rip_graph_free(&g);
    if (status != RIP_OK)
        return (rip_status)status;
    char why[RIP_ERR_LEN];
    rip_status st = rip_plan_solve_checked(p, strategy, po, true, out, why);
    if (st != RIP_OK) {
        snprintf(err, RIP_ERR_LEN, "%.200s, %.250s", path, why);
        rip_problem_free(p);
    }
    return st;
}

/* ------------------------------------------------------------------ Tab. 7 */

/* The paper's Tab. 7, in the order of firmware/models/keras/table7_reference.csv. */
static const struct {
    const char *name;
    int ops, res;
    long vars, constr;
    double dual_s, rip_s, dual_kb, rip_kb;
    const char *ratio;
    double inplace;
    int shift;
} paper7[] = {
    {"MobileNet", 29, 0, 1361, 1969, 0.08, 0.14, 1176.0, 784.0, "2/3", 60.0, 0},
    {"MobileNetV2", 64, 10, 6364, 8813, 0.26, 0.52, 1470.0, 1176.0, "4/5", 49.2, 0},
    {"MobileNetV3-S", 109, 15, 18201, 24834, 1.08, 1.49, 392.0, 220.5, "9/16", 64.5, 0},
    {"MobileNetV3-L", 122, 18, 22751, 30967, 1.27, 1.42, 980.0, 784.0, "4/5", 82.1, 0},
    {"VGG-16", 21, 0, 729, 1077, 0.11, 0.16, 6272.0, 3150.1, "0.502", 54.5, 1},
    {"VGG-19", 24, 0, 942, 1377, 0.12, 0.18, 6272.0, 3150.1, "0.502", 56.0, 1},
    {"ResNet-50", 72, 16, 8024, 11063, 0.59, 0.67, 2352.0, 1568.0, "2/3", 47.9, 0},
    {"ResNet-50v2", 109, 16, 18199, 24827, 1.13, 1.77, 2352.0, 1568.0, "2/3", 54.5, 0},
    {"ResNet-101", 140, 33, 29886, 40558, 1.84, 2.28, 2352.0, 1568.0, "2/3", 28.4, 0},
    {"ResNet-101v2", 211, 33, 67516, 91110, 4.00, 6.16, 2352.0, 1568.0, "2/3", 67.0, 0},
    {"ResNet-152", 208, 50, 65620, 88549, 3.95, 5.21, 2352.0, 1568.0, "2/3", 55.5, 0},
    {"ResNet-152v2", 313, 50, 148045, 199009, 9.02, 10.97, 2352.0, 1568.0, "2/3", 63.1, 0},
    {"DenseNet-121", 308, 58, 143138, 192103, 7.67, 14.64, 2058.0, 1568.0, "16/21", 44.7, 0},
    {"DenseNet-169", 428, 82, 275942, 369655, 14.49, 29.50, 2058.0, 1568.0, "16/21", 47.6, 0},
    {"DenseNet-201", 508, 98, 388478, 520023, 20.64, 28.91, 2058.0, 1568.0, "16/21", 47.5, 0},
    {"Inception-v3", 124, 35, 23394, 31683, 1.49, 2.46, 2025.8, 1355.2, "0.669", 25.6, 1},
    {"InceptionResNetV2", 334, 98, 168297, 225797, 9.43, 15.13, 2025.8, 1355.2, "0.669", 4.5, 1},
    {"Xception", 103, 12, 16270, 22227, 1.07, 1.05, 6752.8, 4051.7, "3/5", 83.7, 0},
    {"EfficientNet-B0", 242, 74, 88689, 119465, 5.16, 6.39, 3528.0, 2352.0, "2/3", 32.1, 0},
    {"EfficientNet-B1", 344, 108, 178704, 239995, 9.79, 13.82, 4050.0, 2700.0, "2/3", 25.2, 0},
    {"EfficientNet-B2", 344, 108, 178704, 239995, 10.11, 12.95, 4753.1, 3168.8, "2/3", 11.0, 0},
    {"EfficientNet-B3", 389, 123, 228339, 306400, 13.09, 20.03, 9492.2, 6328.1, "2/3", 23.1, 0},
    {"EfficientNet-B4", 479, 153, 345834, 463510, 18.24, 43.12, 15229.7, 10153.1, "2/3", 15.4, 0},
    {"EfficientNet-B5", 581, 187, 508371, 680736, 26.90, 46.19, 21930.7, 14620.5, "2/3", 14.8, 0},
    {"EfficientNet-B6", 671, 217, 677706, 906966, 36.11, 67.09, 39204.0, 26136.0, "2/3", 9.8, 0},
    {"EfficientNet-B7", 818, 266, 1006545, 1346153, 56.70, 76.88, 50625.0, 33750.0, "2/3", 27.4, 0},
    {"EffNetV2-B0", 269, 86, 109479, 147317, 6.63, 7.73, 1274.0, 882.0, "9/13", 8.9, 0},
    {"EffNetV2-B1", 328, 107, 162520, 218332, 9.73, 16.05, 1462.5, 1012.5, "9/13", 35.6, 0},
    {"EffNetV2-B2", 343, 112, 177670, 238607, 10.99, 16.93, 1716.4, 1188.3, "9/13", 29.7, 0},
    {"EffNetV2-B3", 403, 132, 245020, 328707, 15.54, 18.14, 2856.4, 1977.5, "9/13", 24.0, 0},
    {"EffNetV2-S", 503, 167, 381270, 510872, 21.77, 33.63, 5616.0, 3888.0, "9/13", 5.6, 0},
    {"EffNetV2-M", 726, 242, 793151, 1061161, 42.32, 59.06, 8775.0, 6075.0, "9/13", 23.4, 0},
    {"EffNetV2-L", 1005, 337, 1518551, 2029754, 80.45, 132.04, 11700.0, 8100.0, "9/13", 23.4, 0},
};
enum { N_KERAS = sizeof paper7 / sizeof paper7[0] };

/* Keras graph file names, in the same order (table7_reference.csv). */
static const char *const keras_files[N_KERAS] = {
    "MobileNet", "MobileNetV2", "MobileNetV3Small", "MobileNetV3Large", "VGG16", "VGG19", "ResNet50",
    "ResNet50V2", "ResNet101", "ResNet101V2", "ResNet152", "ResNet152V2", "DenseNet121", "DenseNet169",
    "DenseNet201", "InceptionV3", "InceptionResNetV2", "Xception", "EfficientNetB0", "EfficientNetB1",
    "EfficientNetB2", "EfficientNetB3", "EfficientNetB4", "EfficientNetB5", "EfficientNetB6",
    "EfficientNetB7", "EfficientNetV2B0", "EfficientNetV2B1", "EfficientNetV2B2", "EfficientNetV2B3",
    "EfficientNetV2S", "EfficientNetV2M", "EfficientNetV2L",
};

static int64_t gcd64(int64_t a, int64_t b)
{
    while (b) {
        int64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

/* "p/q" when the reduced fraction is small, else three decimals. */
static void fraction(int64_t num, int64_t den, char *buf, size_t len)
{
    int64_t g = gcd64(num, den);
    if (den / g <= 64)
        snprintf(buf, len, "%lld/%lld", (long long)(num / g), (long long)(den / g));
    else
        snprintf(buf, len, "%.3f", (double)num / (double)den);
}

/* Tensors read by more than one operator: the branch connections, into
** *branches.  RIP_OK, or a status with err. */
static rip_status count_branches(const char *path, int *ops, int *branches, char err[RIP_ERR_LEN])
{
    rip_graph g;
    int64_t n = 0;
    rip_status s = rip_graph_load(path, &g, err);
    if (s != RIP_OK)
        return s;
    s = rip_graph_count_branches(&g, &n, err);
    *ops = (int)g.n_ops;
    *branches = n > INT32_MAX ? INT32_MAX : (int)n;
    rip_graph_free(&g);
    return s;
}

rip_status rip_table7_write(FILE *o, const char *dir, double time_limit, bool with_times,
                            const rip_progress_cb *progress, char err[RIP_ERR_LEN])
{
    fprintf(o, "# Tab. 7 reproduced: graph-level allocation across 33 keras.applications models\n\n"
               "Generated by `ripsim tables table7` from `firmware/models/keras/graphs/`. Each cell is **ours "
               "(paper)**. Dual buffer: strategy `milp` with no in-place candidate at all (every operator "
               "dual-buffered, the optimal packing of never-aliased tensors); RiP: strategy `milp` with the "
               "paper's operator classes in place (dense layout, gather first, sigma = 0, V = 4). KB = 1024 B. "
               "Program size is ours: our formulation has no-overlap binaries only for pairs of tensors whose "
               "lifetimes overlap (the paper's has 3 per pair of all n(n-1)/2 pairs). In-place: share of "
               "tensors placed in place; Shift: candidates separated by a runtime right shift. Every plan "
               "passed the plan checker (RiP gaps re-derived with the simulator).%s\n\n",
            with_times ? " Solve times are wall seconds of the solver on this machine (one thread) against "
                         "the paper's full compile step (Pyomo + SCIP, 8-core Intel)."
                       : " Solve times are left out of this form of the table (`--no-times`).");
    fprintf(o, "| Model | Ops | Res. | Vars (binaries) | Constr. | Dual buf. (KB) | RiP (KB) | Ratio | "
               "In-place (%%) | Shift | optimal |%s\n|---|---|---|---|---|---|---|---|---|---|---|%s\n",
            with_times ? " Solve dual / RiP (s) |" : "", with_times ? "---|" : "");
    int match = 0, proven = 0;
    long bin_ours = 0;
    double bin_paper = 0, worst_s = 0;
    for (int m = 0; m < N_KERAS; m++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/keras/graphs/%s.csv", dir, keras_files[m]);
        int ops = 0;
        int res = 0;
        rip_status bstatus = count_branches(path, &ops, &res, err);
        if (bstatus != RIP_OK)
            return bstatus;
        rip_plan_opts po = {.seed = 1, .time_limit = time_limit, .reproducible = true};
        rip_problem pd, pr;
        rip_plan *dual = NULL, *rip = NULL;
        char what[160];
        snprintf(what, sizeof what, "%s: dual-buffer MILP", keras_files[m]);
        rip_progress_report(progress, m, N_KERAS, what);
        rip_status status = rip_plan_graph_file(path, false, false, "milp", &po, &pd, &dual, err);
        snprintf(what, sizeof what, "%s: RiP MILP", keras_files[m]);
        rip_progress_report(progress, m, N_KERAS, what);
        if (status == RIP_OK)
            status = rip_plan_graph_file(path, true, true, "milp", &po, &pr, &rip, err);
        if (status != 0) {
            if (dual) {
                rip_plan_free(dual);
                rip_problem_free(&pd);
            }
            return status;
        }
        int used = 0, shifts = 0;
        for (size_t i = 0; i < pr.n_cand; i++) {
            used += rip->in_place[i];
            shifts += rip->shift[i];
        }
        char ratio[32];
        fraction(rip->peak, dual->peak, ratio, sizeof ratio);
        double dkb = (double)dual->peak / 1024.0, rkb = (double)rip->peak / 1024.0;
        match += (long)(dkb * 10 + 0.5) == (long)(paper7[m].dual_kb * 10 + 0.5) &&
                 (long)(rkb * 10 + 0.5) == (long)(paper7[m].rip_kb * 10 + 0.5);
        proven += dual->optimal && rip->optimal;
        bin_ours += (long)rip->n_binaries;
        bin_paper += paper7[m].vars;
        double s = dual->seconds + rip->seconds;
        if (s > worst_s)
            worst_s = s;
        fprintf(o, "| %s | %d (%d) | %d (%d) | %lld (%lld) (%ld) | %lld (%ld) | %.1f (%.1f) | %.1f (%.1f) | %s (%s) "
                   "| %.1f (%.1f) | %d (%d) | %s |",
                paper7[m].name, ops, paper7[m].ops, res, paper7[m].res, (long long)rip->n_vars,
                (long long)rip->n_binaries, paper7[m].vars, (long long)rip->n_cons, paper7[m].constr, dkb,
                paper7[m].dual_kb, rkb, paper7[m].rip_kb, ratio, paper7[m].ratio,
                100.0 * used / (double)pr.n, paper7[m].inplace, shifts, paper7[m].shift,
                dual->optimal && rip->optimal ? "yes" : dual->optimal ? "dual only" : rip->optimal ? "RiP only" : "no");
        if (with_times)
            fprintf(o, " %.2f / %.2f (%.2f / %.2f) |", dual->seconds, rip->seconds, paper7[m].dual_s,
                    paper7[m].rip_s);
        fprintf(o, "\n");
        rip_plan_free(dual);
        rip_plan_free(rip);
        rip_problem_free(&pd);
        rip_problem_free(&pr);
    }
    fprintf(o, "\n%d of %d models reproduce both peaks to the paper's 0.1 KB; %d of %d solved to proven "
               "optimality under both formulations. Binaries of the RiP programs: %ld in all, against %.0f "
               "variables in the paper's (%.1f%%).",
            match, N_KERAS, proven, N_KERAS, bin_ours, bin_paper, 100.0 * (double)bin_ours / bin_paper);
    if (with_times)
        fprintf(o, " Slowest model, both programs together: %.1f s (paper: every model under 150 s).", worst_s);
    fprintf(o, "\n");
    rip_progress_report(progress, N_KERAS, N_KERAS, "done");
    return RIP_OK;
}

/* ------------------------------------------------------------------ Fig. 1 */

/*
** Bytes resident at each step: the sizes of the tensors live then, with each
** pair used in place at that step counted once as the union of its two
** blocks (as placed), and a shifted input's extra gap added.  The maximum
** over steps is the plan's peak when, as here, the MILP reaches the bound.
*/
static int64_t *usage_per_step(const rip_problem *p, const rip_plan *plan)
{
    int64_t *u = calloc((size_t)(p->n_steps > 0 ? p->n_steps : 1), sizeof *u);
    if (!u)
        return NULL;
    for (size_t t = 0; t < p->n; t++)
        for (int64_t s = p->t[t].first; s <= p->t[t].last && s < p->n_steps; s++)
            u[s] += p->t[t].size;
    for (size_t c = 0; c < p->n_cand; c++) {
        if (!plan->in_place[c])
            continue;
        const rip_candidate *k = &p->cand[c];
        int64_t ai = plan->offset[k->in], ni = p->t[k->in].size + (plan->shift[c] ? k->gap : 0);
        int64_t ao = plan->offset[k->out], no = p->t[k->out].size;
        int64_t lo = ai > ao ? ai : ao, hi = ai + ni < ao + no ? ai + ni : ao + no;
        int64_t overlap = hi > lo ? hi - lo : 0;
        if (k->op >= 0 && k->op < p->n_steps)
            u[k->op] += (plan->shift[c] ? k->gap : 0) - overlap;
    }
    return u;
}

rip_status rip_fig1_write(FILE *f, const char *dir, char err[RIP_ERR_LEN])
{
    static const struct { const char *label, *color; bool rip, dw; } series[3] = {
        {"naive dual buffering", "#d62728", false, false},
        {"TinyEngine (in-place depthwise)", "#1f77b4", false, true},
        {"RiP", "#2ca02c", true, true},
    };
    const int64_t sram = 262144, scratch = 18536, sdk = 7964, stack = 2048;
    const int64_t band = scratch + sdk + stack;
    char path[1024];
    snprintf(path, sizeof path, "%s/mcunet/mcunet-in3.csv", dir);
    int64_t *use[3] = {NULL, NULL, NULL}, peak[3] = {0, 0, 0}, steps = 0;
    rip_status status = RIP_OK;
    for (int k = 0; k < 3; k++) {
        rip_problem p;
        rip_plan *plan = NULL;
        rip_plan_opts po = {.seed = 1, .time_limit = 120, .reproducible = true};
        if ((status = rip_plan_graph_file(path, series[k].rip, series[k].dw, "milp", &po, &p, &plan, err)) != 0)
            goto done;
        use[k] = usage_per_step(&p, plan);
        peak[k] = plan->peak;
        steps = p.n_steps;
        rip_plan_free(plan);
        rip_problem_free(&p);
        if (!use[k]) {
            snprintf(err, RIP_ERR_LEN, "out of memory");
            status = RIP_S_NOMEM;
            goto done;
        }
    }

    const double W = 960, H = 560, L = 90, R = 250, T = 60, B = 60;
    const double pw = W - L - R, ph = H - T - B;
    int64_t ymax = 0;
    for (int k = 0; k < 3; k++)
        if (peak[k] > ymax)
            ymax = peak[k];
    if (sram > ymax)
        ymax = sram;
    ymax = (ymax / 65536 + 1) * 65536;
#define X(s) (L + pw * (double)(s) / (double)(steps))
#define Y(b) (T + ph * (1.0 - (double)(b) / (double)ymax))
    fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
               "font-family=\"DejaVu Sans, Arial, sans-serif\" font-size=\"13\">\n"
               "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n"
               "<text x=\"%.0f\" y=\"28\" font-size=\"17\" font-weight=\"bold\">MCUNet-in3 on a Pico 1: "
               "activation memory across its %lld operators</text>\n",
            W, H, L, (long long)steps);
    /* the overhead band just under the SRAM line: the arena must stay below it */
    fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"#bbbbbb\" opacity=\"0.45\"/>\n",
            L, Y(sram), pw, Y(sram - band) - Y(sram));
    fprintf(f, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"black\" stroke-width=\"2\"/>\n",
            L, L + pw, Y(sram), Y(sram));
    fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\" font-weight=\"bold\">Pico 1 SRAM, "
               "256 KB</text>\n", L + pw - 8, Y(sram) - 6);
    fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\" font-size=\"11\">runtime overhead "
               "%lld B: keep the arena below this band</text>\n", L + pw - 8, Y(sram - band / 2) + 4,
            (long long)band);
    fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\">overhead band: scratch %lld B,</text>\n"
               "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\">SDK and TinyUSB %lld B, stack %lld B</text>\n",
            L + pw + 8, T + 0.45 * ph + 160, (long long)scratch, L + pw + 8, T + 0.45 * ph + 175,
            (long long)sdk, (long long)stack);
    /* axes and grid */
    for (int64_t b = 0; b <= ymax; b += 65536) {
        fprintf(f, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#dddddd\"/>\n"
                   "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%lld KB</text>\n",
                L, L + pw, Y(b), Y(b), L - 8, Y(b) + 4, (long long)(b / 1024));
    }
    for (int64_t s = 0; s <= steps; s += 10)
        fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%lld</text>\n", X(s), T + ph + 18,
                (long long)s);
    fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">operator (execution order)</text>\n",
            L + pw / 2, H - 14);
    fprintf(f, "<text transform=\"translate(22,%.1f) rotate(-90)\" text-anchor=\"middle\">activation "
               "memory resident (bytes)</text>\n", T + ph / 2);
    fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"none\" stroke=\"black\"/>\n",
            L, T, pw, ph);
    /* one step line per schedule */
    for (int k = 0; k < 3; k++) {
        fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2.2\" points=\"", series[k].color);
        for (int64_t s = 0; s < steps; s++)
            fprintf(f, "%.1f,%.1f %.1f,%.1f ", X(s), Y(use[k][s]), X(s + 1), Y(use[k][s]));
        fprintf(f, "\"/>\n");
        int64_t margin = sram - band - peak[k];
        fprintf(f, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"3\"/>\n"
                   "<text x=\"%.1f\" y=\"%.1f\" fill=\"%s\">%s</text>\n"
                   "<text x=\"%.1f\" y=\"%.1f\" fill=\"%s\" font-size=\"11\">peak %lld B: %s by %lld B</text>\n",
                L + pw + 8, L + pw + 28, T + 0.45 * ph + 50 * k, T + 0.45 * ph + 50 * k, series[k].color,
                L + pw + 34, T + 0.45 * ph + 4 + 50 * k, series[k].color, series[k].label, L + pw + 34,
                T + 0.45 * ph + 20 + 50 * k, series[k].color, (long long)peak[k], margin >= 0 ? "fits" : "overruns",
                (long long)(margin >= 0 ? margin : -margin));
    }
    fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\">all three placed by the same MILP "
               "(strategy milp); each arena peaks at its curve's maximum</text>\n</svg>\n", L, T - 10);
#undef X
#undef Y
    if (fflush(f) != 0 || ferror(f)) {
        snprintf(err, RIP_ERR_LEN, "cannot write the SVG: %s", strerror(errno));
        status = RIP_S_IO;
    }
done:
    for (int k = 0; k < 3; k++)
        free(use[k]);
    return status;
}

rip_status rip_svg_to_png(const char *svg_path, FILE *png, char err[RIP_ERR_LEN])
{
    if (fflush(png) != 0) {
        snprintf(err, RIP_ERR_LEN, "cannot write the PNG: %s", strerror(errno));
        return RIP_S_IO;
    }
    /* to standard output: with -o FILE, rsvg-convert writes .goutputstream-XXXXXX
    ** beside FILE and renames it, a file left behind when it is killed */
    pid_t pid = fork();
    if (pid == 0) {
        if (dup2(fileno(png), STDOUT_FILENO) >= 0)
            execlp("rsvg-convert", "rsvg-convert", svg_path, (char *)NULL);
        _exit(127);
    }
    int st = 0;
    if (pid < 0 || waitpid(pid, &st, 0) < 0) {
        snprintf(err, RIP_ERR_LEN, "cannot run rsvg-convert: %s", strerror(errno));
        return RIP_S_IO;
    }
    if (WIFEXITED(st) && WEXITSTATUS(st) == 127) {
        snprintf(err, RIP_ERR_LEN, "rsvg-convert is not installed (Debian: librsvg2-bin)");
        return RIP_S_UNAVAILABLE;
    }
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
        snprintf(err, RIP_ERR_LEN, "rsvg-convert failed (%s %d)", WIFEXITED(st) ? "exit status" : "signal",
                 WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
        return RIP_S_IO;
    }
    return RIP_OK;
}
