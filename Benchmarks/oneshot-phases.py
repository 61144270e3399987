#!/usr/bin/python3
"""Where a one-shot `thermtop status --json` spends its wall time, step by step.

    sudo Benchmarks/oneshot-phases.py [--runs N (300)] BINARY [BINARY...]

Exit status 0; 64 for a bad invocation; 69 without root or `sensors`; 1 when a build fails or
prints no step line.

Runs each build's `status --json --no-config` on the fake laptop /sys (Benchmarks/fakesys.py,
entered by itself), the builds, `sensors` and a static C program that does nothing
interleaved run by run (the machine's speed drifts: one command's runs all in a row, as
hyperfine makes them, compare poorly with the next command's). Each thermtop run has
THERMTOP_TRACE_PHASES set and prints when each of its steps ended (Sources/thermtop/
PhaseTrace.swift); the script notes the clock before starting the process and after reaping
it. Prints the median of each step, the total, and the CPU time (user + system, from wait4).
The builds' pages are first dropped from the page cache (Benchmarks/drop-cache.py), as
oneshot.sh does.

Every figure includes this script's own cost of starting and reaping a process (Python's
posix_spawn), the same for every command: the C program's total is that floor plus exec and
exit of the smallest static program.
"""
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
STEPS = [("exec, runtime start", None, "main"), ("arguments, config", "main", "config"),
         ("sources made", "config", "sources"), ("first reading (discovery, sample, decision)", "sources", "reading"),
         ("report written", "reading", "written"), ("exit, reaped", "written", None)]


def usage(message):
    print(f"oneshot-phases.py: {message}\nusage: oneshot-phases.py [--runs N] BINARY [BINARY...]", file=sys.stderr)
    sys.exit(64)


def unavailable(message):
    print(f"oneshot-phases.py: {message}", file=sys.stderr)
    sys.exit(69)


def parse(argv):
    runs, binaries = 300, []
    i = 0
    while i < len(argv):
        if argv[i] == "--runs":
            if i + 1 >= len(argv) or not argv[i + 1].isdigit() or int(argv[i + 1]) < 1:
                usage("--runs needs a positive number")
            runs, i = int(argv[i + 1]), i + 2
        elif argv[i].startswith("-"):
            usage(f"unknown option {argv[i]}")
        else:
            binaries.append(os.path.realpath(argv[i]))
            i += 1
    if not binaries:
        usage("name at least one thermtop build")
    for b in binaries:
        if not os.access(b, os.X_OK):
            usage(f"{b} is not an executable")
    return runs, binaries


def spawn(cmd, env, stderr_fd):
    """(seconds from just before the spawn to just after the reap, CPU seconds, reap time, t0)."""
    devnull = os.open("/dev/null", os.O_WRONLY)
    actions = [(os.POSIX_SPAWN_DUP2, devnull, 1), (os.POSIX_SPAWN_DUP2, stderr_fd, 2)]
    t0 = time.clock_gettime(time.CLOCK_MONOTONIC)
    pid = os.posix_spawn(cmd[0], cmd, env, file_actions=actions)
    _, status, usage_ = os.wait4(pid, 0)
    t1 = time.clock_gettime(time.CLOCK_MONOTONIC)
    os.close(devnull)
    if os.waitstatus_to_exitcode(status) not in (0, 69):
        sys.exit(f"oneshot-phases.py: {' '.join(cmd)} exited {os.waitstatus_to_exitcode(status)}")
    return t1 - t0, usage_.ru_utime + usage_.ru_stime, t0, t1


def traced(binary, env):
    r, w = os.pipe()
    total, cpu, t0, t1 = spawn([binary, "status", "--json", "--no-config"], env, w)
    os.close(w)
    text = b""
    while chunk := os.read(r, 4096):
        text += chunk
    os.close(r)
    line = next((l for l in text.decode(errors="replace").splitlines() if l.startswith("thermtop-phases ")), None)
    if line is None:
        sys.exit(f"oneshot-phases.py: {binary} printed no thermtop-phases line (a build without PhaseTrace?)")
    marks = dict(kv.split("=", 1) for kv in line.split()[1:])
    at = {k: float(v) for k, v in marks.items()}
    steps = []
    for _, start, end in STEPS:
        a = t0 if start is None else at[start]
        b = t1 if end is None else at[end]
        steps.append(b - a)
    return steps + [total, cpu]


def main():
    runs, binaries = parse(sys.argv[1:])
    if os.environ.get("THERMTOP_FAKESYS") != "inside-ready":
        if os.geteuid() != 0:
            unavailable("needs root (a private mount namespace over /sys)")
        os.execv("/usr/bin/python3", ["/usr/bin/python3", os.path.join(HERE, "fakesys.py"), "run", "--no-writer",
                                      "--", "/usr/bin/python3", os.path.abspath(__file__)] + sys.argv[1:])
    sensors = shutil.which("sensors")
    if sensors is None:
        unavailable("no `sensors` (apt-get install lm-sensors; Benchmarks/oneshot.sh installs it)")
    tmp = tempfile.mkdtemp(prefix="thermtop-phases.")
    noop = os.path.join(tmp, "noop")
    with open(noop + ".c", "w") as f:
        f.write("int main(void) { return 0; }\n")
    subprocess.run(["cc", "-O2", "-static", "-o", noop, noop + ".c"], check=True)
    env = dict(os.environ, THERMTOP_TRACE_PHASES="1")
    plain = {k: v for k, v in os.environ.items() if k != "THERMTOP_TRACE_PHASES"}
    rows = {b: [] for b in binaries}
    others = {"sensors": [], "C: a static program that does nothing": []}
    null = os.open("/dev/null", os.O_WRONLY)
    # Each build read back by its own page faults (Benchmarks/drop-cache.py says why): a build
    # just copied ran 2-5% faster than the file it was copied from.
    subprocess.run(["/usr/bin/python3", os.path.join(HERE, "drop-cache.py")] + binaries, check=True)
    for _ in range(10):   # warm-up: page cache, dentries
        for b in binaries:
            traced(b, env)
        spawn([sensors], plain, null)
    for _ in range(runs):
        for b in binaries:
            rows[b].append(traced(b, env))
        t, cpu, _, _ = spawn([sensors], plain, null)
        others["sensors"].append((t, cpu))
        t, cpu, _, _ = spawn([noop], plain, null)
        others["C: a static program that does nothing"].append((t, cpu))
    shutil.rmtree(tmp)

    def med(values):
        return statistics.median(values) * 1e6

    print(f"one-shot steps, fake laptop /sys, {runs} interleaved runs, median µs "
          f"(load {os.getloadavg()[0]:.2f})")
    names = [f"`{b}`" for b in binaries]
    print("| step | " + " | ".join(names) + " |")
    print("| --- |" + " --- |" * len(binaries))
    for k, (label, _, _) in enumerate(STEPS + [("total", None, None), ("CPU (user + system)", None, None)]):
        print(f"| {label} | " + " | ".join(f"{med(r[k] for r in rows[b]):.0f}" for b in binaries) + " |")
    for name, values in others.items():
        print(f"| {name}: total, CPU | " + " | ".join(
            [f"{med(v[0] for v in values):.0f}, {med(v[1] for v in values):.0f}"] + [""] * (len(binaries) - 1)) + " |")
    base = statistics.median(v[0] for v in others["sensors"])
    for b in binaries:
        total = statistics.median(r[-2] for r in rows[b])
        print(f"RESULT phases binary={b} total_ms={total * 1e3:.3f} ratio_to_sensors={total / base:.3f}")


if __name__ == "__main__":
    main()
