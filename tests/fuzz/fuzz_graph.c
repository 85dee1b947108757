/*
** fuzz_graph.c — libFuzzer harness of the model graph loader
** (rip_graph_load in src/plan/graph.c, `ripsim plan GRAPH.csv`).
**
** Input: the bytes of a graph CSV, written to a tmpfs file (fuzz_file.h).
** A graph the loader accepts becomes a planning problem under each in-place
** policy of `ripsim plan` (RiP with sigma 0 and sigma = C_out, --no-rip,
** --dual), and each problem is planned by the cheap strategies and checked
** (fuzz_plan.h); graphs with a kernel over FUZZ_FORMULA_MAX_K taps are
** loaded but not planned (fuzz_limits.h).  Checks: a refused file gives a one-line message; an
** accepted graph always makes a problem; no crash, leak or UB anywhere.
*/
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_file.h"
#include "fuzz_limits.h"
#include "fuzz_plan.h"
#include "graph.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const rip_graph_opts policies[] = {
        {.rip = true, .inplace_depthwise = true, .sigma_taps = false, .align = 4},
        {.rip = true, .inplace_depthwise = true, .sigma_taps = true, .align = 1},
        {.rip = false, .inplace_depthwise = true, .align = 4},
        {.rip = false, .inplace_depthwise = false, .align = 4},
    };
    const char *path = fuzz_write_file(data, size, "graph.csv");
    rip_graph g;
    char err[RIP_ERR_LEN] = "";
    if (rip_graph_load(path, &g, err) != 0) {
        if (err[0] == '\0' || strchr(err, '\n')) {
            fprintf(stderr, "fuzz_graph: refused without a one-line message: '%s'\n", err);
            abort();
        }
        return 0;
    }
    for (size_t i = 0; i < g.n_ops; i++)
        if (!fuzz_kernel_ok(g.ops[i].k_h, g.ops[i].k_w))
            goto done;   /* the RiP gap is Theorem 13: see fuzz_limits.h */
    for (size_t i = 0; i < sizeof policies / sizeof policies[0]; i++) {
        rip_problem p;
        if (rip_problem_from_graph(&g, &policies[i], &p, err) != 0) {
            fprintf(stderr, "fuzz_graph: a loaded graph makes no problem: %s\n", err);
            abort();
        }
        fuzz_plan_problem("fuzz_graph", &p);
        rip_problem_free(&p);
    }
done:
    rip_graph_free(&g);
    return 0;
}
