#!/usr/bin/python3
"""The CPU cost of one thermtop sample against a plain C program that preads the same files.

    sample-cost.py BINARY [--seconds S (20)] [--every D (1)]

On a copy of the fake laptop tree (fakesys.py make; thermtop reads it with --sysfs-root):
1. `strace -e pread64 -y` on `thermtop watch --delay D` for 2 s lists the value files thermtop
   reads each sample (the paths preads go to at least twice, i.e. in steady state);
2. `thermtop watch --delay D` runs S s after a 2 s warm-up; its CPU (schedstat of all its
   threads, from /proc) divided by the samples taken (S / D) is the cost of one sample:
   the reads plus classifying, deciding and comparing (watch prints only on a change);
3. Benchmarks/sample-floor.c (compiled with cc now) preads the same files, kept open, at the
   same pace for S s: its CPU per pass is the floor.
Prints both per sample in microseconds and their ratio. Needs strace and cc.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import fakesys  # noqa: E402


def cpu_ns(pid):
    total = 0
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{tid}/schedstat") as fh:
                total += int(fh.read().split()[0])
        except OSError:
            pass
    return total


def main():
    args = sys.argv[1:]
    if not args or args[0] in ("-h", "--help"):
        sys.exit(__doc__)
    binary = os.path.abspath(args.pop(0))
    seconds, every = 20.0, 1.0
    while args:
        k = args.pop(0)
        if k == "--seconds":
            seconds = float(args.pop(0))
        elif k == "--every":
            every = float(args.pop(0))
        else:
            sys.exit(f"sample-cost: unknown argument {k}")
    for tool in ("strace", "cc"):
        if not shutil.which(tool):
            sys.exit(f"sample-cost: needs {tool} (apt-get install -y {'strace' if tool == 'strace' else 'gcc'})")
    work = tempfile.mkdtemp(prefix="thermtop-sample-cost.")
    try:
        tree = fakesys.make(os.path.join(work, "sys"))
        watch = [binary, "watch", "--no-config", "--delay", str(every), "--sysfs-root", tree]
        # 1. which files one sample reads
        trace = os.path.join(work, "trace")
        # (timeout inside strace: strace itself does not pass a SIGTERM on to its tracee)
        subprocess.run(["strace", "-f", "-qq", "-e", "trace=pread64", "-y", "-o", trace,
                        "timeout", "-s", "INT", "3", *watch],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        counts = {}
        with open(trace, errors="replace") as fh:
            for line in fh:
                m = re.search(r"pread64\(\d+<([^>]*)>", line)
                if m:
                    counts[m.group(1)] = counts.get(m.group(1), 0) + 1
        files = sorted(f for f, n in counts.items() if n >= 2)
        if not files:
            sys.exit("sample-cost: saw no steady preads from thermtop watch (strace found none)")
        # 2. thermtop's cost per sample, steady state
        p = subprocess.Popen(watch, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(2.0)
        c0, t0 = cpu_ns(p.pid), time.monotonic()
        time.sleep(seconds)
        c1, t1 = cpu_ns(p.pid), time.monotonic()
        p.terminate()
        p.wait()
        samples = (t1 - t0) / every
        thermtop_us = (c1 - c0) / 1e3 / samples
        # 3. the C floor over the same files
        floor = os.path.join(work, "sample-floor")
        subprocess.run(["cc", "-O2", "-o", floor, os.path.join(HERE, "sample-floor.c")], check=True)
        out = subprocess.run([floor, "--every", str(every), "--seconds", str(seconds), *files],
                             capture_output=True, text=True, check=True).stdout
        kv = dict(x.split("=") for x in out.split())
        c_us = float(kv["cpu_s"]) * 1e6 / int(kv["passes"])
        print(f"one sample, steady state, {len(files)} value files, every {every:g} s for {seconds:g} s:")
        print(f"| | CPU per sample (µs) | × C floor |")
        print(f"| --- | --- | --- |")
        print(f"| thermtop watch (read + decide) | {thermtop_us:.0f} | {thermtop_us / c_us:.1f} |")
        print(f"| C: pread the same {kv['files']} files | {c_us:.0f} | 1.0 |")
        print(f"RESULT sample_cost thermtop_us={thermtop_us:.1f} c_us={c_us:.1f} ratio={thermtop_us / c_us:.2f} files={len(files)}")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
