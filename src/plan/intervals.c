/*
** intervals.c — raw buffer lists (`ripsim plan --intervals`, graph.h): a
** CSV with the columns id, start, end, size (any order, no others; the
** dialect of csv.h), one buffer a row, becomes a problem without in-place
** candidates.  [start, end) is half-open unless `inclusive`; start, end
** and size are integers in [0, 2^46] (size >= 1); ids are 1 to 31
** characters and unique.  The sizes (each plus the alignment) must add up
** to at most RIP_PLAN_TOTAL_MAX: the row where they pass it is refused.
**
** Linear in the rows but for the id check, a sort (O(n log n)): the tensor
** array grows by doubling, nothing is looked up per row.
*/
#include <stdlib.h>
#include <string.h>

#include "graph.h"
#include "plan_csv.h"

enum { C_ID, C_START, C_END, C_SIZE, N_COLS };

static const rip_csv_column cols[N_COLS] = {
    {"id", true}, {"start", true}, {"end", true}, {"size", true},
};

#define VALUE_MAX ((int64_t)1 << 46)

typedef struct id_sort {
    const char *id;
    size_t i;
} id_sort;

static int cmp_id_sort(const void *a, const void *b)
{
    const id_sort *x = a, *y = b;
    int c = strcmp(x->id, y->id);
    return c ? c : (x->i < y->i ? -1 : x->i > y->i);
}

/* Room for one more tensor and its row; RIP_OK or RIP_S_NOMEM. */
static rip_status grow(rip_problem *p, int64_t **rows, size_t *cap)
{
    if (p->n < *cap)
        return RIP_OK;
    size_t nc = *cap ? 2 * *cap : 64;
    rip_tensor *nt = nc < SIZE_MAX / sizeof *nt ? realloc(p->t, nc * sizeof *nt) : NULL;
    if (nt == NULL)
        return RIP_S_NOMEM;
    p->t = nt;
    int64_t *nr = realloc(*rows, nc * sizeof *nr);
    if (nr == NULL)
        return RIP_S_NOMEM;
    *rows = nr;
    *cap = nc;
    return RIP_OK;
}

/* One record into tensor *t; *total grows by its size + align.  RIP_OK or RIP_S_DATA. */
static rip_status parse_row(rip_csv *r, const rip_csv_record *rec, const int col[N_COLS], bool inclusive,
                            int64_t align, int64_t *total, rip_tensor *t, char err[RIP_ERR_LEN])
{
    rip_status s = rip_csv_check_width(r, rec, err);
    if (s != RIP_OK)
        return s;
    const char *id = rec->field[col[C_ID]];
    size_t id_len = rec->len[col[C_ID]];
    if (id_len == 0 || id_len >= RIP_PLAN_ID_LEN) {
        char shown[64];
        rip_csv_show(id, 40, shown, sizeof shown);
        rip_csv_errorf(r, rec->line, "id", err, "'%s' must be 1 to %d characters", shown, RIP_PLAN_ID_LEN - 1);
        return RIP_S_DATA;
    }
    int64_t start, end, size;
    if ((s = rip_csv_int(r, rec, (size_t)col[C_START], 0, VALUE_MAX, &start, err)) != RIP_OK ||
        (s = rip_csv_int(r, rec, (size_t)col[C_END], 0, VALUE_MAX, &end, err)) != RIP_OK ||
        (s = rip_csv_int(r, rec, (size_t)col[C_SIZE], 1, VALUE_MAX, &size, err)) != RIP_OK)
        return s;
    if (end < start) {
        rip_csv_errorf(r, rec->line, "end", err, "%lld is before start %lld (start > end)", (long long)end,
                       (long long)start);
        return RIP_S_DATA;
    }
    if (end == start && !inclusive) {
        rip_csv_errorf(r, rec->line, "end", err,
                       "%lld = start: a zero-length half-open interval [start, end) (use --inclusive if the file "
                       "means [start, end])",
                       (long long)end);
        return RIP_S_DATA;
    }
    *total += size + align; /* each term <= 2^46 + 2^30 and the total <= 2^62 before: no wrap */
    if (*total > RIP_PLAN_TOTAL_MAX) {
        rip_csv_errorf(r, rec->line, "size", err,
                       "the sizes up to this row add up to more than 2^62 bytes, the planner's limit (offsets must "
                       "stay within 64 bits)");
        return RIP_S_DATA;
    }
    memset(t, 0, sizeof *t);
    memcpy(t->id, id, id_len + 1);
    t->first = start;
    t->last = inclusive ? end : end - 1;
    t->size = size;
    t->producer_op = -1;
    return RIP_OK;
}

/* Ids must be unique (plans and JSON are keyed by id).  RIP_OK, RIP_S_DATA, RIP_S_NOMEM. */
static rip_status unique_ids(const rip_problem *p, const int64_t *rows, rip_csv *r, char err[RIP_ERR_LEN])
{
    id_sort *ids = malloc(p->n * sizeof *ids);
    if (ids == NULL) {
        snprintf(err, RIP_ERR_LEN, "%.200s: out of memory", rip_csv_fname(r));
        return RIP_S_NOMEM;
    }
    for (size_t i = 0; i < p->n; i++)
        ids[i] = (id_sort){p->t[i].id, i};
    qsort(ids, p->n, sizeof *ids, cmp_id_sort);
    rip_status s = RIP_OK;
    for (size_t i = 1; i < p->n && s == RIP_OK; i++) {
        if (strcmp(ids[i].id, ids[i - 1].id) == 0) {
            rip_csv_errorf(r, rows[ids[i].i], "id", err, "'%s' repeats row %lld", ids[i].id,
                           (long long)rows[ids[i - 1].i]);
            s = RIP_S_DATA;
        }
    }
    free(ids);
    return s;
}

rip_status rip_problem_from_intervals(const char *path, bool inclusive, int64_t align, rip_problem *p,
                                      char err[RIP_ERR_LEN])
{
    memset(p, 0, sizeof *p);
    if (align < 1 || align > RIP_PLAN_ALIGN_MAX) {
        snprintf(err, RIP_ERR_LEN, "align: %lld, must be in [1, %lld]", (long long)align,
                 (long long)RIP_PLAN_ALIGN_MAX);
        return RIP_S_INTERNAL;
    }
    FILE *f;
    rip_csv *r;
    int64_t *rows = NULL, total = 0;
    size_t cap = 0;
    int col[N_COLS];
    rip_status s = rip_plan_csv_open(path, &f, &r, p->name, sizeof p->name, err);
    if (s != RIP_OK)
        return s;
    p->align = align;
    s = rip_csv_read_header(r, cols, N_COLS, false, col, err);
    const rip_csv_record *rec;
    while (s == RIP_OK && (s = rip_csv_next(r, &rec, err)) == RIP_OK && rec != NULL) {
        if ((s = grow(p, &rows, &cap)) != RIP_OK) {
            snprintf(err, RIP_ERR_LEN, "%.200s: out of memory", path);
            break;
        }
        rip_tensor *t = &p->t[p->n];
        if ((s = parse_row(r, rec, col, inclusive, align, &total, t, err)) != RIP_OK)
            break;
        if (t->last + 1 > p->n_steps)
            p->n_steps = t->last + 1;
        rows[p->n++] = rec->line;
    }
    if (s == RIP_OK && p->n == 0) {
        rip_csv_errorf(r, 2, "id", err, "no intervals after the header");
        s = RIP_S_DATA;
    }
    if (s == RIP_OK)
        s = unique_ids(p, rows, r, err);
    free(rows);
    rip_csv_close(r);
    fclose(f);
    if (s != RIP_OK)
        rip_problem_free(p);
    return s;
}
