/*
** test_execute.c — `ripsim execute`, the execution library (src/exec/) and
** the schema version 1 -> 2 handling of `ripsim sweep --execute`.
**
** Truths come from the simulator (`ripsim layer --json`), the reference
** outputs from the dual-buffer kernel, the checksum from an FNV-1a written
** here and pinned to its published test vectors.
*/
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tmpdir.h"
#include "db_dump.h"
#include "execute.h"
#include "run_cmd.h"
#include "sim.h"
#include "spec.h"

TEST_SUITE_WITH_TMPDIR(execute, 600);

static const char *const configs[4] = {"rip_padded_gather", "rip_padded_taps", "rip_dense_gather",
                                       "rip_dense_taps"};

/* Layers of different shapes: paper Tab. 2 row 1, padding, stride + dilation + rectangles, expansion. */
static const char *const layers[] = {
    "cin=1,cout=5,h=14,k=3",
    "cin=16,cout=24,h=20,k=3,p=1",
    "cin=3,cout=8,h=17,w=13,k=3x2,s=2x1,d=1x2,p=1",
    "cin=4,cout=12,h=9,k=1",
    "cin=8,cout=3,h=11,w=7,k=5x3,pt=2,pb=0,pl=1,pr=1",
};
#define N_LAYERS (sizeof layers / sizeof layers[0])

/* The integer after "KEY": in s, or fail. */
static int64_t json_int(const char *s, const char *key)
{
    char pat[64];
    snprintf(pat, sizeof pat, "\"%s\":", key);
    const char *p = strstr(s, pat);
    cr_assert_not_null(p, "no key %s in %s", key, s);
    return strtoll(p + strlen(pat), NULL, 10);
}

/* The simulated truth of config c of spec, from `ripsim layer --json`. */
static int64_t truth_of(const char *spec, const char *c)
{
    run_result *r = RUN("layer", "--json", spec);
    cr_assert_eq(r->status, 0, "%s", r->err);
    const char *t = strstr(r->out, "\"truth\":");
    cr_assert_not_null(t);
    return json_int(t, c);
}

/* ---- FNV-1a -------------------------------------------------------------- */

static uint32_t fnv1a(const void *p, size_t n)
{
    const unsigned char *b = p;
    uint32_t h = 0x811c9dc5u;
    while (n--) {
        h ^= *b++;
        h *= 0x01000193u;
    }
    return h;
}

Test(execute, fnv1a_matches_published_vectors)
{
    /* FNV-1a 32-bit test vectors (Fowler, Noll, Vo reference suite) */
    cr_expect_eq(fnv1a("", 0), 0x811c9dc5u);
    cr_expect_eq(fnv1a("a", 1), 0xe40c292cu);
    cr_expect_eq(fnv1a("foobar", 6), 0xbf9cf968u);
    cr_expect_eq(rip_fnv1a32("", 0), 0x811c9dc5u);
    cr_expect_eq(rip_fnv1a32("a", 1), 0xe40c292cu);
    cr_expect_eq(rip_fnv1a32("foobar", 6), 0xbf9cf968u);
}

/* ---- ripsim execute ------------------------------------------------------- */

Test(execute, json_has_every_key_in_order)
{
    const char *spec = layers[1];
    run_result *r = RUN("layer", "--json", spec);
    cr_assert_eq(r->status, 0);
    char layer_obj[1024];
    const char *end = strstr(r->out, "},");
    cr_assert_not_null(end);
    snprintf(layer_obj, sizeof layer_obj, "%.*s}", (int)(end - r->out), r->out); /* {"layer":{...}} */
    int64_t truth = truth_of(spec, "rip_dense_gather");

    r = RUN("execute", "--json", spec);
    cr_assert_eq(r->status, 0, "%s", r->err);
    cr_expect_str_eq(r->err, "");
    cr_expect_eq(count_lines(r->out), 1, "one line: %s", r->out);
    /* the same layer object as `ripsim layer --json`, then the keys in order */
    cr_expect(strncmp(r->out, layer_obj, strlen(layer_obj)) == 0, "%s\nvs\n%s", r->out, layer_obj);
    char want[256], hex[16] = "";
    snprintf(want, sizeof want,
             ",\"config\":\"rip_dense_gather\",\"gap\":%lld,\"truth\":%lld,\"bit_exact\":true,"
             "\"early_overwrite\":null,\"checksum\":\"", (long long)truth, (long long)truth);
    const char *rest = r->out + strlen(layer_obj);
    cr_expect(strncmp(rest, want, strlen(want)) == 0, "%s\nwant %s", rest, want);
    cr_expect_eq(sscanf(rest + strlen(want), "%8[0-9a-f]", hex), 1);
    cr_expect_eq(strlen(hex), 8);
    cr_expect_str_eq(rest + strlen(want) + 8, "\"}\n");

    /* a catch is an object of four integers */
    r = RUN("execute", "--json", "--config", "rip_padded_gather", "--gap", "0", layers[0]);
    cr_assert_eq(r->status, 0, "%s", r->err);
    const char *eo = strstr(r->out, "\"early_overwrite\":{\"step\":");
    cr_assert_not_null(eo, "%s", r->out);
    cr_expect_not_null(strstr(eo, ",\"pixel_r\":"));
    cr_expect_not_null(strstr(eo, ",\"pixel_c\":"));
    cr_expect_not_null(strstr(eo, ",\"address\":"));
    cr_expect_not_null(strstr(r->out, "\"bit_exact\":false"));
}

Test(execute, bit_exact_at_truth_caught_below)
{
    for (size_t i = 0; i < N_LAYERS; i++)
        for (int c = 0; c < 4; c++) {
            int64_t t = truth_of(layers[i], configs[c]);
            run_result *r = RUN("execute", "--json", "--config", configs[c], layers[i]);
            cr_assert_eq(r->status, 0, "%s %s: %s", layers[i], configs[c], r->err);
            cr_expect_eq(json_int(r->out, "gap"), t, "default gap = truth");
            cr_expect_eq(json_int(r->out, "truth"), t);
            cr_expect_not_null(strstr(r->out, "\"bit_exact\":true"), "%s %s: %s", layers[i], configs[c], r->out);
            cr_expect_not_null(strstr(r->out, "\"early_overwrite\":null"), "%s %s: %s", layers[i], configs[c],
                               r->out);
            /* gather-first: the simulator's truth is exact, truth - 1 is caught.
            ** taps: the kernel writes each channel right after reading its taps,
            ** so the simulator's truth (which keeps the whole pixel's inputs
            ** live while it writes) may be one scalar conservative
            ** (firmware/kernels/README.md): truth - 2 is caught. */
            bool gather = c == 0 || c == 2;
            int64_t below = gather ? t - 1 : t - 2;
            if (below < 0)
                continue;
            char gap[32];
            snprintf(gap, sizeof gap, "%lld", (long long)below);
            r = RUN("execute", "--json", "--config", configs[c], "--gap", gap, layers[i]);
            cr_assert_eq(r->status, 0, "%s", r->err);
            cr_expect_not_null(strstr(r->out, "\"early_overwrite\":{"), "%s %s at %s: %s", layers[i], configs[c],
                               gap, r->out);
        }
}

Test(execute, bad_spec_is_rejected_like_layer)
{
    static const char *const bad[] = {
        "cin=0,cout=5,h=14,k=3", "cout=5,h=14,k=3", "cin=1,cout=5,h=14,k=3,s=0", "cin=1,cout=5,h=2,k=3",
        "cin=x,cout=5,h=14,k=3", "cin=1,cout=5,h=14,k=3,zz=1", "cin=1,cout=5,h=14,k=3,k=5",
        "cin=1,cout=5,h=9223372036854775807,k=3",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        run_result *r = RUN("layer", bad[i]);
        cr_assert_eq(r->status, 65, "%s", bad[i]);
        char want[1024];
        snprintf(want, sizeof want, "ripsim execute: %s", r->err + strlen("ripsim layer: "));
        r = RUN("execute", bad[i]);
        cr_expect_eq(r->status, 65, "%s: status %d", bad[i], r->status);
        cr_expect_eq(count_lines(r->err), 1, "%s", r->err);
        cr_expect_str_eq(r->err, want);
        cr_expect_str_eq(r->out, "");
    }
}

Test(execute, bad_gap_is_one_line_exit_65)
{
    /* N_out of cin=1,cout=5,h=14,k=3 is 12 * 12 * 5 = 720 */
    static const char *const bad[] = {"-1", "721", "-9223372036854775808", "9223372036854775807"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        run_result *r = RUN("execute", "--gap", bad[i], layers[0]);
        cr_expect_eq(r->status, 65, "--gap %s: %d", bad[i], r->status);
        cr_expect_eq(count_lines(r->err), 1, "%s", r->err);
        cr_expect_not_null(strstr(r->err, "gap: must be in [0, N_out = 720]"), "%s", r->err);
        cr_expect_str_eq(r->out, "");
    }
    run_result *r = RUN("execute", "--json", "--gap", "720", layers[0]);
    cr_expect_eq(r->status, 0, "gap N_out is allowed: %s", r->err);
    r = RUN("execute", "--json", "--gap", "0", layers[0]);
    cr_expect_eq(r->status, 0, "gap 0 is allowed: %s", r->err);
    r = RUN("execute", "--gap", "abc", layers[0]);
    cr_expect_eq(r->status, 64, "not a number is a usage error");
    r = RUN("execute", "--config", "herringbone_taps", layers[0]);
    cr_expect_eq(r->status, 64);
    cr_expect_eq(count_lines(r->err), 1);
    r = RUN("execute");
    cr_expect_eq(r->status, 64);
}

Test(execute, too_large_layer_is_refused_naming_the_limit)
{
    run_result *r = RUN("execute", "cin=1000,cout=1000,h=300,k=3");
    cr_expect_eq(r->status, 65);
    cr_expect_eq(count_lines(r->err), 1, "%s", r->err);
    cr_expect_not_null(strstr(r->err, "too large to execute"), "%s", r->err);
    cr_expect_not_null(strstr(r->err, "256 MiB"), "%s", r->err);
}

Test(execute, help_lists_every_exit_status)
{
    run_result *r = RUN("execute", "--help");
    cr_assert_eq(r->status, 0);
    static const char *const codes[] = {"  0 ", "  1 ", " 64 ", " 65 ", " 70 ", " 71 ", " 74 "};
    for (size_t i = 0; i < sizeof codes / sizeof codes[0]; i++)
        cr_expect_not_null(strstr(r->out, codes[i]), "exit status '%s' missing:\n%s", codes[i], r->out);
    cr_expect_not_null(strstr(r->out, "--config"));
    cr_expect_not_null(strstr(r->out, "--gap"));
    cr_expect_not_null(strstr(r->out, "--seed"));
    r = RUN("--help");
    cr_expect_not_null(strstr(r->out, "execute"));
}

Test(execute, table_output_names_the_catch)
{
    run_result *r = RUN("execute", "--gap", "549", layers[0]);
    cr_assert_eq(r->status, 0, "%s", r->err);
    cr_expect_not_null(strstr(r->out, "gap        549 scalars (truth 550"), "%s", r->out);
    cr_expect_not_null(strstr(r->out, "early overwrite"), "%s", r->out);
    r = RUN("execute", layers[0]);
    cr_assert_eq(r->status, 0, "%s", r->err);
    cr_expect_not_null(strstr(r->out, "bit-exact"), "%s", r->out);
    cr_expect_not_null(strstr(r->out, "no early overwrite"), "%s", r->out);
}

/* ---- the library ------------------------------------------------------------ */

static rip_xlayer *prepare(const char *spec, uint64_t seed, rip_layer *L)
{
    char err[RIP_ERR_LEN];
    rip_xlayer *x = NULL;
    rip_pcg32 g;
    cr_assert_eq(rip_spec_parse(spec, L, err), 0, "%s", err);
    rip_exec_stream(&g, seed, 0);
    cr_assert_eq(rip_xlayer_new(L, &g, &x, err), RIP_OK, "%s", err);
    return x;
}

Test(execute, checksum_is_fnv1a_of_the_dual_output_and_seeded)
{
    rip_layer L;
    int64_t n = 0;
    rip_xlayer *x = prepare(layers[1], 20261129, &L);
    const int8_t *out = rip_xlayer_output(x, &n);
    cr_assert_eq(n, L.n_out);
    char hex[16];
    snprintf(hex, sizeof hex, "%08x", fnv1a(out, (size_t)n));
    run_result *r = RUN("execute", "--json", layers[1]);
    cr_assert_eq(r->status, 0);
    char want[64];
    snprintf(want, sizeof want, "\"checksum\":\"%s\"", hex);
    cr_expect_not_null(strstr(r->out, want), "%s vs %s", r->out, want);
    rip_xlayer_free(x);
    /* the default seed is 20261129; another seed draws other tensors */
    r = RUN("execute", "--json", "--seed", "20261129", layers[1]);
    cr_expect_not_null(strstr(r->out, want));
    r = RUN("execute", "--json", "--seed", "1", layers[1]);
    cr_expect_null(strstr(r->out, want), "seed 1 gives the same output: %s", r->out);
}

Test(execute, outputs_are_informative_not_saturated)
{
    for (size_t i = 0; i < N_LAYERS; i++) {
        rip_layer L;
        int64_t n = 0, sat = 0, distinct = 0;
        bool seen[256] = {false};
        rip_xlayer *x = prepare(layers[i], 7, &L);
        const int8_t *out = rip_xlayer_output(x, &n);
        for (int64_t k = 0; k < n; k++) {
            sat += out[k] == -128 || out[k] == 127;
            if (!seen[(uint8_t)out[k]]) {
                seen[(uint8_t)out[k]] = true;
                distinct++;
            }
        }
        /* an informative output spreads over many codes and rarely clamps */
        cr_expect(distinct >= (n < 200 ? n / 4 : 50), "%s: %lld distinct of %lld", layers[i], (long long)distinct,
                  (long long)n);
        cr_expect(sat * 50 <= n, "%s: %lld of %lld saturated", layers[i], (long long)sat, (long long)n);
        rip_xlayer_free(x);
    }
}

/*
** Instrumentation does not change values: the checked kernel's workspace
** equals the plain kernel's byte for byte at the truth and above it.  So
** the instrumented run at the truth is also the bit-exactness run of sweep
** --execute.  (Below the truth the plain kernel's output is unspecified:
** it reorders reads and writes in ways only the truth makes safe; the
** checked kernel keeps the plain order there and reports it.)
*/
Test(execute, instrumented_run_computes_what_the_plain_run_computes)
{
    char err[RIP_ERR_LEN];
    int compared = 0;
    for (size_t i = 0; i < N_LAYERS; i++) {
        rip_layer L;
        rip_xlayer *x = prepare(layers[i], 3, &L);
        for (int c = 0; c < 4; c++) {
            int64_t t = 0;
            cr_assert_eq(rip_sim_truth(&L, (rip_config)c, RIP_ENGINE_FAST, &t), 0);
            for (int64_t gap = t; gap <= t + 3; gap++) {
                rip_xrun plain, checked;
                int64_t size = 0, size2 = 0;
                rip_status s = rip_xlayer_run(x, (rip_config)c, gap, false, false, &plain, err);
                if (s != RIP_OK) {
                    cr_expect_lt(gap, L.n_out, "only a workspace below the output is refused: %s", err);
                    continue;
                }
                const int8_t *ws = rip_xlayer_workspace(x, &size);
                int8_t *copy = malloc((size_t)size);
                cr_assert_not_null(copy);
                memcpy(copy, ws, (size_t)size);
                cr_assert_eq(rip_xlayer_run(x, (rip_config)c, gap, true, false, &checked, err), RIP_OK, "%s", err);
                ws = rip_xlayer_workspace(x, &size2);
                cr_assert_eq(size2, size);
                cr_expect(memcmp(ws, copy, (size_t)size) == 0, "%s %s gap %lld: checked workspace differs",
                          layers[i], configs[c], (long long)gap);
                cr_expect_eq(plain.bit_exact, checked.bit_exact);
                cr_expect_eq(plain.differ, checked.differ);
                if (gap == t)
                    cr_expect(checked.bit_exact && !checked.caught, "%s %s at the truth", layers[i], configs[c]);
                free(copy);
                compared++;
            }
        }
        rip_xlayer_free(x);
    }
    cr_expect_geq(compared, 40, "compared %d runs", compared);
}

Test(execute, library_refuses_other_configs_and_gaps)
{
    char err[RIP_ERR_LEN];
    rip_layer L;
    rip_xrun r;
    rip_xlayer *x = prepare(layers[0], 1, &L);
    cr_expect_eq(rip_xlayer_run(x, RIP_CONFIG_HB_TAPS, 10, true, false, &r, err), RIP_S_DATA);
    cr_expect_eq(rip_xlayer_run(x, RIP_CONFIG_DENSE_GATHER, -1, true, false, &r, err), RIP_S_DATA);
    cr_expect_eq(rip_xlayer_run(x, RIP_CONFIG_DENSE_GATHER, L.n_out + 1, true, false, &r, err), RIP_S_DATA);
    rip_xlayer_free(x);
    /* the limit is checked before anything is allocated */
    cr_assert_eq(rip_spec_parse("cin=1000,cout=1000,h=300,k=3", &L, err), 0);
    cr_expect_eq(rip_exec_size_ok(&L, err), -1);
    cr_expect_not_null(strstr(err, "256 MiB"), "%s", err);
    /* a kernel size that does not fit 32 bits is named */
    cr_assert_eq(rip_spec_parse("cin=1,cout=1,h=4,k=3,s=4000000000x1", &L, err), 0, "%s", err);
    cr_expect_eq(rip_exec_size_ok(&L, err), -1);
    cr_expect_not_null(strstr(err, "s_h"), "%s", err);
}

/* ---- schema version 1 databases ---------------------------------------------- */

static void exec_sql(const char *path, const char *sql)
{
    sqlite3 *db;
    cr_assert_eq(sqlite3_open(path, &db), SQLITE_OK);
    cr_assert_eq(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK, "%s: %s", sql, sqlite3_errmsg(db));
    sqlite3_close(db);
}

/* The rows of one query, '|'-separated, one line each. */
static char *rows(const char *path, const char *sql)
{
    sqlite3 *db;
    sqlite3_stmt *st;
    size_t cap = 1 << 16, len = 0;
    char *s = malloc(cap);
    cr_assert_not_null(s);
    cr_assert_eq(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    cr_assert_eq(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK, "%s", sqlite3_errmsg(db));
    while (sqlite3_step(st) == SQLITE_ROW)
        for (int c = 0; c < sqlite3_column_count(st); c++) {
            const unsigned char *t = sqlite3_column_text(st, c);
            const char *v = t ? (const char *)t : "NULL";
            if (len + strlen(v) + 2 >= cap) {
                cap *= 2;
                s = realloc(s, cap);
                cr_assert_not_null(s);
            }
            len += (size_t)sprintf(s + len, "%s%c", v, c + 1 < sqlite3_column_count(st) ? '|' : '\n');
        }
    sqlite3_finalize(st);
    sqlite3_close(db);
    s[len] = '\0';
    return s;
}

/* A schema version 1 database: what ripsim wrote before table executions. */
static void make_v1(const char *path, const char *n, const char *seed)
{
    char v3[400];
    snprintf(v3, sizeof v3, "%s.v3", path);
    run_result *r = RUN("sweep", "--n", n, "--seed", seed, "--db", v3, "--quiet");
    cr_assert_eq(r->status, 0, "%s", r->err);
    db_make_old(v3, path, 1);
}

#define EXEC_ROWS "SELECT * FROM executions ORDER BY layer_idx, exec_config"

Test(execute, schema_v1_is_refused_then_migrated_and_executed)
{
    char v1[320], ref[320];
    snprintf(v1, sizeof v1, "%s", tmp("v1.db"));
    snprintf(ref, sizeof ref, "%s", tmp("ref.db"));
    make_v1(v1, "20", "17");

    /* every command refuses it, untouched, and names the command that converts it */
    size_t n0, n1;
    char *before = slurp_file(v1, &n0);
    const char *const hint = "ripsim migrate --db ";
    run_result *r = RUN("report", "--db", v1);
    cr_expect_eq(r->status, 65, "%s", r->err);
    cr_expect_not_null(strstr(r->err, hint), "%s", r->err);
    r = RUN("merge", tmp("merged.db"), v1);
    cr_expect_eq(r->status, 65, "%s", r->err);
    cr_expect_not_null(strstr(r->err, hint), "%s", r->err);
    r = RUN("sweep", "--execute", "--n", "20", "--seed", "17", "--db", v1, "--quiet");
    cr_expect_eq(r->status, 65, "%s", r->err);
    cr_expect_not_null(strstr(r->err, hint), "%s", r->err);
    char *after = slurp_file(v1, &n1);
    cr_expect(n0 == n1 && memcmp(before, after, n0) == 0, "a refused version 1 database was modified");
    free(before);
    free(after);

    /* migrate converts it; --execute then executes the stored layers */
    r = RUN("migrate", "--db", v1);
    cr_assert_eq(r->status, 0, "%s", r->err);
    cr_expect_eq(db_scalar(v1, "PRAGMA user_version"), RIP_DB_SCHEMA_VERSION);
    cr_expect_eq(db_scalar(v1, "SELECT count(*) FROM executions"), 0);
    r = RUN("sweep", "--execute", "--n", "20", "--seed", "17", "--db", v1);
    cr_assert_eq(r->status, 0, "%s", r->err);
    cr_expect(strstr(r->out, "executed: 20 layers by this run") != NULL, "%s", r->out);
    cr_expect_eq(db_scalar(v1, "SELECT count(*) FROM executions"), 20 * 4);
    r = RUN("sweep", "--execute", "--n", "20", "--seed", "17", "--db", ref, "--quiet");
    cr_assert_eq(r->status, 0, "%s", r->err);
    char *want = rows(ref, EXEC_ROWS), *got = rows(v1, EXEC_ROWS);
    cr_expect_str_eq(got, want, "migrated + executed differs from a fresh --execute sweep");
    free(want);
    free(got);
    want = rows(ref, "SELECT name, sql FROM sqlite_master ORDER BY name");
    got = rows(v1, "SELECT name, sql FROM sqlite_master ORDER BY name");
    cr_expect_str_eq(got, want, "the migrated schema is not the schema of a new database");
    free(want);
    free(got);
    r = RUN("report", "--db", v1);
    cr_assert_eq(r->status, 0, "%s", r->err);
    cr_expect_not_null(strstr(r->out, "## Executions"), "%s", r->out);
    cr_expect_not_null(strstr(r->out, "| rip_dense_gather | 20 | 20 | 0 |"), "%s", r->out);
}

Test(execute, damaged_executions_and_other_versions_are_refused_untouched)
{
    char db[320];
    snprintf(db, sizeof db, "%s", tmp("x.db"));
    run_result *r = RUN("sweep", "--execute", "--n", "12", "--seed", "17", "--db", db, "--quiet");
    cr_assert_eq(r->status, 0, "%s", r->err);
    static const struct {
        const char *sql, *why;
    } damage[] = {
        {"DELETE FROM executions WHERE layer_idx = 3 AND exec_config = 'rip_dense_taps'", "lack executions"},
        {"INSERT INTO executions SELECT run_id, 99, exec_config, gap, bit_exact, early_overwrite_at_truth, "
         "caught_at_truth_minus_1, catch_step, checksum FROM executions WHERE layer_idx = 0",
         "without their layer"},
        {"DROP VIEW execution_summary; DROP TABLE executions", "table executions of schema version 5"},
        {"PRAGMA user_version = 6", "schema version 6"},  /* newer than this ripsim */
    };
    for (size_t i = 0; i < sizeof damage / sizeof damage[0]; i++) {
        char copy[320], cmd[800];
        snprintf(copy, sizeof copy, "%s", tmp("damaged.db"));
        snprintf(cmd, sizeof cmd, "cp '%s' '%s'", db, copy);
        cr_assert_eq(system(cmd), 0);
        exec_sql(copy, damage[i].sql);
        size_t n0, n1;
        char *before = slurp_file(copy, &n0);
        r = RUN("sweep", "--execute", "--n", "12", "--seed", "17", "--db", copy, "--quiet");
        cr_expect_eq(r->status, 65, "%s: status %d", damage[i].sql, r->status);
        cr_expect_eq(count_lines(r->err), 1, "%s", r->err);
        cr_expect_not_null(strstr(r->err, damage[i].why), "%s: %s", damage[i].sql, r->err);
        r = RUN("report", "--db", copy);
        cr_expect_eq(r->status, 65, "report: %s", damage[i].sql);
        char *after = slurp_file(copy, &n1);
        cr_expect(n0 == n1 && memcmp(before, after, n0) == 0, "%s: the database was modified", damage[i].sql);
        free(before);
        free(after);
        unlink(copy);
    }
}
