/*
** claims.h — the claims registry (results/claims.md): every statement of
** the paper that the sweep database, the real layer tables or the planner
** can check, each a named SQL query with its verdict and evidence.
**
** Verdicts: agrees (the statement holds on our data), differs (a figure the
** paper reports is not ours: a share or mean outside our 95% interval, a
** count or value not equal), contradicted (a statement about every layer of
** a set has a counterexample; the smallest, by N_in + N_out, is shown with
** its SPEC), not checked (the reason is given: among others a share of no
** cases or a mean of fewer than two values, which have no interval).  The rule of each claim is
** in its SQL, which the report prints beside it.
*/
#ifndef RIPSIM_CLAIMS_H
#define RIPSIM_CLAIMS_H

#include <sqlite3.h>
#include <stdio.h>

#include "layer.h"
#include "status.h"

typedef enum {
    RIP_CLAIM_SQL = 0,  /* the query returns one row: verdict, evidence, witness (may be NULL) */
    RIP_CLAIM_SHARE,    /* the query returns k, n: agrees iff `paper` (percent) lies in the
                           Clopper-Pearson 95% interval of k / n */
    RIP_CLAIM_MEAN,     /* the query returns one value per row: agrees iff `paper` lies in the
                           Student t 95% interval of their mean */
    RIP_CLAIM_NONE      /* not checkable: `reason` says why */
} rip_claim_kind;

typedef enum { RIP_CLAIM_SWEEP = 0, RIP_CLAIM_AUX } rip_claim_db;

typedef struct rip_claim {
    const char *id;       /* C01 ... */
    const char *section;  /* the paper's section, e.g. "Sec. 5.2" */
    const char *quote;    /* the paper's wording, quoted */
    const char *query;    /* the query's name */
    rip_claim_db db;      /* which database the query reads */
    rip_claim_kind kind;
    const char *sql;      /* NULL for RIP_CLAIM_NONE */
    double paper;         /* SHARE (percent) and MEAN */
    const char *unit;     /* SHARE / MEAN: what is counted or averaged */
    const char *reason;   /* NONE: why it cannot be checked; others: the reading chosen, or NULL */
} rip_claim;

/* The registry, in paper order; *n receives its size. */
const rip_claim *rip_claims(size_t *n);

/* The temporary views the sweep queries read (created on the sweep
** connection, in its temp schema: the database itself is not written). */
extern const char rip_claims_sweep_views_sql[];

/* Create the temporary views of rip_claims_sweep_views_sql on sweep unless
** they exist.  RIP_OK, or RIP_S_DATA with err. */
rip_status rip_claims_sweep_views(sqlite3 *sweep, char err[RIP_ERR_LEN]);

/* Output grids up to this many pixels get their traversal optimum in table small_opt. */
#define RIP_CLAIMS_OPT_PIXELS 12

/*
** Table small_opt of aux: the traversal-optimal gap of every sweep layer
** with at most max_pixels output pixels (the sweep's views must exist:
** rip_claims_sweep_views), beside its herringbone truths.  RIP_OK, or
** RIP_S_DATA / RIP_S_NOMEM / RIP_S_INTERNAL with err.
*/
rip_status rip_claims_build_optima(sqlite3 *aux, sqlite3 *sweep, int64_t max_pixels, char err[RIP_ERR_LEN]);

/*
** Build the tables the aux queries read (claims_data.c) into db, an empty
** writable database (ripsim claims: an anonymous temporary one): every channel-mixing layer of
** layers_dir, the Tab. 6 selection, the paper's named layers, and the
** eleven MCUNet models of models_dir/mcunet planned.  RIP_OK, or
** RIP_S_NOINPUT / RIP_S_DATA / RIP_S_NOMEM / RIP_S_INTERNAL with err.
*/
rip_status rip_claims_build_aux(sqlite3 *db, const char *layers_dir, const char *models_dir,
                                char err[RIP_ERR_LEN]);

/* The data sets a statement about every member of a set is judged on
** (claims_domains.c): the sweep database, every channel-mixing layer of
** sweeps/layers/, the Tab. 6 selection, the conv and pointwise ops of the
** eleven MCUNet graphs. */
enum {
    RIP_CLAIM_DOMAIN_SWEEP = 0,
    RIP_CLAIM_DOMAIN_TABLES,
    RIP_CLAIM_DOMAIN_TAB6,
    RIP_CLAIM_DOMAIN_MCUNET,
    RIP_CLAIM_DOMAINS
};
extern const char *const rip_claim_domain_names[RIP_CLAIM_DOMAINS];

/* The view a claim of the ALL rule reads its members from ("cl", "lead",
** "ra", "t6", "pl", "small_opt"), or NULL for a claim of another kind
** (claims_registry.c). */
const char *rip_claim_every_from(const rip_claim *c);

/* One claim on one domain other than its own. */
typedef struct rip_claim_domain_result {
    bool judged;         /* the claim is a statement about every member, written for another domain */
    bool applicable;     /* its query runs on this domain; else why says what is missing */
    char verdict[16];    /* agrees, contradicted, or never (the premise holds on no member) */
    int64_t k, n;        /* members that hold, members of the domain where the premise holds */
    char witness[512];   /* the smallest counterexample, "" when none */
    char why[160];
} rip_claim_domain_result;

/*
** Judge every statement about all members of a set among the n claims cs
** on each domain it was not written for, into out[i][domain] (zeroed
** first): the claim's own SQL with the views it reads pointed at the other
** domain's layers.  sweep: the sweep connection with its views
** (rip_claims_sweep_views); aux: built by rip_claims_build_aux with the
** views of aux_views, which are put back afterwards.  RIP_OK, or RIP_S_DATA
** with err when a view cannot be made.
*/
rip_status rip_claims_on_domains(sqlite3 *sweep, sqlite3 *aux, const char *aux_views, const rip_claim *cs, size_t n,
                                 rip_claim_domain_result (*out)[RIP_CLAIM_DOMAINS], char err[RIP_ERR_LEN]);

/* The overall verdict of a claim whose home verdict is home, given its
** other domains d: the strictest (a counterexample anywhere contradicts;
** a premise empty at home agrees where it holds elsewhere); *from the
** domain that decided it, -1 for the home one. */
const char *rip_claim_overall(const char *home, const rip_claim_domain_result d[RIP_CLAIM_DOMAINS], int *from);

/* One claim's outcome. */
typedef struct rip_claim_result {
    char verdict[16];     /* agrees, differs, contradicted, not checked */
    char evidence[1024];
    char witness[512];    /* "" when none */
    /* the figures behind a verdict, for a machine-readable view (`ripsim
    ** report --format csv`): k of n counted (SHARE; a statement about every
    ** member of a set: members holding of the domain; MEAN: n values), the
    ** run's share in percent or its mean, and the 95% interval */
    bool counted;
    int64_t k, n;
    bool has_value, has_ci;
    double value, lo, hi;
} rip_claim_result;

/* Run claim c on sweep / aux into *r.  RIP_OK; RIP_S_DATA with err when
** SQLite refuses its query or it returns no row, or its k, n or values
** have no interval (k outside 0..n, a value not finite); the database's
** own failure as rip_db_status maps it (RIP_S_BUSY, RIP_S_NOMEM,
** RIP_S_IO, ...); RIP_S_INTERNAL with err when an interval cannot be
** computed (confidence.h). */
rip_status rip_claim_run(const rip_claim *c, sqlite3 *sweep, sqlite3 *aux, rip_claim_result *r,
                         char err[RIP_ERR_LEN]);

/*
** results/claims.md to out: every claim with its verdict and evidence, the
** contradicted and differing ones again with their smallest counterexample,
** and every query's SQL.  sweep: a validated sweep database
** (rip_db_open_read); aux: built by rip_claims_build_aux; figures: names of
** SVG files to link (NULL-terminated, may be NULL), each linked as
** fig_prefix + name: a relative URL path to their folder, ending in '/',
** or "" when they are beside out (NULL is ""; the caller encodes it).
** Deterministic.  RIP_OK, or RIP_S_DATA / RIP_S_NOMEM / RIP_S_INTERNAL
** with err.
*/
rip_status rip_claims_write(sqlite3 *sweep, sqlite3 *aux, const char *const *figures, const char *fig_prefix,
                            FILE *out, char err[RIP_ERR_LEN]);

#endif
