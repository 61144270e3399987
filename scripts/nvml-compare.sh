#!/bin/sh
# Compares thermtop's NVML readings with nvidia-smi's on a machine with an NVIDIA GPU, idle and
# then under a short load (a torch matmul when python3 has torch). Checks that each GPU's
# temperature agrees within 1 °C, power within 5 %, thresholds are equal and the decoded
# clock-event reasons are equal. Under the load, it also checks the GPU processes against
# `nvidia-smi --query-compute-apps`: each compute process is in a heat_sources group on its GPU,
# named as the process, with the same memory within 1 MiB. CI never runs it (it needs a GPU).
#
#   scripts/nvml-compare.sh [THERMTOP]    (default: the release build of scripts/release-build.sh)
set -eu
THERMTOP=${1:-.build/release/thermtop}
PY=${PYTHON:-python3}
command -v nvidia-smi >/dev/null || { echo "nvidia-smi not found: no NVIDIA driver here" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"; [ -n "${load:-}" ] && kill "$load" 2>/dev/null || true' EXIT

reasons_field=clocks_event_reasons.active
nvidia-smi --query-gpu=$reasons_field --format=csv,noheader >/dev/null 2>&1 || reasons_field=clocks_throttle_reasons.active

snapshot() { # $1: label
    "$THERMTOP" status --json > "$work/$1.thermtop.json"
    nvidia-smi --query-gpu=pci.bus_id,temperature.gpu,power.draw,enforced.power.limit,$reasons_field \
        --format=csv,noheader,nounits > "$work/$1.smi.csv"
    nvidia-smi -q -d TEMPERATURE > "$work/$1.smi-temperature.txt"
    nvidia-smi --query-compute-apps=gpu_bus_id,pid,process_name,used_memory \
        --format=csv,noheader,nounits > "$work/$1.apps.csv"
}

compare_processes() { # $1: label
    "$PY" - "$work/$1.thermtop.json" "$work/$1.apps.csv" "$1" <<'PYEOF'
import json, os, sys
status = json.load(open(sys.argv[1]))
label = sys.argv[3]
def sysfs_bus(b):
    dom, rest = b.lower().split(":", 1)
    return "%04x:%s" % (int(dom, 16), rest)
# pid -> (group command, that process's use of each GPU by bus id)
seen = {}
for src in status.get("heat_sources", []):
    for p in src.get("processes", []):
        seen[p["pid"]] = (src["command"], {u["bus_id"]: u for u in (p.get("gpu") or [])})
failures = rows = 0
for row in open(sys.argv[2]):
    if not row.strip(): continue
    bus, pid, name, mem = [c.strip() for c in row.split(",", 3)]
    bus, pid, rows = sysfs_bus(bus), int(pid), rows + 1
    def check(what, ok, detail):
        global failures
        print("%-6s %s pid %-7d %-8s %s  %s" % (label, bus, pid, what, "ok  " if ok else "FAIL", detail))
        if not ok: failures += 1
    got = seen.get(pid)
    if got is None:
        check("present", False, "thermtop lists no pid %d (%s) among heat sources" % (pid, name)); continue
    command, uses = got
    # comm is the executable's name cut at 15 bytes; nvidia-smi gives the path.
    want = os.path.basename(name)[:15]
    check("name", command == want, "thermtop %r, nvidia-smi %r" % (command, name))
    use = uses.get(bus)
    check("gpu", use is not None, "thermtop's GPUs for it: %s" % sorted(uses))
    if use is None: continue
    if mem.isdigit():
        got_mib = None if use.get("memory_bytes") is None else use["memory_bytes"] / 1048576
        check("memory", got_mib is not None and abs(got_mib - int(mem)) <= 1, "thermtop %s MiB, nvidia-smi %s MiB" % (got_mib, mem))
    else:
        check("memory", use.get("memory_bytes") is None, "nvidia-smi %r: thermtop must say unknown, has %s" % (mem, use.get("memory_bytes")))
    check("sm", use.get("sm_percent") is not None, "thermtop SM %s %% (nvidia-smi has no per-process SM share to compare)" % use.get("sm_percent"))
if rows == 0: print("%-6s no compute processes listed by nvidia-smi" % label)
sys.exit(1 if failures else 0)
PYEOF
}

compare() { # $1: label
    "$PY" - "$work/$1.thermtop.json" "$work/$1.smi.csv" "$work/$1.smi-temperature.txt" "$1" <<'PYEOF'
import json, re, sys
status = json.load(open(sys.argv[1]))
label = sys.argv[4]
gpus = {g["bus_id"]: g for g in status.get("gpus", [])}
names = [(0x1, "idle"), (0x2, "applications clocks setting"), (0x4, "SW power cap"), (0x8, "HW slowdown"),
         (0x10, "sync boost"), (0x20, "SW thermal slowdown"), (0x40, "HW thermal slowdown"),
         (0x80, "HW power brake slowdown"), (0x100, "display clock setting")]
def words(bits): return [n for b, n in names if bits & b]
def sysfs_bus(b):
    dom, rest = b.lower().split(":", 1)
    return "%04x:%s" % (int(dom, 16), rest)
# nvidia-smi -q -d TEMPERATURE: one block per GPU, "GPU 00000000:00:06.0" then "X Temp : 95 C".
limits, current = {}, None
for line in open(sys.argv[3]):
    m = re.match(r"^GPU ([0-9A-Fa-f]+:[0-9A-Fa-f]+:[0-9A-Fa-f]+\.[0-9])", line)
    if m: current = sysfs_bus(m.group(1)); limits[current] = {}; continue
    m = re.match(r"\s*(GPU Shutdown Temp|GPU Slowdown Temp|GPU Max Operating Temp|Memory Max Operating Temp)\s*:\s*([0-9.]+) C", line)
    if m and current: limits[current][m.group(1)] = float(m.group(2))
key = {"GPU Shutdown Temp": "shutdown_celsius", "GPU Slowdown Temp": "slowdown_celsius",
       "GPU Max Operating Temp": "gpu_max_celsius", "Memory Max Operating Temp": "memory_max_celsius"}
failures = 0
for row in open(sys.argv[2]):
    bus, temp, power, limit, reasons = [c.strip() for c in row.split(",")]
    bus = sysfs_bus(bus)
    g = gpus.get(bus)
    def check(what, ok, detail):
        global failures
        print("%-6s %s %-10s %s  %s" % (label, bus, what, "ok  " if ok else "FAIL", detail))
        if not ok: failures += 1
    if g is None:
        check("present", False, "thermtop has no GPU %s (gpu_notice: %s)" % (bus, status.get("gpu_notice"))); continue
    t = g.get("celsius")
    check("temp", t is not None and abs(t - float(temp)) <= 1, "thermtop %s °C, nvidia-smi %s °C" % (t, temp))
    p = g.get("power_watts")
    check("power", p is not None and abs(p - float(power)) <= 0.05 * float(power), "thermtop %s W, nvidia-smi %s W" % (p, power))
    lim = g.get("power_limit_watts")
    check("limit", lim is not None and abs(lim - float(limit)) < 0.5, "thermtop %s W, nvidia-smi %s W" % (lim, limit))
    for smi_name, field in key.items():
        want = limits.get(bus, {}).get(smi_name)
        got = g["thresholds"].get(field)
        check(field.replace("_celsius", ""), want == got, "thermtop %s, nvidia-smi %s" % (got, want))
    want = words(int(reasons, 16)) if reasons.startswith("0x") else None
    got = g.get("clock_event_reason_names")
    check("reasons", want == got, "thermtop %s, nvidia-smi %s (%s)" % (got, want, reasons))
sys.exit(1 if failures else 0)
PYEOF
}

status=0
snapshot idle
compare idle || status=1

if "$PY" -c "import torch; assert torch.cuda.is_available()" 2>/dev/null; then
    "$PY" -c "
import time, torch
a = torch.randn(8192, 8192, device='cuda', dtype=torch.bfloat16)
end = time.time() + 20
while time.time() < end:
    b = a @ a
    torch.cuda.synchronize()
" &
    load=$!
    sleep 8
    snapshot load
    compare load || status=1
    compare_processes load || status=1
    wait "$load" || true
    load=
else
    echo "load: skipped (python3 has no torch with CUDA)"
fi
exit $status
