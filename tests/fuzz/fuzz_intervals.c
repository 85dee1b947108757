/*
** fuzz_intervals.c — libFuzzer harness of the raw buffer list loader
** (rip_problem_from_intervals in src/plan/graph.c, `ripsim plan
** --intervals FILE.csv [--inclusive]`).
**
** Input: the bytes of an id,start,end,size CSV, written to a tmpfs file
** (fuzz_file.h), loaded half-open and --inclusive, with alignment 1 and 4;
** each accepted problem is planned by the cheap strategies and checked
** (fuzz_plan.h).  Checks: a refused file gives a one-line message; no
** crash, leak, hang or UB.
*/
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_file.h"
#include "fuzz_plan.h"
#include "graph.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_write_file(data, size, "intervals.csv");
    for (int mode = 0; mode < 4; mode++) {
        rip_problem p;
        char err[RIP_ERR_LEN] = "";
        if (rip_problem_from_intervals(path, mode & 1, mode & 2 ? 4 : 1, &p, err) != 0) {
            if (err[0] == '\0' || strchr(err, '\n')) {
                fprintf(stderr, "fuzz_intervals: refused without a one-line message: '%s'\n", err);
                abort();
            }
            continue;
        }
        fuzz_plan_problem("fuzz_intervals", &p);
        rip_problem_free(&p);
    }
    return 0;
}
