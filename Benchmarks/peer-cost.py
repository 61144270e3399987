#!/usr/bin/python3
"""What terminal monitors cost, side by side, watching the same fake laptop /sys.

    peer-cost.py [--seconds N] [--warmup W] [--repeat R] [--gap G] [--size WxH] [--out DIR]
                 [--baseline NAME] -- NAME 'COMMAND' [NAME 'COMMAND' ...]

Runs inside fakesys.py's mount namespace (it re-executes itself there; root needed), so
every program reads the same laptop whose values change once a second. Rounds are
interleaved (A B C, A B C, ...) so a noisy shared machine hits all programs alike; report
ratios to the baseline (default: the last NAME), not absolutes.

Each program runs N s (30) in a detached tmux session of a private server (own socket, started
inside the namespace) at WxH (120x40), TERM=xterm-256color, LANG=C.UTF-8, a fresh empty HOME
(built-in defaults). The pane's shell waits on a FIFO until `pipe-pane` is attached, then
execs COMMAND (same pid), so every byte written to the terminal is counted. Counters, summed
over the program and its descendants, read from /proc:
  cpu%        CPU time / wall time, per process max(schedstat of its threads, utime+stime)
              plus cutime+cstime (reaped children), minus the value at release
  steady%     the same from W s (5) to N s: without startup
  peak MB     sum of VmHWM (peak resident set) of the live tree
  tty B/s     bytes the program wrote to the terminal (what tmux read from the pty) per second
  wakeups/s   voluntary context switches of the live threads per second
Prints a markdown table of means, the ratios to the baseline, and `RESULT NAME key=value`
lines (one per program and round, then RESULT_MEAN) for scripts. Raw data in --out.
"""
import json
import os
import re
import shlex
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TICK_NS = 1_000_000_000 // os.sysconf("SC_CLK_TCK")


def parse(argv):
    o = dict(seconds=30.0, warmup=5.0, repeat=3, gap=2.0, size="120x40",
             out=f"/tmp/thermtop-bench/peer-cost-{time.strftime('%Y%m%d-%H%M%S')}", baseline=None)
    raw = list(argv)
    while argv and argv[0] != "--":
        k = argv.pop(0).lstrip("-")
        if k in ("h", "help"):
            print(__doc__)
            sys.exit(0)
        if k not in o or not argv:
            sys.exit(f"peer-cost: unknown option --{k}\n{__doc__}")
        v = argv.pop(0)
        o[k] = type(o[k])(v) if isinstance(o[k], (int, float)) else v
    progs = argv[1:]
    if not progs or len(progs) % 2:
        sys.exit(__doc__)
    o["programs"] = [(progs[i], progs[i + 1]) for i in range(0, len(progs), 2)]
    for name, _ in o["programs"]:
        if not re.fullmatch(r"[A-Za-z0-9_.+-]+", name):
            sys.exit(f"peer-cost: bad NAME {name!r}")
    o["baseline"] = o["baseline"] or o["programs"][-1][0]
    if not re.fullmatch(r"\d+x\d+", o["size"]) or not 0 <= o["warmup"] < o["seconds"]:
        sys.exit("peer-cost: need --size WxH and 0 <= warmup < seconds")
    return o, raw


# ------------------------------------------------------------------------------ /proc

def read(path):
    try:
        with open(path, "rb") as fh:
            return fh.read().decode("ascii", "replace")
    except OSError:
        return None


def stat_fields(pid):
    s = read(f"/proc/{pid}/stat")
    return s[s.rfind(")") + 2:].split() if s else None  # field 3 (state) onwards


def tree(root):
    kids = {}
    for d in os.listdir("/proc"):
        if d.isdigit():
            f = stat_fields(d)
            if f:
                kids.setdefault(int(f[1]), []).append(int(d))
    out, todo = [], [root]
    while todo:
        p = todo.pop()
        out.append(p)
        todo += kids.get(p, [])
    return out


def status_kb(text, key):
    m = re.search(rf"^{key}:\s+(\d+)", text or "", re.M)
    return int(m.group(1)) if m else 0


def sample(root):
    """One snapshot of the tree's counters."""
    t = time.monotonic()
    s = dict(t=t, cpu_ns=0, hwm_kb=0, vcsw=0, nvcsw=0, procs=0, threads=0, pids=[], by_thread={})
    for pid in tree(root):
        f = stat_fields(pid)
        if not f:
            continue
        s["procs"] += 1
        s["pids"].append(pid)
        ticks = int(f[11]) + int(f[12])   # utime stime
        reaped = int(f[13]) + int(f[14])  # cutime cstime
        sched = 0
        try:
            tids = os.listdir(f"/proc/{pid}/task")
        except OSError:
            tids = []
        for tid in tids:
            st = read(f"/proc/{pid}/task/{tid}/schedstat")
            if st:
                sched += int(st.split()[0])
            ts = read(f"/proc/{pid}/task/{tid}/status")
            s["vcsw"] += status_kb(ts, "voluntary_ctxt_switches")
            m = re.search(r"^Name:\s*(.*)$", ts or "", re.M)
            who = m.group(1) if m else "?"
            s["by_thread"][who] = s["by_thread"].get(who, 0) + status_kb(ts, "voluntary_ctxt_switches")
            s["nvcsw"] += status_kb(ts, "nonvoluntary_ctxt_switches")
            s["threads"] += 1
        s["cpu_ns"] += max(sched, ticks * TICK_NS) + reaped * TICK_NS
        s["hwm_kb"] += status_kb(read(f"/proc/{pid}/status"), "VmHWM")
    return s


# ------------------------------------------------------------------------------ tmux

class Tmux:
    def __init__(self, run_dir, w, h):
        self.sock = os.path.join(run_dir, "tmux.sock")
        self.conf = os.path.join(run_dir, "tmux.conf")
        with open(self.conf, "w") as fh:
            fh.write(f"set -g default-terminal xterm-256color\nset -g default-shell /bin/sh\n"
                     f"set -g status off\nset -g exit-empty off\nset -g default-size {w}x{h}\n"
                     f"set -g remain-on-exit on\nset -g history-limit 1000\n")
        self.env = dict(PATH="/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
                        HOME=os.environ.get("HOME", "/root"), LANG="C.UTF-8", TERM="xterm-256color")

    def __call__(self, *args, check=True):
        r = subprocess.run(["tmux", "-S", self.sock, "-f", self.conf, *args], env=self.env,
                           capture_output=True, text=True)
        if check and r.returncode:
            raise RuntimeError(f"tmux {' '.join(args)}: {r.stderr.strip()}")
        return r.stdout.strip()


def wait_until(t):
    d = t - time.monotonic()
    if d > 0:
        time.sleep(d)


def run_one(o, tmux, run_dir, name, cmd, k):
    w, h = o["size"].split("x")
    tag = f"{name}.r{k}"
    fifo, launch, tty = (os.path.join(run_dir, f"{tag}.{x}") for x in ("go", "sh", "tty"))
    home = os.path.join(run_dir, "home", tag)
    os.makedirs(home, exist_ok=True)
    if os.path.exists(fifo):
        os.unlink(fifo)
    os.mkfifo(fifo)
    open(tty, "w").close()
    with open(launch, "w") as fh:
        fh.write(f"#!/bin/sh\n: < {shlex.quote(fifo)}\nexec {cmd}\n")
    sess = f"pc{k}-{name}"
    tmux("new-session", "-d", "-s", sess, "-x", w, "-y", h, "-c", "/", "-e", f"HOME={home}",
         f"exec /bin/sh {shlex.quote(launch)}")
    pid = int(tmux("display", "-p", "-t", sess, "#{pane_pid}"))
    tmux("pipe-pane", "-O", "-t", sess, f"exec cat >> {shlex.quote(tty)}")
    time.sleep(0.2)
    b0 = sample(pid)
    with open(fifo, "w"):
        pass  # releases the launcher: it execs COMMAND
    r0 = time.monotonic()
    wait_until(r0 + o["warmup"])
    s1 = sample(pid)
    wait_until(r0 + o["seconds"])
    s2 = sample(pid)
    tty_bytes = os.path.getsize(tty)
    dead = tmux("display", "-p", "-t", sess, "#{pane_dead}:#{pane_dead_status}")
    with open(os.path.join(run_dir, f"{tag}.screen.txt"), "w") as fh:
        fh.write(tmux("capture-pane", "-p", "-t", sess))
    tmux("pipe-pane", "-t", sess)
    tmux("kill-session", "-t", sess)
    pids = set(s1["pids"]) | set(s2["pids"])
    for _ in range(30):
        if not any(os.path.exists(f"/proc/{p}") for p in pids):
            break
        time.sleep(0.1)
    for p in pids:
        try:
            os.kill(p, 9)
        except OSError:
            pass
    os.unlink(fifo)
    wall = s2["t"] - b0["t"]
    res = dict(name=name, run=k, wall_s=round(wall, 3), status="running" if dead.startswith("0") else f"exited({dead})")
    if res["status"] != "running":
        print(f"peer-cost: WARNING: {name} {res['status']} before {o['seconds']} s; counters lost", file=sys.stderr)
        return res
    res.update(
        cpu_pct=100 * (s2["cpu_ns"] - b0["cpu_ns"]) / 1e9 / wall,
        steady_pct=100 * (s2["cpu_ns"] - s1["cpu_ns"]) / 1e9 / (s2["t"] - s1["t"]),
        rss_kb=s2["hwm_kb"],
        tty_Bps=tty_bytes / wall,
        wakeups_per_s=(s2["vcsw"] - b0["vcsw"]) / wall,
        nvcsw_per_s=(s2["nvcsw"] - b0["nvcsw"]) / wall,
        procs=s2["procs"], threads=s2["threads"])
    with open(os.path.join(run_dir, f"{tag}.samples.json"), "w") as fh:
        json.dump(dict(b0=b0, s1=s1, s2=s2), fh)
    # Which threads wake, by name (a thread that ended before the last sample is not counted).
    by = {n: (c - b0["by_thread"].get(n, 0)) / wall for n, c in s2["by_thread"].items()}
    print(f"peer-cost: {tag} wakeups/s by thread: " + ", ".join(
        f"{n} {v:.2f}" for n, v in sorted(by.items(), key=lambda x: -x[1]) if v >= 0.005), file=sys.stderr)
    return res


KEYS = [("cpu_pct", "CPU, % of a core", "{:.3f}"), ("steady_pct", "steady CPU (after warm-up)", "{:.3f}"),
        ("rss_kb", "peak RSS, MB", None), ("tty_Bps", "bytes to the terminal per s", "{:.0f}"),
        ("wakeups_per_s", "wakeups per s (voluntary ctx switches)", "{:.2f}")]


def fmt(key, v):
    if v is None:
        return "NA"
    return f"{v / 1024:.1f}" if key == "rss_kb" else dict((k, f) for k, _, f in KEYS)[key].format(v)


def report(o, results, run_dir):
    names = [n for n, _ in o["programs"]]
    mean = {}
    for n in names:
        rows = [r for r in results if r["name"] == n and r["status"] == "running"]
        mean[n] = {k: (statistics.mean(r[k] for r in rows) if rows else None) for k, _, _ in KEYS}
        mean[n]["runs"] = len(rows)
    base = mean[o["baseline"]]
    lines = [f"peer-cost: {o['seconds']:g} s each (steady from {o['warmup']:g} s), {o['size']}, "
             f"{o['repeat']} interleaved rounds, means; ratios to {o['baseline']} in the same run", "",
             "| | " + " | ".join(names) + " | " + " | ".join(f"{n} / {o['baseline']}" for n in names if n != o["baseline"]) + " |",
             "| --- " * (1 + len(names) + len(names) - 1) + "|"]
    for k, label, _ in KEYS:
        cells = [fmt(k, mean[n][k]) for n in names]
        ratios = []
        for n in names:
            if n == o["baseline"]:
                continue
            a, b = mean[n][k], base[k]
            ratios.append(f"{a / b:.2f}" if a is not None and b else "NA")
        lines.append(f"| {label} | " + " | ".join(cells) + " | " + " | ".join(ratios) + " |")
    lines.append("")
    for r in results:
        lines.append(f"RESULT {r['name']} " + " ".join(f"{k}={v:.3f}" if isinstance(v, float) else f"{k}={v}"
                                                        for k, v in r.items() if k != "name"))
    for n in names:
        lines.append(f"RESULT_MEAN {n} runs={mean[n]['runs']} " + " ".join(
            f"{k}={mean[n][k]:.3f}" if mean[n][k] is not None else f"{k}=NA" for k, _, _ in KEYS))
    lines.append(f"run dir: {run_dir}")
    text = "\n".join(lines)
    print(text)
    with open(os.path.join(run_dir, "summary.txt"), "w") as fh:
        fh.write(text + "\n")
    with open(os.path.join(run_dir, "results.json"), "w") as fh:
        json.dump(dict(options={k: v for k, v in o.items()}, results=results, means=mean), fh, indent=1)


def main():
    o, raw = parse(sys.argv[1:])
    if not os.environ.get("THERMTOP_FAKESYS", "").startswith("inside"):
        os.execv(sys.executable, [sys.executable, os.path.join(HERE, "fakesys.py"), "run", "--",
                                  sys.executable, os.path.abspath(__file__), *raw])
    run_dir = o["out"]
    os.makedirs(run_dir, exist_ok=True)
    w, h = o["size"].split("x")
    tmux = Tmux(run_dir, w, h)
    with open(os.path.join(run_dir, "meta.txt"), "w") as fh:
        fh.write(f"date: {time.strftime('%Y-%m-%dT%H:%M:%S%z')}\nhost: {' '.join(os.uname())}, {os.cpu_count()} cpus\n"
                 f"options: {raw}\n")
    results = []
    total, n = len(o["programs"]) * o["repeat"], 0
    try:
        for k in range(1, o["repeat"] + 1):
            for name, cmd in o["programs"]:
                n += 1
                print(f"peer-cost: [{n}/{total}] {name} (round {k}): {cmd}", file=sys.stderr)
                results.append(run_one(o, tmux, run_dir, name, cmd, k))
                if n < total:
                    time.sleep(o["gap"])
    finally:
        tmux("kill-server", check=False)
    report(o, results, run_dir)


if __name__ == "__main__":
    main()
