/*
** evaluate.c — formulas beside simulated truths for one layer (evaluate.h).
*/
#include "evaluate.h"

#include <stdint.h>
#include <stdio.h>

const char *rip_verdict_name(rip_verdict v)
{
    switch (v) {
    case RIP_UNSAFE: return "unsafe";
    case RIP_TIGHT: return "tight";
    case RIP_LOOSE: return "loose";
    default: return "n/a";
    }
}

rip_verdict rip_verdict_of(bool defined, int64_t value, int64_t truth)
{
    if (!defined || truth < 0)
        return RIP_NA;
    if (value < truth)
        return RIP_UNSAFE;
    return value == truth ? RIP_TIGHT : RIP_LOOSE;
}

int rip_sim_size_ok(const rip_layer *L, rip_engine engine, char err[RIP_ERR_LEN])
{
    if (engine == RIP_ENGINE_PLAIN) {
        int64_t biggest = L->n_in_padded > L->n_out ? L->n_in_padded : L->n_out;
        if (biggest > RIP_SIM_MAX_PLAIN_SCALARS) {
            snprintf(err, RIP_ERR_LEN,
                     "layer: %lld scalars is too large for the plain simulator (limit %lld); use the fast engine",
                     (long long)biggest, (long long)RIP_SIM_MAX_PLAIN_SCALARS);
            return -1;
        }
        return 0;
    }
    int64_t in_px = L->h_p * L->w_p, out_px = L->h_out * L->w_out;
    int64_t biggest = in_px > out_px ? in_px : out_px;
    if (biggest > RIP_SIM_MAX_FAST_PIXELS) {
        snprintf(err, RIP_ERR_LEN,
                 "layer: %lld pixels is too large to simulate (limit %lld); --no-sim prints the closed forms alone",
                 (long long)biggest, (long long)RIP_SIM_MAX_FAST_PIXELS);
        return -1;
    }
    return 0;
}

int rip_evaluate(const rip_layer *L, rip_engine engine, bool with_sim, rip_eval *ev,
                 char err[RIP_ERR_LEN])
{
    return rip_evaluate_progress(L, engine, with_sim, ev, NULL, err);
}

int rip_evaluate_progress(const rip_layer *L, rip_engine engine, bool with_sim, rip_eval *ev,
                          const rip_progress_cb *progress, char err[RIP_ERR_LEN])
{
    return rip_evaluate_search(L, engine, RIP_SEARCH_BRACKET, with_sim, ev, progress, err);
}

/* Forwards the simulator's per-configuration call to a progress callback. */
static void report_config(void *ctx, rip_config e)
{
    rip_progress_report(ctx, e, RIP_CONFIG_COUNT, rip_config_name(e));
}

int rip_evaluate_search(const rip_layer *L, rip_engine engine, rip_search how, bool with_sim, rip_eval *ev,
                        const rip_progress_cb *progress, char err[RIP_ERR_LEN])
{
    size_t n;
    ev->info = rip_formulas(&n);
    ev->n_formulas = n < RIP_MAX_FORMULAS ? n : RIP_MAX_FORMULAS;

    for (int e = 0; e < RIP_CONFIG_COUNT; e++)
        ev->truth[e] = -1;
    ev->n_in_read = -1;
    if (with_sim) {
        if (rip_sim_size_ok(L, engine, err) != 0)
            return -1;
        if ((ev->n_in_read = rip_sim_read_scalars(L)) < 0) {
            snprintf(err, RIP_ERR_LEN, "layer: out of memory while counting the read input");
            return -1;
        }
        /* const dropped for the callback's void *: report_config only reads it */
        int rc = rip_sim_truths(L, engine, how, ev->truth, report_config, (void *)(uintptr_t)progress, err);
        if (rc != 0) {
            char what[RIP_ERR_LEN];
            snprintf(what, sizeof what, "%s", err);
            snprintf(err, RIP_ERR_LEN, "layer: %.480s", what);
            for (int e = 0; e < RIP_CONFIG_COUNT; e++)
                ev->truth[e] = -1;
            ev->n_in_read = -1;
            return -1;
        }
        rip_progress_report(progress, RIP_CONFIG_COUNT, RIP_CONFIG_COUNT, "done");
    }
    for (size_t i = 0; i < ev->n_formulas; i++) {
        const rip_formula_info *f = &ev->info[i];
        ev->defined[i] = f->eval(L, &ev->value[i]);
        ev->judged_by[i] = f->judged_by ? (int)rip_config_from_name(f->judged_by) : -1;
        if (ev->judged_by[i] == RIP_CONFIG_COUNT)
            ev->judged_by[i] = -1;
        int64_t truth = ev->judged_by[i] >= 0 ? ev->truth[ev->judged_by[i]] : -1;
        ev->verdict[i] = rip_verdict_of(ev->defined[i], ev->value[i], truth);
    }
    return 0;
}
