#!/usr/bin/env python3
"""Regenerate the sysfs fixture trees used by ThermtopLinuxTests.

Usage:  python3 make-fixtures.py [--only NAME ...] [--check]

Each fixture is a folder next to this script that plays the role of `/sys` (it directly
contains `class/`, `devices/`, `firmware/`) plus a README.md saying what a correct reader
must report. Values are in kernel units (m°C, µV, µA, µAh, µWh, µW) with a trailing newline.
`class/<cls>/<entry>` are relative symlinks into `devices/...`, as on a real kernel.

Sources (override with environment variables if the paths differ on your machine):
  THERMTOP_REAL_SYSFS     folder of real captures (default /work/shared/real-sysfs);
                          the eight captures are copied verbatim (cp -a) plus a README.md.
                          If the folder is missing, existing copies are left alone.
  THERMTOP_LAPTOP_GEN     make-fixture-laptop generator (default /work/shared/bench/make-fixture-laptop);
                          intel-laptop and intel-laptop-hot start from its output and are then edited.
                          If it is missing, those two fixtures are left alone.

Deliberate oddities (see broken/README.md): 0-byte files, a `temp` that is a directory,
symlinks to /proc/self/mem (reading it at offset 0 fails with EIO for real), a dangling
class symlink, non-UTF-8 and escape bytes. `--check` verifies that nothing else is odd.
"""
import os
import shutil
import stat
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REAL = os.environ.get("THERMTOP_REAL_SYSFS", "/work/shared/real-sysfs")
LAPTOP_GEN = os.environ.get("THERMTOP_LAPTOP_GEN", "/work/shared/bench/make-fixture-laptop")
EIO = "/proc/self/mem"  # open() works, read() at offset 0 fails with EIO

REAL_CAPTURES = [
    "thinkpad-lgc-45n1-2018-procfs",
    "thinkpad-lgc-45n1-2019-node-exporter",
    "legion-go-s-couchside",
    "lenovo-lnv-5b11c73244-batterarch",
    "amd-ryzen-2x-nvme-telegraf",
    "amdgpu-rx5500xt-lact",
    "amdgpu-vangogh-steamdeck-lact",
    "radeon-hd7870-lact",
]

# Files that are deliberately not "text ending in a newline" and links that deliberately do not
# resolve inside the fixture (relative to the fixtures folder). Used by --check.
EMPTY_OK = {
    "broken/devices/virtual/thermal/thermal_zone0/temp",
    "broken/firmware/acpi/platform_profile",
}
DANGLING_OK = {
    "broken/class/thermal/thermal_zone9",
}


# ----------------------------------------------------------------------------- helpers

class Tree:
    """Writes a sysfs tree rooted at `root` (the fixture folder)."""

    def __init__(self, root):
        self.root = root

    def path(self, rel):
        return os.path.join(self.root, rel)

    def w(self, rel, value, raw=False):
        """Write an attribute. value: int/str -> text + '\\n'; bytes -> exactly those bytes (raw)."""
        f = self.path(rel)
        os.makedirs(os.path.dirname(f), exist_ok=True)
        if os.path.lexists(f) and (os.path.islink(f) or not os.path.isdir(f)):
            os.unlink(f)
        data = value if isinstance(value, bytes) else f"{value}\n".encode()
        with open(f, "wb") as fh:
            fh.write(data)

    def attrs(self, d, mapping):
        for k, v in mapping.items():
            self.w(f"{d}/{k}", v)

    def link(self, rel, target_rel):
        """Relative symlink at rel pointing at target_rel (both relative to the fixture root)."""
        lp = self.path(rel)
        os.makedirs(os.path.dirname(lp), exist_ok=True)
        if os.path.lexists(lp):
            os.unlink(lp)
        os.symlink(os.path.relpath(target_rel, os.path.dirname(rel)), lp)

    def abslink(self, rel, target):
        lp = self.path(rel)
        os.makedirs(os.path.dirname(lp), exist_ok=True)
        if os.path.lexists(lp):
            if os.path.isdir(lp) and not os.path.islink(lp):
                shutil.rmtree(lp)
            else:
                os.unlink(lp)
        os.symlink(target, lp)

    def keep(self, rel_dir):
        """An empty directory git can store."""
        self.w(f"{rel_dir}/.gitkeep", b"")

    def readme(self, text):
        with open(self.path("README.md"), "w") as fh:
            fh.write(text.strip() + "\n")


def fresh(name):
    root = os.path.join(HERE, name)
    assert os.path.dirname(root) == HERE and name
    if os.path.lexists(root):
        shutil.rmtree(root)
    os.makedirs(root)
    return Tree(root)


def c(m):
    """m°C -> '47.0' style string for READMEs."""
    s = f"{m / 1000:.3f}".rstrip("0")
    return s + "0" if s.endswith(".") else s


def uevent(name, props, devtype=False):
    lines = (["DEVTYPE=power_supply"] if devtype else []) + [f"POWER_SUPPLY_NAME={name}"]
    lines += [f"POWER_SUPPLY_{k.upper()}={v}" for k, v in props.items()]
    return "\n".join(lines)


def supply(t, dev_dir, name, props, extra=None):
    """A power_supply class device at dev_dir/power_supply/name, with files, uevent, class link."""
    d = f"{dev_dir}/power_supply/{name}"
    t.attrs(d, props)
    for k, v in (extra or {}).items():
        t.w(f"{d}/{k}", v)
    t.w(f"{d}/uevent", uevent(name, props))
    t.link(f"{d}/device", dev_dir)
    t.link(f"class/power_supply/{name}", d)
    return d


VT = "devices/virtual/thermal"


def zone(t, n, ztype, temp, trips, policy="step_wise", policies="fair_share bang_bang step_wise user_space ",
         cdevs=(), device=None):
    """trips: list of (type, temp, hyst); temp=None -> no temp file (unless a callable writes it)."""
    d = f"{VT}/thermal_zone{n}"
    t.w(f"{d}/type", ztype)
    if temp is not None:
        t.w(f"{d}/temp", temp)
    t.w(f"{d}/mode", "enabled")
    t.w(f"{d}/policy", policy)
    t.w(f"{d}/available_policies", policies)
    for i, (tt, tv, hy) in enumerate(trips):
        if tt is not None:
            t.w(f"{d}/trip_point_{i}_type", tt)
        if tv is not None:
            t.w(f"{d}/trip_point_{i}_temp", tv)
        if hy is not None:
            t.w(f"{d}/trip_point_{i}_hyst", hy)
    for i, (cd, trip) in enumerate(cdevs):
        t.link(f"{d}/cdev{i}", f"{VT}/cooling_device{cd}")
        t.w(f"{d}/cdev{i}_trip_point", trip)
        t.w(f"{d}/cdev{i}_weight", 0)
    if device:
        t.link(f"{d}/device", device)
    t.link(f"class/thermal/thermal_zone{n}", d)
    return d


def cooling(t, n, ctype, cur, mx):
    d = f"{VT}/cooling_device{n}"
    t.w(f"{d}/type", ctype)
    t.w(f"{d}/cur_state", cur)
    t.w(f"{d}/max_state", mx)
    t.link(f"class/thermal/cooling_device{n}", d)
    return d


def hwmon(t, n, d, name, attrs, device=None):
    if name is not None:
        t.w(f"{d}/name", name)
    t.attrs(d, attrs)
    if device:
        t.link(f"{d}/device", device)
    t.link(f"class/hwmon/hwmon{n}", d)
    return d


def pci(t, d, vendor, device, cls, driver, power_state="D0", runtime=None):
    t.attrs(d, {"vendor": vendor, "device": device, "class": cls, "power_state": power_state})
    t.w(f"{d}/uevent", f"DRIVER={driver}\nPCI_CLASS={cls[2:].upper()}\n"
        f"PCI_ID={vendor[2:].upper()}:{device[2:].upper()}\nPCI_SLOT_NAME={os.path.basename(d)}")
    if runtime:
        t.w(f"{d}/power/runtime_status", runtime)


def tte(now, rate):
    """Seconds to empty, truncated like psutil."""
    return int(now / rate * 3600)


def hms(s):
    return f"{s // 3600} h {s % 3600 // 60} min {s % 60} s"


# ----------------------------------------------------------------------------- real captures

REAL_README = {
"thinkpad-lgc-45n1-2018-procfs": """
# thinkpad-lgc-45n1-2018-procfs (real capture)

ThinkPad with an LGC "LNV-45N1" 47.52 Wh pack (serial 38109), ACPI battery + ACPI AC adapter.
Copied verbatim from `/work/shared/real-sysfs/thinkpad-lgc-45n1-2018-procfs` (origin: prometheus/procfs
`testdata/fixtures.ttar`, see `SOURCE.md`). Only `class/power_supply/{AC,BAT0}` (real directories, not symlinks).

A correct reader reports:
- BAT0: Discharging, present, Li-ion, capacity_level Normal, model LNV-45N1, manufacturer LGC.
- Percent **98** (from `capacity`); the computed energy ratio would be 98.78 % (49450000 / 50060000).
- Energy 49.45 Wh now, 50.06 Wh full, 47.52 Wh design: health **105.35 %** (full > design; upower would clamp to 100).
- Power **4.83 W**, voltage 12.229 V.
- Time to empty **36857 s** (10 h 14 min) = 49450000 / 4830000 × 3600.
- AC (`AC`, Mains) online **0**: on battery.
- Charge thresholds 95 / 100 (ThinkPad extras).
- No thermal zones, no hwmon, no platform_profile.

Trap: `BAT0/uevent` was captured at another moment and disagrees (CAPACITY=85, ENERGY_NOW=40730000,
ENERGY_FULL=47390000, POWER_NOW=5064000, VOLTAGE_NOW=11750000). Use the attribute files; never mix the two sources.
""",
"thinkpad-lgc-45n1-2019-node-exporter": """
# thinkpad-lgc-45n1-2019-node-exporter (real capture)

The same ThinkPad battery as `thinkpad-lgc-45n1-2018-procfs` (LGC LNV-45N1, serial 38109) about a year later.
Copied verbatim from `/work/shared/real-sysfs/thinkpad-lgc-45n1-2019-node-exporter` (origin: prometheus/node_exporter
`collector/fixtures/sys.ttar`, see `SOURCE.md`).

A correct reader reports:
- BAT0: Discharging, capacity **81** % (computed 81.16 % = 36580000 / 45070000).
- Energy 36.58 / 45.07 / 47.52 Wh: health **94.84 %**. Power **5.002 W**, voltage 11.66 V.
- Time to empty **26327 s** (7 h 18 min) = 36580000 / 5002000 × 3600.
- AC online **0**: on battery. uevent agrees with the files here.
- No thermal zones, no hwmon, no platform_profile.
""",
"legion-go-s-couchside": """
# legion-go-s-couchside (real capture)

Lenovo Legion Go S handheld (AMD), SteamOS/Bazzite. Copied verbatim from
`/work/shared/real-sysfs/legion-go-s-couchside` (origin: emerytech/couchside tests, verbatim uevent text;
attribute files mapped from it, see `SOURCE.md`).

A correct reader reports:
- BAT0 (Li-poly, SMP L24M3PK8, 53 cycles): Discharging, capacity **58** % (computed 58.29 %).
- Energy 32.35 / 55.5 / 55.5 Wh: health **100 %**. Power **22.543 W**, voltage 11.705 V.
- Time to empty **5166 s** (86 min) = 32350000 / 22543000 × 3600.
- AC: `ACAD` (type Mains) online 0; `ucsi-source-psy-USBC000:001` (type USB) online 0 and is neither a battery
  nor the system AC: **on battery**. (A reader that only looks for `AC`/`AC0` finds nothing: look at `type`.)
- platform_profile **`custom`** (choices `low-power balanced performance`): report `custom` verbatim even though
  it is not in the choices. Not `low-power`, so no low-power signal from the profile.
- No thermal zones, no hwmon.

Traps: `uevent` starts with `DEVTYPE=power_supply` and repeats `POWER_SUPPLY_TYPE=`.
""",
"lenovo-lnv-5b11c73244-batterarch": """
# lenovo-lnv-5b11c73244-batterarch (real capture)

A Lenovo laptop on Arch Linux, battery SMP LNV-5B11C73244 (Li-poly, 14 cycles). Copied verbatim from
`/work/shared/real-sysfs/lenovo-lnv-5b11c73244-batterarch` (origin: neymarsabin/batterarch README uevent paste,
see `SOURCE.md`).

A correct reader reports:
- BAT0: Discharging, capacity **29** % (computed 29.66 %).
- Energy 17.21 / 58.03 / 57.0 Wh: health **101.81 %** (full > design). Power **8.014 W**, voltage 11.178 V
  (below voltage_min_design 11.52 V: not an error).
- Time to empty **7730 s** (2 h 8 min) = 17210000 / 8014000 × 3600.
- AC: **unknown** (no AC supply in the capture; status Discharging suggests battery).
- No thermal zones, no hwmon, no platform_profile.
""",
"amd-ryzen-2x-nvme-telegraf": """
# amd-ryzen-2x-nvme-telegraf (real capture)

AMD Ryzen desktop (k10temp) with two NVMe SSDs. Copied verbatim from
`/work/shared/real-sysfs/amd-ryzen-2x-nvme-telegraf` (origin: influxdata/telegraf temp plugin test tree, see
`SOURCE.md`). `class/hwmon/hwmonN` are real directories here (no `device` links).

A correct reader reports:
- hwmon2 `k10temp`: Tctl **31.875 °C** (temp1), Tccd1 **30.75 °C** (temp3); no temp2 (sparse channels); no limits.
  CPU temperature = Tctl.
- hwmon0 `nvme`: Composite **32.85 °C** (max 81.85, crit 84.85, min none), Sensor 1 **32.85**, Sensor 2 **36.85**
  (no limits).
- hwmon1 `nvme`: Composite **35.85 °C** (max 81.85, crit 84.85), Sensor 1 **35.85**, Sensor 2 **37.85** (no limits).
- Sentinels: `temp*_max` 65261850 (65261.85 °C) and `temp*_min` -273150 mean "no limit" -> none.
- Two chips share the name `nvme`: keep them apart (by hwmon index/device).
- No batteries, AC unknown, no thermal zones, no platform_profile.
""",
"amdgpu-rx5500xt-lact": """
# amdgpu-rx5500xt-lact (real capture)

AMD Radeon RX 5500 XT (Navi 14, amdgpu). Copied verbatim from `/work/shared/real-sysfs/amdgpu-rx5500xt-lact`
(origin: ilya-zlobintsev/LACT snapshot test data, see `SOURCE.md`). No `device` link, so no power_state to check.

A correct reader reports (hwmon3 `amdgpu`):
- edge **48.0 °C** (crit 110.0, emergency 115.0), junction **48.0 °C** (crit 105.0, emergency 110.0).
- mem: `temp3_input` reads **0**: sensor not implemented -> unavailable, NOT 0.0 °C (crit 105.0, emergency 110.0).
- All `temp*_crit_hyst` = -273150 -> none. No `temp*_max`.
- Extras: PPT power1_average 16.0 W (cap 130 W, range 65–156 W); fan1 0 RPM with fan1_enable 0 (zero-RPM idle);
  vddgfx 700 mV.
- No batteries, AC unknown, no thermal zones, no platform_profile.
""",
"amdgpu-vangogh-steamdeck-lact": """
# amdgpu-vangogh-steamdeck-lact (real capture)

AMD Van Gogh APU (Steam Deck LCD), amdgpu. Copied verbatim from
`/work/shared/real-sysfs/amdgpu-vangogh-steamdeck-lact` (origin: LACT snapshot test data, see `SOURCE.md`).

A correct reader reports (hwmon4 `amdgpu`):
- edge **56.0 °C**, with no max/crit/emergency at all -> limits none (and therefore no threshold-based level).
- Power: slowPPT average 3.218 W, input 4.057 W (cap 15 W, 0–29 W); fastPPT average 3.040 W (cap 15 W, 0–30 W).
- vddgfx 15 mV, vddnb 669 mV.
- No batteries, AC unknown, no thermal zones, no platform_profile.
""",
"radeon-hd7870-lact": """
# radeon-hd7870-lact (real capture)

AMD Radeon HD 7870 (Pitcairn) on the legacy `radeon` driver. Copied verbatim from
`/work/shared/real-sysfs/radeon-hd7870-lact` (origin: LACT snapshot test data, see `SOURCE.md`).

A correct reader reports (hwmon3 `radeon`):
- temp1 with NO label file: **27.0 °C**, crit **120.0 °C**, crit_hyst **90.0 °C** (an absolute temperature: the
  critical alarm clears below 90 °C; not 120 − 90).
- No batteries, AC unknown, no thermal zones, no platform_profile.
""",
}


def build_real(name):
    src = os.path.join(REAL, name)
    dst = os.path.join(HERE, name)
    if not os.path.isdir(src):
        print(f"skip {name}: {src} not found (existing copy kept)")
        return
    if os.path.lexists(dst):
        shutil.rmtree(dst)
    subprocess.run(["cp", "-a", src, dst], check=True)
    Tree(dst).readme(REAL_README[name])


# ----------------------------------------------------------------------------- intel-laptop(-hot)

LPC = "devices/LNXSYSTM:00/LNXSYBUS:00/PNP0A08:00/device:1f"
EC = LPC + "/PNP0C09:00"
BAT = EC + "/PNP0C0A:00/power_supply/BAT0"
CORETEMP = "devices/platform/coretemp.0/hwmon/hwmon1"
NVMECTL = "devices/pci0000:00/0000:00:1d.0/0000:02:00.0/nvme/nvme0"
B0D4PCI = "devices/pci0000:00/0000:00:04.0"

INTEL = {
    False: dict(  # nominal
        acpitz=47000, pkg=53000, sen1=41050, b0d4=52050,
        cores=(51000, 53000, 49000, 50000), nvme=(38850, 38850, 42850),
        cdev0=0, profile="balanced",
        bat=dict(status="Discharging", voltage_now=12412000, power_now=8450000,
                 energy_now=36309000, capacity=70, capacity_level="Normal"),
        throttle=dict(cpu0=(3, 160), cpu1=(1, 40), pkg=(5, 410)),
    ),
    True: dict(  # hot: same machine, a later moment under load
        acpitz=84000, pkg=91000, sen1=48050, b0d4=90050,
        cores=(89000, 91000, 87000, 90000), nvme=(44850, 44850, 48850),
        cdev0=5, profile="low-power",
        bat=dict(status="Discharging", voltage_now=11050000, power_now=28500000,
                 energy_now=7780500, capacity=15, capacity_level="Normal"),
        throttle=dict(cpu0=(41, 5230), cpu1=(37, 4870), pkg=(58, 9120)),
    ),
}
BAT_FIXED = dict(type="Battery", present=1, technology="Li-ion", cycle_count=152,
                 voltage_min_design=11580000, energy_full_design=57000000, energy_full=51870000,
                 model_name="5B10W51867", manufacturer="SMP", serial_number="  412")
BAT_ORDER = ["type", "status", "present", "technology", "cycle_count", "voltage_min_design", "voltage_now",
             "power_now", "energy_full_design", "energy_full", "energy_now", "capacity", "capacity_level",
             "model_name", "manufacturer", "serial_number"]


def build_intel(name, hot):
    if not os.path.isfile(LAPTOP_GEN):
        print(f"skip {name}: {LAPTOP_GEN} not found (existing copy kept)")
        return
    v = INTEL[hot]
    t = fresh(name)
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([sys.executable, LAPTOP_GEN, os.path.join(tmp, "fx")], check=True,
                       stdout=subprocess.DEVNULL)
        src = os.path.join(tmp, "fx", "sys")
        for e in os.listdir(src):
            shutil.move(os.path.join(src, e), os.path.join(t.root, e))
    for dp, dns, fns in os.walk(t.root):  # generator writes 0444; make everything writable for edits
        for f in fns:
            p = os.path.join(dp, f)
            if not os.path.islink(p):
                os.chmod(p, 0o644)

    # Stubs so the generator's links resolve inside the fixture (on the bench they point into the real /sys).
    for b in ("acpi", "platform", "pci"):
        t.keep(f"bus/{b}")
    t.link("class/nvme/nvme0", NVMECTL)
    pci(t, B0D4PCI, "0x8086", "0x9a03", "0x118000", "proc_thermal_pci")
    t.link(f"{B0D4PCI}/subsystem", "bus/pci")
    for d in ("devices/pci0000:00/0000:00:1d.0", "devices/pci0000:00/0000:00:1d.0/0000:02:00.0"):
        t.w(f"{d}/power_state", "D0")

    # thermal zones
    t.w(f"{VT}/thermal_zone0/temp", v["acpitz"])
    t.w(f"{VT}/thermal_zone0/hwmon0/temp1_input", v["acpitz"])
    t.w(f"{VT}/thermal_zone1/temp", v["pkg"])
    t.attrs(f"{VT}/thermal_zone1", {  # x86_pkg_temp: one real programmable trip + one unset (0) trip
        "trip_point_0_type": "passive", "trip_point_0_temp": 90000, "trip_point_0_hyst": 2000,
        "trip_point_1_type": "passive", "trip_point_1_temp": 0, "trip_point_1_hyst": 0})
    t.w(f"{VT}/thermal_zone3/temp", v["sen1"])
    t.w(f"{VT}/thermal_zone5/temp", v["b0d4"])
    t.abslink(f"{VT}/thermal_zone4/temp", EIO)               # iwlwifi_1: radio off -> EIO
    t.abslink(f"{VT}/thermal_zone4/hwmon3/temp1_input", EIO)

    # cooling devices
    t.attrs(f"{VT}/cooling_device0", {"max_state": 10, "cur_state": v["cdev0"]})
    t.attrs(f"{VT}/cooling_device1", {"max_state": 10, "cur_state": 0})
    t.w(f"{VT}/cooling_device2/cur_state", 0)  # intel_powerclamp (real idle value would be -1; see broken)

    # coretemp + nvme
    t.w(f"{CORETEMP}/temp1_input", v["pkg"])
    for i, tc in enumerate(v["cores"]):
        t.w(f"{CORETEMP}/temp{i + 2}_input", tc)
    for i, tn in enumerate(v["nvme"]):
        t.w(f"{NVMECTL}/hwmon2/temp{i + 1}_input", tn)

    # battery
    props = dict(BAT_FIXED, **v["bat"])
    props = {k: props[k] for k in BAT_ORDER}
    t.attrs(BAT, props)
    t.w(f"{BAT}/uevent", uevent("BAT0", props))
    t.w(f"{BAT}/hwmon4/in0_input", props["voltage_now"] // 1000)

    # Intel throttle counters (package counters repeat on every CPU of the package)
    for cpu in ("cpu0", "cpu1"):
        d = f"devices/system/cpu/{cpu}/thermal_throttle"
        t.attrs(d, {"core_throttle_count": v["throttle"][cpu][0],
                    "core_throttle_total_time_ms": v["throttle"][cpu][1],
                    "package_throttle_count": v["throttle"]["pkg"][0],
                    "package_throttle_total_time_ms": v["throttle"]["pkg"][1]})

    # ACPI platform profile
    t.w("firmware/acpi/platform_profile", v["profile"])
    t.w("firmware/acpi/platform_profile_choices", "low-power balanced performance")

    t.readme(intel_readme(name, hot, v, props))


def intel_readme(name, hot, v, b):
    pct = 100 * b["energy_now"] / b["energy_full"]
    health = 100 * b["energy_full"] / b["energy_full_design"]
    secs = tte(b["energy_now"], b["power_now"])
    cores = ", ".join(f"Core {i} {c(x)}" for i, x in enumerate(v["cores"]))
    n = v["nvme"]
    th = v["throttle"]
    if hot:
        head = f"""
# {name}: the intel-laptop machine, hot and low on battery

The same fake Intel laptop as `intel-laptop` (same devices, same trips) at a later moment under load, on
battery at 15 % with the `low-power` platform profile. Built by `make-fixtures.py` from `intel-laptop`'s recipe
with other values. Throttle counters are higher than in `intel-laptop` (a reader diffing the two snapshots sees
throttling happen).
"""
        level = f"""
## Thermal state expectations
- `x86_pkg_temp` at **91.0 °C ≥ its passive trip 90.0 °C** -> that trip is crossed (throttling). With hyst 2.0 °C it
  counts as crossed until the temperature falls below 88.0 °C. The junk trip 1 (0) is still ignored.
- coretemp Package id 0 **91.0 °C** (high 100, crit 100: below both); hottest core 91.0.
- `Processor` cooling_device0 at **cur_state 5 of max_state 10**: ChromeOS ratio rule (processor fair 0.1 -> ≥1,
  serious 0.5 -> ≥5, critical 0.8 -> ≥8) gives **serious**; cooling_device1 (Processor) 0/10, powerclamp 0/100,
  TCC Offset 0/63.
- No critical or hot trip crossed anywhere (acpitz 84.0 < passive 95; B0D4 90.05 < passive 100; SEN1 48.05 < 65).
- Expected overall level: **serious** (passive trip crossed + Processor cooling at 50 %), not critical.

## Low power expectations
- platform_profile **`low-power`** -> low-power mode signalled.
- Battery **15 %** and Discharging -> battery-saver rule (< 20 %) applies.
"""
    else:
        head = f"""
# {name}: fake Intel laptop, nominal

A fake-but-realistic Intel laptop (ACPI thermal zone, x86_pkg_temp, DPTF INT3400/INT3403, B0D4 processor thermal,
iwlwifi, coretemp, Samsung NVMe, ACPI battery and AC). Generated by `make-fixtures.py`, which runs
`/work/shared/bench/make-fixture-laptop` and then edits the values (real x86_pkg_temp trips, EIO iwlwifi, throttle
counters, platform profile). `class/*/*` are relative symlinks into `devices/...`; `bus/{{acpi,platform,pci}}` are
empty stubs (`.gitkeep`) so the `subsystem` links resolve.
"""
        level = f"""
## Thermal state expectations
- Every temperature is below every real trip/limit; all cooling devices are at cur_state 0.
- Trap: x86_pkg_temp trip 1 is `passive` at **0** (unset programmable trip): ignore it; a reader that honours it
  thinks the package is throttling.
- Expected overall level: **nominal**.

## Low power expectations
- platform_profile **`balanced`** (choices `low-power balanced performance`) -> not low-power.
- Battery 70 % Discharging -> battery-saver rule (< 20 %) does not apply.
"""
    return head + f"""
## Thermal zones (`class/thermal/thermal_zoneN`)
| zone | type | temp °C | trips (type temp/hyst °C) | notes |
|---|---|---|---|---|
| 0 | `acpitz` | {c(v['acpitz'])} | critical 103.0/0, passive 95.0/0 | cdev0, cdev1 bound to trip 1 |
| 1 | `x86_pkg_temp` | {c(v['pkg'])} | passive 90.0/2.0, passive **0** (junk -> ignore) | no cooling devices bound |
| 2 | `INT3400 Thermal` | 20.0 | none | type contains a space; DPTF control zone, value not a real sensor |
| 3 | `SEN1` | {c(v['sen1'])} | critical 105.0/0, hot 100.0/0, passive 65.0/2.0 | INT3403 sensor |
| 4 | `iwlwifi_1` | **unreadable (EIO)** | 8 × passive -274.0 -> all invalid -> none | `temp` is a symlink to /proc/self/mem |
| 5 | `B0D4` | {c(v['b0d4'])} | critical 119.0/0, hot 110.0/0, passive 100.0/0 | `device` -> PCI 0000:00:04.0 |

Reading zone 4 must not crash or stall the reader: report it as unavailable (an error state), not 0 °C, and keep
all other readings.

## hwmon (`class/hwmon/hwmonN`)
| hwmon | name | channels |
|---|---|---|
| hwmon0 | `acpitz` | temp1 {c(v['acpitz'])} °C, crit 103.0 (duplicate of thermal_zone0) |
| hwmon1 | `coretemp` | Package id 0 **{c(v['pkg'])}** (max 100.0, crit 100.0); {cores} (each max 100.0, crit 100.0) |
| hwmon2 | `nvme` | Composite {c(n[0])} (max 81.85, crit 84.85, min -273150 -> none); Sensor 1 {c(n[1])}, Sensor 2 {c(n[2])} (max 65261850 / min -273150 sentinels -> none) |
| hwmon3 | `iwlwifi_1` | temp1 **unreadable (EIO)** (symlink to /proc/self/mem; duplicate of thermal_zone4) |
| hwmon4 | `BAT0` | in0_input {b['voltage_now'] // 1000} mV, no temperature channels |

## Cooling devices (`class/thermal/cooling_deviceN`)
| dev | type | cur/max |
|---|---|---|
| 0 | `Processor` | {v['cdev0']}/10 |
| 1 | `Processor` | 0/10 |
| 2 | `intel_powerclamp` | 0/100 |
| 3 | `TCC Offset` | 0/63 (`device` -> PCI 0000:00:04.0) |

## Power supplies
- BAT0 (`type` Battery, present 1, Li-ion, SMP 5B10W51867, serial `  412` with leading spaces, 152 cycles):
  status **{b['status']}**, capacity **{b['capacity']}** % (computed {pct:.2f} % = {b['energy_now']} / {b['energy_full']}),
  capacity_level {b['capacity_level']}.
- Energy {b['energy_now'] / 1e6:g} / {b['energy_full'] / 1e6:g} / {b['energy_full_design'] / 1e6:g} Wh: health
  **{health:.2f} %**. Power **{b['power_now'] / 1e6:g} W**, voltage {b['voltage_now'] / 1e6:g} V.
- Time to empty **{secs} s** ({hms(secs)}) = {b['energy_now']} / {b['power_now']} × 3600. No time to full.
- `uevent` agrees with the attribute files.
- AC (`AC`, Mains) online **0** -> on battery.

## Throttle counters (`devices/system/cpu/cpuN/thermal_throttle/`)
| cpu | core_throttle_count | core_throttle_total_time_ms | package_throttle_count | package_throttle_total_time_ms |
|---|---|---|---|---|
| cpu0 | {th['cpu0'][0]} | {th['cpu0'][1]} | {th['pkg'][0]} | {th['pkg'][1]} |
| cpu1 | {th['cpu1'][0]} | {th['cpu1'][1]} | {th['pkg'][0]} | {th['pkg'][1]} |

Package counters are per package: count them once ({th['pkg'][0]} events, {th['pkg'][1]} ms), not once per CPU.
Only cpu0 and cpu1 carry counters in this fixture.

## Platform profile
`firmware/acpi/platform_profile` = `{v['profile']}`; choices `low-power balanced performance`.
""" + level


# ----------------------------------------------------------------------------- amd-desktop

def build_amd_desktop():
    t = fresh("amd-desktop")
    root = "devices/pci0000:00"
    # k10temp (Data Fabric function 3)
    k10 = f"{root}/0000:00:18.3"
    pci(t, k10, "0x1022", "0x14e3", "0x060000", "k10temp")
    hwmon(t, 1, f"{k10}/hwmon/hwmon1", "k10temp", {
        "temp1_label": "Tctl", "temp1_input": 48250,
        "temp3_label": "Tccd1", "temp3_input": 45500,
        "temp4_label": "Tccd2", "temp4_input": 44750}, device=k10)
    # NVMe behind a GPP bridge
    nvpci = f"{root}/0000:00:01.2/0000:02:00.0"
    pci(t, nvpci, "0x144d", "0xa80c", "0x010802", "nvme")
    nvctl = f"{nvpci}/nvme/nvme0"
    t.attrs(nvctl, {"model": "Samsung SSD 990 PRO 2TB                 ", "state": "live", "transport": "pcie"})
    t.link(f"{nvctl}/device", nvpci)
    t.link("class/nvme/nvme0", nvctl)
    hwmon(t, 0, f"{nvctl}/hwmon0", "nvme", {
        "temp1_label": "Composite", "temp1_input": 36850, "temp1_max": 81850, "temp1_min": -273150,
        "temp1_crit": 84850, "temp1_alarm": 0}, device=nvctl)
    # discrete GPU, runtime-suspended (D3cold): its sensors must not be read
    dgpu = f"{root}/0000:00:01.1/0000:01:00.0"
    pci(t, dgpu, "0x1002", "0x73ff", "0x030000", "amdgpu", power_state="D3cold", runtime="suspended")
    hwmon(t, 2, f"{dgpu}/hwmon/hwmon2", "amdgpu", {
        "temp1_label": "edge", "temp1_input": 33000, "temp1_crit": 100000, "temp1_crit_hyst": -273150,
        "temp1_emergency": 105000,
        "temp2_label": "junction", "temp2_input": 34000, "temp2_crit": 110000, "temp2_crit_hyst": -273150,
        "temp2_emergency": 115000}, device=dgpu)
    # integrated GPU, awake
    igpu = f"{root}/0000:00:08.1/0000:10:00.0"
    pci(t, igpu, "0x1002", "0x164e", "0x030000", "amdgpu", power_state="D0", runtime="active")
    hwmon(t, 3, f"{igpu}/hwmon/hwmon3", "amdgpu", {
        "temp1_label": "edge", "temp1_input": 45000, "temp1_crit": 100000, "temp1_crit_hyst": -273150,
        "temp1_emergency": 105000}, device=igpu)
    t.keep("class/thermal")  # a desktop with no thermal zones and no cooling devices
    t.readme("""
# amd-desktop: AMD Ryzen desktop with a sleeping dGPU (built from scratch)

A Ryzen 7000-like desktop: k10temp with two CCDs, one NVMe SSD, an integrated Radeon (awake) and a discrete Radeon
RX 6600-class card that is runtime-suspended (`power_state` D3cold). Invented values, realistic layout; generated by
`make-fixtures.py`. `class/hwmon/hwmonN` are relative symlinks into `devices/pci0000:00/...`; each hwmon has a
`device` link to its PCI (or nvme) device.

A correct reader reports:

| hwmon | name | device | channels |
|---|---|---|---|
| hwmon0 | `nvme` | nvme0 (PCI 0000:02:00.0, D0) | Composite **36.85 °C** (max 81.85, crit 84.85, min -273150 -> none) |
| hwmon1 | `k10temp` | 0000:00:18.3 (D0) | Tctl **48.25 °C** (temp1), Tccd1 **45.5** (temp3), Tccd2 **44.75** (temp4); no temp2; no limits at all |
| hwmon2 | `amdgpu` | 0000:01:00.0, **D3cold**, runtime suspended | **asleep: do not read** `temp*_input` (reading wakes the GPU). Show it as sleeping/unavailable. If you see 33.0 (edge) or 34.0 (junction) you read it. |
| hwmon3 | `amdgpu` | 0000:10:00.0 (D0, iGPU) | edge **45.0 °C**, crit 100.0, crit_hyst -273150 -> none, emergency 105.0 |

- CPU temperature = Tctl 48.25 °C.
- Two chips share the name `amdgpu`: keep them apart (hwmon index / PCI address).
- `class/thermal` exists but is empty (it only holds `.gitkeep`, which a reader must ignore): no thermal zones,
  no cooling devices -> no trip or cooling-device based level; everything is far below its limits -> **nominal**.
- No `class/power_supply` at all: no battery; AC state **unknown** (a desktop: treat as mains-powered, never as
  "on battery").
- No `firmware/acpi/platform_profile`: profile none. No Intel throttle counters (AMD).
""")


# ----------------------------------------------------------------------------- arm-board

def build_arm_board():
    t = fresh("arm-board")
    cooling(t, 0, "thermal-cpufreq-0", 0, 4)
    cooling(t, 1, "pwm-fan", 1, 3)
    zone(t, 0, "cpu-thermal", 52582, [("passive", 75000, 2000), ("critical", 90000, 0)],
         cdevs=[(0, 0), (1, 0)])
    zone(t, 1, "gpu-thermal", 49843, [("passive", 80000, 2000), ("critical", 95000, 0)])
    # the thermal framework's hwmon copies (name = zone type with '-' -> '_')
    hwmon(t, 0, f"{VT}/thermal_zone0/hwmon0", "cpu_thermal", {"temp1_input": 52582, "temp1_crit": 90000},
          device=f"{VT}/thermal_zone0")
    hwmon(t, 1, f"{VT}/thermal_zone1/hwmon1", "gpu_thermal", {"temp1_input": 49843, "temp1_crit": 95000},
          device=f"{VT}/thermal_zone1")
    # pwm-fan's own hwmon: a PWM duty, no temperature channel (cooling-levels 0 85 170 255, state 1 -> 85)
    fan = "devices/platform/pwm-fan"
    t.w(f"{fan}/uevent", "DRIVER=pwm-fan\nOF_NAME=pwm-fan\nOF_COMPATIBLE_0=pwm-fan\nMODALIAS=of:Npwm-fanT(null)Cpwm-fan")
    hwmon(t, 2, f"{fan}/hwmon/hwmon2", "pwmfan", {"pwm1": 85}, device=fan)
    t.readme("""
# arm-board: Raspberry Pi 4 / RK3399-like single-board computer (built from scratch)

An ARM SBC with device-tree thermal zones (`cpu-thermal`, `gpu-thermal`), a cpufreq cooling device and a PWM fan.
No battery, no ACPI. Invented values, realistic layout; generated by `make-fixtures.py`.
Temperatures are deliberately not whole degrees (52582 m°C): a reader must not integer-divide.

A correct reader reports:

| zone | type | temp °C | trips (type temp/hyst °C) | bound cooling |
|---|---|---|---|---|
| thermal_zone0 | `cpu-thermal` | **52.582** | passive 75.0/2.0, critical 90.0/0 | cdev0 (cpufreq) trip 0, cdev1 (fan) trip 0 |
| thermal_zone1 | `gpu-thermal` | **49.843** | passive 80.0/2.0, critical 95.0/0 | none |

Both zones: mode enabled, policy step_wise.

| cooling device | type | cur/max | ChromeOS-ratio level |
|---|---|---|---|
| cooling_device0 | `thermal-cpufreq-0` | 0/4 | nominal |
| cooling_device1 | `pwm-fan` | 1/3 | nominal (fan fair needs ≥ ceil(3 × 0.5) = 2) |

hwmon:
- hwmon0 `cpu_thermal` temp1 52.582 (crit 90.0) and hwmon1 `gpu_thermal` temp1 49.843 (crit 95.0) are the thermal
  framework's copies of the two zones (hwmon name = zone type with `-` replaced by `_`; `device` links to the
  zone). The same sensor must not be counted or listed twice.
- hwmon2 `pwmfan`: only `pwm1` = 85 (of 255), no temperature channels (must not confuse the reader).

Expected overall thermal level: **nominal** (no trip crossed; fan at 1/3).
No `class/power_supply` directory at all: no battery, AC **unknown**. No `firmware/` (no platform_profile).
No Intel throttle counters.
""")


# ----------------------------------------------------------------------------- two-battery-laptop

def build_two_battery():
    t = fresh("two-battery-laptop")
    ec = "devices/LNXSYSTM:00/LNXSYBUS:00/PNP0A08:00/device:00/PNP0C09:00"
    bats = {
        "BAT0": dict(dev=f"{ec}/PNP0C0A:00", p=dict(
            type="Battery", status="Discharging", present=1, technology="Li-ion", cycle_count=212,
            voltage_min_design=11400000, voltage_now=12180000, current_now=412000,
            charge_full_design=2100000, charge_full=1932000, charge_now=1449000, capacity=75,
            capacity_level="Normal", model_name="01AV421", manufacturer="SMP", serial_number=" 2117")),
        "BAT1": dict(dev=f"{ec}/PNP0C0A:01", p=dict(
            type="Battery", status="Discharging", present=1, technology="Li-ion", cycle_count=87,
            voltage_min_design=11250000, voltage_now=11520000, current_now=980000,
            charge_full_design=6400000, charge_full=5830000, charge_now=3498000, capacity=60,
            capacity_level="Normal", model_name="01AV424", manufacturer="LGC", serial_number=" 7905")),
    }
    for name, b in bats.items():
        supply(t, b["dev"], name, b["p"], extra={"alarm": 0})
    supply(t, f"{ec}/PNP0C0A:02", "BAT2", dict(type="Battery", present=0))
    supply(t, "devices/LNXSYSTM:00/LNXSYBUS:00/ACPI0003:00", "AC", dict(type="Mains", online=0))
    mouse = ("devices/pci0000:00/0000:00:14.0/usb1/1-2/1-2:1.2/0003:046D:C52B.0003/0003:046D:4082.0004")
    supply(t, mouse, "hidpp_battery_0", dict(
        type="Battery", online=1, status="Discharging", scope="Device", model_name="MX Master 3",
        manufacturer="Logitech", serial_number="4082-7f-3c-2a-91", capacity_level="Normal"))
    therm = "devices/LNXSYSTM:00/LNXSYBUS:01/LNXTHERM:00"
    t.w(f"{therm}/path", "\\_TZ_.THM0")
    zone(t, 0, "acpitz", 45000, [("critical", 128000, 0)], device=therm)
    hwmon(t, 0, f"{VT}/thermal_zone0/hwmon0", "acpitz", {"temp1_input": 45000, "temp1_crit": 128000},
          device=f"{VT}/thermal_zone0")

    # expected numbers
    rows, tot = [], dict(now_vn=0, full_vn=0, now_vd=0, full_vd=0, w=0, rate_vd=0, ch_now=0, ch_full=0)
    for name, b in bats.items():
        p = b["p"]
        w = p["current_now"] * p["voltage_now"] / 1e12
        s = tte(p["charge_now"], p["current_now"])
        rows.append(f"| {name} | {p['model_name']} ({p['manufacturer']}) | {p['status']} | **{p['capacity']}** "
                    f"({100 * p['charge_now'] / p['charge_full']:.2f}) | "
                    f"{p['charge_now'] / 1e6:g} / {p['charge_full'] / 1e6:g} / {p['charge_full_design'] / 1e6:g} Ah | "
                    f"**{100 * p['charge_full'] / p['charge_full_design']:.2f} %** | "
                    f"**{w:.3f} W** ({p['current_now'] / 1e6:g} A × {p['voltage_now'] / 1e6:g} V) | "
                    f"**{s} s** ({hms(s)}) | "
                    f"{p['charge_full_design'] * p['voltage_min_design'] / 1e12:.2f} Wh |")
        vn, vd = p["voltage_now"] / 1e6, p["voltage_min_design"] / 1e6
        tot["now_vn"] += p["charge_now"] / 1e6 * vn
        tot["full_vn"] += p["charge_full"] / 1e6 * vn
        tot["now_vd"] += p["charge_now"] / 1e6 * vd
        tot["full_vd"] += p["charge_full"] / 1e6 * vd
        tot["w"] += w
        tot["rate_vd"] += p["current_now"] / 1e6 * vd
        tot["ch_now"] += p["charge_now"]
        tot["ch_full"] += p["charge_full"]
    pct_vn = 100 * tot["now_vn"] / tot["full_vn"]
    pct_vd = 100 * tot["now_vd"] / tot["full_vd"]
    pct_ch = 100 * tot["ch_now"] / tot["ch_full"]
    secs_vn = int(tot["now_vn"] / tot["w"] * 3600)
    secs_vd = int(tot["now_vd"] / tot["rate_vd"] * 3600)
    t.readme(f"""
# two-battery-laptop: ThinkPad T480-like with internal + external battery (built from scratch)

A ThinkPad T480-like laptop with two ACPI batteries (BAT0 internal ~24 Wh, BAT1 external ~72 Wh) that report
**charge** (µAh) and **current** (µA) only: there is NO `energy_*` and NO `power_now` file. Also an empty battery
bay (`BAT2`, present 0) and a Logitech MX Master 3 mouse battery (`hidpp_battery_0`). Invented values, realistic
layout; generated by `make-fixtures.py`. (A real T480 reports energy_*; the charge variant is here on purpose.)

## System batteries (BAT0 + BAT1)
| supply | model | status | capacity % (computed) | charge now / full / design | health | power | time to empty | design energy |
|---|---|---|---|---|---|---|---|---|
{chr(10).join(rows)}

- Power W = |current_now| × voltage_now / 1e12. Time to empty = charge_now / |current_now| × 3600 (voltage
  cancels). `current_now` is positive while Discharging (ACPI convention): use its absolute value.
- Combined (both batteries together), depending on how charge is turned into energy:
  - with `voltage_now`: {tot['now_vn']:.3f} Wh of {tot['full_vn']:.3f} Wh = **{pct_vn:.2f} %**, total power
    **{tot['w']:.3f} W**, time to empty **{secs_vn} s** ({hms(secs_vn)});
  - with `voltage_min_design` (upower style): {tot['now_vd']:.3f} of {tot['full_vd']:.3f} Wh = {pct_vd:.2f} %,
    rate {tot['rate_vd']:.3f} W, time to empty {secs_vd} s ({hms(secs_vd)});
  - summing µAh directly (ignores the different voltages): {pct_ch:.2f} %.
  Any of these is defensible; averaging the two `capacity` values ((75 + 60) / 2 = 67.5) is NOT: the batteries
  differ in size.
- Battery-saver rule (< 20 %): does not apply.

## Not system batteries
- `hidpp_battery_0`: type Battery but `scope` **Device** (a peripheral: Logitech "MX Master 3", capacity_level
  Normal, status Discharging, online 1, no `capacity` file). Must never be taken for (or combined into) the system
  battery; may be listed as a device battery.
- `BAT2`: type Battery, `present` **0** (empty bay, only `type`/`present`/`uevent`): not a battery to report.

## AC and the rest
- `AC` (Mains) online **0** -> on battery.
- thermal_zone0 `acpitz` **45.0 °C**, one trip: critical 128.0 (hyst 0); no passive trip, no cooling devices.
  hwmon0 `acpitz` temp1 45.0 (crit 128.0) is the same sensor (dedupe). Thermal level **nominal**.
- No platform_profile, no throttle counters.
""")


# ----------------------------------------------------------------------------- broken

def build_broken():
    t = fresh("broken")
    zone(t, 0, "empty-temp", None, [])
    t.w(f"{VT}/thermal_zone0/temp", b"")                      # 0 bytes
    zone(t, 1, "garbage-temp", "abc", [])
    zone(t, 2, "huge-temp", 999999999, [])
    zone(t, 3, "negative-temp", -40000000, [])
    zone(t, 4, "dir-temp", None, [])
    t.keep(f"{VT}/thermal_zone4/temp")                        # temp is a directory -> EISDIR
    zone(t, 5, "eio-temp", None, [])
    t.abslink(f"{VT}/thermal_zone5/temp", EIO)                # read -> EIO
    zone(t, 6, "junk-trips", 45000, [
        ("passive", 0, 0), ("critical", -273150, 0), ("passive", -274000, 0),
        ("hot", None, None), ("critical", 200000000, 0)])
    zone(t, 7, b"evil\x1b[2Jzone\x07\n", 40000, [])
    zone(t, 8, "no-temp", None, [("critical", 100000, 0)])    # no temp file at all
    os.makedirs(t.path("class/thermal"), exist_ok=True)
    os.symlink("../../devices/virtual/thermal/thermal_zone9", t.path("class/thermal/thermal_zone9"))  # vanished
    cooling(t, 0, "Processor", "garbage", 0)
    cooling(t, 1, "intel_powerclamp", -1, 100)
    chip = "devices/platform/brokenchip.0"
    hwmon(t, 0, f"{chip}/hwmon/hwmon0", "brokenchip", {
        "temp1_input": "", "temp2_input": "12.5abc", "temp3_input": 41000, "temp3_label": "ok"}, device=chip)
    t.w(f"{chip}/hwmon/hwmon0/temp2_label", b"CPU\tcore\xff\xfe\n")
    hwmon(t, 1, "devices/virtual/hwmon/hwmon1", None, {"temp1_input": 35000})  # no `name` file
    lnx = "devices/LNXSYSTM:00/LNXSYBUS:00"
    bat0 = dict(type="Battery", status="Discharging", present=1, technology="Li-ion",
                voltage_now=12000000, power_now=0, energy_full_design=57000000, energy_full=50000000,
                energy_now=60000000, capacity=250)
    supply(t, f"{lnx}/PNP0C0A:00", "BAT0", bat0)
    supply(t, f"{lnx}/PNP0C0A:01", "BAT1", dict(type="Battery", present=0, status="Not charging", capacity=100))
    ac = f"{lnx}/ACPI0003:00/power_supply/AC"
    supply(t, f"{lnx}/ACPI0003:00", "AC", dict(type="Mains", online="maybe"))
    t.w(f"{ac}/uevent", "POWER_SUPPLY_NAME=AC\nPOWER_SUPPLY_TYPE=Mains\nPOWER_SUPPLY_ONLINE=maybe\nGARBAGE LINE WITHOUT EQUALS")
    t.w("firmware/acpi/platform_profile", b"")
    t.w("firmware/acpi/platform_profile_choices", "low-power balanced performance")
    t.readme(r"""
# broken: robustness fixture (built from scratch)

Not a real machine: a tree of malformed, unreadable and hostile sysfs files. The reader must never crash, hang,
print raw control bytes, or invent numbers. Generated by `make-fixtures.py`.

Note for git/tools: `devices/virtual/thermal/thermal_zone5/temp` is a symlink to `/proc/self/mem` (open works,
read at offset 0 fails with EIO, even as root); `class/thermal/thermal_zone9` dangles on purpose;
`thermal_zone4/temp` is a directory (it holds `.gitkeep`).

## Thermal zones
| entry | file oddity | expected |
|---|---|---|
| thermal_zone0 `empty-temp` | `temp` is 0 bytes | temperature unknown |
| thermal_zone1 `garbage-temp` | `temp` = `abc` | unknown |
| thermal_zone2 `huge-temp` | `temp` = `999999999` (999999.999 °C) | implausible -> unknown |
| thermal_zone3 `negative-temp` | `temp` = `-40000000` (-40000 °C) | implausible -> unknown |
| thermal_zone4 `dir-temp` | `temp` is a directory (EISDIR) | unknown |
| thermal_zone5 `eio-temp` | `temp` -> /proc/self/mem (EIO) | unknown / read error |
| thermal_zone6 `junk-trips` | temp 45000; trips: 0 passive `0`, 1 critical `-273150`, 2 passive `-274000`, 3 `hot` with a type but NO `trip_point_3_temp`/`_hyst`, 4 critical `200000000` | **45.0 °C**, **no valid trips** (0, ≤ -273150 and 200000 °C are junk; trip 3 has no temperature) -> level nominal |
| thermal_zone7 | `type` bytes `evil ESC[2J zone BEL \n` | 40.0 °C; the name must be sanitised before display (no ESC, no BEL; e.g. `evil?[2Jzone?` or `evil[2Jzone`) |
| thermal_zone8 `no-temp` | no `temp` file; critical trip 100000 | unknown temperature; trip alone must not raise the level |
| thermal_zone9 | class symlink to a device dir that does not exist (vanished) | skipped, or listed as gone; no crash |

Only thermal_zone6 (45.0) and thermal_zone7 (40.0) have a usable temperature.

## Cooling devices
| entry | type | cur/max | expected |
|---|---|---|---|
| cooling_device0 | `Processor` | `garbage` / `0` | state unknown; max 0 must not cause a division by zero; contributes nothing |
| cooling_device1 | `intel_powerclamp` | `-1` / 100 | -1 is what the real driver prints when idle injection is off -> inactive (treat as 0 / unknown) |

Overall thermal level: **nominal** (nothing valid is hot).

## hwmon
- hwmon0 `brokenchip`: temp1_input = `\n` -> unknown; temp2_input = `12.5abc` -> unknown (not 12.5, not 0.0125);
  temp2_label = bytes `CPU<TAB>core<0xFF><0xFE>` (not UTF-8) -> show a sanitised label (tab -> space or `?`,
  invalid bytes replaced), never crash on decoding; temp3 `ok` = **41.0 °C** (the chip still reports it).
- hwmon1: no `name` file (the only mandatory attribute); temp1_input 35000 -> either skipped or shown as
  **35.0 °C** under a fallback name such as `hwmon1`; no crash.

## Power supplies
- BAT0 (Battery, present 1, Discharging): `power_now` **0** -> power 0 W / unknown and time to empty **unknown**
  (not infinite, not a huge number, no division by zero). `energy_now` 60 Wh > `energy_full` 50 Wh (design 57 Wh),
  `capacity` **250** -> never show 250 % or 120 %: clamp to 100 % or report unknown. Health 50/57 = 87.72 %.
- BAT1 (Battery, `present` **0**, status `Not charging`, capacity 100): absent -> not a battery to report, and its
  100 % must not leak into a combined percentage.
- AC (Mains) `online` = `maybe` -> AC state **unknown** (not true, not false). Its uevent also has a line without
  `=` (`GARBAGE LINE WITHOUT EQUALS`) that a uevent parser must skip.

## Platform profile
`firmware/acpi/platform_profile` is 0 bytes -> profile unknown/none (no low-power signal); choices
`low-power balanced performance`.
""")


# ----------------------------------------------------------------------------- top README + checks

TOP_README = """
# sysfs fixtures for ThermtopLinuxTests

Each folder plays the role of `/sys` (it directly contains `class/`, `devices/`, `firmware/` as needed) and has a
`README.md` with what a correct reader must report. Values are in kernel units (m°C, µV, µA, µAh, µWh, µW) with a
trailing newline. Real captures are copied verbatim from `/work/shared/real-sysfs/` (their `SOURCE.md` gives the
origin); the others are generated by `make-fixtures.py` (regenerate with `python3 make-fixtures.py`, check with
`python3 make-fixtures.py --check`). This folder is excluded from the test target in `Package.swift`; tests locate
it relative to `#filePath`.

| fixture | origin | machine | key expectations |
|---|---|---|---|
| `thinkpad-lgc-45n1-2018-procfs` | real (prometheus/procfs) | ThinkPad, LGC 45N1 battery | BAT0 Discharging 98 %, 4.83 W, 36857 s, health 105.35 %, AC off; uevent disagrees (use files) |
| `thinkpad-lgc-45n1-2019-node-exporter` | real (node_exporter) | same battery a year later | 81 %, 5.002 W, 26327 s, health 94.84 %, AC off |
| `legion-go-s-couchside` | real (couchside) | Legion Go S handheld | 58 %, 22.543 W, 5166 s, health 100 %; ACAD + USB offline -> on battery; profile `custom` |
| `lenovo-lnv-5b11c73244-batterarch` | real (batterarch) | Lenovo laptop | 29 %, 8.014 W, 7730 s, health 101.81 %; AC unknown |
| `amd-ryzen-2x-nvme-telegraf` | real (telegraf) | Ryzen desktop, 2 NVMe | Tctl 31.875, Tccd1 30.75; nvme Composite 32.85 / 35.85 (max 81.85, crit 84.85); 65261850 & -273150 sentinels -> none |
| `amdgpu-rx5500xt-lact` | real (LACT) | RX 5500 XT | edge 48.0 (crit 110, emerg 115), junction 48.0, mem 0 -> unavailable; crit_hyst sentinel -> none |
| `amdgpu-vangogh-steamdeck-lact` | real (LACT) | Steam Deck APU | edge 56.0, no limits |
| `radeon-hd7870-lact` | real (LACT) | HD 7870 (radeon) | temp1 (no label) 27.0, crit 120.0, crit_hyst 90.0 (absolute) |
| `intel-laptop` | generated (make-fixture-laptop + edits) | Intel laptop, nominal | acpitz 47.0, x86_pkg_temp 53.0 (passive 90/hyst 2, junk 0 trip), coretemp pkg 53.0, iwlwifi EIO; BAT0 70 % 8.45 W 15468 s health 91.0 %; AC off; profile balanced; throttle counters; level nominal |
| `intel-laptop-hot` | generated | same laptop, hot, 15 % | x86_pkg_temp 91.0 ≥ 90 passive; coretemp pkg 91.0; Processor cdev 5/10; BAT0 15 % 28.5 W 982 s; profile low-power; level serious; battery saver |
| `amd-desktop` | generated | Ryzen desktop, dGPU asleep | Tctl 48.25, Tccd1 45.5, Tccd2 44.75; nvme 36.85; dGPU D3cold -> not read; iGPU edge 45.0 (crit 100, emerg 105); no zones, no supplies |
| `arm-board` | generated | RPi 4 / RK3399-like SBC | cpu-thermal 52.582 (passive 75/2, crit 90), gpu-thermal 49.843 (passive 80, crit 95); hwmon copies cpu_thermal/gpu_thermal; cpufreq 0/4, pwm-fan 1/3; no battery |
| `two-battery-laptop` | generated | ThinkPad T480-like | BAT0 75 % + BAT1 60 % (charge/current only); combined 63.89 % (via voltage_now), 16.308 W, 12791 s; mouse (scope Device) and BAT2 (present 0) excluded; AC off; acpitz 45.0 crit 128 |
| `broken` | generated | robustness | empty/garbage/huge/negative/dir/EIO temps, dangling zone, junk trips, escape-sequence type, bad cooling/hwmon/battery/AC/profile values |
| `untyped-supplies` | generated | laptop, supplies without `type` | BAT0 typed from uevent, BAT1 from its files (charge + current, no voltage: 7200 s to empty), ADP1 from `online`; `inferred-type` issues; ThinkPad fan 0 RPM + PWM 0 -> stopped |
| `sbc-axp-peripherals` | generated | ARM board + peripherals | AXP design 5000 (mAh) and 3300 (mV) -> implausible, no health; HID++ keyboard (status + level only) and a gamepad as peripherals |
| `fans-desktop` | generated | Super I/O desktop | nct6798 fans: spinning/stopped/no reading, PWM %, manual vs auto; fan5 auto at 50 % -> fair; k10temp Tdie headline |
| `gpu-disk-workstation` | generated | GPUs and disks | amdgpu edge/junction/mem + PPT W + fan, nouveau, xe, NVIDIA proprietary (nothing), NVMe awake/asleep (D3cold), drivetemp awake/spun down (runtime suspended) |
| `rapl-laptop` | generated | Intel laptop, power and clocks, cool | RAPL package-0/core/uncore/psys (mmio package-0 counted once), package limits 28/64/121 W; cpufreq 4.6 of 4.7 GHz; Processor 0/10; throttling no |
| `rapl-laptop-throttled` | generated | the same laptop, hot | clocks 2.1 of 4.7 GHz, Processor 5/10, throttle counters raised by tests; throttling yes (thermal) |

Deliberate oddities the checker allows: the 0-byte files and `.gitkeep` files, `/proc/self/mem` symlinks
(`intel-laptop*` iwlwifi zone and hwmon3 `temp1_input`, `broken` thermal_zone5 `temp`), and the dangling
`broken/class/thermal/thermal_zone9`.
"""


def fix_modes():
    for name in os.listdir(HERE):
        root = os.path.join(HERE, name)
        if not os.path.isdir(root) or os.path.islink(root):
            continue
        os.chmod(root, 0o755)
        for dp, dns, fns in os.walk(root):
            for d in dns:
                p = os.path.join(dp, d)
                if not os.path.islink(p):
                    os.chmod(p, 0o755)
            for f in fns:
                p = os.path.join(dp, f)
                if not os.path.islink(p):
                    os.chmod(p, 0o644)


def check():
    bad = 0
    for name in sorted(os.listdir(HERE)):
        root = os.path.join(HERE, name)
        if not os.path.isdir(root):
            continue
        for dp, dns, fns in os.walk(root):
            for e in dns + fns:
                p = os.path.join(dp, e)
                rel = os.path.relpath(p, HERE)
                if os.path.islink(p):
                    tgt = os.readlink(p)
                    if tgt == EIO:
                        continue
                    if tgt.startswith("/"):
                        print(f"ABSOLUTE LINK {rel} -> {tgt}")
                        bad += 1
                    elif not os.path.exists(p) and rel not in DANGLING_OK:
                        print(f"DANGLING {rel} -> {tgt}")
                        bad += 1
                    elif os.path.exists(p) and not os.path.realpath(p).startswith(os.path.realpath(root) + os.sep):
                        print(f"ESCAPES FIXTURE {rel} -> {tgt}")
                        bad += 1
                    continue
                if e in dns:
                    continue
                with open(p, "rb") as fh:
                    data = fh.read()
                if e == ".gitkeep" or rel in EMPTY_OK:
                    continue
                if not data.endswith(b"\n"):
                    print(f"NO TRAILING NEWLINE {rel} ({len(data)} bytes)")
                    bad += 1
    print("check:", "OK" if bad == 0 else f"{bad} problem(s)")
    return bad == 0



# ----------------------------------------------------------------------------- issue 8 fixtures

def supply_untyped(t, dev_dir, name, files, uevent_props, devtype=True):
    """A power_supply without a `type` file; its uevent holds `uevent_props` (TYPE or not)."""
    d = f"{dev_dir}/power_supply/{name}"
    t.attrs(d, files)
    t.w(f"{d}/uevent", uevent(name, uevent_props, devtype=devtype))
    t.link(f"{d}/device", dev_dir)
    t.link(f"class/power_supply/{name}", d)
    return d


def build_untyped_supplies():
    t = fresh("untyped-supplies")
    ec = "devices/LNXSYSTM:00/LNXSYBUS:00/PNP0A08:00/device:00/PNP0C09:00"
    # BAT0: no `type` file, but POWER_SUPPLY_TYPE in uevent (printed twice, as newer kernels do).
    bat0 = dict(status="Discharging", present=1, technology="Li-poly", capacity=62, capacity_level="Normal",
                energy_now=31000000, energy_full=50000000, energy_full_design=57000000, power_now=7750000,
                voltage_now=11800000, voltage_min_design=11520000, model_name="5B10W13975", manufacturer="SMP")
    ue0 = dict(bat0)
    d0 = supply_untyped(t, f"{ec}/PNP0C0A:00", "BAT0", bat0, {})
    t.w(f"{d0}/uevent", "DEVTYPE=power_supply\nPOWER_SUPPLY_NAME=BAT0\nPOWER_SUPPLY_TYPE=Battery\n"
        + "\n".join(f"POWER_SUPPLY_{k.upper()}={v}" for k, v in ue0.items()) + "\nPOWER_SUPPLY_TYPE=Battery")
    # BAT1: no `type`, no TYPE in uevent; a charge gauge with current but NO voltage at all.
    bat1 = dict(status="Discharging", present=1, capacity=40, charge_now=1600000, charge_full=4000000,
                charge_full_design=4400000, current_now=800000, model_name="01AV424", manufacturer="LGC")
    supply_untyped(t, f"{ec}/PNP0C0A:01", "BAT1", bat1, {k: v for k, v in bat1.items()})
    # ADP1: no `type`, no TYPE in uevent, only `online`: a mains adapter.
    supply_untyped(t, "devices/LNXSYSTM:00/LNXSYBUS:00/ACPI0003:00", "ADP1", dict(online=0), dict(online=0))
    # ThinkPad EC fan, stopped at low temperature: fan1_input 0 with pwm1 0 under automatic control.
    tp = "devices/platform/thinkpad_hwmon"
    hwmon(t, 3, f"{tp}/hwmon/hwmon3", "thinkpad", {
        "fan1_input": 0, "pwm1": 0, "pwm1_enable": 2, "temp1_input": 41000}, device=tp)
    t.w(f"{tp}/power/runtime_status", "unsupported")
    t.readme(f"""
# untyped-supplies: power supplies without a `type` file (built from scratch)

Captured trees and odd drivers can lack `type`; a reader must still find the battery and the adapter. Laid out as
the ACPI battery driver does (class links into `devices/LNXSYSTM:00/...`), values in kernel units. Generated by
`make-fixtures.py`.

| supply | how its type is known | expected |
|---|---|---|
| BAT0 | `uevent` POWER_SUPPLY_TYPE=Battery (twice, after DEVTYPE) | Battery, issue `inferred-type`; Discharging **62 %**, 7.75 W, time to empty 31/7.75 h = **14400 s**; health 50/57 = **87.72 %** |
| BAT1 | no TYPE anywhere; has `charge_*`/`capacity` | Battery, issue `inferred-type`; Discharging **40 %**; no voltage at all: watts unknown, but time to empty = charge_now / current_now = 1.6/0.8 h = **7200 s**; health 4.0/4.4 = **90.91 %** |
| ADP1 | no TYPE; only `online` | Mains, issue `inferred-type`; online **0** -> on battery |

- `thinkpad` hwmon: fan1 **0 RPM with pwm1 0** under automatic control (`pwm1_enable` 2) -> **stopped** (not "no
  reading"); temp1 41.0 °C.
""")


def build_sbc_peripherals():
    t = fresh("sbc-axp-peripherals")
    i2c = "devices/platform/soc/1c2ac00.i2c/i2c-0/0-0034"
    # Legacy sunxi AXP driver: design in mAh and mV against the ABI (µWh, µV).
    bat = f"{i2c}/axp20x-battery-power-supply"
    supply(t, bat, "axp20x-battery", dict(
        type="Battery", status="Discharging", present=1, online=1, capacity=80, technology="Li-ion",
        energy_now=14800000, energy_full=18500000, energy_full_design=5000,
        voltage_now=3900000, voltage_min_design=3300, current_now=500000))
    supply(t, f"{i2c}/axp20x-ac-power-supply", "axp20x-ac", dict(type="Mains", online=0, present=1))
    supply(t, f"{i2c}/axp20x-usb-power-supply", "axp20x-usb", dict(type="USB", online=0, present=1))
    # Peripherals: a Logitech HID++ keyboard (status + capacity_level only) and a Bluetooth gamepad.
    kb = "devices/platform/soc/1c1b000.usb/usb3/3-1/3-1:1.2/0003:046D:C52B.0003/0003:046D:408A.0004"
    supply(t, kb, "hidpp_battery_1", dict(
        type="Battery", online=1, status="Discharging", scope="Device", model_name="MX Keys",
        manufacturer="Logitech", capacity_level="Normal"))
    pad = "devices/platform/soc/1c1b000.usb/usb3/3-2/3-2:1.0/bluetooth/hci0/hci0:256/0005:054C:0CE6.0005"
    supply(t, pad, "ps-controller-battery-a0:ab:51:12:34:56", dict(
        type="Battery", status="Discharging", scope="Device", capacity=60, present=1))
    cpu = "devices/virtual/thermal/thermal_zone0"
    zone(t, 0, "cpu-thermal", 47500, [("passive", 75000, 2000), ("critical", 90000, 0)])
    t.readme("""
# sbc-axp-peripherals: an ARM board with a misreporting AXP battery, and two peripherals (built from scratch)

| supply | expected |
|---|---|
| axp20x-battery | Battery 80 %, Discharging; `energy_full_design` 5000 is 3700x below `energy_full` 18.5 Wh (mAh, not µWh) -> **implausible**, not shown, no health; `voltage_min_design` 3300 µV < 1 V (mV) -> **implausible**; power = 0.5 A x 3.9 V = 1.95 W; time to empty 14.8/1.95 h = **27323 s** |
| axp20x-ac, axp20x-usb | adapters, offline |
| hidpp_battery_1 | peripheral (scope Device): **Discharging, level Normal**, no capacity |
| ps-controller-battery-… | peripheral: Discharging, 60 % |

- cpu-thermal zone (no device link): headline CPU, 47.5 °C.
""")


def build_fans_desktop():
    t = fresh("fans-desktop")
    root = "devices/pci0000:00"
    k10 = f"{root}/0000:00:18.3"
    pci(t, k10, "0x1022", "0x1453", "0x060000", "k10temp")
    hwmon(t, 1, f"{k10}/hwmon/hwmon1", "k10temp", {
        "temp1_label": "Tctl", "temp1_input": 61500, "temp2_label": "Tdie", "temp2_input": 51500,
        "temp3_label": "Tccd1", "temp3_input": 49250}, device=k10)
    sio = "devices/platform/nct6775.656"
    hwmon(t, 2, f"{sio}/hwmon/hwmon2", "nct6798", {
        "temp1_label": "SYSTIN", "temp1_input": 34000, "temp1_max": 80000, "temp1_max_hyst": 75000,
        "fan1_input": 1180, "fan1_min": 300, "pwm1": 102, "pwm1_enable": 5,   # CPU fan, SmartFan IV (auto)
        "fan2_input": 0, "pwm2": 0, "pwm2_enable": 1,                        # manual, stopped on purpose
        "fan3_input": 0,                                                      # 0 RPM, no PWM: no reading
        "fan4_input": 850, "pwm4": 77, "pwm4_enable": 2,                     # case fan, auto
        "pwm5": 128, "pwm5_enable": 2,                                        # PWM header without tach
        "in0_input": 1032, "in0_label": "Vcore"}, device=sio)
    t.keep("class/thermal")
    t.readme("""
# fans-desktop: a desktop with a Super I/O chip driving five fan headers (built from scratch)

nct6798 (`devices/platform/nct6775.656`), values as Documentation/hwmon/sysfs-interface.rst gives them (RPM, PWM
0-255, `pwmN_enable` 0 = full speed, 1 = manual, 2+ = automatic).

| fan | files | expected |
|---|---|---|
| fan1 | 1180 RPM, pwm1 102, enable 5 | spinning, PWM 40.0 %, auto |
| fan2 | 0 RPM, pwm2 0, enable 1 | **stopped** (PWM 0), manual: never counts toward the state |
| fan3 | 0 RPM, no PWM | **no reading** (0 RPM with nothing saying it should stop) |
| fan4 | 850 RPM, pwm4 77, enable 2 | spinning, 30.2 %, auto |
| fan5 | no tachometer, pwm5 128, enable 2 | no reading (RPM), PWM 50.2 %, auto -> **fair** by the fan ratio (≥ 50 %) |

- k10temp: **Tdie** 51.5 °C is the headline CPU (Tctl 61.5 carries a +10 °C offset), Tccd1 folds under it.
- Device state: **fair**, decided by fan5 (auto at 50.2 %).
""")


def build_gpu_disk():
    t = fresh("gpu-disk-workstation")
    root = "devices/pci0000:00"
    k10 = f"{root}/0000:00:18.3"
    pci(t, k10, "0x1022", "0x14e3", "0x060000", "k10temp")
    hwmon(t, 0, f"{k10}/hwmon/hwmon0", "k10temp", {"temp1_label": "Tctl", "temp1_input": 55125}, device=k10)
    # amdgpu dGPU, awake: edge/junction/mem with crit/emergency, PPT power, its fan.
    amd = f"{root}/0000:00:01.1/0000:03:00.0"
    pci(t, amd, "0x1002", "0x73bf", "0x030000", "amdgpu", power_state="D0", runtime="active")
    hwmon(t, 1, f"{amd}/hwmon/hwmon1", "amdgpu", {
        "temp1_label": "edge", "temp1_input": 62000, "temp1_crit": 100000, "temp1_crit_hyst": -273150,
        "temp1_emergency": 105000,
        "temp2_label": "junction", "temp2_input": 75000, "temp2_crit": 110000, "temp2_crit_hyst": -273150,
        "temp2_emergency": 115000,
        "temp3_label": "mem", "temp3_input": 70000, "temp3_crit": 100000, "temp3_crit_hyst": -273150,
        "temp3_emergency": 105000,
        "power1_label": "PPT", "power1_average": 145000000, "power1_cap": 220000000,
        "power1_cap_min": 0, "power1_cap_max": 250000000,
        "fan1_input": 1450, "fan1_min": 0, "fan1_max": 3300, "fan1_target": 1450, "fan1_enable": 1,
        "pwm1": 110, "pwm1_enable": 2, "in0_label": "vddgfx", "in0_input": 1050}, device=amd)
    # nouveau (older NVIDIA card on the open driver).
    nv = f"{root}/0000:00:03.1/0000:06:00.0"
    pci(t, nv, "0x10de", "0x1c82", "0x030000", "nouveau", power_state="D0", runtime="active")
    hwmon(t, 2, f"{nv}/hwmon/hwmon2", "nouveau", {
        "temp1_input": 48000, "temp1_max": 95000, "temp1_crit": 105000, "temp1_emergency": 135000,
        "temp1_max_hyst": 3000, "temp1_crit_hyst": 5000}, device=nv)
    # NVIDIA proprietary driver: a PCI GPU with no hwmon at all (nothing to read in sysfs).
    prop = f"{root}/0000:00:03.2/0000:07:00.0"
    pci(t, prop, "0x10de", "0x2684", "0x030000", "nvidia", power_state="D0", runtime="active")
    # Intel xe (Arc): package temperature.
    xe = f"{root}/0000:00:02.0"
    pci(t, xe, "0x8086", "0xa7a0", "0x030000", "xe", power_state="D0", runtime="active")
    hwmon(t, 3, f"{xe}/hwmon/hwmon3", "xe", {"temp2_label": "pkg", "temp2_input": 52000}, device=xe)
    # NVMe awake.
    n0 = f"{root}/0000:00:01.2/0000:04:00.0"
    pci(t, n0, "0x15b7", "0x5030", "0x010802", "nvme", power_state="D0", runtime="active")
    c0 = f"{n0}/nvme/nvme0"
    t.attrs(c0, {"model": "WD_BLACK SN850X 2000GB                  ", "state": "live"})
    t.link(f"{c0}/device", n0)
    hwmon(t, 4, f"{c0}/hwmon4", "nvme", {
        "temp1_label": "Composite", "temp1_input": 41850, "temp1_max": 84850, "temp1_crit": 87850,
        "temp1_min": -273150}, device=c0)
    t.w(f"{c0}/power/runtime_status", "unsupported")
    # NVMe asleep (runtime suspended, D3cold): reading it would wake it.
    n1 = f"{root}/0000:00:01.3/0000:05:00.0"
    pci(t, n1, "0x144d", "0xa809", "0x010802", "nvme", power_state="D3cold", runtime="suspended")
    c1 = f"{n1}/nvme/nvme1"
    t.attrs(c1, {"model": "Samsung SSD 980 1TB                     ", "state": "live"})
    t.link(f"{c1}/device", n1)
    hwmon(t, 5, f"{c1}/hwmon5", "nvme", {
        "temp1_label": "Composite", "temp1_input": 99850, "temp1_max": 84850, "temp1_crit": 87850}, device=c1)
    t.w(f"{c1}/power/runtime_status", "unsupported")
    # SATA disks through drivetemp: one spun down (runtime suspended, PCI AHCI stays D0), one awake.
    ahci = f"{root}/0000:00:17.0"
    pci(t, ahci, "0x8086", "0x7ae2", "0x010601", "ahci", power_state="D0", runtime="active")
    for n, (model, temp, rt) in enumerate([("WDC WD40EFRX-68N", 99000, "suspended"),
                                             ("ST8000VN004-2M21", 36000, "active")]):
        sd = f"{ahci}/ata{n + 1}/host{n}/target{n}:0:0/{n}:0:0:0"
        t.attrs(sd, {"model": f"{model}", "vendor": "ATA     "})
        t.w(f"{sd}/power/runtime_status", rt)
        hwmon(t, 6 + n, f"{sd}/hwmon/hwmon{6 + n}", "drivetemp", {
            "temp1_input": temp, "temp1_max": 60000, "temp1_crit": 70000, "temp1_lowest": 20000,
            "temp1_highest": 45000}, device=sd)
    t.keep("class/thermal")
    t.readme("""
# gpu-disk-workstation: GPUs and disks, some asleep (built from scratch)

Layouts follow the amdgpu, nouveau, xe, nvme and drivetemp hwmon documents; values in kernel units.

| hwmon | chip | device | expected |
|---|---|---|---|
| hwmon0 | k10temp | 0000:00:18.3 | Tctl 55.125 °C, headline CPU |
| hwmon1 | amdgpu | 0000:03:00.0 (D0) | edge 62.0 (crit 100, emergency 105), junction 75.0 (crit 110), mem 70.0 (crit 100); thresholds from crit: edge serious 85.0, critical 100.0; PPT **145.0 W** (cap 220 W); fan1 1450 RPM, PWM 43.1 %, auto |
| hwmon2 | nouveau | 0000:06:00.0 | temp1 48.0 °C (max 95 -> serious 95, crit 105) |
| — | (nvidia) | 0000:07:00.0 | proprietary driver: no hwmon, nothing in sysfs |
| hwmon3 | xe | 0000:00:02.0 | pkg 52.0 °C |
| hwmon4 | nvme | nvme0 @ 0000:04:00.0 | "NVMe WD_BLACK SN850X 2000GB (Composite)" 41.85 °C |
| hwmon5 | nvme | nvme1 @ 0000:05:00.0, **D3cold, runtime suspended** | **asleep, not read** (99.85 would mean it was read) |
| hwmon6 | drivetemp | ata1 0:0:0:0, **runtime suspended** (spun down) | **asleep, not read** (99.0 would mean it was read) |
| hwmon7 | drivetemp | ata2 1:0:0:0, active | "Disk ST8000VN004-2M21" 36.0 °C (max 60, crit 70) |

- Device state: nominal.
""")



# ----------------------------------------------------------------------------- power

PC = "devices/virtual/powercap"


def rapl_zone(t, ctype, zone, name, energy, rng, limits=()):
    """A powercap zone: `zone` is `intel-rapl:0` or `intel-rapl:0:1` (nested under its parent)."""
    parts = zone.split(":")
    d = f"{PC}/{ctype}/{ctype}:{parts[1]}"
    if len(parts) == 3:
        d += f"/{zone}"
    t.attrs(d, {"name": name, "energy_uj": energy, "max_energy_range_uj": rng, "enabled": 1})
    for i, (cname, uw, window) in enumerate(limits):
        t.attrs(d, {f"constraint_{i}_name": cname, f"constraint_{i}_power_limit_uw": uw,
                    f"constraint_{i}_time_window_us": window, f"constraint_{i}_max_power_uw": uw})
    t.link(f"class/powercap/{zone}", d)


def build_rapl(name, throttled):
    t = fresh(name)
    rng = 262143328850
    t.keep(f"{PC}/intel-rapl")
    t.link("class/powercap/intel-rapl", f"{PC}/intel-rapl")
    t.keep(f"{PC}/intel-rapl-mmio")
    t.link("class/powercap/intel-rapl-mmio", f"{PC}/intel-rapl-mmio")
    pkg_limits = [("long_term", 28000000, 27983872), ("short_term", 64000000, 2440), ("peak_power", 121000000, 0)]
    rapl_zone(t, "intel-rapl", "intel-rapl:0", "package-0", 64311123456, rng, pkg_limits)
    rapl_zone(t, "intel-rapl", "intel-rapl:0:0", "core", 40123456789, rng, [("long_term", 0, 976)])
    rapl_zone(t, "intel-rapl", "intel-rapl:0:1", "uncore", 1234567890, rng, [("long_term", 0, 976)])
    rapl_zone(t, "intel-rapl", "intel-rapl:1", "psys", 98765432100, rng, [("long_term", 0, 27983872), ("short_term", 0, 976)])
    # The same package counter through MMIO: counted once.
    rapl_zone(t, "intel-rapl-mmio", "intel-rapl-mmio:0", "package-0", 64311123456, rng, pkg_limits)
    cur = 2100000 if throttled else 4600000
    for n in range(4):
        cpu = f"devices/system/cpu/cpu{n}"
        t.w(f"{cpu}/topology/physical_package_id", 0)
        t.w(f"{cpu}/thermal_throttle/core_throttle_count", 812 if throttled else 3)
        t.w(f"{cpu}/thermal_throttle/package_throttle_count", 2040 if throttled else 5)
        pol = f"devices/system/cpu/cpufreq/policy{n}"
        t.attrs(pol, {"affected_cpus": n, "related_cpus": n, "scaling_cur_freq": cur - n * 1000,
                      "cpuinfo_max_freq": 4700000, "cpuinfo_min_freq": 400000, "scaling_max_freq": 4700000,
                      "scaling_governor": "powersave"})
        t.link(f"{cpu}/cpufreq", pol)
    zone(t, 0, "x86_pkg_temp", 96000 if throttled else 52000, [("passive", 95000, 2000), ("critical", 105000, None)],
         cdevs=[(0, 0)])
    cooling(t, 0, "Processor", 5 if throttled else 0, 10)
    state = "hot and throttled: clocks 2.1 of 4.7 GHz, Processor 5/10, x86_pkg_temp 96.0" if throttled \
        else "cool: clocks 4.6 of 4.7 GHz, Processor 0/10, x86_pkg_temp 52.0"
    t.readme(f"""
# {name}

An Intel laptop's power and clocks as the kernel lays them out, {state}. Generated by `make-fixtures.py`.

- `class/powercap/intel-rapl:0` `package-0` (long_term 28 W, short_term 64 W, peak_power 121 W), its subzones
  `intel-rapl:0:0` `core` and `intel-rapl:0:1` `uncore` (limits of 0 = not set), `intel-rapl:1` `psys`; every
  `max_energy_range_uj` 262143328850. Tests write `energy_uj` between samples (advance, wrap, backwards) and make
  it root-only (mode 0400, as since Linux 5.10).
- `intel-rapl-mmio:0` `package-0` repeats the package counter: a reader counts it once.
- `devices/system/cpu/cpufreq/policy0..3`, one CPU each, `cpuinfo_max_freq` 4700000 kHz; `cpuN/cpufreq` links.
- `cpuN/thermal_throttle/{{core,package}}_throttle_count` (one package); tests raise them between samples.
""")


BUILDERS_POWER = {
    "rapl-laptop": lambda: build_rapl("rapl-laptop", False),
    "rapl-laptop-throttled": lambda: build_rapl("rapl-laptop-throttled", True),
}


BUILDERS = {
    "intel-laptop": lambda: build_intel("intel-laptop", False),
    "intel-laptop-hot": lambda: build_intel("intel-laptop-hot", True),
    "amd-desktop": build_amd_desktop,
    "arm-board": build_arm_board,
    "two-battery-laptop": build_two_battery,
    "broken": build_broken,
    "untyped-supplies": build_untyped_supplies,
    "sbc-axp-peripherals": build_sbc_peripherals,
    "fans-desktop": build_fans_desktop,
    "gpu-disk-workstation": build_gpu_disk,
}
BUILDERS.update(BUILDERS_POWER)
for _n in REAL_CAPTURES:
    BUILDERS[_n] = (lambda n: lambda: build_real(n))(_n)


def main(argv):
    if argv == ["--check"]:
        return 0 if check() else 1
    only = argv[1:] if argv[:1] == ["--only"] else list(BUILDERS)
    for n in only:
        BUILDERS[n]()
        print("built", n)
    with open(os.path.join(HERE, "README.md"), "w") as fh:
        fh.write(TOP_README.strip() + "\n")
    fix_modes()
    return 0 if check() else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
