// The command line for Swift's `CommandLine.arguments`, from what the C library hands every
// constructor, instead of the Swift runtime's own way on Linux.
//
// The runtime finds argv after the fact: a constructor in its CommandLine.cpp opens
// /proc/self/maps, scans it line by line with fgets and sscanf for the stack's range and walks
// back from `environ` (~54,000 instructions and an open, reads and a close of a file the kernel
// writes out on demand, at every start, before main). glibc calls each `.init_array` function
// with argc, argv and envp, so one here keeps them, and defining the runtime's entry point for
// the command line (`_swift_stdlib_getUnsafeArgvArgc`, Swift calling convention, defined in
// libswiftCore.a's CommandLine.cpp.o next to that constructor and nothing else that is used)
// keeps the linker from pulling that object, and its constructor, out of the static archive.
//
// Only the static release build is changed by it: with the runtime as a shared library (debug
// builds, `swift test`) the runtime calls its own hidden definition and this one is unused.
// Should a toolchain rename the entry point, the runtime's object comes back and nothing breaks
// (the release end-to-end tests run the binary with arguments either way).

static int startArgc;
static char **startArgv;

static void keepStartArguments(int argc, char **argv, char **envp) {
    (void)envp;
    startArgc = argc;
    startArgv = argv;
}

__attribute__((section(".init_array"), used))
static void (*const keepStartArgumentsEntry)(int, char **, char **) = keepStartArguments;

__attribute__((swiftcall, visibility("hidden")))
char **_swift_stdlib_getUnsafeArgvArgc(int *outArgLen) {
    *outArgLen = startArgc;
    return startArgv;
}

// The crash backtracer of the static build. libswiftCore.a's Backtrace.cpp.o is pulled into a
// static executable by two references: swiftrt.o (linked into every Swift executable) keeps a
// pointer to `_swift_backtrace_isThunkFunction`, and the runtime's `swift_reportError` reads
// `_swift_backtraceSettings.enabled`. The object's constructor then runs at every start: it
// reads SWIFT_BACKTRACE, asks twice whether a descriptor is a terminal, resolves
// /proc/self/exe and stats eight places next to the binary for the `swift-backtrace` helper,
// which no thermtop install has (the static binary is shipped alone), and so leaves the
// backtracer off: 11 system calls. Both defined here, the object is not
// pulled: no search, and a crash goes as before (the backtracer was off; our own handlers
// restore the terminal, TerminalSignals.swift; "Fatal error" messages are Errors.cpp's).
// Hidden: with the runtime as a shared library (debug builds, `swift test`) the runtime keeps
// its own, and these are unused. Should a toolchain change either name or the settings'
// layout, the object comes back and the link fails on a duplicate symbol, never silently.
//
// The settings as swift_reportError reads them: 88 bytes (the runtime's BacktraceSettings),
// all zero, so `enabled` (the second 4-byte field) is Off.
__attribute__((visibility("hidden")))
const unsigned char _swift_backtraceSettings[88] __attribute__((aligned(8))) = {0};

// Only the out-of-process backtracer asks it (whether a symbol name is a thunk); nothing does
// once that backtracer is gone.
__attribute__((visibility("hidden")))
_Bool _swift_backtrace_isThunkFunction(const char *name) {
    (void)name;
    return 0;
}

// glibc's start of a static executable asks for the directory the executable lives in, for
// `$ORIGIN` in the search paths of libraries it may load later: `_dl_get_origin` resolves
// /proc/self/exe (a readlink the kernel answers by walking the path of the mapped file: ~8 µs
// here, as much as a dozen sysfs reads) at every start, before main. thermtop loads one library
// (libsystemd, by name, for D-Bus) and neither it nor its dependencies name `$ORIGIN`, so the
// answer is never used. Defined here, glibc's dl-origin.o is not linked and this answer is
// "unknown" ((char *) -1: what glibc's own returns when the readlink fails, and what every
// caller of it handles by dropping a `$ORIGIN` path element). Debug builds link glibc
// dynamically, where ld.so has its own and this is unused.
__attribute__((visibility("hidden")))
const char *_dl_get_origin(void) {
    return (const char *)-1;
}
