/*
** claims_domains.c — every claim about all members of a set judged on every
** data set ripsim has where its premise can hold, not only on the one it
** was written for (claims.h: rip_claims_on_domains).
**
** A statement of the ALL rule (claims_registry.c) reads its members from
** one view: cl or lead (the sweep), ra (the public layer tables) or t6
** (the Tab. 6 selection).  Here the same SQL, unchanged, runs again on each
** other domain, with those view names pointed at that domain's layers:
**
**   the sweep: ra and t6 become views of cl (temporary, dropped after);
**   the public tables, Tab. 6, the MCUNet graphs' conv and pointwise ops:
**     a view layer_wide of the aux table with the
**     sweep's column names, then the sweep's own view script on it (cl and
**     lead, the derived columns and the witness built the same way), and
**     ra and t6 over that cl; afterwards the aux views are put back.
**
** A query that needs a column the domain does not have (the sweep's
** kernel executions, the Sec. 5.3 workspaces the sweep does not store)
** fails to prepare: the domain is then "not judged", with SQLite's reason.
** A domain where the premise never holds says so.  The figures taken are
** the rule's own (columns 4 and 5: members that hold, the domain's size)
** and its smallest counterexample.
*/
#include "claims.h"

#include <stdio.h>
#include <string.h>

const char *const rip_claim_domain_names[RIP_CLAIM_DOMAINS] = {"the sweep", "the public layer tables", "Tab. 6",
                                                              "the MCUNet graphs"};

/* The sweep's column names over an aux layer table: what
** rip_claims_sweep_views_sql reads (layer_idx and generator made from
** the table's row and network, name). */
static const char aux_layer_wide_fmt[] =
    "CREATE TEMP VIEW layer_wide AS SELECT rowid AS layer_idx, network || ' ' || name AS generator,"
    " cin, cout, h_in, w_in, k_h, k_w, s_h, s_w, d_h, d_w, p_top, p_bottom, p_left, p_right, h_out, w_out,"
    " n_in_padded, n_in_dense, n_out, restricted, rip_padded_gather, rip_padded_taps, rip_dense_gather,"
    " rip_dense_taps, herringbone_taps, herringbone_taps_reader, herringbone_pruned, gm2019_eq1, corollary1,"
    " thm11, thm4_gather, thm4_taps, thm13_gather, thm13_taps, naive_workspace, w_naive, w_hb, w_rip,"
    " w_rip_col, w_rip_col_truth, w_dense FROM %s;\n";

static const char alias_sql[] = "CREATE TEMP VIEW ra AS SELECT * FROM cl;\n"
                                "CREATE TEMP VIEW t6 AS SELECT * FROM cl;\n";

static rip_status exec(sqlite3 *db, const char *sql, char err[RIP_ERR_LEN])
{
    char *msg = NULL;
    if (sqlite3_exec(db, sql, NULL, NULL, &msg) == SQLITE_OK)
        return RIP_OK;
    snprintf(err, RIP_ERR_LEN, "claims: a domain's views: %.300s", msg ? msg : "sqlite error");
    sqlite3_free(msg);
    return RIP_S_DATA;
}

/* The domain a claim was written for, from the view its ALL rule reads;
** -1 for a claim that is not a statement about every member of these sets. */
static int home_of(const rip_claim *c)
{
    const char *from = rip_claim_every_from(c);
    if (!from)
        return -1;
    if (strcmp(from, "cl") == 0 || strcmp(from, "lead") == 0)
        return RIP_CLAIM_DOMAIN_SWEEP;
    if (strcmp(from, "ra") == 0)
        return RIP_CLAIM_DOMAIN_TABLES;
    if (strcmp(from, "t6") == 0)
        return RIP_CLAIM_DOMAIN_TAB6;
    return -1;
}

/* Run c's SQL on db as domain d's judgement into *r. */
static void judge(sqlite3 *db, const rip_claim *c, rip_claim_domain_result *r)
{
    sqlite3_stmt *st = NULL;
    r->judged = true;
    if (sqlite3_prepare_v2(db, c->sql, -1, &st, NULL) != SQLITE_OK) {
        r->applicable = false;
        snprintf(r->why, sizeof r->why, "%s", sqlite3_errmsg(db));
        return;
    }
    if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_count(st) >= 5) {
        const unsigned char *v = sqlite3_column_text(st, 0), *w = sqlite3_column_text(st, 2);
        r->applicable = true;
        r->k = sqlite3_column_int64(st, 3);
        r->n = sqlite3_column_int64(st, 4);
        snprintf(r->verdict, sizeof r->verdict, "%s", r->n == 0 ? "never" : v ? (const char *)v : "");
        snprintf(r->witness, sizeof r->witness, "%s", w ? (const char *)w : "");
    } else {
        r->applicable = false;
        snprintf(r->why, sizeof r->why, "%s", sqlite3_errmsg(db));
    }
    sqlite3_finalize(st);
}

/* Judge every claim of cs not written for domain d on db (its views in place). */
static void judge_all(sqlite3 *db, const rip_claim *cs, size_t n, int d, rip_claim_domain_result (*out)[RIP_CLAIM_DOMAINS])
{
    for (size_t i = 0; i < n; i++) {
        const int h = home_of(&cs[i]);
        if (h >= 0 && h != d)
            judge(db, &cs[i], &out[i][d]);
    }
}

rip_status rip_claims_on_domains(sqlite3 *sweep, sqlite3 *aux, const char *aux_views, const rip_claim *cs, size_t n,
                                 rip_claim_domain_result (*out)[RIP_CLAIM_DOMAINS], char err[RIP_ERR_LEN])
{
    static const char *const tables[RIP_CLAIM_DOMAINS] = {NULL, "real_all", "tab6", "mcunet"};
    memset(out, 0, n * sizeof *out);
    rip_status s = exec(sweep, alias_sql, err);
    if (s == RIP_OK) {
        judge_all(sweep, cs, n, RIP_CLAIM_DOMAIN_SWEEP, out);
        s = exec(sweep, "DROP VIEW temp.ra; DROP VIEW temp.t6;", err);
    }
    for (int d = RIP_CLAIM_DOMAIN_TABLES; d < RIP_CLAIM_DOMAINS && s == RIP_OK; d++) {
        char sql[1024];
        snprintf(sql, sizeof sql, aux_layer_wide_fmt, tables[d]);
        if ((s = exec(aux, "DROP VIEW temp.ra; DROP VIEW temp.t6; DROP VIEW temp.pl;", err)) != RIP_OK ||
            (s = exec(aux, sql, err)) != RIP_OK || (s = exec(aux, rip_claims_sweep_views_sql, err)) != RIP_OK ||
            (s = exec(aux, alias_sql, err)) != RIP_OK)
            break;
        judge_all(aux, cs, n, d, out);
        s = exec(aux,
                 "DROP VIEW temp.ra; DROP VIEW temp.t6; DROP TABLE temp.lead; DROP VIEW temp.cl;"
                 " DROP VIEW temp.layer_wide;",
                 err);
        if (s == RIP_OK)
            s = exec(aux, aux_views, err); /* the aux views as the home claims read them */
    }
    return s;
}

const char *rip_claim_overall(const char *home, const rip_claim_domain_result d[RIP_CLAIM_DOMAINS], int *from)
{
    /* the strictest: a counterexample anywhere contradicts; else a domain
    ** where it holds agrees; else the home verdict stands */
    *from = -1;
    if (strcmp(home, "contradicted") == 0)
        return home;
    for (int k = 0; k < RIP_CLAIM_DOMAINS; k++)
        if (d[k].judged && d[k].applicable && strcmp(d[k].verdict, "contradicted") == 0) {
            *from = k;
            return "contradicted";
        }
    if (strcmp(home, "differs") == 0) /* the premise never held at home */
        for (int k = 0; k < RIP_CLAIM_DOMAINS; k++)
            if (d[k].judged && d[k].applicable && strcmp(d[k].verdict, "agrees") == 0) {
                *from = k;
                return "agrees";
            }
    return home;
}
