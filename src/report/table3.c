/*
** table3.c — paper Tab. 3 (eleven MCUNet models, Sec. 5.4) from the graphs.
**
** Base is the paper's baseline, TinyEngine's first-fit schedule with
** in-place depthwise convolution (strategy tinyengine, no RiP); RiP is the
** MILP placement with RiP in-place candidates (strategy milp).  Beside them
** the two cross-checks the paper states in Sec. 4.3: the MILP on the
** baseline reaches the same peak as first fit, and first fit with RiP
** candidates strands the reclaimed gap on MCUNet-in2 and in3.  "Fits Pico 1"
** adds the model's scratch Buffer (Tab. 3's column, an input here), 7,964 B
** of SDK/TinyUSB data and 2,048 B of stack to the arena, against 256 KB.
**
** With deployment results (results/deployment.json, `./build.sh firmware`)
** a second table follows: our scratch buffer beside the paper's, the
** instructions per inference on the QEMU Cortex-M0 and M33 images beside
** the paper's Pico 1 time and Pico 2 cycle ratios
** (table3_deployment_reference.csv), bit-exactness of the logits' checksum
** base against RiP per core, and which images the real pico-sdk links fit
** beside the paper's dashes.
*/
#include <stdlib.h>
#include <string.h>

#include "deployment.h"
#include "paper_data.h"
#include "paper_tables.h"

#define PICO1_BYTES RIP_PAPER_PICO1_SRAM
#define SDK_BYTES RIP_PAPER_SDK_BYTES
#define STACK_BYTES RIP_PAPER_STACK_BYTES

/* Tab. 3's rows as the paper prints them (paper_data.h); base_fits and
** rip_fits: the paper reports a Pico 1 time. */
#define TAB3_ROW(file, name, buffer, base, rip, num, den, p2, p1, base_fits, rip_fits) \
    {file, name, #num "/" #den, p2, p1, buffer, base, rip, base_fits, rip_fits},
static const struct {
    const char *file, *name, *ratio;
    const char *pico2_ratio, *pico1_ratio;  /* as printed; "" where the paper has a dash */
    int64_t buffer, base, rip;              /* bytes */
    bool base_fits, rip_fits;
} models[] = {RIP_PAPER_TAB3(TAB3_ROW)};
#undef TAB3_ROW
enum { N_MODELS = sizeof models / sizeof models[0] };

/* Tab. 3's Buffer, Base and RiP columns (paper_data.h). */
static void paper_reference(int64_t buffer[N_MODELS], int64_t base[N_MODELS], int64_t rip[N_MODELS])
{
    for (int m = 0; m < N_MODELS; m++) {
        buffer[m] = models[m].buffer;
        base[m] = models[m].base;
        rip[m] = models[m].rip;
    }
}

static bool fits(int64_t arena, int64_t buffer)
{
    return arena + buffer + SDK_BYTES + STACK_BYTES <= PICO1_BYTES;
}

/* Peak of one model under one strategy; -1 with err and *status on failure. */
static int64_t peak_of(const char *dir, const char *file, bool rip, const char *strategy, int *used,
                       int *shifts, bool *optimal, rip_status *status, char err[RIP_ERR_LEN])
{
    char path[1024];
    snprintf(path, sizeof path, "%s/mcunet/%s.csv", dir, file);
    rip_problem p;
    rip_plan *plan = NULL;
    rip_plan_opts po = {.seed = 1, .time_limit = 120, .reproducible = true};
    if ((*status = rip_plan_graph_file(path, rip, true, strategy, &po, &p, &plan, err)) != RIP_OK)
        return -1;
    int64_t peak = plan->peak;
    if (used) {
        *used = 0;
        *shifts = 0;
        for (size_t i = 0; i < p.n_cand; i++) {
            *used += plan->in_place[i];
            *shifts += plan->shift[i];
        }
    }
    if (optimal)
        *optimal = plan->optimal;
    rip_plan_free(plan);
    rip_problem_free(&p);
    return peak;
}



/* "ours (paper)" ratio of instructions RiP/base on one QEMU target.  paper
** is a paper_cost field (at most 15 characters, checked when read): the
** precision says so to the compiler, whose release build otherwise warns
** that the cell could be truncated. */
static void ratio_cell(char *buf, size_t n, const rip_deploy_rec *b, const rip_deploy_rec *r, const char *paper)
{
    const char *p = paper[0] ? paper : "–";
    if (b && r && b->instructions > 0 && r->instructions >= 0)
        snprintf(buf, n, "%.4f (%.15s)", (double)r->instructions / (double)b->instructions, p);
    else
        snprintf(buf, n, "n/a (%.15s)", p);
}

static void count_cell(char *buf, size_t n, const rip_deploy_rec *x)
{
    if (x && x->instructions >= 0)
        snprintf(buf, n, "%lld", (long long)x->instructions);
    else
        snprintf(buf, n, "%s", !x ? "n/a" : x->fits == 0 ? "no fit" : "not run");
}

/* Bit-exactness of one core: 1 equal, 0 differ, -1 not both run. */
static int same_sum(const rip_deploy_rec *b, const rip_deploy_rec *r)
{
    if (!b || !r || b->ran != 1 || r->ran != 1 || b->checksum < 0 || r->checksum < 0)
        return -1;
    return b->checksum == r->checksum;
}

static void sum_cell(char *buf, size_t n, const rip_deploy_rec *b, const rip_deploy_rec *r)
{
    int e = same_sum(b, r);
    if (e < 0)
        snprintf(buf, n, "not run");
    else if (e)
        snprintf(buf, n, "yes `%08lx`", (unsigned long)b->checksum);
    else
        snprintf(buf, n, "**NO** `%08lx` vs `%08lx`", (unsigned long)b->checksum, (unsigned long)r->checksum);
}

/* Link verdict of one board: "yes, RAM B" / "no, RAM B" / "n/a", beside the paper. */
static void fit_cell(char *buf, size_t n, const rip_deploy_rec *x, const char *paper)
{
    if (!x || x->fits < 0)
        snprintf(buf, n, "n/a (%s)", paper);
    else
        snprintf(buf, n, "%s, %lld B (%s)", x->fits ? "yes" : "no", (long long)x->ram_bytes, paper);
}

static void write_deployment(FILE *o, const rip_deployment *dep, const int64_t buffer[N_MODELS])
{
    fprintf(o, "\n## Deployment: QEMU images and Pico links\n\n"
               "From `results/deployment.json` (`./build.sh firmware`: every model and plan generated by "
               "`ripsim codegen` with seeded weights, run on QEMU's Cortex-M0 (`microbit`, Pico 1 stand-in) and "
               "Cortex-M33 (`mps2-an505`, Pico 2 stand-in), linked for the real boards with the pico-sdk). Buffer: "
               "our scratch buffer (paper's). Instructions per inference from the instruction counter, exact; the "
               "ratio is RiP/base, beside the paper's Pico 1 time ratio (M0) and Pico 2 cycle ratio (M33), a dash "
               "where the paper has none. Bit-exact: the CRC-32 of the logits is the same base and RiP. Pico 1 / "
               "Pico 2: the pico-sdk link fits the board's RAM, with the SRAM it places (arena, scratch, SDK and "
               "TinyUSB data, 2 KB heap, 2 KB stack), beside the paper (yes: the paper ran it; –: a dash). M0 = "
               "Pico 1: the QEMU Cortex-M0 image, linked with the Pico 1's RAM, fits exactly when the Pico 1 "
               "link does, both plans.\n\n"
               "| Model | Buffer | M0 base | M0 RiP | M0 ratio (Pico 1 time) | M33 base | M33 RiP | M33 ratio "
               "(Pico 2 cycles) | bit-exact M0 | bit-exact M33 | Pico 1, Base | Pico 1, RiP | Pico 2, Base | "
               "Pico 2, RiP | M0 = Pico 1 |\n"
               "|---|---|---:|---:|---|---:|---:|---|---|---|---|---|---|---|---|\n");
    int fit1[2] = {0, 0}, fit2[2] = {0, 0}, linked = 0, exact = 0, differ = 0, agree = 0, compared = 0;
    for (int m = 0; m < N_MODELS; m++) {
        const char *nm = models[m].name;
        const rip_deploy_rec *b0 = rip_deploy_find(dep, nm, "base", "qemu-m0"),
                             *r0 = rip_deploy_find(dep, nm, "rip", "qemu-m0"),
                             *b3 = rip_deploy_find(dep, nm, "base", "qemu-m33"),
                             *r3 = rip_deploy_find(dep, nm, "rip", "qemu-m33"),
                             *b1 = rip_deploy_find(dep, nm, "base", "pico"),
                             *r1 = rip_deploy_find(dep, nm, "rip", "pico"),
                             *b2 = rip_deploy_find(dep, nm, "base", "pico2"),
                             *r2 = rip_deploy_find(dep, nm, "rip", "pico2");
        const rip_deploy_rec *any = b0 ? b0 : r0 ? r0 : b3 ? b3 : r3 ? r3 : b1 ? b1 : r1 ? r1 : b2 ? b2 : r2;
        char c[15][96];
        if (any)
            snprintf(c[0], sizeof c[0], "%lld (%lld)", (long long)any->scratch_bytes, (long long)buffer[m]);
        else
            snprintf(c[0], sizeof c[0], "n/a (%lld)", (long long)buffer[m]);
        count_cell(c[1], sizeof c[1], b0);
        count_cell(c[2], sizeof c[2], r0);
        ratio_cell(c[3], sizeof c[3], b0, r0, models[m].pico1_ratio);
        count_cell(c[4], sizeof c[4], b3);
        count_cell(c[5], sizeof c[5], r3);
        ratio_cell(c[6], sizeof c[6], b3, r3, models[m].pico2_ratio);
        sum_cell(c[7], sizeof c[7], b0, r0);
        sum_cell(c[8], sizeof c[8], b3, r3);
        fit_cell(c[9], sizeof c[9], b1, models[m].base_fits ? "yes" : "–");
        fit_cell(c[10], sizeof c[10], r1, models[m].rip_fits ? "yes" : "–");
        fit_cell(c[11], sizeof c[11], b2, "yes");
        fit_cell(c[12], sizeof c[12], r2, "yes");
        const rip_deploy_rec *q[2] = {b0, r0}, *p[2] = {b1, r1};
        int same = 0, n = 0;
        for (int k = 0; k < 2; k++) {
            if (q[k] && p[k] && q[k]->fits >= 0 && p[k]->fits >= 0) {
                n++;
                same += q[k]->fits == p[k]->fits;
            }
            fit1[k] += p[k] && p[k]->fits == 1;
            fit2[k] += (k ? r2 : b2) && (k ? r2 : b2)->fits == 1;
            linked += (p[k] && p[k]->fits >= 0) + ((k ? r2 : b2) && (k ? r2 : b2)->fits >= 0);
        }
        agree += same;
        compared += n;
        snprintf(c[13], sizeof c[13], "%s", n < 2 ? "n/a" : same == 2 ? "yes" : "**NO**");
        for (int k = 0; k < 2; k++) {
            int e = same_sum(k ? b3 : b0, k ? r3 : r0);
            exact += e == 1;
            differ += e == 0;
        }
        fprintf(o, "| %s |", nm);
        for (int k = 0; k < 14; k++)
            fprintf(o, " %s |", c[k]);
        fputc('\n', o);
    }
    fprintf(o, "\nBit-exact base vs RiP on %d of %d (model, core) pairs that ran both plans%s. ", exact,
            exact + differ, differ ? " (**a checksum differs**)" : "");
    if (linked == 0)
        fprintf(o, "No pico-sdk links in these results (no SDK was found): fits Pico 1 and Pico 2 not known. ");
    else
        fprintf(o, "pico-sdk links: %d (paper %d) of eleven fit a Pico 1 at baseline, %d (paper %d) with RiP; "
                   "%d and %d (paper %d and %d) a Pico 2. ",
                fit1[0], RIP_PAPER_PICO1_FIT_BASE, fit1[1], RIP_PAPER_PICO1_FIT_RIP, fit2[0], fit2[1],
                RIP_PAPER_PICO2_FIT, RIP_PAPER_PICO2_FIT);
    fprintf(o, "The QEMU Cortex-M0 image's fit equals the Pico 1 link on %d of %d images.\n", agree, compared);
}

rip_status rip_table3_write(FILE *o, const char *dir, const rip_deployment *dep, const rip_progress_cb *progress,
                            char err[RIP_ERR_LEN])
{
    int64_t buffer[N_MODELS], pbase[N_MODELS], prip[N_MODELS];
    rip_status status = RIP_OK;
    paper_reference(buffer, pbase, prip);

    fprintf(o, "# Tab. 3 reproduced: peak activation memory of eleven MCUNet models\n\n"
               "Generated by `ripsim tables table3` from the graphs in `firmware/models/mcunet/`. Each cell "
               "is **ours (paper)**, bytes. Base: strategy `tinyengine` without RiP (TinyEngine's first fit "
               "with in-place depthwise convolution); RiP: strategy `milp` with RiP in-place candidates "
               "(dense layout, gather first, sigma = 0; offsets and gaps multiples of V = 4 B); which candidates "
               "the MILP uses in place is its choice among equally good plans, so only the runtime shifts "
               "(paper: none on these models) are listed. Every plan "
               "passed the plan checker, which re-derives each RiP gap with the simulator. Buffer (scratch "
               "and im2col, outside the arena) is Tab. 3's own column, an input here. Fits Pico 1: arena + "
               "Buffer + %d B SDK/TinyUSB + %d B stack <= 256 KB (from the plans; the real links are in the "
               "deployment table%s).\n\n"
               "| Model | Buffer | Base | RiP | Ratio | shifts | fits Pico 1, Base | fits Pico 1, "
               "RiP | Base by MILP | RiP by first fit |\n"
               "|---|---:|---|---|---|---|---|---|---:|---:|\n",
            SDK_BYTES, STACK_BYTES, dep ? " below" : ", written when results/deployment.json exists");
    int fit_base = 0, fit_rip = 0, p_fit_base = 0, p_fit_rip = 0, match = 0;
    double red_sum = 0, red_min = 1, red_max = 0;
    int64_t saved = 0;
    for (int m = 0; m < N_MODELS; m++) {
        int used = 0, shifts = 0;
        bool opt = false;
        rip_progress_report(progress, m, N_MODELS, models[m].name);
        int64_t base = peak_of(dir, models[m].file, false, "tinyengine", NULL, NULL, NULL, &status, err);
        int64_t rip = base < 0 ? -1 : peak_of(dir, models[m].file, true, "milp", &used, &shifts, &opt, &status, err);
        int64_t base_milp =
            rip < 0 ? -1 : peak_of(dir, models[m].file, false, "milp", NULL, NULL, NULL, &status, err);
        int64_t rip_ff =
            base_milp < 0 ? -1 : peak_of(dir, models[m].file, true, "tinyengine", NULL, NULL, NULL, &status, err);
        if (rip_ff < 0)
            return status;
        int64_t g = rip_gcd64(rip, base);
        char ratio[48];
        snprintf(ratio, sizeof ratio, "%lld/%lld", (long long)(rip / g), (long long)(base / g));
        bool fb = fits(base, buffer[m]), fr = fits(rip, buffer[m]);
        fit_base += fb;
        fit_rip += fr;
        p_fit_base += models[m].base_fits;
        p_fit_rip += models[m].rip_fits;
        match += base == pbase[m] && rip == prip[m];
        double red = 1.0 - (double)rip / (double)base;
        red_sum += red;
        if (red < red_min)
            red_min = red;
        if (red > red_max)
            red_max = red;
        saved += base - rip;
        fprintf(o, "| %s | %lld | %lld (%lld) | %lld (%lld)%s | %s (%s) | %d | %s (%s) | %s (%s) | %lld | %lld |\n",
                models[m].name, (long long)buffer[m], (long long)base, (long long)pbase[m], (long long)rip,
                (long long)prip[m], opt ? "" : " not proven optimal", ratio, models[m].ratio, shifts,
                fb ? "yes" : "no", models[m].base_fits ? "yes" : "no", fr ? "yes" : "no",
                models[m].rip_fits ? "yes" : "no", (long long)base_milp, (long long)rip_ff);
    }
    fprintf(o, "\n%d of %d models reproduce both peaks byte for byte. Fits Pico 1: %d (paper %d) of eleven at "
               "baseline, %d (paper %d) with RiP (the paper's count: %d and %d models with a Pico 1 time). RiP "
               "reduces peak activation memory by %.1f%% to %.1f%% (paper %.1f to %.1f%%), mean %.1f%% (paper "
               "%.1f%%), %lld B in total (paper %s B).\n",
            match, N_MODELS, fit_base, RIP_PAPER_PICO1_FIT_BASE, fit_rip, RIP_PAPER_PICO1_FIT_RIP, p_fit_base,
            p_fit_rip, 100 * red_min, 100 * red_max, RIP_PAPER_TAB3_RED_MIN, RIP_PAPER_TAB3_RED_MAX,
            100 * red_sum / N_MODELS, RIP_PAPER_TAB3_RED_MEAN, (long long)saved, RIP_PAPER_TAB3_SAVED);
    if (dep)
        write_deployment(o, dep, buffer);
    rip_progress_report(progress, N_MODELS, N_MODELS, "done");
    return dep ? status : RIP_OK;
}
