/*
** test_help_readme.c — the README and each command's --help say the same
** (issue 23 item 9): every option the README writes after `ripsim CMD`
** exists in CMD's --help; every exit status an "Exit status:" sentence of
** the README gives for a command is in that command's --help; and the
** schema versions both name are the one this ripsim writes.
**
** The README is read from RIPSIM_RESULTS_DIR/../README.md (the source
** tree); the binary under test is $RIPSIM_BIN.
*/
#include <ctype.h>

#include "db.h"
#include "db_dump.h"
#include "run_cmd.h"

static const char *const commands[] = {"layer",  "optimal", "layers", "execute", "sweep",   "merge",
                                       "migrate", "report", "tables", "claims",  "plan",    "codegen",
                                       "model",  "check",   "run"};
#define N_COMMANDS (sizeof commands / sizeof commands[0])

static char *helps[N_COMMANDS];

/* CMD's --help (cached). */
static const char *help_of(size_t c)
{
    if (!helps[c]) {
        run_result *r = RUN(commands[c], "--help");
        cr_assert_eq(r->status, 0, "%s --help: %s", commands[c], r->err);
        helps[c] = strdup(r->out);
    }
    return helps[c];
}

/* Does text say phrase, its line breaks read as spaces? */
static bool says(const char *text, const char *phrase)
{
    char *flat = strdup(text);
    for (char *p = flat; *p; p++)
        if (*p == '\n')
            *p = ' ';
    bool yes = strstr(flat, phrase) != NULL;
    free(flat);
    return yes;
}

static char *readme(void)
{
    const char *res = getenv("RIPSIM_RESULTS_DIR");
    cr_assert_not_null(res, "RIPSIM_RESULTS_DIR must name results/");
    char path[4096];
    snprintf(path, sizeof path, "%s/../README.md", res);
    size_t n;
    return slurp_file(path, &n);
}

/* The command named by the word at s ("layer" in "layer --json"), or -1. */
static int command_at(const char *s)
{
    int best = -1;
    size_t best_len = 0;
    for (size_t c = 0; c < N_COMMANDS; c++) {
        size_t n = strlen(commands[c]);
        if (strncmp(s, commands[c], n) == 0 && !isalnum((unsigned char)s[n]) && s[n] != '_' && s[n] != '-' &&
            n > best_len) {
            best = (int)c;
            best_len = n;
        }
    }
    return best;
}

/* Is the option word o (NUL-terminated, "--json") an option line of help? */
static bool help_has_option(const char *help, const char *o)
{
    size_t n = strlen(o);
    for (const char *p = strstr(help, o); p; p = strstr(p + 1, o)) {
        char after = p[n];
        char before = p == help ? '\n' : p[-1];
        if ((before == ' ' || before == '[' || before == '\n' || before == '|') &&
            (after == ' ' || after == '\n' || after == ']' || after == '=' || after == '\0'))
            return true;
    }
    return false;
}

/*
** In every code span and code-block line of the README, each `ripsim CMD`
** followed by `--opt` words (until a pipe, ';', '&&' or the span's end):
** CMD's --help must list --opt.
*/
Test(help_readme, every_option_the_readme_names_exists)
{
    char *text = readme();
    int checked = 0;
    bool in_block = false;
    for (char *line = text; *line;) {
        char *nl = strchr(line, '\n');
        size_t len = nl ? (size_t)(nl - line) : strlen(line);
        char buf[2048];
        snprintf(buf, sizeof buf, "%.*s", (int)(len < sizeof buf ? len : sizeof buf - 1), line);
        if (strncmp(buf, "```", 3) == 0)
            in_block = !in_block;
        /* the code of the line: the whole line in a block, the spans outside one */
        bool in_code = in_block;
        int cmd = -1;
        for (char *p = buf; *p; p++) {
            if (!in_block && *p == '`') {
                in_code = !in_code;
                cmd = -1;
                continue;
            }
            if (!in_code)
                continue;
            if (*p == '|' || *p == ';' || (p[0] == '&' && p[1] == '&') || *p == '>') {
                cmd = -1;
                continue;
            }
            if (strncmp(p, "ripsim ", 7) == 0 && (p == buf || p[-1] == ' ' || p[-1] == '/' || p[-1] == '`')) {
                cmd = command_at(p + 7);
                continue;
            }
            if (cmd >= 0 && p[0] == '-' && p[1] == '-' && isalpha((unsigned char)p[2]) && (p == buf || p[-1] == ' ')) {
                char opt[64];
                size_t k = 0;
                while (k + 1 < sizeof opt && (isalnum((unsigned char)p[k]) || p[k] == '-' || p[k] == '_'))
                    opt[k] = p[k], k++;
                opt[k] = '\0';
                if (strcmp(opt, "--help") != 0) {
                    cr_expect(help_has_option(help_of((size_t)cmd), opt),
                              "README line '%s': ripsim %s --help has no %s", buf, commands[cmd], opt);
                    checked++;
                }
                p += k - 1;
            }
        }
        if (!nl)
            break;
        line = nl + 1;
    }
    free(text);
    cr_expect_gt(checked, 50, "only %d options found in the README", checked);
}

/*
** Each "Exit status:" sentence of the README, attributed to the section's
** command (the first `ripsim CMD` from its heading on): every status it
** gives is in CMD's --help.
*/
Test(help_readme, every_exit_status_the_readme_gives_is_in_the_help)
{
    char *text = readme();
    int cmd = -1, sentences = 0;
    for (char *p = text; *p; p++) {
        if ((p == text || p[-1] == '\n') && *p == '#')
            cmd = -1;
        if (cmd < 0 && strncmp(p, "ripsim ", 7) == 0 && command_at(p + 7) >= 0)
            cmd = command_at(p + 7);
        if (strncmp(p, "Exit status:", 12) != 0)
            continue;
        cr_assert_geq(cmd, 0, "an Exit status sentence with no command before it: %.80s", p);
        /* the statuses up to the end of the paragraph */
        char *end = strstr(p, "\n\n");
        size_t n = end ? (size_t)(end - p) : strlen(p);
        const char *help = help_of((size_t)cmd), *list = strstr(help, "\nexit status:\n");
        cr_assert_not_null(list, "%s --help lists no exit status", commands[cmd]);
        for (size_t i = 12; i < n; i++) {
            /* a status starts an item of the list: after ": ", ", ", "; " or a line break */
            bool starts = p[i - 1] == '\n' || (p[i - 1] == ' ' && (p[i - 2] == ':' || p[i - 2] == ',' || p[i - 2] == ';'));
            if (!isdigit((unsigned char)p[i]) || !starts)
                continue;
            long code = strtol(p + i, NULL, 10);
            /* a status is followed by a word or a comma, not a unit or a dot */
            char *after = p + i;
            while (isdigit((unsigned char)*after))
                after++;
            if (code > 255 || *after == '.' || *after == '-' || *after == '%' || *after == 'x' || *after == '`')
                continue;
            char want[32];
            snprintf(want, sizeof want, "\n  %-4ld ", code);
            cr_expect_not_null(strstr(list, want), "README says %s exits %ld (%.60s...), its --help does not",
                               commands[cmd], code, p);
        }
        sentences++;
        p += n - 1;
    }
    free(text);
    cr_expect_geq(sentences, 4, "only %d Exit status sentences found", sentences);
}

/* "schema version N" where the README and the help name the current one. */
Test(help_readme, schema_versions_are_the_current_one)
{
    char *text = readme();
    char want[64];
    snprintf(want, sizeof want, "The database (schema version %d,", RIP_DB_SCHEMA_VERSION);
    cr_expect_not_null(strstr(text, want), "the README's database section does not say '%s'", want);
    free(text);
    size_t mig = 0, sw = 0;
    for (size_t c = 0; c < N_COMMANDS; c++) {
        if (strcmp(commands[c], "migrate") == 0)
            mig = c;
        if (strcmp(commands[c], "sweep") == 0)
            sw = c;
    }
    snprintf(want, sizeof want, "to schema version %d", RIP_DB_SCHEMA_VERSION);
    cr_expect(says(help_of(mig), want), "migrate --help does not say '%s'", want);
    snprintf(want, sizeof want, "older schema (version 1 to %d)", RIP_DB_SCHEMA_VERSION - 1);
    cr_expect(says(help_of(sw), want), "sweep --help does not say '%s'", want);
}
