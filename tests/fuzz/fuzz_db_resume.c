/*
** fuzz_db_resume.c — libFuzzer harness of resuming a sweep into an existing
** database, as a rerun of `ripsim sweep` does (sweeps/sweep.c over
** src/db/db.c).
**
** Input: the bytes of a database file, written to a tmpfs file; then
** rip_sweep_run with the arguments of the seed corpus's database
** (--seed 1 --n 4, one job, no shards), so an intact seed resumes and a
** damaged one takes whatever path the damage leads to.  At most 4 layers
** are ever evaluated, so a run stays fast.  Checks: a failure gives a
** one-line message; a refused database (exit 65, RIP_EX_DATAERR) is left
** byte-identical; no crash, leak, hang or UB.
*/
#include "cli.h"
#include "db.h"
#include "fuzz_db.h"
#include "sweep.h"

#define FUZZ_SWEEP_SEED 1
#define FUZZ_SWEEP_N 4

static void fail(const char *what, const char *err)
{
    fprintf(stderr, "fuzz_db_resume: %s (%s)\n", what, err);
    abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_clean(0);
    const char *path = fuzz_write_file(data, size, "sweep.db");
    rip_sweep_opts o = {
        .n_layers = FUZZ_SWEEP_N, .seed = FUZZ_SWEEP_SEED, .db_path = path, .jobs = 1,
        .shard_index = 0, .shard_count = 1,
    };
    rip_sweep_result res;
    char err[RIP_ERR_LEN] = "";
    int rc = rip_sweep_run(&o, &res, err);
    if (rc != 0 && (err[0] == '\0' || strchr(err, '\n')))
        fail("failed without a one-line message", err);
    if (rc == RIP_EX_DATAERR && !fuzz_file_equals(path, data, size))
        fail("a refused database was modified", err);
    return 0;
}
