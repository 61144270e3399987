/* The floor for one sample: a plain C loop that preads the same value files thermtop reads
 * each sample, each kept open and read at offset 0, and parses each as an integer.
 *
 *   cc -O2 -o sample-floor Benchmarks/sample-floor.c
 *   sample-floor [--every SECONDS] [--seconds S] FILE...
 *
 * Paces itself like the monitor (one pass per --every, default 0.2 s) for --seconds (10), so
 * the per-sample CPU compares like for like with `thermtop watch --delay 0.2` (sleeping and
 * waking included). Prints `passes=N cpu_s=X files=F`: CPU from getrusage (user + system) of
 * the loop only, not of starting and opening.
 * A file that cannot be opened counts as not read (like thermtop, it is skipped). */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

static double cpu_now(void) {
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
}

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

int main(int argc, char **argv) {
    double every = 0.2, seconds = 10;
    int first = 1;
    while (first + 1 < argc && strncmp(argv[first], "--", 2) == 0) {
        if (strcmp(argv[first], "--every") == 0) every = atof(argv[first + 1]);
        else if (strcmp(argv[first], "--seconds") == 0) seconds = atof(argv[first + 1]);
        else { fprintf(stderr, "sample-floor: unknown option %s\n", argv[first]); return 64; }
        first += 2;
    }
    int n = argc - first;
    int *fds = calloc(n > 0 ? n : 1, sizeof *fds);
    int open_files = 0;
    for (int i = 0; i < n; i++) {
        fds[i] = open(argv[first + i], O_RDONLY | O_CLOEXEC);
        if (fds[i] >= 0) open_files++;
    }
    double cpu0 = cpu_now();  /* startup and opening are not part of a sample */
    long long sum = 0;
    long passes = 0;
    double start = now(), next = start;
    char buf[4096];
    while (now() - start < seconds) {
        for (int i = 0; i < n; i++) {
            if (fds[i] < 0) continue;
            ssize_t r = pread(fds[i], buf, sizeof buf - 1, 0);
            if (r > 0) { buf[r] = 0; sum += strtoll(buf, NULL, 10); }
        }
        passes++;
        next += every;
        double d = next - now();
        if (d > 0) {
            struct timespec t = { (time_t)d, (long)((d - (time_t)d) * 1e9) };
            nanosleep(&t, NULL);
        }
    }
    double cpu = cpu_now() - cpu0;
    printf("passes=%ld cpu_s=%.6f files=%d checksum=%lld\n", passes, cpu, open_files, sum & 0xff);
    return 0;
}
