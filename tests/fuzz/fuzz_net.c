/*
** fuzz_net.c — libFuzzer harness of the TFLite net (src/net/net.h: `ripsim
** run`, `ripsim plan MODEL.tflite`) on models the check accepts.
**
** Input: the bytes of a .tflite file.  A model the reader and the check
** accept is built into a net; then, under the base and the RiP candidate
** rules, its problem is planned by the tinyengine strategy (which puts
** RiP candidates in place where it can), the plan checked by
** rip_plan_check (without re-simulation, as the graph harness: the
** simulator's cost grows with the layer) and turned into a layout, and a
** net whose arena and scratch are small (FUZZ_RUN_BYTES) and whose
** multiply-accumulates are few (FUZZ_RUN_MACS) is run on zero inputs.
** Nets with a window over FUZZ_FORMULA_MAX_K taps are built but not
** planned (fuzz_limits.h: the RiP gap is Theorem 13).  Checks, besides
** "no crash, leak, UB or read outside a buffer":
**   - a refusal by rip_net_build is bad data (or out of memory) with one
**     line that starts with the model's label;
**   - a built net always makes a problem (or refuses one beyond the
**     planner's total), every tinyengine plan passes the checker and
**     becomes a layout;
**   - a run ends RIP_OK, or RIP_S_DATA where TFLM aborts (a softmax row);
**     never a kernel refusing the parameters the builder prepared.
*/
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_limits.h"
#include "net/net.h"
#include "tfl_check.h"
#include "tfl_model.h"

#define LABEL "fuzz.tflite"
#define FUZZ_RUN_BYTES ((int64_t)1 << 20)
#define FUZZ_RUN_MACS ((int64_t)1 << 24)

static void fail(const char *what, const char *detail)
{
    fprintf(stderr, "fuzz_net: %s: %s\n", what, detail);
    abort();
}

/* Every window of the net within FUZZ_FORMULA_MAX_K taps; *macs its
** convolutions' and fully connected layers' multiply-accumulates. */
static bool small_windows(const rip_net *net, int64_t *macs)
{
    *macs = 0;
    for (size_t s = 0; s < net->n_steps; s++) {
        const rip_net_step *st = &net->steps[s];
        if (st->kind == RIP_NET_CONV || st->kind == RIP_NET_DEPTHWISE) {
            const rip_net_conv *c = &st->u.conv;
            if (!fuzz_kernel_ok(c->p.k_h, c->p.k_w))
                return false;
            int64_t per = (int64_t)c->p.k_h * c->p.k_w * (st->kind == RIP_NET_CONV ? c->in.c : 1);
            *macs += (int64_t)c->out.h * c->out.w * c->out.c * per;
        } else if (st->kind == RIP_NET_AVGPOOL || st->kind == RIP_NET_MAXPOOL) {
            if (!fuzz_kernel_ok(st->u.pool.p.k_h, st->u.pool.p.k_w))
                return false;
        } else if (st->kind == RIP_NET_FC) {
            const rk_fc_params *f = &st->u.fc.p;
            *macs += (int64_t)f->batches * f->in_features * f->out_features;
        }
    }
    return true;
}

/* Run the net under L on zero inputs, when its memory and work are small. */
static void run_small(const rip_net *net, const rip_net_layout *L, int64_t macs)
{
    int64_t io = 0;
    for (size_t i = 0; i < net->n_inputs; i++)
        io += net->inputs[i].bytes;
    for (size_t i = 0; i < net->n_outputs; i++)
        io += net->outputs[i].bytes;
    if (L->arena_bytes > FUZZ_RUN_BYTES || L->scratch_bytes > FUZZ_RUN_BYTES || io > FUZZ_RUN_BYTES ||
        net->n_inputs > 16 || net->n_outputs > 16 || macs > FUZZ_RUN_MACS)
        return;
    int8_t *arena = calloc((size_t)L->arena_bytes + 1, 1), *scratch = calloc((size_t)L->scratch_bytes + 1, 1);
    void *in[16] = {NULL}, *out[16] = {NULL};
    for (size_t i = 0; i < net->n_inputs; i++)
        in[i] = calloc((size_t)net->inputs[i].bytes + 1, 1);
    for (size_t i = 0; i < net->n_outputs; i++)
        out[i] = calloc((size_t)net->outputs[i].bytes + 1, 1);
    char err[RIP_ERR_LEN];
    rip_status st = rip_net_run(net, L, arena, scratch, (const void *const *)in, out, NULL, NULL, err);
    if (st != RIP_OK && st != RIP_S_DATA)
        fail("a run failed other than where TFLM aborts", err);
    for (size_t i = 0; i < 16; i++)
        free(in[i]), free(out[i]);
    free(arena);
    free(scratch);
}

/* Plan the net under o with tinyengine, check, lay out and run. */
static void plan_and_run(const rip_net *net, const rip_graph_opts *o, int64_t macs)
{
    rip_problem p;
    char err[RIP_ERR_LEN];
    rip_status st = rip_net_problem(net, o, &p, err);
    if (st == RIP_S_DATA)
        return; /* beyond the planner's total */
    if (st != RIP_OK)
        fail("a built net without a problem", err);
    rip_plan *plan = rip_plan_new(&p, "tinyengine");
    if (plan == NULL)
        fail("rip_plan_new", "out of memory");
    if (rip_strategy_run(rip_strategy_by_name("tinyengine"), &p, NULL, plan, err) != RIP_OK)
        fail("tinyengine failed on a net's problem", err);
    if (rip_plan_check(&p, plan, false, err) != RIP_OK)
        fail("a tinyengine plan the checker refuses", err);
    rip_net_layout L;
    if (rip_net_layout_from_plan(net, &p, plan, &L, err) != RIP_OK)
        fail("a checked plan without a layout", err);
    run_small(net, &L, macs);
    rip_net_layout_free(&L);
    rip_plan_free(plan);
    rip_problem_free(&p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    rip_tfl_model m;
    char err[RIP_ERR_LEN];
    if (rip_tfl_model_parse(data, size, LABEL, &m, err) != RIP_OK)
        return 0;
    rip_net net;
    rip_status st = rip_net_build(&m, &net, err);
    if (st != RIP_OK) {
        char why[RIP_ERR_LEN];
        if (rip_tfl_check(&m, why) == RIP_OK &&
            ((st != RIP_S_DATA && st != RIP_S_NOMEM) || strncmp(err, LABEL ": ", strlen(LABEL) + 2) != 0 ||
             strchr(err, '\n')))
            fail("a net refused without a one-line message naming the model", err);
        rip_tfl_model_free(&m);
        return 0;
    }
    int64_t macs;
    if (small_windows(&net, &macs)) {
        rip_graph_opts base = rip_net_plan_opts(RIP_NET_PLAN_BASE), rip = rip_net_plan_opts(RIP_NET_PLAN_RIP);
        plan_and_run(&net, &base, macs);
        plan_and_run(&net, &rip, macs);
    }
    rip_net_free(&net);
    rip_tfl_model_free(&m);
    return 0;
}
