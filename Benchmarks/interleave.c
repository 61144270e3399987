// Runs commands interleaved run by run and prints each one's median wall time, from the spawn
// to the reap, in microseconds (Benchmarks/oneshot-interleaved.sh).
//
//   interleave RUNS 'COMMAND ARGS' ['COMMAND ARGS' ...]
//
// Each command is split on spaces and started with posix_spawnp, its standard output on
// /dev/null; one round runs every command once, each round starting one command further on
// (round r runs command r mod n first, then the rest in the order given, wrapping around), so
// that every command comes first, second, … equally often: run right after another program a
// command is slower than run after itself (caches, the page cache's recent pages), by a few
// percent here, which a fixed order charged to the same commands every round. Exit status 64
// for a bad invocation, 1 when a command cannot be started or does not exit 0.
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>

extern char **environ;

static double now_us(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

static int ascending(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv) {
    int runs = argc > 2 ? atoi(argv[1]) : 0;
    if (runs < 1) {
        fprintf(stderr, "usage: interleave RUNS 'COMMAND ARGS' ['COMMAND ARGS' ...]\n");
        return 64;
    }
    int n = argc - 2;
    char ***args = calloc((size_t)n, sizeof *args);
    for (int c = 0; c < n; c++) {
        args[c] = calloc(64, sizeof **args);
        char *words = strdup(argv[c + 2]);
        int k = 0;
        for (char *w = strtok(words, " "); w && k < 63; w = strtok(NULL, " ")) args[c][k++] = w;
        if (k == 0) {
            fprintf(stderr, "interleave: empty command\n");
            return 64;
        }
    }
    double *times = calloc((size_t)runs * (size_t)n, sizeof *times);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
    for (int r = 0; r < runs; r++) {
        for (int k = 0; k < n; k++) {
            int c = (r + k) % n;
            pid_t pid;
            int status;
            double start = now_us();
            if (posix_spawnp(&pid, args[c][0], &actions, NULL, args[c], environ) != 0) {
                perror(args[c][0]);
                return 1;
            }
            if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
                fprintf(stderr, "interleave: '%s' did not exit 0\n", argv[c + 2]);
                return 1;
            }
            times[(size_t)c * runs + r] = now_us() - start;
        }
    }
    for (int c = 0; c < n; c++) {
        double *t = times + (size_t)c * runs;
        qsort(t, (size_t)runs, sizeof *t, ascending);
        printf("%.0f\t%s\n", t[runs / 2], argv[c + 2]);
    }
    return 0;
}
