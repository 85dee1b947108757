/*
** report_doc.c — the document model of `ripsim report`: tables of cells
** (rpt_cellf, rpt_cell_num) and the emitters of headings, paragraphs and
** tables, one per format: md, csv and tex (report.h describes the three).
**
** Text may contain `code` spans (formula names, x*): md keeps the
** backticks, tex sets \texttt, csv drops them.
*/
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "finite_fmt.h"
#include "report_internal.h"

/* Append one cell (printf-formatted) to t; rows fill left to right.  A
** number that is not finite sets nonfinite instead. */
void rpt_cellf(table *t, const char *fmt, ...)
{
    if (t->oom || t->nonfinite)
        return;
    va_list ap;
    va_start(ap, fmt);
    t->nonfinite = !rip_fmt_args_finite(fmt, ap);
    int n = t->nonfinite ? 0 : vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (t->nonfinite)
        return;
    char *s = n >= 0 ? malloc((size_t)n + 1) : NULL;
    if (!s) {
        t->oom = true;
        return;
    }
    va_start(ap, fmt);
    vsnprintf(s, (size_t)n + 1, fmt, ap);
    va_end(ap);
    if (t->n == t->cap) {
        size_t cap = t->cap ? 2 * t->cap : 64;
        char **c = realloc(t->cells, cap * sizeof *c);
        if (!c) {
            free(s);
            t->oom = true;
            return;
        }
        t->cells = c;
        t->cap = cap;
    }
    t->cells[t->n++] = s;
}

/* A number with two decimals, or an empty cell when !have. */
void rpt_cell_num(table *t, bool have, double x)
{
    if (have)
        rpt_cellf(t, "%.2f", rpt_tidy(x));
    else
        rpt_cellf(t, "%s", "");
}

/* Free t's cells; t can be filled again. */
void rpt_table_free(table *t)
{
    for (size_t i = 0; i < t->n; i++)
        free(t->cells[i]);
    free(t->cells);
    t->cells = NULL;
    t->n = t->cap = 0;
}

static bool shown(const doc *d, const col *c)
{
    if (c->show == SHOW_HUMAN)
        return d->fmt != RIP_REPORT_CSV;
    if (c->show == SHOW_MACHINE)
        return d->fmt == RIP_REPORT_CSV;
    return true;
}

/*
** Write s escaped for the format (csv: the caller quotes).  `code` spans:
** md keeps them, tex sets \texttt, csv drops the backticks.  in_md_table
** escapes the pipe; tex turns "double quotes" into ``quotes''.
*/
static void put_text(doc *d, const char *s, bool in_md_table)
{
    bool in_code = false, in_quote = false;
    for (; *s; s++) {
        char c = *s;
        if (c == '`') {
            if (d->fmt == RIP_REPORT_MD)
                fputc('`', d->out);
            else if (d->fmt == RIP_REPORT_TEX)
                fputs(in_code ? "}" : "\\texttt{", d->out);
            in_code = !in_code;
            continue;
        }
        if (d->fmt == RIP_REPORT_MD) {
            if (c == '|' && in_md_table)
                fputs("\\|", d->out);
            else
                fputc(c, d->out);
        } else if (d->fmt == RIP_REPORT_TEX) {
            switch (c) {
            case '\\': fputs("\\textbackslash{}", d->out); break;
            case '{': case '}': case '$': case '&': case '#': case '_': case '%':
                fputc('\\', d->out);
                fputc(c, d->out);
                break;
            case '~': fputs("\\textasciitilde{}", d->out); break;
            case '^': fputs("\\textasciicircum{}", d->out); break;
            case '<': fputs("\\textless{}", d->out); break;
            case '>': fputs("\\textgreater{}", d->out); break;
            case '"':
                fputs(in_quote ? "''" : "``", d->out);
                in_quote = !in_quote;
                break;
            default: fputc(c, d->out);
            }
        } else if (c == '"') {
            fputs("\"\"", d->out);
        } else {
            fputc(c, d->out);
        }
    }
    if (in_code && d->fmt == RIP_REPORT_TEX)
        fputc('}', d->out);
}

/* One csv field: quoted when it holds a comma, quote, newline or backtick span. */
static void put_csv_field(doc *d, const char *s)
{
    bool quote = strpbrk(s, ",\"\r\n") != NULL || (s[0] == ' ') || (*s && s[strlen(s) - 1] == ' ');
    if (quote)
        fputc('"', d->out);
    put_text(d, s, false);
    if (quote)
        fputc('"', d->out);
}

static void csv_line(doc *d, const char *section, const char *row, const char *column, const char *value)
{
    put_csv_field(d, section);
    fputc(',', d->out);
    put_csv_field(d, row);
    fputc(',', d->out);
    put_csv_field(d, column);
    fputc(',', d->out);
    put_csv_field(d, value);
    fputc('\n', d->out);
}

/* The title and preamble (md, tex) or the header line (csv). */
void rpt_doc_begin(doc *d)
{
    switch (d->fmt) {
    case RIP_REPORT_MD:
        fputs("# ripsim sweep report\n\n"
              "Paper: rip-convolution, Sec. 5.2 (synthetic layers), Lemma 9, Eq. 42 and "
              "App. G.2 / Tab. 5, each figure beside this run's.  Gaps, margins and "
              "workspaces are in scalars.\n\n", d->out);
        break;
    case RIP_REPORT_TEX:
        fputs("% ripsim sweep report: a LaTeX fragment for \\input (no packages needed).\n"
              "\\section*{ripsim sweep report}\n\n"
              "Paper: rip-convolution, Sec.~5.2 (synthetic layers), Lemma~9, Eq.~42 and "
              "App.~G.2 / Tab.~5, each figure beside this run's.  Gaps, margins and "
              "workspaces are in scalars.\n\n", d->out);
        break;
    case RIP_REPORT_CSV:
        fputs("section,row,column,value\n", d->out);
        break;
    }
}

/* A section heading in md and tex; nothing in csv. */
void rpt_doc_heading(doc *d, const char *text)
{
    if (d->fmt == RIP_REPORT_MD) {
        fputs("## ", d->out);
        put_text(d, text, false);
        fputs("\n\n", d->out);
    } else if (d->fmt == RIP_REPORT_TEX) {
        fputs("\\subsection*{", d->out);
        put_text(d, text, false);
        fputs("}\n\n", d->out);
    }
}

/* A paragraph; in csv a row (section, row, "text", text).  strong: bold.
** section NULL: an explanatory note, shown in md and tex only. */
void rpt_doc_para(doc *d, const char *section, const char *row, const char *text, bool strong)
{
    switch (d->fmt) {
    case RIP_REPORT_MD:
        fputs(strong ? "**" : "", d->out);
        put_text(d, text, false);
        fputs(strong ? "**\n\n" : "\n\n", d->out);
        break;
    case RIP_REPORT_TEX:
        fputs(strong ? "\\textbf{" : "", d->out);
        put_text(d, text, false);
        fputs(strong ? "}\n\n" : "\n\n", d->out);
        break;
    case RIP_REPORT_CSV:
        if (section)
            csv_line(d, section, row, "text", text);
        break;
    }
}

/* Table t as csv: one line per shown cell of columns 1.., its row key the
** row's cell 0. */
static void table_csv(doc *d, const table *t, size_t rows)
{
    for (size_t r = 0; r < rows; r++)
        for (size_t c = 1; c < t->ncols; c++)
            if (shown(d, &t->cols[c]))
                csv_line(d, t->id, t->cells[r * t->ncols], t->cols[c].key,
                         t->cells[r * t->ncols + c]);
}

/* Table t as a Markdown pipe table with its caption line. */
static void table_md(doc *d, const table *t, size_t rows)
{
    fputs("Table: ", d->out);
    put_text(d, t->title, false);
    fputs("\n\n|", d->out);
    for (size_t c = 0; c < t->ncols; c++)
        if (shown(d, &t->cols[c])) {
            fputc(' ', d->out);
            put_text(d, t->cols[c].label, true);
            fputs(" |", d->out);
        }
    fputs("\n|", d->out);
    for (size_t c = 0; c < t->ncols; c++)
        if (shown(d, &t->cols[c]))
            fputs(t->cols[c].align == 'r' ? "---:|" : ":---|", d->out);
    fputc('\n', d->out);
    for (size_t r = 0; r < rows; r++) {
        fputc('|', d->out);
        for (size_t c = 0; c < t->ncols; c++)
            if (shown(d, &t->cols[c])) {
                const char *s = t->cells[r * t->ncols + c];
                fputc(' ', d->out);
                put_text(d, *s ? s : "-", true);
                fputs(" |", d->out);
            }
        fputc('\n', d->out);
    }
    fputc('\n', d->out);
}

/* Table t as a LaTeX table environment with one tabular. */
static void table_tex(doc *d, const table *t, size_t rows)
{
    fputs("\\begin{table}[htbp]\n\\centering\\small\n\\caption{", d->out);
    put_text(d, t->title, false);
    fprintf(d->out, "}\n\\label{tab:ripsim-%s}\n\\begin{tabular}{", t->id);
    for (size_t c = 0; c < t->ncols; c++)
        if (shown(d, &t->cols[c]))
            fputs(t->cols[c].align == 'p' ? "p{5cm}" : t->cols[c].align == 'r' ? "r" : "l", d->out);
    fputs("}\n\\hline\n", d->out);
    bool first = true;
    for (size_t c = 0; c < t->ncols; c++)
        if (shown(d, &t->cols[c])) {
            fputs(first ? "" : " & ", d->out);
            put_text(d, t->cols[c].label, false);
            first = false;
        }
    fputs(" \\\\\n\\hline\n", d->out);
    for (size_t r = 0; r < rows; r++) {
        first = true;
        for (size_t c = 0; c < t->ncols; c++)
            if (shown(d, &t->cols[c])) {
                const char *s = t->cells[r * t->ncols + c];
                fputs(first ? "" : " & ", d->out);
                put_text(d, *s ? s : "--", false);
                first = false;
            }
        fputs(" \\\\\n", d->out);
    }
    fputs("\\hline\n\\end{tabular}\n\\end{table}\n\n", d->out);
}

/* Table t in d's format; a table that ran out of memory or holds a
** non-finite number is not written, its flag passed to d. */
void rpt_doc_table(doc *d, const table *t)
{
    if (t->oom || t->nonfinite) {
        d->oom |= t->oom;
        d->nonfinite |= t->nonfinite;
        return;
    }
    size_t rows = t->ncols ? t->n / t->ncols : 0;
    if (d->fmt == RIP_REPORT_CSV)
        table_csv(d, t, rows);
    else if (d->fmt == RIP_REPORT_MD)
        table_md(d, t, rows);
    else
        table_tex(d, t, rows);
}
