/*
** test_scripts.c — the shell scripts of the tree (firmware/tools/,
** firmware/pico/, sweeps/slurm/, tests/tflm/, build.sh) as a user calls
** them, without building anything (issue 19, items 13 and 15):
**   - an option given without its value is exit 64 with one line naming
**     the option (build-images.sh --target used to die with 2, "build
**     failed", qemu-run.sh --elf likewise);
**   - shellcheck finds nothing in them (every expansion quoted, so a
**     checkout path with a space works; the QEMU run from such a path is
**     test_qemu.c's), when shellcheck is installed.
** Environment: RIPSIM_FIRMWARE_DIR (tests/meson.build).
*/
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "skip.h"
#include "tmpdir.h"

TEST_SUITE_WITH_TMPDIR(scripts, 300);

/* firmware/ of the checkout. */
static const char *fw(void)
{
    const char *d = getenv("RIPSIM_FIRMWARE_DIR");
    cr_assert_not_null(d, "RIPSIM_FIRMWARE_DIR must name firmware/");
    return d;
}

/* Run the shell command cmd with stderr to tmp("err"); its exit status,
** the stderr text in err. */
static int run_sh(const char *cmd, char *err, size_t n)
{
    char full[2400], errf[320];
    snprintf(errf, sizeof errf, "%s", tmp("err"));
    snprintf(full, sizeof full, "%s >/dev/null 2>'%s' </dev/null", cmd, errf);
    fflush(NULL);
    int st = system(full);
    FILE *f = fopen(errf, "r");
    cr_assert_not_null(f);
    size_t k = fread(err, 1, n - 1, f);
    err[k] = '\0';
    fclose(f);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static int lines(const char *s)
{
    int n = 0;
    for (; *s; s++)
        n += *s == '\n';
    return n;
}

/* Item 15: every option that takes a value, given as the last argument. */
Test(scripts, an_option_without_its_value_is_64)
{
    static const struct {
        const char *script, *before, *opt;
    } cases[] = {
        {"tools/build-images.sh", "", "--target"},
        {"tools/build-images.sh", "--target qemu-m0", "--gen-dir"},
        {"tools/build-images.sh", "--target qemu-m0", "--build"},
        {"tools/build-images.sh", "--target qemu-m0", "--suite"},
        {"tools/qemu-run.sh", "", "--target"},
        {"tools/qemu-run.sh", "--target qemu-m0", "--elf"},
        {"tools/qemu-run.sh", "--target qemu-m0 --elf x.elf", "--link"},
        {"tools/qemu-run.sh", "--target qemu-m0 --elf x.elf", "--model-json"},
        {"tools/qemu-run.sh", "--target qemu-m0 --elf x.elf", "--model"},
        {"tools/qemu-run.sh", "--target qemu-m0 --elf x.elf", "--plan"},
        {"tools/qemu-run.sh", "--target qemu-m0 --elf x.elf", "--arena"},
        {"tools/qemu-run.sh", "--target qemu-m0 --elf x.elf", "--plugin"},
        {"tools/qemu-run.sh", "--target qemu-m0 --elf x.elf", "--timeout"},
        {"../tests/tflm/build-peer.sh", "", "--tflm"},
        {"../tests/tflm/build-peer.sh", "--tflm x --src y", "--out"},
        {"../tests/tflm/build-m33.sh", "", "--tflm"},
        {"../tests/tflm/build-m33.sh", "--tflm x --src y", "--cases"},
        {"tools/real-models.sh", "", "--gen"},
        {"tools/real-models.sh", "--gen x", "--ripsim"},
        {"tools/real-models.sh", "--gen x", "--tflm"},
        {"tools/real-models.sh", "--gen x", "--models"},
        {"tools/real-models.sh", "--gen x", "--work"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char cmd[1200], err[4096];
        snprintf(cmd, sizeof cmd, "'%s/%s' %s %s", fw(), cases[i].script, cases[i].before, cases[i].opt);
        int st = run_sh(cmd, err, sizeof err);
        cr_expect_eq(st, 64, "%s %s %s: exit %d: %s", cases[i].script, cases[i].before, cases[i].opt, st, err);
        cr_expect_eq(lines(err), 1, "%s %s: one line, got: %s", cases[i].script, cases[i].opt, err);
        cr_expect_not_null(strstr(err, cases[i].opt), "%s: the message names %s: %s", cases[i].script,
                           cases[i].opt, err);
    }
}

/* Item 13: shellcheck on every script (its default severity, style and
** up); skipped without shellcheck. */
Test(scripts, shellcheck_finds_nothing)
{
    if (system("command -v shellcheck >/dev/null 2>&1") != 0)
        rip_skip("shellcheck not installed (apt-get install shellcheck): the scripts are not checked");
    char cmd[1200], err[8192];
    snprintf(cmd, sizeof cmd,
             "cd '%s/..' && shellcheck -f gcc firmware/tools/*.sh firmware/pico/*.sh sweeps/slurm/*.sh "
             "sweeps/slurm/*.sbatch tests/tflm/*.sh build.sh 1>&2",
             fw());
    int st = run_sh(cmd, err, sizeof err);
    cr_expect_eq(st, 0, "shellcheck: %s", err);
}
