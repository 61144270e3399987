#!/usr/bin/python3
"""Drop files' pages from the page cache, so that each build under test is read back by its own
page faults, the way a program is after a reboot, and two builds start alike.

    Benchmarks/drop-cache.py PATH [PATH...]

Why: a binary read whole (a copy, a `cat`) or just written (a build) sits in the cache in large
folios, and the kernel then maps more of it at each fault: more peak RSS (~1.5 MB for the same
`--version`) and fewer faults. A fresh copy of one and the same build ran `status --json` 2-5%
faster than the file it was copied from (interleaved runs, 2026-11-26). Dropped first, two
copies still differed by 1.6-4.5%, not always in the copy's favour: time two copies of each
build when a few percent matter. `POSIX_FADV_DONTNEED` alone leaves a
just-written file's dirty pages in the cache (10.5 of 34.5 MB here after a `cp`): they are
written back first.

Exit status 0; 64 for a bad invocation; 66 when a file cannot be opened.
"""
import errno
import os
import sys


def drop(path):
    fd = os.open(path, os.O_RDONLY)
    try:
        try:
            os.fdatasync(fd)
        except OSError as e:
            # A read-only file system (or one without fsync) has nothing to write back.
            if e.errno not in (errno.EROFS, errno.EINVAL):
                raise
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    finally:
        os.close(fd)


def main(argv):
    if not argv or any(a.startswith("-") for a in argv):
        print("usage: drop-cache.py PATH [PATH...]", file=sys.stderr)
        return 64
    for path in argv:
        try:
            drop(path)
        except OSError as e:
            print(f"drop-cache.py: {path}: {e.strerror}", file=sys.stderr)
            return 66
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
