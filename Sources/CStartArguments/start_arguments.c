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
