#!/usr/bin/python3
"""The file-system accesses of one `thermtop status --json`, for Benchmarks/oneshot-floor.c.

    oneshot-ops.py BINARY OPS-FILE

Runs `BINARY status --json --no-config` and `BINARY --version` under `strace -f -y` (in
whatever /sys the caller sees: oneshot.sh runs it in the fake laptop's namespace) and writes
to OPS-FILE, one per line, what `status` did that `--version` (the program starting and
ending) did not: files opened for reading (R), folders listed (L), links read (K), paths
checked (A) and stat'ed (S), each as an absolute path, in order. Descriptor-relative calls
(`openat(dirfd, "type")`) are written with the folder's path joined (strace -y names it).
Prints the counts.
"""
import collections
import re
import subprocess
import sys
import tempfile

CALL = re.compile(r'^\d+\s+(openat|readlink|access|faccessat2|newfstatat)\((.*)$')
ARG_PATH = re.compile(r'"((?:[^"\\]|\\.)*)"')
DIRFD = re.compile(r'^(AT_FDCWD|\d+<([^>]*)>)')


def accesses(argv):
    with tempfile.NamedTemporaryFile(mode="r", suffix=".strace") as trace:
        subprocess.run(["strace", "-f", "-qq", "-y", "-s", "4096", "-o", trace.name,
                        "-e", "trace=openat,readlink,access,faccessat2,newfstatat,getdents64", *argv],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        ops = []
        for line in trace:
            m = CALL.match(line)
            if not m:
                continue
            call, rest = m.groups()
            base = ""
            if call in ("openat", "faccessat2", "newfstatat"):
                d = DIRFD.match(rest)
                if not d:
                    continue
                base = d.group(2) or ""
            p = ARG_PATH.search(rest)
            if not p or p.group(1) == "":
                continue   # fstat of an open descriptor (AT_EMPTY_PATH): not a path access
            path = p.group(1)
            if not path.startswith("/"):
                if not base:
                    continue
                path = base.rstrip("/") + "/" + path
            if call == "openat":
                ops.append(("L" if "O_DIRECTORY" in rest else "R", path))
            elif call == "readlink":
                ops.append(("K", path))
            elif call in ("access", "faccessat2"):
                ops.append(("A", path))
            else:
                ops.append(("S", path))
        return ops


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    binary, out = sys.argv[1:]
    startup = set(accesses([binary, "--version"]))
    ops = [op for op in accesses([binary, "status", "--json", "--no-config"]) if op not in startup]
    if not ops:
        sys.exit("oneshot-ops: strace saw no access from status (is strace working?)")
    with open(out, "w") as fh:
        for kind, path in ops:
            fh.write(f"{kind} {path}\n")
    counts = collections.Counter(k for k, _ in ops)
    print("oneshot-ops: " + " ".join(f"{k}={counts[k]}" for k in "RLKAS"), file=sys.stderr)


if __name__ == "__main__":
    main()
