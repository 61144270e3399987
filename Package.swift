// swift-tools-version:6.0
import PackageDescription

/// How the release executables are linked: the reasons are at the `thermtop` target below.
let releaseLinking: [LinkerSetting] = [.unsafeFlags([
    "-static-executable",
    "-Xlinker", "-no-pie",
    "-use-ld=lld",
    "-Xlinker", "--symbol-ordering-file=" + Context.packageDirectory + "/Linker/symbol-order.txt",
    "-Xlinker", "--no-warn-symbol-ordering",
    "-Xlinker", "-T", "-Xlinker", Context.packageDirectory + "/Linker/private-text.ld",
    "-Xlinker", "--no-export-dynamic",
], .when(configuration: .release))]

let package = Package(
    name: "thermtop",
    // Linux only: the sources import Glibc and read sysfs, so no other platform is claimed.
    products: [
        // The library other Swift programs import: readings, thermal state, tier, policy, monitor,
        // and the Linux sysfs source. No terminal code.
        .library(name: "Thermtop", targets: ["Thermtop", "ThermtopCore", "ThermtopLinux"]),
        .executable(name: "thermtop", targets: ["thermtop"]),
        // The TOML reader thermtop runs when a config file exists (keeps TOMLKit and Foundation
        // out of the thermtop binary). Install it next to thermtop.
        .executable(name: "thermtop-toml", targets: ["thermtop-toml"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        // TOML parsing for the config file (toml++ underneath). Only ThermtopConfig uses it.
        .package(url: "https://github.com/LebJe/TOMLKit", from: "0.6.0"),
    ],
    targets: [
        // Pure core: no file, terminal or clock access. (The monitor's threading lives here too:
        // the read watchdog's timerfd comes from CLinux.)
        .target(name: "ThermtopCore", dependencies: ["CLinux"]),
        // Linux headers Swift's Glibc module lacks (<sys/timerfd.h>, <sys/vfs.h>); header only.
        .systemLibrary(name: "CLinux"),
        // Linux sources: the sysfs reader funnel and one file per sysfs class, and the event
        // sources that wake the sampler (uevent and thermal netlink sockets, D-Bus via sd-bus).
        .target(name: "ThermtopLinux", dependencies: [
            "ThermtopCore", "CLinux", "CSystemd", "CZlib", "CNVML",
        ]),
        // NVML (libnvidia-ml.so.1) for NVIDIA GPUs: declared in the shim, dlopen'ed at run time,
        // never linked (docs/gpu.md).
        .systemLibrary(name: "CNVML"),
        // sd-bus from libsystemd, for the power-profiles D-Bus source: the few functions used are
        // declared in the shim, and the library is dlopen'ed on first use, so building needs no
        // libsystemd-dev and a machine without libsystemd runs without the D-Bus source.
        .systemLibrary(name: "CSystemd"),
        // zlib, for gzip recordings (`thermtop record FILE.gz`) and reading them back.
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"]), .brew(["zlib"])]),
        // `import Thermtop`: re-exports both, plus the Foundation conveniences (notifications).
        // The dashboard does not depend on it, so it never loads Foundation.
        .target(name: "Thermtop", dependencies: ["ThermtopCore", "ThermtopLinux"]),
        // The config file: TOMLKit parsing, checks and the default example. Its model
        // (UserConfig, SensorRule, Glob) lives in ThermtopCore.
        .target(name: "ThermtopConfig", dependencies: [
            "ThermtopCore", .product(name: "TOMLKit", package: "TOMLKit"),
        ]),
        // Pure UI: cell buffer, widgets, app state, reducer, key map. No ncurses.
        .target(name: "ThermtopUI", dependencies: ["ThermtopCore"]),
        // The only code that talks to ncurses.
        // No pkgConfig: ncursesw's .pc file adds -D_DEFAULT_SOURCE -D_XOPEN_SOURCE=600, which SwiftPM
        // rejects with a warning on every build. The shim includes <ncursesw/curses.h> by path and
        // the module map links ncursesw and tinfo, which is all pkg-config gave.
        .systemLibrary(
            name: "CNcursesw",
            providers: [.apt(["libncursesw5-dev"])]
        ),
        .target(name: "ThermtopTerminal", dependencies: ["CNcursesw", "ThermtopUI"]),
        // The command line handed to the Swift runtime from glibc's constructor arguments, not
        // found again through /proc/self/maps at every start (see start_arguments.c). DWARF 4,
        // as the Swift modules' debug info is: Debian's valgrind (3.19) gives up on a binary
        // holding clang's DWARF 5 too, and the benchmarks count instructions with it.
        .target(name: "CStartArguments", cSettings: [.unsafeFlags(["-gdwarf-4"])]),
        .executableTarget(
            name: "thermtop",
            dependencies: [
                "ThermtopCore", "ThermtopLinux", "ThermtopUI", "ThermtopTerminal", "CStartArguments",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            // Release builds only (debug builds, and so `swift test`, keep the defaults); every
            // figure is in README "Performance":
            // - A fully static executable (-static-executable: glibc, libm, libstdc++, ncursesw,
            //   tinfo and zlib from their static archives, no ld.so). The dashboard's peak RSS was
            //   ~40% shared libraries the process maps whole and faults in 64 KB at a time (libc
            //   alone 1.65 MB resident, libm 0.4, ld.so 0.2, ncurses/tinfo/zlib/libgcc_s 0.6 MB);
            //   linked in, only the functions used are there, placed with the rest (below).
            //   libsystemd is still dlopen'ed by CSystemd on first use: glibc's static dlopen
            //   loads it with its own libc.so, which sd-bus only uses behind its own API (no
            //   pointer it allocates is freed here; StatusPowerProfilesTests runs the binary
            //   against a real bus: THERMTOP_BINARY=<release thermtop> swift test --filter
            //   PowerProfiles).
            // - Position-dependent (-no-pie). A PIE build carries ~40 000 relative relocations
            //   (Swift metadata is full of pointers) applied at every start, dirtying ~1 MB of
            //   data pages.
            // - Linked by lld with Linker/symbol-order.txt (Benchmarks/symbol-order.sh writes it):
            //   the functions the dashboard executes first, together, then those only --version
            //   and status add. The kernel maps code 64 KB around each page fault, so hot code
            //   spread over 10 MB of .text made most of it resident. This module's functions get a
            //   section each (-function-sections) so they can be moved one by one; the library
            //   targets cannot carry unsafe flags (packages that depend on them would refuse
            //   them), so the install line gives the flag to every module on the command line
            //   (README "Try it"). The compiler's private functions, which no order file can name,
            //   go right before them (Linker/private-text.ld). The same file then orders the data
            //   sections the runs touch (written first), and the script puts .bss into .data, so
            //   a page read comes with its neighbours instead of costing a fault of its own.
            // - No --export-dynamic (the Swift driver adds it): nothing looks thermtop's own
            //   symbols up at run time.
            // (The Swift runtime is linked in with `--static-swift-stdlib` on the command line:
            // as an unsafe flag here it misses the libraries SwiftPM adds with it.)
            swiftSettings: [.unsafeFlags(["-Xfrontend", "-function-sections"], .when(configuration: .release))],
            linkerSettings: releaseLinking
        ),
        // Benchmarks/oneshot.sh's Swift floor: the file-system accesses of `status --json` made
        // by a plain Swift program, linked the same way (Benchmarks/OneshotFloor/main.swift).
        .executableTarget(name: "thermtop-oneshot-floor", path: "Benchmarks/OneshotFloor",
                          linkerSettings: releaseLinking),
        .testTarget(name: "ThermtopCoreTests", dependencies: ["ThermtopCore", "Thermtop"]),
        // Fixture sysfs trees live in Tests/Fixtures, outside any target: they hold symlinks
        // (into /proc, dangling, cyclic like the real /sys) that SwiftPM must not walk.
        .testTarget(name: "ThermtopLinuxTests", dependencies: ["ThermtopCore", "ThermtopLinux"]),
        .testTarget(
            name: "ThermtopUITests",
            dependencies: ["ThermtopCore", "ThermtopUI"],
            exclude: ["Snapshots"]
        ),
        .executableTarget(name: "thermtop-toml", dependencies: ["ThermtopCore", "ThermtopConfig"]),
        .testTarget(name: "ThermtopConfigTests", dependencies: ["ThermtopCore", "ThermtopLinux", "ThermtopConfig"]),
        .testTarget(name: "EndToEndTests", dependencies: ["thermtop", "thermtop-toml"]),
        // The command line's own code, imported from the executable (FastArguments against
        // ArgumentParser's parse).
        .testTarget(name: "ThermtopCommandTests", dependencies: [
            "thermtop", .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),
    ],
    swiftLanguageModes: [.v6]
)
