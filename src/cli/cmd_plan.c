/*
** cmd_plan.c — `ripsim plan`: place a model graph's tensors (or a raw
** buffer list) in one arena with a chosen strategy and show the plan.
**
**   ripsim plan GRAPH.csv|MODEL.tflite [options]
**   ripsim plan --intervals FILE.csv [--inclusive] [options]
**
** A graph (firmware/models/README.md schema), or a TFLite model (a file
** whose identifier is "TFL3", whatever its name; planned as its net,
** src/net/net.h: one tensor per int8 arena buffer, RESHAPE an alias, PAD
** folded into convolutions, float edges outside the arena), becomes a
** planning problem
** with the in-place candidates of the RiP paper (graph.h: RiP conv GAPs,
** elementwise/pool/upsample in place, TinyEngine's in-place depthwise);
** --no-rip keeps only the depthwise candidates (the Tab. 3 baseline),
** --dual none at all (Tab. 7's dual buffer).  An interval list has no
** candidates.  Every plan except the lower bound is verified by
** rip_plan_check() before anything is printed (for graphs with every used
** conv gap re-derived by the simulator, every pool gap by simulating the
** pool and every ALIAS operator replayed; the "check" line says what was
** verified); a plan that fails is an
** internal error (exit 70) naming the violation, never output.
**
** Output: a readable summary and one row per tensor (default), one JSON
** object (--json), an ASCII picture of memory over time (--draw ascii,
** after the table), or an SVG picture written to --out (--draw svg).
**
** The exit statuses are the table `exits` below (also printed by --help).
*/
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "cli.h"
#include "out.h"
#include "progress_line.h"
#include "net/net.h"
#include "plan/graph.h"
#include "plan/plan.h"
#include "tflite/tfl_model.h"

static const char about[] =
    "Place every tensor of a model graph (schema: firmware/models/README.md), of a\n"
    "TFLite model (.tflite, recognised by its identifier \"TFL3\": its int8\n"
    "activation buffers as `ripsim run` lays them out) or of a raw buffer list\n"
    "(columns id,start,end,size) at a byte offset in one arena, with\n"
    "the in-place execution of the RiP paper (Sec. 4.3, App. I), and show the plan:\n"
    "peak bytes against the live-bytes lower bound, in-place pairs, runtime shifts.\n"
    "Every plan is verified independently (rip_plan_check) before it is shown.\n";

static const char notes[] =
    "The lower-bound strategy reports a bound, not a placement: its peak is the\n"
    "live-bytes bound and it has no offsets.  Errors are one line; data errors name\n"
    "FILE:ROW: FIELD.  --out may not name the input.  When stderr is a terminal,\n"
    "the strategy and the elapsed time are shown there while it runs.\n"
    "\n"
    "exact minimizes (or, with --capacity, stops at the first plan that fits) and\n"
    "says how optimality was proven: \"optimal_by\" in --json is lower-bound (the\n"
    "peak meets the live-bytes bound), search-exhausted (no plan below the peak\n"
    "exists) or null (not proven, e.g. --time-limit reached).  milp on a buffer\n"
    "list starts from exact's plan (found in a quarter of --time-limit); on\n"
    "MiniMalloc's sets it ends no better than exact alone: use exact there.\n"
    "\n"
    "--for LIB plans a TFLite model for an unchanged TensorFlow Lite Micro instead\n"
    "(its own buffers and lifetimes, no runtime shift; README, \"Plans for an\n"
    "unchanged TensorFlow Lite Micro\"); its errors: 65 bad model or metadata, 69\n"
    "milp's CBC module missing, 70 a plan that fails its check, 73/74 OUT.tflite.\n";

static const rip_exit_doc exits[] = {
    {0, "planned (and checked)"},
    {1, "exact: no plan within --capacity bytes exists"},
    {64, "bad command line (also: --out is the input)"},
    {65, "bad data (the message names FILE:ROW: FIELD)"},
    {66, "input file missing or unreadable"},
    {69, "strategy milp: its CBC module is missing"},
    {70, "internal error: a strategy failed or made an invalid plan"},
    {71, "out of memory, or milp's CBC solver process failed (killed, crashed, not started)"},
    {73, "--out cannot be created"},
    {74, "output cannot be written"},
};

/* "                      NAME   summary\n" for each strategy, for --help. */
static void strategy_help(char *buf, size_t len, const char **names, size_t max_names)
{
    size_t n, used = 0;
    const rip_strategy *s = rip_strategies(&n);
    int k = snprintf(buf, len, "planning strategy (default: tinyengine for graphs,\ngreedy-size for intervals):");
    used = k > 0 ? (size_t)k : 0;
    for (size_t i = 0; i < n && i + 1 < max_names; i++) {
        names[i] = s[i].name;
        names[i + 1] = NULL;
        k = snprintf(buf + used, len - used, "\n  %-12s %s", s[i].name, s[i].summary);
        if (k > 0 && used + (size_t)k < len)
            used += (size_t)k;
    }
}

/* ---- formatting helpers ---- */

/* v with thousands separators: 1234567 -> "1,234,567". */
static const char *fmt_int(char *buf, size_t n, int64_t v)
{
    char tmp[32];
    snprintf(tmp, sizeof tmp, "%lld", (long long)(v < 0 ? -v : v));
    size_t len = strlen(tmp), o = 0;
    if (v < 0 && o + 1 < n)
        buf[o++] = '-';
    for (size_t i = 0; i < len && o + 1 < n; i++) {
        buf[o++] = tmp[i];
        if ((len - i - 1) % 3 == 0 && i + 1 < len && o + 1 < n)
            buf[o++] = ',';
    }
    buf[o] = '\0';
    return buf;
}

static void json_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c < 0x20)
            fprintf(f, "\\u%04x", c);
        else
            fputc(c, f);
    }
    fputc('"', f);
}

static void xml_str(FILE *f, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        case '\'': fputs("&#39;", f); break;
        default: fputc(*s, f);
        }
    }
}

static bool is_milp(const rip_plan *plan)
{
    return strcmp(plan->strategy, "milp") == 0;
}

/* The used candidate whose output is tensor t, or -1. */
static long cand_into(const rip_problem *p, const rip_plan *plan, size_t t)
{
    for (size_t k = 0; k < p->n_cand; k++)
        if (plan->in_place[k] && (size_t)p->cand[k].out == t)
            return (long)k;
    return -1;
}

/* The used candidate whose input is tensor t, or -1. */
static long cand_from(const rip_problem *p, const rip_plan *plan, size_t t)
{
    for (size_t k = 0; k < p->n_cand; k++)
        if (plan->in_place[k] && (size_t)p->cand[k].in == t)
            return (long)k;
    return -1;
}

/* Where tensor t lives at step s: [*lo, *hi); false if it is not live.
** A shifted input sits gap bytes higher during its op's step. */
static bool block_at(const rip_problem *p, const rip_plan *plan, size_t t, int64_t s, int64_t *lo, int64_t *hi)
{
    const rip_tensor *tt = &p->t[t];
    if (s < tt->first || s > tt->last)
        return false;
    *lo = plan->offset[t];
    for (size_t k = 0; k < p->n_cand; k++) {
        const rip_candidate *c = &p->cand[k];
        if (plan->in_place[k] && plan->shift[k] && (size_t)c->in == t && c->op == s)
            *lo += c->gap;
    }
    *hi = *lo + tt->size;
    return true;
}

/* ---- table ---- */

static void print_table(FILE *f, const rip_problem *p, const rip_plan *plan, bool is_graph, const char *check_note)
{
    char a[32], b[32];
    size_t n_used = 0, n_shift = 0;
    for (size_t k = 0; k < p->n_cand; k++) {
        n_used += plan->in_place[k];
        n_shift += plan->in_place[k] && plan->shift[k];
    }
    fprintf(f, "problem      %s (%s, %zu tensors, %lld steps, %zu in-place candidates, align %lld)\n", p->name,
            is_graph ? "graph" : "intervals", p->n, (long long)p->n_steps, p->n_cand, (long long)p->align);
    fprintf(f, "strategy     %s\n", plan->strategy);
    if (plan->bound_only) {
        fprintf(f, "peak         %s B (%.1f KB) -- a lower bound, not a placement\n",
                fmt_int(a, sizeof a, plan->peak), (double)plan->peak / 1024.0);
        fprintf(f, "seconds      %.6f\n", plan->seconds);
        return;
    }
    int64_t gap = plan->peak - plan->lower_bound;
    fprintf(f, "peak         %s B (%.1f KB)\n", fmt_int(a, sizeof a, plan->peak), (double)plan->peak / 1024.0);
    fprintf(f, "lower bound  %s B (%.1f KB)\n", fmt_int(a, sizeof a, plan->lower_bound),
            (double)plan->lower_bound / 1024.0);
    fprintf(f, "gap to bound %s B (%.2f%%)\n", fmt_int(a, sizeof a, gap),
            plan->lower_bound > 0 ? 100.0 * (double)gap / (double)plan->lower_bound : 0.0);
    fprintf(f, "optimal      %s\n", plan->optimal ? (gap == 0 ? "yes (peak = lower bound)"
                                                              : strcmp(plan->strategy, "exact") == 0
                                                                    ? "yes (search exhausted)"
                                                                    : "yes (solver proof)")
                                                    : "not proven");
    fprintf(f, "in place     %zu of %zu candidates\n", n_used, p->n_cand);
    fprintf(f, "shifts       %zu\n", n_shift);
    fprintf(f, "seconds      %.6f\n", plan->seconds);
    if (is_milp(plan))
    {
        char c[32];
        fprintf(f, "program      %s variables (%s binaries), %s constraints\n", fmt_int(a, sizeof a, plan->n_vars),
                fmt_int(b, sizeof b, plan->n_binaries), fmt_int(c, sizeof c, plan->n_cons));
    }
    fprintf(f, "check        %s\n", check_note);
    fprintf(f, "\n%-12s %14s %14s %8s %8s  %s\n", "tensor", "offset", "size", "first", "last", "in place");
    for (size_t i = 0; i < p->n; i++) {
        const rip_tensor *t = &p->t[i];
        char partner[160] = "";
        long kin = cand_into(p, plan, i), kout = cand_from(p, plan, i);
        size_t used = 0;
        if (kin >= 0) {
            const rip_candidate *c = &p->cand[kin];
            char g[32];
            if (c->kind == RIP_INPLACE_ALIAS)
                used += (size_t)snprintf(partner, sizeof partner, "<- %s (alias)", p->t[c->in].id);
            else
                used += (size_t)snprintf(partner, sizeof partner, "<- %s (gap %s%s)", p->t[c->in].id,
                                         fmt_int(g, sizeof g, c->gap), plan->shift[kin] ? ", shift" : "");
        }
        if (kout >= 0 && used < sizeof partner)
            snprintf(partner + used, sizeof partner - used, "%s-> %s", used ? "; " : "", p->t[p->cand[kout].out].id);
        char off[32], sz[32];
        fprintf(f, "%-12s %14s %14s %8lld %8lld  %s\n", t->id, fmt_int(off, sizeof off, plan->offset[i]),
                fmt_int(sz, sizeof sz, t->size), (long long)t->first, (long long)t->last, partner);
    }
}

/* ---- json ---- */

static void print_json(FILE *f, const rip_problem *p, const rip_plan *plan, bool is_graph, bool checked)
{
    fprintf(f, "{\"problem\":");
    json_str(f, p->name);
    fprintf(f, ",\"kind\":\"%s\",\"strategy\":", is_graph ? "graph" : "intervals");
    json_str(f, plan->strategy);
    fprintf(f, ",\"peak_bytes\":%lld,\"lower_bound_bytes\":%lld,\"bound_only\":%s,\"optimal\":%s,\"seconds\":%.6f",
            (long long)plan->peak, (long long)plan->lower_bound, plan->bound_only ? "true" : "false",
            plan->optimal ? "true" : "false", plan->seconds);
    /* how optimality was proven: the peak meets the live-bytes bound, the
    ** exact search ran out of plans below it, or CBC closed its gap */
    const char *by = !plan->optimal || plan->bound_only ? NULL
                     : plan->peak == plan->lower_bound ? "lower-bound"
                     : strcmp(plan->strategy, "exact") == 0 ? "search-exhausted" : "solver";
    fprintf(f, ",\"optimal_by\":");
    if (by)
        fprintf(f, "\"%s\"", by);
    else
        fprintf(f, "null");
    fprintf(f, ",\"align\":%lld,\"n_tensors\":%zu,\"n_steps\":%lld,\"n_candidates\":%zu,\"checked\":%s", (long long)p->align,
            p->n, (long long)p->n_steps, p->n_cand, checked ? "true" : "false");
    if (is_milp(plan))
        fprintf(f, ",\"n_vars\":%lld,\"n_constraints\":%lld,\"n_binaries\":%lld", (long long)plan->n_vars,
                (long long)plan->n_cons, (long long)plan->n_binaries);
    else
        fprintf(f, ",\"n_vars\":null,\"n_constraints\":null,\"n_binaries\":null");
    if (plan->bound_only) {
        fprintf(f, ",\"offsets\":null");
    } else {
        fprintf(f, ",\"offsets\":{");
        for (size_t i = 0; i < p->n; i++) {
            fputs(i ? "," : "", f);
            json_str(f, p->t[i].id);
            fprintf(f, ":%lld", (long long)plan->offset[i]);
        }
        fputc('}', f);
    }
    for (int pass = 0; pass < 2; pass++) {
        fprintf(f, ",\"%s\":[", pass == 0 ? "in_place" : "shifts");
        bool any = false;
        for (size_t k = 0; k < p->n_cand; k++) {
            if (!plan->in_place[k] || (pass == 1 && !plan->shift[k]))
                continue;
            fputs(any ? ",[" : "[", f);
            json_str(f, p->t[p->cand[k].in].id);
            fputc(',', f);
            json_str(f, p->t[p->cand[k].out].id);
            fputc(']', f);
            any = true;
        }
        fputc(']', f);
    }
    fprintf(f, ",\"tensors\":[");
    for (size_t i = 0; i < p->n; i++) {
        fputs(i ? ",{\"id\":" : "{\"id\":", f);
        json_str(f, p->t[i].id);
        fprintf(f, ",\"size\":%lld,\"first\":%lld,\"last\":%lld}", (long long)p->t[i].size, (long long)p->t[i].first,
                (long long)p->t[i].last);
    }
    fprintf(f, "]}\n");
}

/* ---- drawings ---- */

static const char glyphs[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
#define N_GLYPHS ((int)sizeof glyphs - 1)

static void draw_ascii(FILE *f, const rip_problem *p, const rip_plan *plan)
{
    enum { ROWS = 24, MAX_COLS = 96 };
    int64_t peak = plan->peak > 0 ? plan->peak : 1;
    int64_t steps = p->n_steps > 0 ? p->n_steps : 1;
    int cols = steps < MAX_COLS ? (int)steps : MAX_COLS;
    int64_t per_col = (steps + cols - 1) / cols;
    cols = (int)((steps + per_col - 1) / per_col);
    int64_t band = (peak + ROWS - 1) / ROWS;
    int rows = (int)((peak + band - 1) / band);
    char a[32], b[32];
    fprintf(f, "\nmemory 0 .. %s B, one row = %s B, one column = %lld step%s; '.' free, '#' several tensors\n",
            fmt_int(a, sizeof a, peak), fmt_int(b, sizeof b, band), (long long)per_col, per_col == 1 ? "" : "s");
    for (int r = rows - 1; r >= 0; r--) {
        int64_t lo = (int64_t)r * band, hi = lo + band;
        fprintf(f, "%12s |", fmt_int(a, sizeof a, lo));
        for (int c = 0; c < cols; c++) {
            int hit = -1, count = 0;
            for (size_t t = 0; t < p->n && count < 2; t++) {
                bool in_cell = false;
                for (int64_t s = (int64_t)c * per_col; s < (int64_t)(c + 1) * per_col && s < steps && !in_cell; s++) {
                    int64_t x0, x1;
                    in_cell = block_at(p, plan, t, s, &x0, &x1) && x0 < hi && lo < x1;
                }
                if (in_cell) {
                    count++;
                    hit = (int)t;
                }
            }
            fputc(count == 0 ? '.' : count > 1 ? '#' : glyphs[hit % N_GLYPHS], f);
        }
        fputc('\n', f);
    }
    fprintf(f, "%12s +", "");
    for (int c = 0; c < cols; c++)
        fputc(c % 10 == 0 ? '|' : '-', f);
    fprintf(f, "\n%12s  step 0 (a '|' every %lld steps)\n", "", (long long)(10 * per_col));
    fprintf(f, "legend:");
    for (size_t t = 0; t < p->n; t++)
        fprintf(f, "%s%c=%s", t % 12 == 0 ? "\n  " : "  ", glyphs[t % N_GLYPHS], p->t[t].id);
    fprintf(f, "\n");
    if (p->n > (size_t)N_GLYPHS)
        fprintf(f, "(more than %d tensors: letters repeat)\n", N_GLYPHS);
}

/* SVG: x = steps, y = addresses growing upwards, to path (replaced only
** when complete; '-' is standard output).  0, or an exit status (73, 74). */
static int draw_svg(const char *path, const rip_problem *p, const rip_plan *plan)
{
    rip_out out;
    int rc = rip_out_open(&out, "plan", path);
    if (rc != 0)
        return rc;
    FILE *f = out.f;
    const double W = 1000, H = 600, ml = 90, mr = 30, mt = 50, mb = 50;
    const double pw = W - ml - mr, ph = H - mt - mb;
    int64_t top = plan->peak > plan->lower_bound ? plan->peak : plan->lower_bound;
    if (top <= 0)
        top = 1;
    int64_t steps = p->n_steps > 0 ? p->n_steps : 1;
    double sx = pw / (double)steps, sy = ph / (double)top;
    char a[32], b[32];

    fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" "
               "font-family=\"sans-serif\">\n", W, H, W, H);
    fprintf(f, "<rect x=\"0\" y=\"0\" width=\"%.0f\" height=\"%.0f\" fill=\"white\"/>\n", W, H);
    fprintf(f, "<text x=\"%.0f\" y=\"24\" font-size=\"15\">", ml);
    xml_str(f, p->name);
    fprintf(f, " — %s: peak %s B, lower bound %s B</text>\n", plan->strategy, fmt_int(a, sizeof a, plan->peak),
            fmt_int(b, sizeof b, plan->lower_bound));
    /* axes and ticks */
    fprintf(f, "<g stroke=\"#444\" stroke-width=\"1\"><line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
               "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/></g>\n",
            ml, mt, ml, mt + ph, ml, mt + ph, ml + pw, mt + ph);
    for (int k = 0; k <= 5; k++) {
        int64_t v = top * k / 5;
        double y = mt + ph - (double)v * sy;
        fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\" text-anchor=\"end\">%s</text>\n", ml - 6, y + 4,
                fmt_int(a, sizeof a, v));
    }
    int64_t every = steps <= 20 ? 1 : (steps + 19) / 20;
    for (int64_t s = 0; s < steps; s += every)
        fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\" text-anchor=\"middle\">%lld</text>\n",
                ml + ((double)s + 0.5) * sx, mt + ph + 16, (long long)s);
    fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"12\" text-anchor=\"middle\">step</text>\n", ml + pw / 2,
            mt + ph + 38);
    fprintf(f, "<text x=\"16\" y=\"%.1f\" font-size=\"12\" transform=\"rotate(-90 16 %.1f)\" "
               "text-anchor=\"middle\">byte offset</text>\n", mt + ph / 2, mt + ph / 2);
    /* one rectangle per tensor, then the labels on top of all of them */
    for (int pass = 0; pass < 2; pass++) {
        for (size_t i = 0; i < p->n; i++) {
            const rip_tensor *t = &p->t[i];
            double x = ml + (double)t->first * sx, w = (double)(t->last - t->first + 1) * sx;
            double y1 = mt + ph - (double)(plan->offset[i] + t->size) * sy, h = (double)t->size * sy;
            if (pass == 0) {
                int hue = (int)((i * 137) % 360);
                fprintf(f, "<g><title>");
                xml_str(f, t->id);
                fprintf(f, ": offset %lld, size %lld, steps %lld..%lld</title>", (long long)plan->offset[i],
                        (long long)t->size, (long long)t->first, (long long)t->last);
                fprintf(f, "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"hsl(%d,60%%,75%%)\" "
                           "fill-opacity=\"0.75\" stroke=\"hsl(%d,50%%,35%%)\" stroke-width=\"0.8\"/></g>\n",
                        x, y1, w, h > 0.5 ? h : 0.5, hue, hue);
                continue;
            }
            /* an in-place pair overlaps at its op's step: label each tensor
            ** over the steps it does not share, so the labels do not collide */
            bool is_in = cand_from(p, plan, i) >= 0, is_out = cand_into(p, plan, i) >= 0;
            double lx = x, lw = w;
            if (t->last > t->first && is_out)
                lx += sx, lw -= sx;
            if (lw > sx && is_in)
                lw -= sx;
            double fs = h < 12 ? h - 1 : 11;
            double need = fs * 0.6 * (double)strlen(t->id) + 2, ly = y1 + h / 2 + fs / 3;
            if (lw < need) {
                /* too narrow: centre on the whole block, an in-place input a
                ** line up and its output a line down */
                lx = x, lw = w;
                if (is_in != is_out && h >= 3 * fs)
                    ly += is_in ? -fs : fs;
            }
            if (fs >= 6 && lw >= need) {
                fprintf(f, "<text x=\"%.2f\" y=\"%.2f\" font-size=\"%.1f\" text-anchor=\"middle\">", lx + lw / 2,
                        ly, fs);
                xml_str(f, t->id);
                fprintf(f, "</text>\n");
            }
        }
    }
    /* peak and lower bound */
    double yp = mt + ph - (double)plan->peak * sy, yl = mt + ph - (double)plan->lower_bound * sy;
    fprintf(f, "<line x1=\"%.1f\" y1=\"%.2f\" x2=\"%.1f\" y2=\"%.2f\" stroke=\"#c00\" stroke-width=\"1.2\"/>\n", ml,
            yp, ml + pw, yp);
    fprintf(f, "<text x=\"%.1f\" y=\"%.2f\" font-size=\"11\" fill=\"#c00\" text-anchor=\"end\">peak</text>\n",
            ml + pw, yp - 3);
    fprintf(f, "<line x1=\"%.1f\" y1=\"%.2f\" x2=\"%.1f\" y2=\"%.2f\" stroke=\"#06c\" stroke-width=\"1\" "
               "stroke-dasharray=\"5,4\"/>\n", ml, yl, ml + pw, yl);
    fprintf(f, "<text x=\"%.1f\" y=\"%.2f\" font-size=\"11\" fill=\"#06c\">lower bound</text>\n", ml + 4, yl - 3);
    fprintf(f, "</svg>\n");
    return rip_out_commit(&out);
}

/* What rip_plan_check verified, exactly (plan.h): placement always; per
** kind of used in-place pair, how its rule was established. */
static void check_claim(char *buf, size_t n, const rip_problem *p, const rip_plan *plan, bool simulated)
{
    size_t conv = 0, pool = 0, other_gap = 0, alias = 0;
    for (size_t k = 0; k < p->n_cand; k++) {
        if (!plan->in_place[k])
            continue;
        const rip_candidate *c = &p->cand[k];
        conv += c->kind == RIP_INPLACE_GAP && c->has_layer;
        pool += c->kind == RIP_INPLACE_GAP && c->pool;
        other_gap += c->kind == RIP_INPLACE_GAP && !c->has_layer && !c->pool;
        alias += c->kind == RIP_INPLACE_ALIAS;
    }
    int w = snprintf(buf, n, "passed (offsets, overlaps of live tensors, shifts, peak");
    if (w < 0 || (size_t)w >= n)
        return;
    if (conv + pool + other_gap + alias == 0) {
        snprintf(buf + w, n - (size_t)w, ")");
        return;
    }
    snprintf(buf + w, n - (size_t)w,
             "; in-place pairs used: %zu conv GAP %s, %zu pool GAP %s, each matched to its tensors' sizes%s; %zu "
             "ALIAS %s)",
             conv, simulated ? "re-derived by the simulator" : "as computed", pool,
             simulated ? "re-derived by simulating the pool" : "as computed",
             other_gap ? ", other GAPs as given" : "", alias,
             simulated ? "replayed scalar by scalar in their kernels' order" : "as given");
}

/* ---- the command ---- */

/* The command line of `ripsim plan`, parsed and validated. */
typedef struct plan_args {
    const char *graph_path, *intervals_path;   /* exactly one is set */
    const char *strategy;                       /* a registered name */
    const char *out_path, *draw;                /* draw: NULL, "ascii" or "svg" */
    int tflm_lib;                               /* --for: an index of rip_tflm_lib_names, -1 none */
    const char *write_path;                     /* --write (with --for) */
    bool no_overlap;                            /* --no-overlap (with --for) */
    bool dsp, limits;                           /* --dsp, --limits (with --for) */
    int64_t tflm_arena;                         /* --tflm-arena (with --for), -1 none */
    bool strategy_given, other_given;           /* options --for does not take */
    bool json, inclusive, no_rip, dual, taps, sigma_given, check, is_graph;
    int64_t align, seed, capacity;
    double time_limit;
} plan_args;

/*
** The combinations the option table cannot refuse by itself, and the
** defaults that depend on the input kind (align, strategy); sets is_graph.
** Returns RIP_ARGS_CONTINUE, or 64 after one line on stderr (cmd's usage
** line, or --out naming the input).
*/
static int check_args(const rip_cmd *cmd, plan_args *a)
{
#define usage_error(msg) rip_args_usage(cmd, "%s", msg)
    if (a->graph_path && a->intervals_path)
        return usage_error("give GRAPH.csv (or MODEL.tflite) or --intervals FILE.csv, not both");
    if (!a->graph_path && !a->intervals_path)
        return usage_error("missing GRAPH.csv or MODEL.tflite (or --intervals FILE.csv)");
    a->is_graph = a->graph_path != NULL;
    if (a->write_path && a->tflm_lib < 0)
        return usage_error("--write needs --for LIB");
    if (a->no_overlap && a->tflm_lib < 0)
        return usage_error("--no-overlap needs --for LIB");
    if ((a->dsp || a->limits || a->tflm_arena >= 0) && a->tflm_lib < 0)
        return usage_error("--dsp, --limits and --tflm-arena need --for LIB");
    if (a->dsp && a->tflm_lib >= 0 && strcmp(rip_tflm_lib_names[a->tflm_lib], "tflm-cmsis-nn") != 0)
        return usage_error("--dsp chooses CMSIS-NN's DSP path; it needs --for tflm-cmsis-nn");
    if (a->limits && a->no_overlap)
        return usage_error("--limits compares the libraries' overlaps; --no-overlap has none");
    if (a->tflm_lib >= 0) {
        if (!a->is_graph || !rip_tfl_file_is_model(a->graph_path))
            return usage_error("--for plans a TFLite model (MODEL.tflite)");
        if (a->strategy_given || a->json || a->draw || a->out_path || a->no_rip || a->dual || a->sigma_given ||
            a->other_given)
            return usage_error("--for takes only --write, --no-overlap, --dsp, --limits and --tflm-arena (its plan is exact, with TFLite Micro's own lifetimes)");
        if (a->write_path && rip_same_file(a->write_path, a->graph_path))
            return usage_error("--write names the input MODEL.tflite; choose another file");
        return RIP_ARGS_CONTINUE;
    }
    if (a->is_graph && a->inclusive)
        return usage_error("--inclusive applies to --intervals only");
    if (!a->is_graph && (a->no_rip || a->dual || a->sigma_given))
        return usage_error("--no-rip, --dual and --sigma apply to graphs only");
    if (a->draw && strcmp(a->draw, "svg") == 0 && a->out_path == NULL)
        return usage_error("--draw svg needs --out FILE");
    if (a->out_path && !(a->draw && strcmp(a->draw, "svg") == 0))
        return usage_error("--out is where --draw svg writes; it needs --draw svg");
    if (a->json && a->draw && strcmp(a->draw, "ascii") == 0)
        return usage_error("--json and --draw ascii both write to standard output; choose one");
    if (a->align < 0)
        a->align = a->is_graph ? 4 : 1;
    if (a->strategy == NULL)
        a->strategy = a->is_graph ? "tinyengine" : "greedy-size";
    if (a->draw && strcmp(a->strategy, "lower-bound") == 0)
        return usage_error("--draw needs a placement; the lower-bound strategy gives only a bound");
#undef usage_error
    int rc = rip_out_refuse_input("plan", a->out_path, a->graph_path ? a->graph_path : a->intervals_path,
                                  "the input");
    if (rc != 0)
        return rc;
    if (a->out_path && strcmp(a->out_path, "-") == 0 && a->json)
        return rip_args_usage(cmd, "--out - sends the SVG to standard output; --json would share it");
    return RIP_ARGS_CONTINUE;
}

/*
** Parse the command line into *a (the option table is also the --help
** text) and validate it (check_args).  Returns RIP_ARGS_CONTINUE; or 0
** after --help (74 when it cannot be written); or 64 after one line on
** stderr.  The strings in *a point into argv or static storage.
*/
static int parse_args(int argc, char **argv, plan_args *a)
{
    *a = (plan_args){.check = true, .align = -1, .seed = 1, .tflm_lib = -1, .tflm_arena = -1};
    int strategy_ix = -1, sigma_ix = 0, draw_ix = -1;
    const char *strategy_names[32] = {NULL};
    static const char *const sigmas[] = {"gather", "taps", NULL};
    static const char *const draws[] = {"ascii", "svg", NULL};
    char strategy_text[2048];
    strategy_help(strategy_text, sizeof strategy_text, strategy_names, 32);
    const rip_opt opts[] = {
        {.name = "--strategy", .kind = RIP_OPT_ENUM, .dest = &strategy_ix, .metavar = "NAME",
         .choices = strategy_names, .help = strategy_text, .given = &a->strategy_given},
        {.name = "--for", .kind = RIP_OPT_ENUM, .dest = &a->tflm_lib, .metavar = "LIB", .choices = rip_tflm_lib_names,
         .help = "MODEL.tflite for an unchanged TensorFlow Lite Micro running\n"
                 "kernel library LIB (tflm-reference or tflm-cmsis-nn): an\n"
                 "exact plan of the buffers TFLM places, with its lifetimes and\n"
                 "16-byte sizes, overlaps only where LIB's kernels' modelled\n"
                 "read/write orders allow (and a RESHAPE output at its input),\n"
                 "no runtime shift; printed beside\n"
                 "TFLM's own greedy plan, with the plan's peak (operator, live\n"
                 "tensors), the kernels' scratch buffers and TFLM's arena head\n"
                 "(tensors and scratch as TFLM places them) on both plans"},
        {.name = "--dsp", .kind = RIP_OPT_FLAG, .dest = &a->dsp, .flag_value = true,
         .help = "with --for tflm-cmsis-nn: the build runs CMSIS-NN's DSP path\n"
                 "(a core with the DSP extension: Cortex-M33, M4, M7), whose\n"
                 "depthwise and average-pool kernels request scratch; default\n"
                 "the pure-C path (host, Cortex-M0/M0+).  The plan is the same\n"
                 "(its overlaps are safe on both paths); only the head differs"},
        {.name = "--tflm-arena", .kind = RIP_OPT_INT, .dest = &a->tflm_arena, .metavar = "BYTES", .lo = 1,
         .hi = INT64_MAX,
         .help = "with --for: the arena_used_bytes TFLM reports for MODEL.tflite\n"
                 "unchanged on the target; prints the arena this plan needs\n"
                 "there (BYTES - own head + this plan's head: TFLM's persistent\n"
                 "tail is the same on every plan)"},
        {.name = "--limits", .kind = RIP_OPT_FLAG, .dest = &a->limits, .flag_value = true,
         .help = "with --for: also the operators where the other library's\n"
                 "kernel allows a smaller gap (limited: what that gap alone\n"
                 "saves; friendly: the area with every smaller gap), one\n"
                 "exact plan each"},
        {.name = "--write", .kind = RIP_OPT_STR, .dest = &a->write_path, .metavar = "OUT.tflite",
         .help = "with --for: write MODEL.tflite carrying that plan as its\n"
                 "OfflineMemoryAllocation metadata, otherwise unchanged\n"
                 "(nothing is written on any error)"},
        {.name = "--no-overlap", .kind = RIP_OPT_FLAG, .dest = &a->no_overlap, .flag_value = true,
         .help = "with --for: the exact plan of the same buffers with no\n"
                 "overlap at all (only RESHAPE outputs at their inputs'\n"
                 "offsets, a copy TFLM's RESHAPE then skips)"},
        {.name = "--no-rip", .kind = RIP_OPT_FLAG, .dest = &a->no_rip, .flag_value = true,
         .help = "graphs: no RiP candidates, only TinyEngine's in-place\ndepthwise (the paper's Tab. 3 baseline)"},
        {.name = "--dual", .kind = RIP_OPT_FLAG, .dest = &a->dual, .flag_value = true,
         .help = "graphs: no in-place candidates at all (Tab. 7's dual buffer)"},
        {.name = "--sigma", .kind = RIP_OPT_ENUM, .dest = &sigma_ix, .metavar = "S", .choices = sigmas,
         .given = &a->sigma_given,
         .help = "graphs: RiP gaps with taps gathered first (gather, sigma = 0,\n"
                 "default, as deployed) or read from the workspace (taps,\nsigma = C_out)"},
        {.name = "--align", .kind = RIP_OPT_INT, .dest = &a->align, .metavar = "V", .lo = 1, .hi = (int64_t)1 << 20,
         .help = "offsets and gaps are multiples of V bytes (default 4 for\ngraphs, as on the Picos; 1 for intervals)", .given = &a->other_given},
        {.name = "--intervals", .kind = RIP_OPT_STR, .dest = &a->intervals_path, .metavar = "FILE",
         .help = "plan a buffer list id,start,end,size instead of a graph;\n"
                 "intervals are half-open [start, end) unless --inclusive"},
        {.name = "--inclusive", .kind = RIP_OPT_FLAG, .dest = &a->inclusive, .flag_value = true,
         .help = "interval ends are inclusive [start, end]", .given = &a->other_given},
        {.name = "--json", .kind = RIP_OPT_FLAG, .dest = &a->json, .flag_value = true,
         .help = "one JSON object instead of the table"},
        {.name = "--draw", .kind = RIP_OPT_ENUM, .dest = &draw_ix, .metavar = "ascii|svg", .choices = draws,
         .help = "ascii: a picture of memory (rows = address bands,\n"
                 "columns = steps) after the table; svg: one rectangle per\n"
                 "tensor (x = lifetime, y = offset..offset+size) to --out FILE"},
        {.name = "--out", .kind = RIP_OPT_STR, .dest = &a->out_path, .metavar = "FILE",
         .help = "where --draw svg writes ('-': standard output, then\nwithout the table)"},
        {.name = "--seed", .kind = RIP_OPT_INT, .dest = &a->seed, .metavar = "S", .lo = 0, .hi = INT64_MAX,
         .help = "hill-climb: PCG32 seed (default 1)", .given = &a->other_given},
        {.name = "--time-limit", .kind = RIP_OPT_REAL, .dest = &a->time_limit, .metavar = "S", .lo = 0,
         .hi = INT64_MAX, .help = "milp, exact (and hill-climb): stop after S seconds", .given = &a->other_given},
        {.name = "--capacity", .kind = RIP_OPT_INT, .dest = &a->capacity, .metavar = "B", .lo = 0, .hi = INT64_MAX,
         .help = "exact: any plan within B bytes is enough", .given = &a->other_given},
        {.name = "--check", .kind = RIP_OPT_FLAG, .dest = &a->check, .flag_value = true,
         .help = "verify the plan before showing it (default)", .given = &a->other_given},
        {.name = "--no-check", .kind = RIP_OPT_FLAG, .dest = &a->check, .flag_value = false,
         .help = "do not verify (for timing strategies only)", .given = &a->other_given},
    };
    const rip_cmd cmd = {
        .name = "plan", .synopsis = "GRAPH.csv|MODEL.tflite [options]\n--intervals FILE.csv [--inclusive] [options]\n"
                    "MODEL.tflite --for LIB [--no-overlap] [--write OUT.tflite]",
        .about = about, .opts = opts, .n_opts = sizeof opts / sizeof opts[0], .pos = &a->graph_path,
        .min_pos = 0, .max_pos = 1, .notes = notes, .exits = exits, .n_exits = sizeof exits / sizeof exits[0],
        .example = "ripsim plan firmware/models/mcunet/mcunet-in3.csv --no-rip",
    };
    int rc = rip_args_parse(&cmd, argc, argv, stdout, stderr);
    if (rc != RIP_ARGS_CONTINUE)
        return rc;
    a->strategy = strategy_ix >= 0 ? strategy_names[strategy_ix] : NULL;
    a->taps = sigma_ix == 1;
    a->draw = draw_ix >= 0 ? draws[draw_ix] : NULL;
    return check_args(&cmd, a);
}

/* Build the planning problem from the graph or TFLite model (with the
** candidates the options allow) or the interval list.  Returns RIP_OK, or a status with
** err. */
static rip_status load_problem(const plan_args *a, rip_problem *p, char err[RIP_ERR_LEN])
{
    rip_status rc;
    rip_graph_opts go = {.rip = !a->no_rip && !a->dual, .inplace_depthwise = !a->dual, .sigma_taps = a->taps,
                         .align = a->align};
    if (a->is_graph && rip_tfl_file_is_model(a->graph_path)) {
        rc = rip_net_problem_from_file(a->graph_path, &go, p, err);
    } else if (a->is_graph) {
        rip_graph g;
        rc = rip_graph_load(a->graph_path, &g, err);
        if (rc != RIP_OK)
            return rc;
        rc = rip_problem_from_graph(&g, &go, p, err);
        rip_graph_free(&g);
    } else {
        rc = rip_problem_from_intervals(a->intervals_path, a->inclusive, a->align, p, err);
    }
    return rc;
}

/* The strategies' verbose trace (rip_plan_opts.log): one line on stderr. */
static void log_to_stderr(void *ctx, const char *line)
{
    (void)ctx;
    fprintf(stderr, "%s\n", line);
}

/* Run strategy s on p into plan, with a progress line on a terminal.
** Returns the strategy's status (err set when not RIP_OK). */
static rip_status run_strategy(const plan_args *a, const rip_strategy *s, const rip_problem *p, rip_plan *plan,
                               char err[RIP_ERR_LEN])
{
    rip_plan_opts po = {.seed = (uint64_t)a->seed, .time_limit = a->time_limit, .capacity = a->capacity,
                        .verbose = false, .log = log_to_stderr};
    rip_progress pr;
    char what[RIP_ERR_LEN + 64];
    if (a->time_limit > 0)
        snprintf(what, sizeof what, "%s on %.200s (%zu tensors, time limit %g s)", s->name, p->name, p->n,
                 a->time_limit);
    else
        snprintf(what, sizeof what, "%s on %.200s (%zu tensors)", s->name, p->name, p->n);
    rip_progress_init(&pr, "plan", NULL, true);
    rip_progress_update(&pr, 0, 0, what);
    rip_progress_tick(&pr);
    rip_status rc = rip_strategy_run(s, p, &po, plan, err);
    rip_progress_end(&pr);
    return rc;
}

/* Verify plan with rip_plan_check unless --no-check or it is only a bound,
** writing to note what was verified.  Returns 0, or an exit status after
** one line on stderr (71 out of memory, 70 an invalid plan). */
static int verify_plan(const plan_args *a, const char *strategy, const rip_problem *p, const rip_plan *plan,
                       char *note, size_t note_len)
{
    char err[RIP_ERR_LEN];
    if (!a->check || plan->bound_only)
        return 0;
    rip_status rc = rip_plan_check(p, plan, a->is_graph, err);
    if (rc != RIP_OK) {
        if (rc == RIP_S_NOMEM)
            fprintf(stderr, "ripsim plan: %s\n", err);
        else
            fprintf(stderr, "ripsim plan: internal error: strategy %s made an invalid plan: %s\n", strategy, err);
        return rc == RIP_S_NOMEM ? RIP_EX_OSERR : RIP_EX_SOFTWARE;
    }
    check_claim(note, note_len, p, plan, a->is_graph);
    return 0;
}

/* Show the plan: the table or JSON on standard output, then the drawing
** asked for.  Returns 0, or an exit status after one line on stderr (64:
** an SVG of a bound; 73/74: the SVG or standard output cannot be
** written). */
static int show_plan(const plan_args *a, const rip_problem *p, const rip_plan *plan, const char *check_note)
{
    bool svg_to_stdout = a->out_path && strcmp(a->out_path, "-") == 0;
    if (a->json)
        print_json(stdout, p, plan, a->is_graph, a->check && !plan->bound_only);
    else if (!svg_to_stdout)
        print_table(stdout, p, plan, a->is_graph, check_note);
    if (a->draw && strcmp(a->draw, "ascii") == 0) {
        if (plan->bound_only)
            printf("\n(no drawing: the lower bound is not a placement)\n");
        else
            draw_ascii(stdout, p, plan);
    }
    if (a->draw && strcmp(a->draw, "svg") == 0) {
        if (plan->bound_only) {
            fprintf(stderr, "ripsim plan: --draw svg: the lower bound is not a placement, nothing to draw\n");
            return RIP_EX_USAGE;
        }
        int rc = draw_svg(a->out_path, p, plan);
        if (rc != 0)
            return rc;
    }
    return rip_out_check_stdout("plan");
}

int rip_cmd_plan(int argc, char **argv)
{
    plan_args a;
    int rc = parse_args(argc, argv, &a);
    if (rc != RIP_ARGS_CONTINUE)
        return rc;
    if (a.tflm_lib >= 0)
        return rip_cmd_plan_tflm(&(rip_tflm_plan_args){.model_path = a.graph_path, .lib = a.tflm_lib,
                                                       .no_overlap = a.no_overlap, .dsp = a.dsp,
                                                       .limits = a.limits, .tflm_arena = a.tflm_arena,
                                                       .write_path = a.write_path});

    char err[RIP_ERR_LEN];
    rip_problem p;
    memset(&p, 0, sizeof p);
    rc = load_problem(&a, &p, err);
    if (rc != RIP_OK) {
        fprintf(stderr, "ripsim plan: %s\n", err);
        return rip_exit_status((rip_status)rc);
    }

    const rip_strategy *s = rip_strategy_by_name(a.strategy);
    rip_plan *plan = rip_plan_new(&p, s->name);
    if (plan == NULL) {
        fprintf(stderr, "ripsim plan: out of memory\n");
        rc = RIP_EX_OSERR;
        goto done;
    }
    rc = run_strategy(&a, s, &p, plan, err);
    if (rc != RIP_OK) {
        fprintf(stderr, "ripsim plan: %s\n", err);
        rc = rip_exit_status((rip_status)rc);
        goto done;
    }
    char check_note[320] = "skipped (--no-check)";
    if ((rc = verify_plan(&a, s->name, &p, plan, check_note, sizeof check_note)) != 0)
        goto done;
    rc = show_plan(&a, &p, plan, check_note);
done:
    rip_plan_free(plan);
    rip_problem_free(&p);
    return rc;
}
