/*
** real_models.c — results/real-models.md (real_models.h): TFLM's figures
** (results/tflm-peer.tsv, read strictly) beside the firmware records of
** the same cases (results/real-models.json).
*/
#include "real_models.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define MAX_CASES 64
#define LINE_MAX_BYTES 4096

static const char header[] = "case\tmodel\tarena_used_bytes\toutput_bytes\toutput_crc32\toutput_values\toperators";

/* One case of the TFLM file. */
typedef struct tflm_case {
    char name[48], model[96], values[256], ops[512];
    long long arena, out_bytes;
    unsigned long crc;
} tflm_case;

typedef struct tflm_file {
    tflm_case c[MAX_CASES];
    size_t n;
    char provenance[512];          /* the header's "tflm_commit ..." line, without "# " */
} tflm_file;

/* A whole number >= 0 of all of s into *v. */
static bool whole(const char *s, long long *v)
{
    char *end;
    errno = 0;
    *v = strtoll(s, &end, 10);
    return s[0] >= '0' && s[0] <= '9' && *end == '\0' && errno == 0;
}

/* Row text (its tabs already cut into f[7]) into c; NULL or what is wrong. */
static const char *parse_row(char *f[7], tflm_case *c)
{
    if (strlen(f[0]) >= sizeof c->name || strlen(f[1]) >= sizeof c->model || strlen(f[5]) >= sizeof c->values ||
        strlen(f[6]) >= sizeof c->ops)
        return "a field too long";
    strcpy(c->name, f[0]);
    strcpy(c->model, f[1]);
    strcpy(c->values, f[5]);
    strcpy(c->ops, f[6]);
    if (!whole(f[2], &c->arena) || !whole(f[3], &c->out_bytes))
        return "arena_used_bytes and output_bytes must be whole numbers";
    if (strlen(f[4]) != 8 || strspn(f[4], "0123456789abcdef") != 8)
        return "output_crc32 must be 8 lowercase hex digits";
    c->crc = strtoul(f[4], NULL, 16);
    return c->name[0] ? NULL : "an empty case name";
}

static rip_status read_tflm(const char *path, tflm_file *t, char err[RIP_ERR_LEN])
{
    FILE *in = fopen(path, "r");
    if (!in) {
        snprintf(err, RIP_ERR_LEN, "%.400s: cannot open: %s", path, strerror(errno));
        return RIP_S_NOINPUT;
    }
    memset(t, 0, sizeof *t);
    char line[LINE_MAX_BYTES];
    const char *why = NULL;
    bool seen_header = false;
    long line_no = 0;
    while (!why && fgets(line, sizeof line, in)) {
        line_no++;
        size_t n = strlen(line);
        if (n == 0 || line[n - 1] != '\n') {
            why = "a line too long or without its newline";
            break;
        }
        line[n - 1] = '\0';
        if (line[0] == '#') {
            const char *p = strstr(line, "tflm_commit ");
            if (p && !t->provenance[0])
                snprintf(t->provenance, sizeof t->provenance, "%s", p);
            continue;
        }
        if (!seen_header) {
            seen_header = true;
            if (strcmp(line, header) != 0)
                why = "expected the header line: case, model, arena_used_bytes, output_bytes, output_crc32, "
                      "output_values, operators (tab-separated)";
            continue;
        }
        char *f[7], *s = line;
        int k = 0;
        for (; k < 7 && s; k++) {
            f[k] = s;
            s = strchr(s, '\t');
            if (s)
                *s++ = '\0';
        }
        if (k != 7 || s)
            why = "expected 7 tab-separated fields";
        else if (t->n == MAX_CASES)
            why = "more than 64 cases";
        else
            why = parse_row(f, &t->c[t->n++]);
    }
    rip_status st = RIP_OK;
    if (why || ferror(in) || !seen_header || !t->provenance[0]) {
        snprintf(err, RIP_ERR_LEN, "%.300s:%ld: %.150s", path, line_no,
                 why ? why : ferror(in) ? "read error" : !seen_header ? "no header line" :
                 "no '# tflm_commit ...' provenance line");
        st = ferror(in) ? RIP_S_IO : RIP_S_DATA;
    }
    fclose(in);
    return st;
}

/* ---- cells ---- */

/* The record of one case, plan and target (NULL: none). */
static const rip_deploy_rec *rec(const rip_deployment *d, const tflm_case *c, const char *plan, const char *target)
{
    return rip_deploy_find(d, c->name, plan, target);
}

/* Any record of the case and plan: arena and scratch are the model.json's, the same on every target. */
static const rip_deploy_rec *any_rec(const rip_deployment *d, const tflm_case *c, const char *plan)
{
    static const char *const targets[] = {"qemu-m0", "qemu-m33", "pico", "pico2"};
    for (size_t k = 0; k < 4; k++)
        if (rec(d, c, plan, targets[k]))
            return rec(d, c, plan, targets[k]);
    return NULL;
}

/* "CONV_2D:14 ADD:3" as "CONV_2D 14, ADD 3". */
static void ops_cell(char *buf, size_t n, const char *ops)
{
    size_t k = 0;
    for (const char *p = ops; *p && k + 3 < n; p++) {
        if (*p == ':')
            buf[k++] = ' ';
        else if (*p == ' ') {
            buf[k++] = ',';
            buf[k++] = ' ';
        } else
            buf[k++] = *p;
    }
    buf[k] = '\0';
}

static void saving_cell(char *buf, size_t n, const rip_deploy_rec *r, long long tflm)
{
    if (!r || tflm <= 0)
        snprintf(buf, n, "n/a");
    else
        snprintf(buf, n, "%.1f%%", 100.0 * (1.0 - (double)(r->arena_bytes + r->scratch_bytes) / (double)tflm));
}

/* A pico-sdk link: "yes, RAM B" / "no, RAM B" / "n/a". */
static void link_cell(char *buf, size_t n, const rip_deploy_rec *r)
{
    if (!r || r->fits < 0)
        snprintf(buf, n, "n/a");
    else
        snprintf(buf, n, "%s, %lld B", r->fits ? "yes" : "no", (long long)r->ram_bytes);
}

/* Instructions of one QEMU image: the count, "no fit", "not run" or "n/a". */
static void count_cell(char *buf, size_t n, const rip_deploy_rec *r)
{
    if (!r)
        snprintf(buf, n, "n/a");
    else if (r->fits == 0)
        snprintf(buf, n, "no fit");
    else if (r->ran != 1 || r->instructions < 0)
        snprintf(buf, n, "not run");
    else
        snprintf(buf, n, "%lld", (long long)r->instructions);
}

/* Did every QEMU image of the case that ran give TFLM's CRC?  *runs: how many ran. */
static int equals_tflm(const rip_deployment *d, const tflm_case *c, int *runs)
{
    static const char *const plans[] = {"base", "rip"}, *const cores[] = {"qemu-m0", "qemu-m33"};
    int bad = 0;
    *runs = 0;
    for (int p = 0; p < 2; p++)
        for (int q = 0; q < 2; q++) {
            const rip_deploy_rec *r = rec(d, c, plans[p], cores[q]);
            if (r && r->ran == 1) {
                (*runs)++;
                bad += r->checksum != (int64_t)c->crc;
            }
        }
    return bad;
}

/* The tallies of the device table: cases equal to TFLM, cases run, links
** that fit a Pico 1 and a Pico 2 per plan, QEMU M0 fits equal to the Pico 1 link. */
typedef struct device_tally {
    int same, ran_cases, fit1[2], fit2[2], agree, compared;
} device_tally;

/* Read the TFLM file into t; each case needs a firmware record of each plan in d. */
static rip_status read_cases(const rip_deployment *d, const char *tflm_path, tflm_file *t, char err[RIP_ERR_LEN])
{
    rip_status st = read_tflm(tflm_path, t, err);
    for (size_t i = 0; st == RIP_OK && i < t->n; i++)
        if (!any_rec(d, &t->c[i], "base") || !any_rec(d, &t->c[i], "rip")) {
            snprintf(err, RIP_ERR_LEN, "%.300s: case %s has no firmware record of each plan (base and rip)",
                     tflm_path, t->c[i].name);
            st = RIP_S_DATA;
        }
    return st;
}

/* The title with the provenance of t. */
static void write_intro(FILE *o, const tflm_file *t)
{
    fprintf(o, "# Real models: TensorFlow Lite Micro against ripsim, on QEMU and the Picos\n\n"
               "Generated by `ripsim tables real-models` from `results/real-models.json` (`./build.sh firmware`: "
               "every case of `tests/tflm/cases.tsv` generated by `ripsim codegen MODEL.tflite` with the model's "
               "own weights and quantization and the case's sample input, under the base and the RiP plan, run on "
               "QEMU's Cortex-M0 (`microbit`, the Pico 1 stand-in) and Cortex-M33 (`mps2-an505`, the Pico 2 "
               "stand-in), linked for the Pico 1 and Pico 2 with the pico-sdk) and `results/tflm-peer.tsv` "
               "(TensorFlow Lite Micro's own figures, one run of its interpreter per case: %s). Base: strategy "
               "`tinyengine` with TinyEngine's in-place depthwise; RiP: strategy `milp` with every RiP candidate "
               "(as `ripsim run --plan`).\n\n",
            t->provenance);
}

/* The memory table: TFLM's arena against the plans' arena and scratch. */
static void write_memory(FILE *o, const rip_deployment *d, const tflm_file *t)
{
    fprintf(o, "## Memory\n\n"
               "Bytes. TFLM arena: TFLM's `arena_used_bytes` after AllocateTensors (its tensors, persistent "
               "buffers such as the per-channel multipliers, and scratch, in one arena). ripsim: the plan's "
               "arena (int8 activations) and the scratch buffer beside it; weights and prepare-time integers "
               "stay in flash, float32 inputs in flash and float32 outputs in their own arrays (TinyEngine's "
               "models). Saving: 1 - (arena + scratch) / TFLM arena.\n\n"
               "| Model | Operators | TFLM arena | Base arena | Base scratch | RiP arena | RiP scratch | "
               "Saving vs TFLM, base | Saving vs TFLM, RiP |\n"
               "|---|---|---:|---:|---:|---:|---:|---:|---:|\n");
    for (size_t i = 0; i < t->n; i++) {
        const tflm_case *c = &t->c[i];
        const rip_deploy_rec *b = any_rec(d, c, "base"), *r = any_rec(d, c, "rip");
        char ops[600], sb[32], sr[32];
        ops_cell(ops, sizeof ops, c->ops);
        saving_cell(sb, sizeof sb, b, c->arena);
        saving_cell(sr, sizeof sr, r, c->arena);
        fprintf(o, "| %s (`%s`) | %s | %lld | %lld | %lld | %lld | %lld | %s | %s |\n", c->name, c->model, ops,
                c->arena, (long long)b->arena_bytes, (long long)b->scratch_bytes, (long long)r->arena_bytes,
                (long long)r->scratch_bytes, sb, sr);
    }
}

/* Case c's row of the device table, tallied in tl. */
static void device_row(FILE *o, const rip_deployment *d, const tflm_case *c, device_tally *tl)
{
    char cell[8][64];
    static const char *const plans[] = {"base", "rip"};
    for (int p = 0; p < 2; p++) {
        const rip_deploy_rec *p1 = rec(d, c, plans[p], "pico"), *p2 = rec(d, c, plans[p], "pico2");
        link_cell(cell[p], sizeof cell[p], p1);
        link_cell(cell[2 + p], sizeof cell[2 + p], p2);
        count_cell(cell[4 + p], sizeof cell[4 + p], rec(d, c, plans[p], "qemu-m0"));
        count_cell(cell[6 + p], sizeof cell[6 + p], rec(d, c, plans[p], "qemu-m33"));
        tl->fit1[p] += p1 && p1->fits == 1;
        tl->fit2[p] += p2 && p2->fits == 1;
        const rip_deploy_rec *m0 = rec(d, c, plans[p], "qemu-m0");
        if (m0 && p1 && m0->fits >= 0 && p1->fits >= 0) {
            tl->compared++;
            tl->agree += m0->fits == p1->fits;
        }
    }
    int runs = 0, bad = equals_tflm(d, c, &runs);
    char verdict[64];
    if (runs == 0)
        snprintf(verdict, sizeof verdict, "not run");
    else
        snprintf(verdict, sizeof verdict, "%s (%d of %d images)", bad ? "**NO**" : "yes", runs - bad, runs);
    tl->same += runs > 0 && !bad;
    tl->ran_cases += runs > 0;
    fprintf(o, "| %s |", c->name);
    for (int k = 0; k < 8; k++)
        fprintf(o, " %s |", cell[k]);
    fprintf(o, " %s | %s |\n", strcmp(c->values, "-") ? c->values : "(longer)", verdict);
}

/* The device table (the Pico links, the QEMU counts, the outputs against TFLM) and its summary. */
static void write_device(FILE *o, const rip_deployment *d, const tflm_file *t)
{
    fprintf(o, "\n## On the device\n\n"
               "Pico 1 / Pico 2: the pico-sdk link, with the SRAM it places (arena, scratch, float32 outputs, "
               "SDK and TinyUSB data, 2 KB heap, 2 KB stack); n/a when no pico-sdk was found. M0 / M33: "
               "instructions per inference on the QEMU image (linked against the board's RAM budget), counted "
               "by the TCG plugin between the model's first and last kernel call, exact and the same on every "
               "machine. TFLM output: the output values TFLM computes (when at most 16 bytes). Output = TFLM: "
               "every QEMU image that ran, both plans and both cores, printed the CRC-32 of TFLM's output "
               "bytes.\n\n"
               "| Model | Pico 1, base | Pico 1, RiP | Pico 2, base | Pico 2, RiP | M0 base | M0 RiP | M33 base | "
               "M33 RiP | TFLM output | Output = TFLM |\n"
               "|---|---|---|---|---|---:|---:|---:|---:|---|---|\n");
    device_tally tally = {0, 0, {0, 0}, {0, 0}, 0, 0}, *k = &tally;
    for (size_t i = 0; i < t->n; i++)
        device_row(o, d, &t->c[i], k);
    fprintf(o, "\nOutput = TFLM on %d of %zu models (%d ran on QEMU). ", k->same, t->n, k->ran_cases);
    if (k->compared == 0)
        fprintf(o, "No pico-sdk links in these results (no SDK was found): fits Pico 1 and Pico 2 not known.\n");
    else
        fprintf(o, "pico-sdk links: %d and %d of %zu fit a Pico 1 (base and RiP), %d and %d a Pico 2. The QEMU "
                   "Cortex-M0 image's fit equals the Pico 1 link on %d of %d images.\n",
                k->fit1[0], k->fit1[1], t->n, k->fit2[0], k->fit2[1], k->agree, k->compared);
}

/* Contract (real_models.h). */
rip_status rip_real_models_write(FILE *o, const rip_deployment *d, const char *tflm_path, char err[RIP_ERR_LEN])
{
    tflm_file *t = malloc(sizeof *t);
    if (!t) {
        snprintf(err, RIP_ERR_LEN, "out of memory");
        return RIP_S_NOMEM;
    }
    rip_status st = read_cases(d, tflm_path, t, err);
    if (st != RIP_OK) {
        free(t);
        return st;
    }
    write_intro(o, t);
    write_memory(o, d, t);
    write_device(o, d, t);
    free(t);
    return RIP_OK;
}
