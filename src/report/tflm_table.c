/*
** tflm_table.c — results/tflm.md (tflm_table.h): the measurement of
** tests/tflm/measure-tflm.sh (results/tflm.tsv, read strictly) with the
** real links of results/tflm-link.tsv (optional, rows optional).
*/
#include "tflm_table.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define MAX_ROWS 128
#define MAX_LINKS 512
#define LINE_BYTES 8192
#define N_COLS 21
#define N_LINK_COLS 5

static const char *const cols[N_COLS] = {
    "case", "lib", "model", "tflm_arena", "tflm_min_arena", "greedy_area", "noov_area", "noov_arena",
    "noov_min_arena", "rip_area", "rip_lower_bound", "rip_arena", "rip_min_arena", "peak_op", "peak_end",
    "peak_live", "friendly_area", "limits", "tflm_head", "noov_head", "rip_head"};
static const char *const link_cols[N_LINK_COLS] = {"case", "lib", "board", "ram_rest", "flash"};

/* The boards: RAM and flash, bytes (RP2040: 264 KB SRAM, 2 MB flash; RP2350: 520 KB, 4 MB). */
static const struct { const char *name, *title; long long ram, flash; } boards[2] = {
    {"pico", "Pico 1", 264 * 1024, 2 * 1024 * 1024}, {"pico2", "Pico 2", 520 * 1024, 4 * 1024 * 1024}};
static const char *const lib_names[2] = {"reference", "cmsis-nn"};

/* Numeric columns of a row, in the order of cols. */
enum { TFLM_ARENA, TFLM_MIN, GREEDY, NOOV_AREA, NOOV_ARENA, NOOV_MIN, RIP_AREA, RIP_BOUND, RIP_ARENA, RIP_MIN,
       PEAK_END, FRIENDLY, TFLM_HEAD, NOOV_HEAD, RIP_HEAD, N_NUM };

typedef struct row {
    char name[48], model[96], peak_op[96], peak_live[1024], limits[4096];
    int lib;
    long long v[N_NUM];
} row;

typedef struct link_row {
    char name[48];
    int lib, board;
    long long ram_rest, flash;
} link_row;

typedef struct table {
    row r[MAX_ROWS];
    size_t n;
    link_row l[MAX_LINKS];
    size_t n_links;
    char provenance[512];   /* the "tflm_commit ..." line, without "# " */
} table;

/* A whole number >= 0 of all of s into *v. */
static bool whole(const char *s, long long *v)
{
    char *end;
    errno = 0;
    *v = strtoll(s, &end, 10);
    return s[0] >= '0' && s[0] <= '9' && *end == '\0' && errno == 0;
}

/* s copied into d (of n bytes); false when it does not fit. */
static bool copy(char *d, size_t n, const char *s)
{
    if (strlen(s) >= n)
        return false;
    memcpy(d, s, strlen(s) + 1);
    return true;
}

/* A library's index from its name (the tflm- names and the peer's variants too), -1 unknown. */
static int lib_of(const char *s)
{
    if (!strcmp(s, "reference") || !strcmp(s, "ref") || !strcmp(s, "tflm-reference"))
        return 0;
    if (!strcmp(s, "cmsis-nn") || !strcmp(s, "cmsis") || !strcmp(s, "tflm-cmsis-nn"))
        return 1;
    return -1;
}

static const char *parse_row(char **f, table *t)
{
    if (t->n == MAX_ROWS)
        return "more than 128 rows";
    row *r = &t->r[t->n];
    static const int num_col[N_NUM] = {3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 14, 16, 18, 19, 20};
    if (!copy(r->name, sizeof r->name, f[0]) || !copy(r->model, sizeof r->model, f[2]) ||
        !copy(r->peak_op, sizeof r->peak_op, f[13]) || !copy(r->peak_live, sizeof r->peak_live, f[15]) ||
        !copy(r->limits, sizeof r->limits, f[17]))
        return "a field too long";
    if (!r->name[0])
        return "an empty case name";
    if ((r->lib = lib_of(f[1])) < 0)
        return "lib must be reference or cmsis-nn";
    for (int k = 0; k < N_NUM; k++)
        if (!whole(f[num_col[k]], &r->v[k]))
            return "the areas and arenas must be whole numbers";
    t->n++;
    return NULL;
}

static const char *parse_link(char **f, table *t)
{
    if (t->n_links == MAX_LINKS)
        return "more than 512 rows";
    link_row *l = &t->l[t->n_links];
    if (!copy(l->name, sizeof l->name, f[0]) || !l->name[0])
        return "an empty or too long case name";
    if ((l->lib = lib_of(f[1])) < 0)
        return "lib must be reference or cmsis-nn";
    l->board = !strcmp(f[2], "pico") || !strcmp(f[2], "pico1") ? 0 : !strcmp(f[2], "pico2") ? 1 : -1;
    if (l->board < 0)
        return "board must be pico or pico2";
    if (!whole(f[3], &l->ram_rest) || !whole(f[4], &l->flash))
        return "ram_rest and flash must be whole numbers";
    t->n_links++;
    return NULL;
}

/*
** Read the TSV at path: '#' lines (a "tflm_commit ..." one kept in
** prov when prov is not NULL), the header of the n names, then rows of n
** tab-separated fields given to parse.  RIP_OK; RIP_S_NOINPUT,
** RIP_S_DATA ("PATH:LINE: WHAT"), RIP_S_IO, with err.
*/
static rip_status read_tsv(const char *path, const char *const *names, int n, char *prov, size_t prov_n,
                           const char *(*parse)(char **, table *), table *t, char err[RIP_ERR_LEN])
{
    FILE *in = fopen(path, "r");
    if (!in) {
        snprintf(err, RIP_ERR_LEN, "%.400s: cannot open: %s", path, strerror(errno));
        return RIP_S_NOINPUT;
    }
    char *line = malloc(LINE_BYTES), header[512] = "";
    if (!line) {
        fclose(in);
        snprintf(err, RIP_ERR_LEN, "out of memory");
        return RIP_S_NOMEM;
    }
    for (int k = 0; k < n; k++)
        snprintf(header + strlen(header), sizeof header - strlen(header), "%s%s", k ? "\t" : "", names[k]);
    const char *why = NULL;
    bool seen_header = false;
    long line_no = 0;
    while (!why && fgets(line, LINE_BYTES, in)) {
        line_no++;
        size_t len = strlen(line);
        if (len == 0 || line[len - 1] != '\n') {
            why = "a line too long or without its newline";
            break;
        }
        line[len - 1] = '\0';
        if (line[0] == '#') {
            const char *p = strstr(line, "tflm_commit ");
            if (prov && p && !prov[0])
                snprintf(prov, prov_n, "%.*s", (int)strcspn(p, ";"), p);
            continue;
        }
        if (!seen_header) {
            seen_header = true;
            if (strcmp(line, header) != 0)
                why = "expected the header line of the columns (tab-separated)";
            continue;
        }
        char *f[N_COLS + 1], *s = line;
        int k = 0;
        for (; k < n && s; k++) {
            f[k] = s;
            s = strchr(s, '\t');
            if (s)
                *s++ = '\0';
        }
        why = k != n || s ? "a row without its number of tab-separated fields" : parse(f, t);
    }
    rip_status st = RIP_OK;
    if (why || ferror(in) || !seen_header || (prov && !prov[0])) {
        snprintf(err, RIP_ERR_LEN, "%.300s:%ld: %.150s", path, line_no,
                 why ? why : ferror(in) ? "read error" : !seen_header ? "no header line"
                                                        : "no '# tflm_commit ...' provenance line");
        st = ferror(in) ? RIP_S_IO : RIP_S_DATA;
    }
    free(line);
    fclose(in);
    return st;
}

/* ---- cells ---- */

/* The link of case name, library lib, board b; NULL none. */
static const link_row *find_link(const table *t, const char *name, int lib, int b)
{
    for (size_t i = 0; i < t->n_links; i++)
        if (t->l[i].lib == lib && t->l[i].board == b && !strcmp(t->l[i].name, name))
            return &t->l[i];
    return NULL;
}

/* "yes / yes", "no / yes" (TFLM's own plan / ripsim's overlapping plan, each at its smallest arena), "no: flash",
** or "no build". */
static void fit_cell(char *buf, size_t n, const table *t, const row *r, int b)
{
    const link_row *l = find_link(t, r->name, r->lib, b);
    if (!l)
        snprintf(buf, n, "no build");
    else if (l->flash > boards[b].flash)
        snprintf(buf, n, "no: flash");
    else
        snprintf(buf, n, "%s / %s", r->v[TFLM_MIN] + l->ram_rest <= boards[b].ram ? "yes" : "no",
                 r->v[RIP_MIN] + l->ram_rest <= boards[b].ram ? "yes" : "no");
}

/* "2 (CONV_2D)" of "2:CONV_2D"; "input" stays. */
static void op_cell(char *buf, size_t n, const char *peak_op)
{
    const char *c = strchr(peak_op, ':');
    if (!c)
        snprintf(buf, n, "%s", peak_op);
    else
        snprintf(buf, n, "%.*s (%s)", (int)(c - peak_op), peak_op, c + 1);
}

/* "54: 36864, 51: 18432 (55296)" of "54:36864 51:18432": tensor: bytes, by offset, and their sum. */
static void live_cell(char *buf, size_t n, const char *live)
{
    size_t k = 0;
    long long sum = 0, t, b;
    int used;
    for (const char *p = live; sscanf(p, " %lld:%lld%n", &t, &b, &used) == 2; p += used)
        sum += b;
    for (const char *p = live; *p && k + 3 < n; p++) {
        if (*p == ':') {
            buf[k++] = ':';
            buf[k++] = ' ';
        } else if (*p == ' ') {
            buf[k++] = ',';
            buf[k++] = ' ';
        } else
            buf[k++] = *p;
    }
    snprintf(buf + k, n - k, " (%lld)", sum);
}

/* The entries of a limits field, OP:NAME:K:GAP:OTHER:SAVED, one at a time: false at the end or a malformed one. */
typedef struct limit {
    long op, k;
    char name[64], gap[24];
    long long other, saved;
} limit;

static bool next_limit(const char **p, limit *l)
{
    while (**p == ' ')
        (*p)++;
    if (!**p || !strcmp(*p, "-"))
        return false;
    int used = 0;
    if (sscanf(*p, "%ld:%63[^:]:%ld:%23[^:]:%lld:%lld%n", &l->op, l->name, &l->k, l->gap, &l->other, &l->saved,
               &used) != 6)
        return false;
    *p += used;
    return true;
}

/* ---- the page ---- */

static void write_intro(FILE *o, const table *t, bool have_links)
{
    fprintf(o, "# TensorFlow Lite Micro on ripsim's exact plans\n\n"
               "Generated by `ripsim tables tflm` from `results/tflm.tsv` and `results/tflm-link.tsv`%s. "
               "`results/tflm.tsv` is measured by `tests/tflm/measure-tflm.sh build-tflm-peer build/ripsim` "
               "(TensorFlow Lite Micro %s, built on the host by `tests/tflm/build-peer.sh` with its reference "
               "kernels and with CMSIS-NN's, pure-C path): per case of `tests/tflm/cases.tsv` and kernel "
               "library, the TFLM peer runs the model three times on the case's input, unchanged (TFLM's own "
               "greedy plan), with ripsim's exact plan without overlap (`ripsim plan MODEL --for LIB "
               "--no-overlap --write OUT`: only a RESHAPE's output at its input's offset, where TFLM's RESHAPE "
               "copies nothing) and with ripsim's exact plan with the overlaps LIB's modelled kernel orders "
               "allow (`ripsim plan MODEL --for LIB --write OUT`), both written as the model's "
               "`OfflineMemoryAllocation` metadata, which the unchanged TFLM follows. The script fails unless "
               "every planned run's outputs and every operator's output are TFLM's own plan's, byte for byte, "
               "and a run at the smallest arena gives the same outputs. Nothing here depends on the machine's "
               "speed.\n\n",
            have_links ? "" : " (absent: no image was linked, the fit columns say \"no build\")", t->provenance);
    fprintf(o, "Arena: TFLM's `arena_used_bytes` after AllocateTensors: the planned tensors, the kernels' "
               "scratch buffers (placed by TFLM online, around the offline plan) and TFLM's persistent data. "
               "The head (the tensors and the scratch buffers, as TFLM places them) is what a plan changes; "
               "`ripsim plan MODEL --for LIB` predicts it, and equals TFLM's own figure on every row (below); "
               "the persistent tail, arena minus head, is the same on all three plans of a row. Saved: TFLM's own "
               "arena minus the arena on ripsim's overlapping plan, and its share of TFLM's own. The host is "
               "x86-64: TFLM's persistent structures hold pointers and `size_t`, twice their size on the "
               "Picos' 32-bit cores, so a device's arena is smaller than these by a few hundred to a few "
               "thousand bytes (tests/tflm/README.md).\n\n"
               "Pico 1 / Pico 2 (own / RiP): whether the image fits the board with TFLM's own plan and with "
               "ripsim's overlapping plan: the smallest arena AllocateTensors accepts (measured on the host) "
               "plus `ram_rest`, the RAM the real link of the image takes besides its arena "
               "(`results/tflm-link.tsv`), within the board's SRAM (Pico 1, RP2040: 264 KB; Pico 2, RP2350: "
               "520 KB), and the link's flash within the board's (2 MB, 4 MB); \"no: flash\" when the flash is "
               "over, \"no build\" when no link of that case, library and board is given.\n\n");
}

static void write_arenas(FILE *o, const table *t)
{
    fprintf(o, "## Arena\n\nBytes.\n\n"
               "| case (model) | kernels | TFLM's own plan | ripsim, no overlap | ripsim, overlaps | saved | "
               "saved %% | Pico 1 (own / RiP) | Pico 2 (own / RiP) |\n"
               "|---|---|---:|---:|---:|---:|---:|---|---|\n");
    int lower_noov = 0, lower_rip = 0;
    for (size_t i = 0; i < t->n; i++) {
        const row *r = &t->r[i];
        char f1[32], f2[32];
        fit_cell(f1, sizeof f1, t, r, 0);
        fit_cell(f2, sizeof f2, t, r, 1);
        const long long saved = r->v[TFLM_ARENA] - r->v[RIP_ARENA];
        fprintf(o, "| %s (`%s`) | %s | %lld | %lld | %lld | %lld | %.1f%% | %s | %s |\n", r->name, r->model,
                lib_names[r->lib], r->v[TFLM_ARENA], r->v[NOOV_ARENA], r->v[RIP_ARENA], saved,
                r->v[TFLM_ARENA] > 0 ? 100.0 * (double)saved / (double)r->v[TFLM_ARENA] : 0.0, f1, f2);
        lower_noov += r->v[NOOV_ARENA] < r->v[TFLM_ARENA];
        lower_rip += r->v[RIP_ARENA] < r->v[TFLM_ARENA];
    }
    fprintf(o, "\nBelow TFLM's own arena on %d of %zu rows without overlap, on %d with ripsim's overlaps.\n",
            lower_noov, t->n, lower_rip);
    fprintf(o, "\n## Tensor areas and smallest arenas\n\n"
               "Bytes. The tensor area is the highest end of the planned tensors (16-byte sizes, TFLM's own "
               "lifetimes): TFLM greedy is ripsim's re-enactment of TFLM's greedy planner (the own plan), the "
               "others ripsim's exact plans; bound: the live-bytes lower bound of the overlapping plan (no plan "
               "of these tensors with these overlaps goes below it). Smallest arena: the smallest arena "
               "AllocateTensors accepts, by bisection, on the own plan / no overlap / overlaps (above "
               "`arena_used_bytes` where AllocateTensors needs temporary memory it releases). Head: TFLM's "
               "`GetNonPersistentUsedBytes` after AllocateTensors (the tensors and the kernels' scratch "
               "buffers, which TFLM places online around the offline plan), measured by the peer on the own "
               "plan / no overlap / overlaps; `ripsim plan --for` predicts each exactly "
               "(`src/tflm/tflm_scratch.h`; the measurement fails otherwise), so the tensor area and the head "
               "differ only by scratch that TFLM could not fit below the tensors' end.\n\n"
               "| case | kernels | TFLM greedy | no overlap | overlaps | bound | head | smallest arena |\n"
               "|---|---|---:|---:|---:|---:|---|---|\n");
    for (size_t i = 0; i < t->n; i++) {
        const row *r = &t->r[i];
        fprintf(o, "| %s | %s | %lld | %lld | %lld | %lld | %lld / %lld / %lld | %lld / %lld / %lld |\n", r->name,
                lib_names[r->lib], r->v[GREEDY], r->v[NOOV_AREA], r->v[RIP_AREA], r->v[RIP_BOUND], r->v[TFLM_HEAD],
                r->v[NOOV_HEAD], r->v[RIP_HEAD], r->v[TFLM_MIN], r->v[NOOV_MIN], r->v[RIP_MIN]);
    }
}

/* Does an earlier row of row i's library have its model and limits? */
static bool same_as_earlier(const table *t, size_t i)
{
    for (size_t j = 0; j < i; j++)
        if (t->r[j].lib == t->r[i].lib && !strcmp(t->r[j].model, t->r[i].model) &&
            !strcmp(t->r[j].limits, t->r[i].limits))
            return true;
    return false;
}

static void write_limits(FILE *o, const table *t)
{
    fprintf(o, "\n## What limits the saving\n\n"
               "Peak: the operator of the overlapping plan where its tensors reach the tensor area (of those, the "
               "one with the most bytes alive), and the tensors alive there (tensor: bytes, by offset; more "
               "bytes alive than the area means an overlap at the peak). Smaller gaps: the tensor area of the "
               "plan with every operator at the smaller of the two libraries' gaps (the gap of an order as "
               "friendly to RiP as the better of the two kernels, from the same trace engine; a figure, not a "
               "plan either library runs), and what it saves against the library's own plan. All from "
               "`ripsim plan MODEL --for LIB` (`src/tflm/tflm_limits.h`).\n\n"
               "| case | kernels | peak operator | alive at the peak | overlapping plan | smaller gaps |\n"
               "|---|---|---|---|---|---|\n");
    for (size_t i = 0; i < t->n; i++) {
        const row *r = &t->r[i];
        char op[128], live[1600], plan[80];
        op_cell(op, sizeof op, r->peak_op);
        live_cell(live, sizeof live, r->peak_live);
        if (r->v[RIP_AREA] == r->v[RIP_BOUND])
            snprintf(plan, sizeof plan, "%lld, at its bound", r->v[RIP_AREA]);
        else
            snprintf(plan, sizeof plan, "%lld, bound %lld", r->v[RIP_AREA], r->v[RIP_BOUND]);
        fprintf(o, "| %s | %s | %s | %s | %s | %lld (%lld less) |\n", r->name, lib_names[r->lib], op, live, plan,
                r->v[FRIENDLY], r->v[RIP_AREA] - r->v[FRIENDLY]);
    }
    fprintf(o, "\n### Where CMSIS-NN's kernels allow less than the reference kernels\n\n"
               "Every operator output / input pair that may share memory (the input dying, the output born at "
               "that operator) where CMSIS-NN's kernel forbids an overlap (gap: none) or needs a larger gap "
               "than the reference kernel allows: the two gaps (the input at least that many bytes above the "
               "output; plans round them up to 16), and the tensor area saved against CMSIS-NN's plan when "
               "that operator alone takes the smaller gap. Cases of one model share their rows.\n\n"
               "| case | operator | input | CMSIS-NN gap | reference gap | saved alone |\n"
               "|---|---|---:|---:|---:|---:|\n");
    int rows = 0;
    for (size_t i = 0; i < t->n; i++) {
        const row *r = &t->r[i];
        if (r->lib != 1 || same_as_earlier(t, i))
            continue;
        char names[256];   /* the cases of one model and limits share their rows */
        snprintf(names, sizeof names, "%s", r->name);
        for (size_t j = i + 1; j < t->n; j++)
            if (t->r[j].lib == 1 && same_as_earlier(t, j) && !strcmp(t->r[j].model, r->model) &&
                strlen(names) + strlen(t->r[j].name) + 3 < sizeof names)
                snprintf(names + strlen(names), sizeof names - strlen(names), ", %s", t->r[j].name);
        const char *p = r->limits;
        limit l;
        while (next_limit(&p, &l)) {
            fprintf(o, "| %s | %ld (%s) | %ld | %s | %lld | %lld |\n", names, l.op, l.name, l.k,
                    strcmp(l.gap, "-") ? l.gap : "none", l.other, l.saved);
            rows++;
        }
    }
    if (rows == 0)
        fprintf(o, "| (none) | | | | | |\n");
}

/* Every limits field readable to its end (next_limit), or the case whose is not. */
static const row *bad_limits(const table *t)
{
    for (size_t i = 0; i < t->n; i++) {
        const char *p = t->r[i].limits;
        limit l;
        while (next_limit(&p, &l))
            ;
        while (*p == ' ')
            p++;
        if (*p && strcmp(p, "-"))
            return &t->r[i];
    }
    return NULL;
}

rip_status rip_tflm_table_write(FILE *o, const char *tflm_path, const char *link_path, char err[RIP_ERR_LEN])
{
    table *t = calloc(1, sizeof *t);
    if (!t) {
        snprintf(err, RIP_ERR_LEN, "out of memory");
        return RIP_S_NOMEM;
    }
    rip_status st = read_tsv(tflm_path, cols, N_COLS, t->provenance, sizeof t->provenance, parse_row, t, err);
    if (st == RIP_OK && link_path)
        st = read_tsv(link_path, link_cols, N_LINK_COLS, NULL, 0, parse_link, t, err);
    const row *bad = st == RIP_OK ? bad_limits(t) : NULL;
    if (bad) {
        snprintf(err, RIP_ERR_LEN, "%.300s: case %s: limits must be OP:NAME:K:GAP:OTHER:SAVED entries or -",
                 tflm_path, bad->name);
        st = RIP_S_DATA;
    }
    if (st == RIP_OK) {
        write_intro(o, t, link_path != NULL);
        write_arenas(o, t);
        write_limits(o, t);
    }
    free(t);
    return st;
}
