// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "thermtop",
    // Linux only: the sources import Glibc and read sysfs, so no other platform is claimed.
    products: [
        // The library other Swift programs import: readings, thermal state, tier, policy, monitor,
        // and the Linux sysfs source. No terminal code.
        .library(name: "Thermtop", targets: ["Thermtop", "ThermtopCore", "ThermtopLinux"]),
        .executable(name: "thermtop", targets: ["thermtop"]),
        // The hub's values as swift-metrics gauges, named as `thermtop export` names them.
        .library(name: "ThermtopMetrics", targets: ["ThermtopMetrics"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        // TOML parsing for the config file (toml++ underneath). Only ThermtopConfig uses it.
        .package(url: "https://github.com/LebJe/TOMLKit", from: "0.6.0"),
        // ThermtopMetrics reports through swift-metrics; its tests render with swift-prometheus.
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        // `swift package generate-documentation` (the DocC catalog in Sources/Thermtop).
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        // Pure core: readings, state, tier, policy, forecast, reports; values in, values out.
        // No threads, file descriptors or clock reads.
        .target(name: "ThermtopCore"),
        // Linux headers Swift's Glibc module lacks (<sys/timerfd.h>, <sys/vfs.h>); header only.
        .systemLibrary(name: "CLinux"),
        // The machine: the sysfs reader funnel and one file per sysfs class, the event sources
        // that wake the sampler (uevent and thermal netlink sockets, D-Bus via sd-bus), and the
        // engine (Engine/: the hub's sampler thread, wake-ups, listeners, the observable monitor).
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
        .target(name: "Thermtop", dependencies: ["ThermtopCore", "ThermtopLinux"]),
        .target(name: "ThermtopMetrics", dependencies: [
            "ThermtopCore", "ThermtopLinux", .product(name: "Metrics", package: "swift-metrics"),
        ]),
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
        .executableTarget(
            name: "thermtop",
            dependencies: [
                "ThermtopCore", "ThermtopLinux", "ThermtopConfig", "ThermtopUI", "ThermtopTerminal",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // What tests need of the machine (tmux, dbus-daemon, root…), skipped with one prefix
        // ("needs:") where it is missing and failed under CI=true. Used by test targets only.
        .target(name: "ThermtopTestSupport", path: "Tests/Support"),
        .testTarget(name: "ThermtopCoreTests", dependencies: ["ThermtopCore", "Thermtop", "ThermtopTestSupport"]),
        // Fixture sysfs trees live in Tests/Fixtures, outside any target: they hold symlinks
        // (into /proc, dangling, cyclic like the real /sys) that SwiftPM must not walk.
        .testTarget(name: "ThermtopLinuxTests", dependencies: ["ThermtopCore", "ThermtopLinux", "ThermtopTestSupport"]),
        .testTarget(
            name: "ThermtopUITests",
            dependencies: ["ThermtopCore", "ThermtopUI"],
            exclude: ["Snapshots"]
        ),
        .testTarget(name: "ThermtopConfigTests", dependencies: ["ThermtopCore", "ThermtopLinux", "ThermtopConfig"]),
        // Apple's ProcessInfo API on Linux, with the seeds' code compiled against it.
        .testTarget(name: "ThermtopAppleAPITests", dependencies: ["Thermtop"]),
        .testTarget(name: "ThermtopMetricsTests", dependencies: [
            "ThermtopMetrics", "Thermtop", .product(name: "Prometheus", package: "swift-prometheus"),
        ]),
        .testTarget(name: "EndToEndTests", dependencies: ["thermtop", "thermtop-embedding-check", "ThermtopTestSupport", "CLinux"]),
        // A program that embeds the library, run by EndToEndTests in a process of its own.
        .executableTarget(name: "thermtop-embedding-check", dependencies: ["Thermtop"], path: "Tests/EmbeddingCheck"),
    ],
    swiftLanguageModes: [.v6]
)
