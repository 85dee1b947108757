/*
** report_sections_extra.c — the sections of `ripsim report` on the sweep's
** further data: App. E.3's pruned herringbone, the executions of
** `sweep --execute` and the optima of `sweep --optimum` (these two only
** when the database holds them).
*/
#include <stdlib.h>
#include <string.h>

#include "report_internal.h"

/*
** The known finding of the taps order at truth - 1, said beside its counts
** whenever a taps configuration went uncaught there: the simulator's taps
** semantics (sigma = C_out) is one scalar more conservative than a kernel
** that writes each channel right after computing it needs.
*/
static void taps_finding(doc *d, const report_data *r)
{
    char counts[256] = "";
    size_t used = 0;
    int uncaught = 0;
    for (size_t i = 0; i < r->n_exec; i++) {
        const exec_row *x = &r->x[i];
        if (strstr(x->config, "_taps") == NULL)
            continue;
        uncaught += x->caught < x->truth_positive;
        int k = snprintf(counts + used, sizeof counts - used, "%s%s %lld of %lld", used ? ", " : "", x->config,
                         (long long)x->caught, (long long)x->truth_positive);
        if (k > 0 && (size_t)k < sizeof counts - used)
            used += (size_t)k;
    }
    if (uncaught == 0)
        return;
    char line[1536];
    snprintf(line, sizeof line,
             "At truth - 1 the taps configurations are caught on few layers or none (%s layers with truth > 0), "
             "unlike the gather ones: the simulator's taps semantics (paper Eq. 6, sigma = C_out: a pixel's "
             "inputs stay live while any of its C_out channels is written) is one scalar more conservative than a "
             "kernel that writes each channel right after computing it needs. At truth - 1 the simulator's first "
             "failing write is the pixel's last channel landing on an input only that pixel reads, after every "
             "channel has read it, so no stale read follows and the output is still right; one scalar less "
             "(truth - 2) the kernels are caught (tests/test_kernels.c). Neither the simulator nor the kernels "
             "are changed to hide it.",
             counts);
    rpt_doc_para(d, "executions", "taps_truth_minus_1", line, false);
}

/*
** Appendix E.3's pruned herringbone (configuration herringbone_pruned,
** sim/README.md) against herringbone_taps and herringbone_taps_reader, in
** workspace, with E.3's sentence quoted: "strictly less" is checked on the
** layers that have stale input.
*/
void rpt_section_pruned(doc *d, const report_data *r)
{
    static const col cols[] = {
        {"layers", "layers", 'l', SHOW_ALL},
        {"n", "n", 'r', SHOW_ALL},
        {"lt_hb", "pruned < herringbone_taps", 'r', SHOW_ALL},
        {"eq_hb", "=", 'r', SHOW_ALL},
        {"gt_hb", ">", 'r', SHOW_ALL},
        {"lt_reader", "pruned < herringbone_taps_reader", 'r', SHOW_ALL},
        {"eq_reader", "=", 'r', SHOW_ALL},
        {"gt_reader", ">", 'r', SHOW_ALL},
        {"mean_saving_pct", "mean saving vs herringbone_taps (%)", 'r', SHOW_ALL},
        {"max_saving", "largest saving (scalars)", 'r', SHOW_ALL},
        {"max_saving_layer", "its layer_idx", 'r', SHOW_ALL},
    };
    table t = {.id = "pruned", .title = "Pruned herringbone (App. E.3) against herringbone, in workspace",
               .cols = cols, .ncols = sizeof cols / sizeof cols[0]};
    static const char *const keys[2] = {"all_input_read", "stale_input"};
    for (int k = 0; k < 2; k++) {
        rpt_cellf(&t, "%s", keys[k]);
        rpt_cellf(&t, "%lld", (long long)r->pr_n[k]);
        rpt_cellf(&t, "%lld", (long long)r->pr_lt_hb[k]);
        rpt_cellf(&t, "%lld", (long long)r->pr_eq_hb[k]);
        rpt_cellf(&t, "%lld", (long long)r->pr_gt_hb[k]);
        rpt_cellf(&t, "%lld", (long long)r->pr_lt_rd[k]);
        rpt_cellf(&t, "%lld", (long long)r->pr_eq_rd[k]);
        rpt_cellf(&t, "%lld", (long long)r->pr_gt_rd[k]);
        rpt_cell_num(&t, r->pr_n[k] > 0, (double)r->pr_save_centi[k] / 100.0);
        rpt_cellf(&t, "%lld", (long long)r->pr_max_save[k]);
        if (r->pr_max_idx[k] >= 0 && r->pr_max_save[k] > 0)
            rpt_cellf(&t, "%lld", (long long)r->pr_max_idx[k]);
        else
            rpt_cellf(&t, "%s", "");
    }
    if (t.oom)
        d->oom = true;
    rpt_doc_heading(d, "Pruned herringbone (Appendix E.3)");
    sbuf b = {0};
    rpt_sb_printf(&b, "E.3: \"some input pixels are stale on arrival: no output ever depends on them. A traversal that "
                  "discards those before storing the input and then runs herringbone uses strictly less memory.\" "
                  "Configuration herringbone_pruned stores only the input some tap reads and runs the herringbone "
                  "with window release (sim/README.md); its workspace is its gap plus that input. ");
    rpt_sb_printf(&b, "%lld of %lld layers have stale input. On them the pruned workspace is strictly below "
                  "herringbone_taps' on %lld, equal on %lld and above on %lld", (long long)r->pr_n[1],
              (long long)(r->pr_n[0] + r->pr_n[1]), (long long)r->pr_lt_hb[1], (long long)r->pr_eq_hb[1],
              (long long)r->pr_gt_hb[1]);
    if (r->pr_eq_hb[1] > 0 && r->pr_eq_idx >= 0)
        rpt_sb_printf(&b, " (first equal: layer %lld; \"strictly\" fails where the stale input leaves the unpruned "
                      "pool before its peak)", (long long)r->pr_eq_idx);
    rpt_sb_printf(&b, "; against herringbone_taps_reader, which frees stale input before the first write, it is "
                  "below on %lld, equal on %lld and above on %lld. ", (long long)r->pr_lt_rd[1],
              (long long)r->pr_eq_rd[1], (long long)r->pr_gt_rd[1]);
    rpt_sb_printf(&b, "On the %lld layers without stale input the pruned workspace equals herringbone_taps' on %lld. "
                  "The pruned gap is at least herringbone_taps' on %lld of %lld layers (it has fewer slots to "
                  "reuse). No closed form of the paper describes this traversal; none is judged against it.",
              (long long)r->pr_n[0], (long long)r->pr_eq_hb[0], (long long)(r->pr_gap_ge[0] + r->pr_gap_ge[1]),
              (long long)(r->pr_n[0] + r->pr_n[1]));
    if (b.oom)
        d->oom = true;
    if (b.nonfinite)
        d->nonfinite = true;
    rpt_doc_para(d, NULL, NULL, rpt_sb_str(&b), false);
    free(b.s);
    rpt_doc_table(d, &t);
    rpt_table_free(&t);
}

/* `sweep --execute`: the int8 kernels in place against dual buffering (only when executed). */
void rpt_section_executions(doc *d, const report_data *r)
{
    static const col cols[] = {
        {"exec_config", "configuration", 'l', SHOW_ALL},
        {"executed", "layers executed", 'r', SHOW_ALL},
        {"bit_exact", "bit-exact at truth", 'r', SHOW_ALL},
        {"early_overwrite_at_truth", "early overwrite at truth", 'r', SHOW_ALL},
        {"truth_zero", "truth 0", 'r', SHOW_ALL},
        {"truth_positive", "truth > 0", 'r', SHOW_ALL},
        {"caught_at_truth_minus_1", "caught at truth - 1", 'r', SHOW_ALL},
        {"pct_caught", "% caught of truth > 0", 'r', SHOW_ALL},
    };
    if (r->executed_layers == 0)
        return;
    table t = {.id = "executions", .title = "Layers executed with the int8 kernels (from view execution_summary)",
               .cols = cols, .ncols = sizeof cols / sizeof cols[0]};
    for (size_t i = 0; i < r->n_exec; i++) {
        const exec_row *x = &r->x[i];
        rpt_cellf(&t, "%s", x->config);
        rpt_cellf(&t, "%lld", (long long)x->executed);
        rpt_cellf(&t, "%lld", (long long)x->bit_exact);
        rpt_cellf(&t, "%lld", (long long)x->early);
        rpt_cellf(&t, "%lld", (long long)x->truth_zero);
        rpt_cellf(&t, "%lld", (long long)x->truth_positive);
        rpt_cellf(&t, "%lld", (long long)x->caught);
        rpt_cell_num(&t, x->truth_positive > 0, rpt_pct(x->caught, x->truth_positive));
    }
    if (t.oom)
        d->oom = true;
    rpt_doc_heading(d, "Executions");
    char cmd[256], line[1024];
    rpt_regen_command(r, true, cmd, sizeof cmd);
    snprintf(line, sizeof line,
             "Every executed layer ran with the int8 kernels of firmware/kernels/ on tensors drawn from its own "
             "stream: once in dual buffers, then per configuration in place in one workspace at the simulated "
             "truth (instrumented, to the end: bit-exact means equal to the dual-buffer output byte for byte, an "
             "early overwrite is a read of an input scalar already overwritten) and at truth - 1 until the "
             "instrumented run catches its first overwrite. A layer of truth 0 has no truth - 1 run. %lld layers "
             "executed; regenerate with %s.",
             (long long)r->executed_layers, cmd);
    rpt_doc_para(d, NULL, NULL, line, false);
    if (r->executed_layers < r->present) {
        char line[256];
        snprintf(line, sizeof line,
                 "INCOMPLETE EXECUTIONS: %lld of the %lld layers present are executed; rerun `ripsim sweep "
                 "--execute` to execute the rest.", (long long)r->executed_layers, (long long)r->present);
        rpt_doc_para(d, "warning", "executions", line, true);
    }
    rpt_doc_table(d, &t);
    rpt_table_free(&t);
    taps_finding(d, r);
}

/* How far every truth and closed form is from the traversal optimum, when
** the sweep stored optima (`ripsim sweep --optimum P`). */
void rpt_section_optimum(doc *d, const report_data *r)
{
    static const col cols[] = {
        {"gap", "truth or closed form", 'l', SHOW_ALL},
        {"layers", "layers", 'r', SHOW_ALL},
        {"above", "above the optimum", 'r', SHOW_ALL},
        {"equal", "equal", 'r', SHOW_ALL},
        {"below", "below", 'r', SHOW_ALL},
        {"pct_above", "% above", 'r', SHOW_ALL},
        {"mean_over", "mean (value - optimum)", 'r', SHOW_ALL},
        {"max_over", "largest (value - optimum)", 'r', SHOW_ALL},
    };
    if (r->opt_layers == 0)
        return;
    table t = {.id = "optimum", .title = "Truths and closed forms against the traversal optimum (view optimum_gaps)",
               .cols = cols, .ncols = sizeof cols / sizeof cols[0]};
    for (int i = 0; i < N_OPT_ROWS; i++) {
        const opt_row *o = &r->opt[i];
        rpt_cellf(&t, "%s", o->name);
        rpt_cellf(&t, "%lld", (long long)o->n);
        rpt_cellf(&t, "%lld", (long long)o->above);
        rpt_cellf(&t, "%lld", (long long)o->equal);
        rpt_cellf(&t, "%lld", (long long)o->below);
        rpt_cell_num(&t, o->n > 0, rpt_pct(o->above, o->n));
        rpt_cell_num(&t, o->n > 0, o->mean_over);
        rpt_cellf(&t, "%lld", (long long)o->max_over);
    }
    if (t.oom)
        d->oom = true;
    rpt_doc_heading(d, "Against the traversal optimum");
    char line[1024];
    snprintf(line, sizeof line,
             "%lld layers of this run (output grids of up to %lld pixels) have their traversal-optimal gap: the "
             "smallest herringbone_taps_reader gap over every visiting order of the output pixels, by exact "
             "search, confirmed by the simulator (`ripsim sweep --optimum P`, `ripsim optimal`). Each row counts "
             "the layers where the truth or closed form is above, equal to or below it; row_major is the same "
             "pool rule in RiP's row-major order. RiP's configurations and their closed forms follow another "
             "rule (addresses, gather first, dense layouts), so \"below\" is possible there; for the two "
             "herringbone truths it would be a bug.",
             (long long)r->opt_layers, (long long)r->opt_max_pixels);
    rpt_doc_para(d, NULL, NULL, line, false);
    rpt_doc_table(d, &t);
    rpt_table_free(&t);
}
