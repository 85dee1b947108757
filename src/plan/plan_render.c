/*
** plan_render.c — a memory plan shown: the readable summary with one row
** per tensor, one JSON object, an ASCII picture of memory over time and an
** SVG picture (`ripsim plan`'s outputs), and the sentence saying what
** rip_plan_check verified.  Every renderer writes to the FILE* it is given
** and nothing else.
*/
#include "plan_render.h"

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "svg.h"

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

void rip_plan_render_table(FILE *f, const rip_problem *p, const rip_plan *plan, bool is_graph, const char *check_note)
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

void rip_plan_render_json(FILE *f, const rip_problem *p, const rip_plan *plan, bool is_graph, bool checked)
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

void rip_plan_render_ascii(FILE *f, const rip_problem *p, const rip_plan *plan)
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

/* Where the SVG's plot area is: left and top margins, plot height, and the
** scales (pixels per step, per byte). */
typedef struct svg_frame {
    double ml, mt, ph, sx, sy;
} svg_frame;

/* The SVG's tensors: one rectangle per tensor, then the labels on top of
** all of them. */
static void svg_tensors(rip_svg *c, const rip_problem *p, const rip_plan *plan, const svg_frame *fr)
{
    const double ml = fr->ml, mt = fr->mt, ph = fr->ph, sx = fr->sx, sy = fr->sy;
    for (int pass = 0; pass < 2; pass++) {
        for (size_t i = 0; i < p->n; i++) {
            const rip_tensor *t = &p->t[i];
            double x = ml + (double)t->first * sx, w = (double)(t->last - t->first + 1) * sx;
            double y1 = mt + ph - (double)(plan->offset[i] + t->size) * sy, h = (double)t->size * sy;
            if (pass == 0) {
                int hue = (int)((i * 137) % 360);
                char attrs[128];
                snprintf(attrs, sizeof attrs,
                         "fill=\"hsl(%d,60%%,75%%)\" fill-opacity=\"0.75\" stroke=\"hsl(%d,50%%,35%%)\" "
                         "stroke-width=\"0.8\"", hue, hue);
                rip_svg_rect_titled(c, x, y1, w, h > 0.5 ? h : 0.5, attrs, "%s: offset %lld, size %lld, steps %lld..%lld",
                                    t->id, (long long)plan->offset[i], (long long)t->size, (long long)t->first,
                                    (long long)t->last);
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
                char attrs[96], size[32];
                rip_svg_num(size, fs);
                snprintf(attrs, sizeof attrs, "font-size=\"%s\" text-anchor=\"middle\"", size);
                rip_svg_text(c, lx + lw / 2, ly, attrs, "%s", t->id);
            }
        }
    }
}

/* SVG: x = steps, y = addresses growing upwards (contract: plan_render.h). */
rip_status rip_plan_render_svg(FILE *f, const rip_problem *p, const rip_plan *plan, char err[RIP_ERR_LEN])
{
    const double W = 1000, H = 600, ml = 90, mr = 30, mt = 50, mb = 50;
    const double pw = W - ml - mr, ph = H - mt - mb;
    int64_t top = plan->peak > plan->lower_bound ? plan->peak : plan->lower_bound;
    if (top <= 0)
        top = 1;
    int64_t steps = p->n_steps > 0 ? p->n_steps : 1;
    double sx = pw / (double)steps, sy = ph / (double)top;
    char a[32], b[32], mid[32], rot[96];

    rip_svg c;
    rip_svg_begin(&c, f, W, H, "sans-serif", 0);
    rip_svg_text(&c, ml, 24, "font-size=\"15\"", "%s — %s: peak %s B, lower bound %s B", p->name, plan->strategy,
                 fmt_int(a, sizeof a, plan->peak), fmt_int(b, sizeof b, plan->lower_bound));
    /* axes and ticks */
    rip_svg_line(&c, ml, mt, ml, mt + ph, "stroke=\"#444\" stroke-width=\"1\"");
    rip_svg_line(&c, ml, mt + ph, ml + pw, mt + ph, "stroke=\"#444\" stroke-width=\"1\"");
    for (int k = 0; k <= 5; k++) {
        int64_t v = top * k / 5;
        double y = mt + ph - (double)v * sy;
        rip_svg_text(&c, ml - 6, y + 4, "font-size=\"11\" text-anchor=\"end\"", "%s", fmt_int(a, sizeof a, v));
    }
    int64_t every = steps <= 20 ? 1 : (steps + 19) / 20;
    for (int64_t s = 0; s < steps; s += every)
        rip_svg_text(&c, ml + ((double)s + 0.5) * sx, mt + ph + 16, "font-size=\"11\" text-anchor=\"middle\"", "%lld",
                     (long long)s);
    rip_svg_text(&c, ml + pw / 2, mt + ph + 38, "font-size=\"12\" text-anchor=\"middle\"", "step");
    rip_svg_num(mid, mt + ph / 2);
    snprintf(rot, sizeof rot, "font-size=\"12\" transform=\"rotate(-90 16 %s)\" text-anchor=\"middle\"", mid);
    rip_svg_text(&c, 16, mt + ph / 2, rot, "byte offset");
    svg_tensors(&c, p, plan, &(svg_frame){.ml = ml, .mt = mt, .ph = ph, .sx = sx, .sy = sy});
    /* peak and lower bound */
    double yp = mt + ph - (double)plan->peak * sy, yl = mt + ph - (double)plan->lower_bound * sy;
    rip_svg_line(&c, ml, yp, ml + pw, yp, "stroke=\"#c00\" stroke-width=\"1.2\"");
    rip_svg_text(&c, ml + pw, yp - 3, "font-size=\"11\" fill=\"#c00\" text-anchor=\"end\"", "peak");
    rip_svg_line(&c, ml, yl, ml + pw, yl, "stroke=\"#06c\" stroke-width=\"1\" stroke-dasharray=\"5,4\"");
    rip_svg_text(&c, ml + 4, yl - 3, "font-size=\"11\" fill=\"#06c\"", "lower bound");
    return rip_svg_end(&c, "the plan's SVG", err);
}

/* What rip_plan_check verified, exactly (plan.h): placement always; per
** kind of used in-place pair, how its rule was established. */
void rip_plan_check_claim(char *buf, size_t n, const rip_problem *p, const rip_plan *plan, bool simulated)
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
