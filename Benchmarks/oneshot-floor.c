/* The floor for a one-shot `thermtop status`: a plain C program that makes the same file-system
 * accesses `status --json` makes (opens and reads the files it reads, lists the folders it
 * lists, resolves the links it resolves, checks the paths it checks), each by its whole path,
 * and nothing else: no parsing, no deciding, no output. Benchmarks/oneshot.sh times it beside
 * `status --json` and `sensors`, so the table shows how much of thermtop's time the accesses
 * themselves cost on this kernel.
 *
 *   cc -O2 -o oneshot-floor Benchmarks/oneshot-floor.c
 *   oneshot-floor OPS-FILE
 *
 * OPS-FILE (Benchmarks/oneshot-ops.py writes it from an strace of `status --json`): one access
 * per line, a letter, a space and an absolute path:
 *   R  open, read up to a page, close (a failed open counts: thermtop makes it too)
 *   L  open the folder and read all its entries (getdents64), close
 *   K  readlink
 *   A  access(F_OK)
 *   S  stat
 * Exit status 0, or 66 when OPS-FILE cannot be read. */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char **argv) {
    if (argc != 2) { fprintf(stderr, "usage: oneshot-floor OPS-FILE\n"); return 64; }
    FILE *ops = fopen(argv[1], "r");
    if (!ops) { perror(argv[1]); return 66; }
    char line[4096], buf[16384];
    while (fgets(line, sizeof line, ops)) {
        size_t n = strlen(line);
        if (n < 3) continue;
        if (line[n - 1] == '\n') line[--n] = 0;
        const char *path = line + 2;
        int fd;
        struct stat st;
        switch (line[0]) {
        case 'R':
            fd = open(path, O_RDONLY | O_CLOEXEC);
            if (fd >= 0) { (void)pread(fd, buf, 4096, 0); close(fd); }
            break;
        case 'L':
            fd = open(path, O_RDONLY | O_NONBLOCK | O_DIRECTORY | O_CLOEXEC);
            if (fd >= 0) {
                while (syscall(SYS_getdents64, fd, buf, sizeof buf) > 0) {}
                close(fd);
            }
            break;
        case 'K': (void)readlink(path, buf, sizeof buf); break;
        case 'A': (void)access(path, F_OK); break;
        case 'S': (void)stat(path, &st); break;
        }
    }
    fclose(ops);
    return 0;
}
