/*
** test_layering.c — the layer contract, read from the sources themselves:
**   - library code (sim/, formulas/, sweeps/, src/ but src/cli/) never
**     touches the process: no call of printf, puts, perror, exit, _exit,
**     abort, signal, sigaction, raise, kill, fork, system, popen or the
**     exec family, and no stdout or stderr, outside comments and string
**     literals (a tokenizer strips both: SQL's printf() in a query string
**     is not a call).  The places that still do (issue 22, item 12: progress
**     and logs to become callbacks) are listed below with their counts; a
**     file not listed must have none, a listed one exactly its count, so
**     the list only shrinks;
**   - sim/ and formulas/ include only their own headers and src/core/'s
**     (formulas never sim's, sim never formulas'): their include path
**     holds only those folders (sim/meson.build, formulas/meson.build), and
**     this test names an offending line rather than a compiler error;
**   - the library's folders include each other without a cycle (the map
**     is printed: `meson test -C build layering --verbose`).
*/
#include <criterion/criterion.h>
#include <ctype.h>
#include <dirent.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "file_text.h"

/* The process calls and streams a library must not name. */
static const char *const forbidden[] = {
    "printf", "vprintf", "puts", "putchar", "perror", "exit", "_exit", "_Exit", "quick_exit", "abort",
    "signal", "sigaction", "raise", "kill", "fork", "vfork", "system", "popen", "execl", "execlp",
    "execle", "execv", "execvp", "execve", "stdout", "stderr",
};

/* The files that still do, with how many forbidden tokens each holds. */
static const struct {
    const char *path;
    int count;
    const char *why;
} known[] = {
    {"src/plan/milp_run.c", 9, "the forked CBC child's own exit paths and its fork (item 12)"},
};

static const char *root(void)
{
    static char buf[1024];
    const char *res = getenv("RIPSIM_RESULTS_DIR");
    cr_assert_not_null(res, "RIPSIM_RESULTS_DIR unset");
    snprintf(buf, sizeof buf, "%s/..", res);
    return buf;
}

/* s with comments, string and character literals blanked (newlines kept). */
static void strip(char *s)
{
    enum { CODE, LINE, BLOCK, STR, CHR } st = CODE;
    for (char *p = s; *p; p++) {
        switch (st) {
        case CODE:
            if (p[0] == '/' && p[1] == '/')
                st = LINE, *p = ' ';
            else if (p[0] == '/' && p[1] == '*')
                st = BLOCK, *p = ' ';
            else if (*p == '"')
                st = STR, *p = ' ';
            else if (*p == '\'')
                st = CHR, *p = ' ';
            break;
        case LINE:
            if (*p == '\n')
                st = CODE;
            else
                *p = ' ';
            break;
        case BLOCK:
            if (p[0] == '*' && p[1] == '/')
                p[0] = p[1] = ' ', p++, st = CODE;
            else if (*p != '\n')
                *p = ' ';
            break;
        case STR:
        case CHR:
            if (*p == '\\' && p[1])
                p[0] = p[1] = ' ', p++;
            else if (*p == (st == STR ? '"' : '\''))
                st = CODE, *p = ' ';
            else if (*p != '\n')
                *p = ' ';
            break;
        }
    }
}

/* Forbidden tokens of the stripped text s, the first's line into *line. */
static int count_forbidden(const char *s, int *line, char *what, size_t what_len)
{
    int n = 0, ln = 1;
    *line = 0;
    for (const char *p = s; *p;) {
        if (*p == '\n') {
            ln++, p++;
            continue;
        }
        if (!(isalpha((unsigned char)*p) || *p == '_')) {
            p++;
            continue;
        }
        const char *q = p;
        while (isalnum((unsigned char)*q) || *q == '_')
            q++;
        bool member = p > s && (p[-1] == '.' || (p > s + 1 && p[-1] == '>' && p[-2] == '-'));
        const char *r = q;
        while (*r == ' ' || *r == '\t')
            r++;
        const bool stream = (q - p == 6) && (!strncmp(p, "stdout", 6) || !strncmp(p, "stderr", 6));
        const bool call = *r == '(';   /* format(printf, 2, 3) names printf without calling it */
        for (size_t i = 0; !member && (call || stream) && i < sizeof forbidden / sizeof forbidden[0]; i++)
            if ((size_t)(q - p) == strlen(forbidden[i]) && !strncmp(p, forbidden[i], (size_t)(q - p))) {
                if (n++ == 0) {
                    *line = ln;
                    snprintf(what, what_len, "%s", forbidden[i]);
                }
            }
        p = q;
    }
    return n;
}

static bool ends_with(const char *s, const char *suffix)
{
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && !strcmp(s + a - b, suffix);
}

/* Every .c and .h file under root/dir (recursively) into paths (relative to root). */
static void list_sources(const char *dir, char paths[][256], size_t *n, size_t cap)
{
    char full[1400];
    snprintf(full, sizeof full, "%s/%s", root(), dir);
    DIR *d = opendir(full);
    cr_assert_not_null(d, "%s", full);
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        char rel[256], abs_path[1700];
        snprintf(rel, sizeof rel, "%.120s/%.120s", dir, e->d_name);
        snprintf(abs_path, sizeof abs_path, "%s/%s", root(), rel);
        struct stat sb;
        if (stat(abs_path, &sb) != 0)
            continue;
        if (S_ISDIR(sb.st_mode)) {
            list_sources(rel, paths, n, cap);
        } else if (ends_with(e->d_name, ".c") || ends_with(e->d_name, ".h")) {
            cr_assert_lt(*n, cap);
            snprintf(paths[(*n)++], 256, "%s", rel);
        }
    }
    closedir(d);
}

static char *read_source(const char *rel)
{
    char path[1400];
    snprintf(path, sizeof path, "%s/%s", root(), rel);
    char *s = ft_slurp(path, NULL);
    cr_assert_not_null(s, "%s", path);
    return s;
}

Test(layering, library_code_never_touches_the_process)
{
    static char paths[1024][256];
    size_t n = 0;
    const char *dirs[] = {"sim", "formulas", "sweeps", "src"};
    for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++)
        list_sources(dirs[i], paths, &n, 1024);
    cr_assert_gt(n, 100, "only %zu sources found", n);
    size_t checked = 0;
    for (size_t i = 0; i < n; i++) {
        if (!strncmp(paths[i], "src/cli/", 8))
            continue;   /* the command line owns the process */
        char *s = read_source(paths[i]), what[32] = "";
        strip(s);
        int line, count = count_forbidden(s, &line, what, sizeof what), allowed = 0;
        for (size_t k = 0; k < sizeof known / sizeof known[0]; k++)
            if (!strcmp(known[k].path, paths[i]))
                allowed = known[k].count;
        if (allowed == 0)
            cr_expect_eq(count, 0, "%s:%d: %s in library code (only src/cli/ may touch the process)", paths[i],
                         line, what);
        else
            cr_expect_eq(count, allowed, "%s: %d forbidden tokens, the list says %d (first: line %d, %s): "
                         "update tests/test_layering.c's list", paths[i], count, allowed, line, what);
        free(s);
        checked++;
    }
    printf("layering: %zu library sources checked, %zu still listed\n", checked, sizeof known / sizeof known[0]);
}

/* The quoted includes of sim/ and formulas/ resolve in the folder itself or src/core/ only. */
Test(layering, sim_and_formulas_include_only_themselves_and_core)
{
    const char *dirs[] = {"sim", "formulas"};
    for (size_t d = 0; d < 2; d++) {
        static char paths[256][256];
        size_t n = 0;
        list_sources(dirs[d], paths, &n, 256);
        cr_assert_gt(n, 3);
        for (size_t i = 0; i < n; i++) {
            char *s = read_source(paths[i]);
            int ln = 1;
            for (char *p = s; *p; p++) {
                if (*p == '\n')
                    ln++;
                char name[200];
                if ((p == s || p[-1] == '\n') && sscanf(p, "#include \"%199[^\"]\"", name) == 1) {
                    char own[1400], core[1400];
                    snprintf(own, sizeof own, "%s/%s/%s", root(), dirs[d], name);
                    snprintf(core, sizeof core, "%s/src/core/%s", root(), name);
                    struct stat sb;
                    cr_expect(strchr(name, '/') == NULL && (stat(own, &sb) == 0 || stat(core, &sb) == 0),
                              "%s:%d: includes \"%s\", neither in %s/ nor in src/core/", paths[i], ln, name, dirs[d]);
                }
            }
            free(s);
        }
    }
}

/* The tokenizer itself, on a hand-written text. */
Test(layering, strip_blanks_comments_and_literals)
{
    char s[] = "a = printf(\"x\"); /* exit(1) */ // abort()\n"
               "void f(const char *fmt, ...) __attribute__((format(printf, 1, 2)));\n"
               "q = \"printf(\\\"y\\\")\"; c = '\"'; fputs(x, stderr);\n"
               "p->exit = s.abort;\n";
    strip(s);
    int line;
    char what[32];
    cr_expect_eq(count_forbidden(s, &line, what, sizeof what), 2);   /* printf, stderr; members are not calls */
    cr_expect_eq(line, 1);
    cr_expect_str_eq(what, "printf");
    cr_expect(strstr(s, "exit(1)") == NULL && strstr(s, "abort()") == NULL);
}

/* ---- the folders' include graph has no cycle ------------------------------------------- */

/* The library's folders, each one node: a file belongs to the longest that prefixes it. */
static const char *const units[] = {
    "sim", "formulas", "sweeps", "firmware/kernels", "firmware/runtime", "src/core", "src/io", "src/eval",
    "src/db", "src/report", "src/plan", "src/exec", "src/codegen", "src/tflite", "src/tflm", "src/net", "src/cli",
};
enum { N_UNITS = sizeof units / sizeof units[0] };

static int unit_of(const char *path)
{
    int best = -1;
    size_t len = 0;
    for (int u = 0; u < N_UNITS; u++) {
        size_t k = strlen(units[u]);
        if (!strncmp(path, units[u], k) && path[k] == '/' && k > len)
            best = u, len = k;
    }
    return best;
}

/* Depth-first search from u; on a back edge, the cycle's folders into path. */
static bool find_cycle(bool edge[N_UNITS][N_UNITS], int u, int *state, int *stack, int depth, char *path,
                       size_t len)
{
    state[u] = 1;
    stack[depth] = u;
    for (int v = 0; v < N_UNITS; v++) {
        if (!edge[u][v])
            continue;
        if (state[v] == 1) {
            size_t at = 0;
            int from = depth;
            while (from > 0 && stack[from] != v)
                from--;
            for (int i = from; i <= depth && at < len; i++)
                at += (size_t)snprintf(path + at, len - at, "%s -> ", units[stack[i]]);
            if (at < len)
                snprintf(path + at, len - at, "%s", units[v]);
            return true;
        }
        if (state[v] == 0 && find_cycle(edge, v, state, stack, depth + 1, path, len))
            return true;
    }
    state[u] = 2;
    return false;
}

/* Which folder includes which, from the quoted includes (a header named in
** two folders counts for both); the graph must have no cycle, so that each
** folder builds on those below it only.  The map is printed. */
Test(layering, folders_include_without_a_cycle)
{
    static char paths[1200][256];
    size_t n = 0;
    const char *dirs[] = {"sim", "formulas", "sweeps", "src", "firmware/kernels", "firmware/runtime"};
    for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++)
        list_sources(dirs[i], paths, &n, 1200);
    static bool edge[N_UNITS][N_UNITS];
    memset(edge, 0, sizeof edge);
    for (size_t i = 0; i < n; i++) {
        int from = unit_of(paths[i]);
        if (from < 0)
            continue;
        char *s = read_source(paths[i]);
        for (char *p = s; *p; p++) {
            char name[200];
            if ((p == s || p[-1] == '\n') && sscanf(p, "#include \"%199[^\"]\"", name) == 1) {
                const char *base = strrchr(name, '/') ? strrchr(name, '/') + 1 : name;
                for (size_t j = 0; j < n; j++) {
                    const char *b = strrchr(paths[j], '/') + 1;
                    int to = unit_of(paths[j]);
                    if (to >= 0 && to != from && !strcmp(b, base))
                        edge[from][to] = true;
                }
            }
        }
        free(s);
    }
    for (int u = 0; u < N_UNITS; u++) {
        char line[512];
        size_t at = (size_t)snprintf(line, sizeof line, "layering: %-16s ->", units[u]);
        for (int v = 0; v < N_UNITS && at < sizeof line; v++)
            if (edge[u][v])
                at += (size_t)snprintf(line + at, sizeof line - at, " %s", units[v]);
        printf("%s\n", line);
    }
    int state[N_UNITS] = {0}, stack[N_UNITS + 1];
    char cycle[1024] = "";
    bool found = false;
    for (int u = 0; u < N_UNITS && !found; u++)
        if (state[u] == 0)
            found = find_cycle(edge, u, state, stack, 0, cycle, sizeof cycle);
    cr_expect_not(found, "the folders include each other in a cycle: %s", cycle);
    /* the folders the contract fixes at the bottom include nothing above them */
    int core = 5, sim = 0, formulas = 1;
    for (int v = 0; v < N_UNITS; v++) {
        cr_expect_not(edge[core][v], "src/core includes %s", units[v]);
        cr_expect(!edge[sim][v] || v == core, "sim includes %s", units[v]);
        cr_expect(!edge[formulas][v] || v == core, "formulas includes %s", units[v]);
    }
}
