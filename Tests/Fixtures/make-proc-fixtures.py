#!/usr/bin/env python3
"""Writes proc-table-1/ and proc-table-2/: two walks of one process table, one second apart,
laid out as the kernel writes /proc (stat, status, cmdline, cgroup per pid; /proc/stat), with
the hostile cases heat sources must survive. See README.md (proc-table-*)."""
import os, shutil

HERE = os.path.dirname(os.path.abspath(__file__))
KTHREAD = 0x00200000

def stat_line(pid, comm, state, flags, utime, stime, start):
    # Fields 1..52 as fs/proc/array.c prints them; the ones heat sources read are real, the rest plausible.
    f = [str(pid), f"({comm})", state, "1", str(pid), str(pid), "0", "-1", str(flags),
         "120", "0", "0", "0", str(utime), str(stime), "0", "0", "20", "0", "1", "0", str(start),
         "12345678", "345"] + ["0"] * 28
    return " ".join(f) + "\n"

def write(root, procs, cpu, extra):
    if os.path.exists(root):
        shutil.rmtree(root)
    os.makedirs(root)
    with open(os.path.join(root, "stat"), "w") as f:
        f.write(cpu + "\ncpu0 0 0 0 0 0 0 0 0 0 0\nintr 0\nctxt 0\nbtime 1700000000\nprocesses 1\n")
    with open(os.path.join(root, "uptime"), "w") as f:
        f.write("1000.00 900.00\n")
    for p in procs:
        d = os.path.join(root, str(p["pid"]))
        os.makedirs(d)
        with open(os.path.join(d, "stat"), "wb") as f:
            f.write(p.get("raw_stat") or stat_line(p["pid"], p["comm"], p.get("state", "S"), p.get("flags", 0x400100),
                                                   p["ut"], p["st"], p["start"]).encode("utf-8", "surrogateescape"))
        uid = p.get("uid", 0)
        with open(os.path.join(d, "status"), "w") as f:
            f.write(f"Name:\t{p.get('comm', '?')}\nUmask:\t0022\nState:\t{p.get('state', 'S')}\nTgid:\t{p['pid']}\n"
                    f"Pid:\t{p['pid']}\nPPid:\t1\nUid:\t{uid}\t{uid}\t{uid}\t{uid}\nGid:\t{uid}\t{uid}\t{uid}\t{uid}\n")
        with open(os.path.join(d, "cmdline"), "wb") as f:
            f.write(p.get("cmdline", b""))
        with open(os.path.join(d, "cgroup"), "w") as f:
            f.write(p.get("cgroup", "0::/\n"))
    for name, text in extra.items():
        with open(os.path.join(root, name), "w") as f:
            f.write(text)

SESSION = "0::/user.slice/user-1000.slice/session-2.scope\n"
DOCKER = "0::/system.slice/docker-3f2a9c1b7d4e5f60718293a4b5c6d7e8f9a0b1c2d3e4f5a6b7c8d9e0f1a2b3c4.scope\n"
CC = b"/usr/lib/gcc/x86_64-linux-gnu/12/cc1plus\0-quiet\0main.cpp\0"

def table(second):
    t = lambda a, b: b if second else a
    procs = [
        dict(pid=1, comm="systemd", ut=50, st=t(30, 31), start=1, cmdline=b"/sbin/init\0splash\0", cgroup="0::/init.scope\n"),
        dict(pid=2, comm="kthreadd", flags=0x208040 | KTHREAD, ut=0, st=0, start=0),
        dict(pid=10, comm="kworker/0:1-events", flags=0x4208060, ut=0, st=t(100, 110), start=5),
        dict(pid=11, comm="kworker/1:2-mm_percpu_wq", flags=0x4208060, ut=0, st=t(200, 215), start=6),
        dict(pid=100, comm="cc1plus", ut=t(1000, 1098), st=t(10, 12), start=5000, uid=1000, cmdline=CC, cgroup=SESSION),
        dict(pid=101, comm="cc1plus", ut=t(900, 998), st=t(20, 22), start=5001, uid=1000, cmdline=CC, cgroup=SESSION),
        # A command name with spaces and parentheses: parsed up to the LAST ')'.
        dict(pid=200, comm="a) (b", ut=t(10, 15), st=0, start=6000, uid=1000, cmdline=b"./a) (b\0", cgroup=DOCKER),
        # A zombie: its CPU time stays, it uses none, its cmdline is empty.
        dict(pid=300, comm="defunct", state="Z", ut=5, st=5, start=6100),
        # Terminal escapes in the name and the command line.
        dict(pid=400, comm="\x1b]0;pwn\x07ev\x1b[2Jil", ut=t(0, 7), st=0, start=6200, cmdline=b"evil\0\x1b[2J\x1b[31mred\0"),
        # An unparsable stat (cut short).
        dict(pid=700, raw_stat=b"700 (trunc", ut=0, st=0, start=0),
    ]
    if not second:
        procs += [dict(pid=500, comm="oldjob", ut=300, st=0, start=6300),
                  dict(pid=600, comm="gone", ut=100, st=0, start=6400)]
    else:
        procs += [
            # pid 500 reused by a process started inside the window (start time differs).
            dict(pid=500, comm="newjob", ut=20, st=0, start=9000),
            # Started inside the window.
            dict(pid=800, comm="make", ut=30, st=0, start=9100, cmdline=b"make\0-j8\0", cgroup=SESSION, uid=1000),
            # First seen now but older than the newest process of walk 1 (unreadable then):
            # its time inside the window is unknown, so it counts none.
            dict(pid=801, comm="hidden", ut=50, st=0, start=4000),
        ]
    cpu = t("cpu  1000 0 500 100000 50 0 0 0 0 0", "cpu  1300 0 600 100050 50 0 0 0 0 0")
    return procs, cpu

for n, second in ((1, False), (2, True)):
    procs, cpu = table(second)
    write(os.path.join(HERE, f"proc-table-{n}"), procs, cpu, {})
