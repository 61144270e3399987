/* A stand-in libnvidia-ml.so.1 for thermtop's tests: no GPU needed. Built by the tests with
   `cc -shared -fPIC -o libnvidia-ml.so.1 standin.c` (and -DOLD_DRIVER for a driver that
   predates nvmlDeviceGetCurrentClocksEventReasons), found through LD_LIBRARY_PATH.

   Its answers come from the key=value file named by NVML_STANDIN_CONFIG, read again at every
   call so a test can change them mid-run:
     init=<rc>                 what nvmlInit_v2 returns (default 0)
     gpus=<bus>,<bus>          the GPUs, as sysfs names them (0000:01:00.0)
     <bus>.name / .uuid        strings
     <bus>.temp, .mem_temp, .slowdown, .shutdown, .gpu_max, .mem_max,
     .power_mw, .limit_mw, .reasons, .fans, .fan, .pstate, .util
                               numbers; a key left out is NVML_ERROR_NOT_SUPPORTED
     <bus>.lost=1              every call for the GPU answers NVML_ERROR_GPU_IS_LOST
     <bus>.lost_after=<n>      ... once the GPU's temperature was read n times (a GPU lost mid-run)
     <bus>.reasons_seq=a,b,c   the reasons at the 1st, 2nd, 3rd… temperature read (then the last)
     <bus>.hang=1              nvmlDeviceGetTemperature sleeps for 30 s
     <bus>.procs=pid:mem:sm,…  the compute processes: memory in bytes (`na`: NVML_VALUE_NOT_AVAILABLE),
                               SM % (left out: no utilisation sample for the process)
     <bus>.gprocs=pid:mem:sm,… the graphics processes, likewise
     <bus>.procs_rc=<rc>       what both process lists return instead (3 not supported, 4 no permission)
     <bus>.procs_grow=<n>      the first n filling calls of a list answer NVML_ERROR_INSUFFICIENT_SIZE
                               with 10 more than they were given room for (processes starting)
     <bus>.util_rc=<rc>        what nvmlDeviceGetProcessUtilization returns instead
   The process lists come in three builds: all of _v3, _v2 and the unversioned v1 (default),
   -DPROCS_V2 (no _v3) and -DPROCS_V1 (only the v1 calls, with their shorter struct);
   -DNO_PROC_UTIL leaves out nvmlDeviceGetProcessUtilization.
   Every call is appended to NVML_STANDIN_LOG as "<function> <bus>" (bus "-" for none). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef int nvmlReturn_t;
typedef struct nvmlDevice_st *nvmlDevice_t;
typedef struct { char busIdLegacy[16]; unsigned domain, bus, device, pciDeviceId, pciSubSystemId; char busId[32]; } nvmlPciInfo_t;
typedef struct { unsigned gpu, memory; } nvmlUtilization_t;
typedef union { double dVal; unsigned uiVal; unsigned long ulVal; unsigned long long ullVal; long long sllVal; int siVal; unsigned short usVal; } nvmlValue_t;
typedef struct { unsigned fieldId, scopeId; long long timestamp, latencyUsec; int valueType; nvmlReturn_t nvmlReturn; nvmlValue_t value; } nvmlFieldValue_t;
/* nvml.h's layouts: v1 for the unversioned lists, one layout for _v2 and _v3. */
typedef struct { unsigned pid; unsigned long long usedGpuMemory; } nvmlProcessInfo_v1_t;
typedef struct { unsigned pid; unsigned long long usedGpuMemory; unsigned gpuInstanceId, computeInstanceId; } nvmlProcessInfo_t;
typedef struct { unsigned pid; unsigned long long timeStamp; unsigned smUtil, memUtil, encUtil, decUtil; } nvmlProcessUtilizationSample_t;

static char config[8192];

static void load(void) {
    config[0] = 0;
    const char *path = getenv("NVML_STANDIN_CONFIG");
    FILE *f = path ? fopen(path, "r") : NULL;
    if (!f) return;
    size_t n = fread(config, 1, sizeof config - 1, f);
    config[n] = 0;
    fclose(f);
}

/* The value of `key` (a line "key=value"), copied into out; 0 when absent. */
static int get(const char *key, char *out, size_t size) {
    size_t k = strlen(key);
    for (const char *p = config; *p; ) {
        const char *end = strchr(p, '\n');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        if (len > k && strncmp(p, key, k) == 0 && p[k] == '=') {
            size_t v = len - k - 1;
            if (v >= size) v = size - 1;
            memcpy(out, p + k + 1, v);
            out[v] = 0;
            return 1;
        }
        p += len + (end ? 1 : 0);
    }
    return 0;
}

static void logcall(const char *fn, const char *bus) {
    const char *path = getenv("NVML_STANDIN_LOG");
    FILE *f = path ? fopen(path, "a") : NULL;
    if (!f) return;
    fprintf(f, "%s %s\n", fn, bus ? bus : "-");
    fclose(f);
}

/* The bus id of GPU `i` in gpus=, or NULL. */
static const char *busOf(unsigned i) {
    static char buf[64];
    char list[512];
    if (!get("gpus", list, sizeof list)) return NULL;
    char *save = NULL;
    unsigned n = 0;
    for (char *t = strtok_r(list, ",", &save); t; t = strtok_r(NULL, ",", &save), n++) {
        if (n == i) { snprintf(buf, sizeof buf, "%s", t); return buf; }
    }
    return NULL;
}

static unsigned count(void) { unsigned n = 0; while (busOf(n)) n++; return n; }

static const char *busOfHandle(nvmlDevice_t d) { return busOf((unsigned)(size_t)d - 1); }

/* Temperature reads so far, per GPU index: the clock of reasons_seq and lost_after. */
static unsigned reads[64];
static unsigned readsOf(nvmlDevice_t d) { size_t i = (size_t)d - 1; return i < 64 ? reads[i] : 0; }

static int number(const char *bus, const char *field, unsigned long long *v) {
    char key[128], val[64];
    snprintf(key, sizeof key, "%s.%s", bus, field);
    if (!get(key, val, sizeof val)) return 0;
    *v = strtoull(val, NULL, 0);
    return 1;
}

/* Common start of a device call: reload, log, check the handle and a lost GPU. */
#define DEVICE_CALL(fn) \
    load(); const char *bus = busOfHandle(dev); logcall(fn, bus); \
    if (!bus) return 2; \
    { unsigned long long lost = 0; if (number(bus, "lost", &lost) && lost) return 15; \
      if (number(bus, "lost_after", &lost) && readsOf(dev) >= lost) return 15; }

nvmlReturn_t nvmlInit_v2(void) {
    load(); logcall("nvmlInit_v2", NULL);
    char v[16];
    return get("init", v, sizeof v) ? atoi(v) : 0;
}
nvmlReturn_t nvmlShutdown(void) { logcall("nvmlShutdown", NULL); return 0; }
const char *nvmlErrorString(nvmlReturn_t rc) {
    switch (rc) {
    case 0: return "Success";
    case 2: return "Invalid Argument";
    case 3: return "Not Supported";
    case 4: return "Insufficient Permissions";
    case 6: return "Not Found";
    case 7: return "Insufficient Size";
    case 9: return "Driver Not Loaded";
    case 15: return "GPU is lost";
    case 18: return "RM has detected an NVML/RM version mismatch.";
    default: return "Unknown Error";
    }
}
nvmlReturn_t nvmlDeviceGetCount_v2(unsigned *n) { load(); logcall("nvmlDeviceGetCount_v2", NULL); *n = count(); return 0; }
nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned i, nvmlDevice_t *dev) {
    load(); logcall("nvmlDeviceGetHandleByIndex_v2", busOf(i));
    if (!busOf(i)) return 2;
    *dev = (nvmlDevice_t)(size_t)(i + 1);
    return 0;
}
nvmlReturn_t nvmlDeviceGetHandleByPciBusId_v2(const char *want, nvmlDevice_t *dev) {
    load(); logcall("nvmlDeviceGetHandleByPciBusId_v2", want);
    for (unsigned i = 0; busOf(i); i++) {
        if (strcasecmp(busOf(i), want) == 0) { *dev = (nvmlDevice_t)(size_t)(i + 1); return 0; }
    }
    return 6;
}
nvmlReturn_t nvmlDeviceGetPciInfo_v3(nvmlDevice_t dev, nvmlPciInfo_t *p) {
    DEVICE_CALL("nvmlDeviceGetPciInfo_v3");
    memset(p, 0, sizeof *p);
    snprintf(p->busId, sizeof p->busId, "0000%s", bus); /* NVML's 8-digit domain */
    for (char *c = p->busId; *c; c++) if (*c >= 'a' && *c <= 'f') *c -= 32;
    return 0;
}
nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t dev, char *out, unsigned size) {
    DEVICE_CALL("nvmlDeviceGetName");
    char key[128];
    snprintf(key, sizeof key, "%s.name", bus);
    return get(key, out, size) ? 0 : 3;
}
nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t dev, char *out, unsigned size) {
    DEVICE_CALL("nvmlDeviceGetUUID");
    char key[128];
    snprintf(key, sizeof key, "%s.uuid", bus);
    return get(key, out, size) ? 0 : 3;
}

static nvmlReturn_t answer(const char *bus, const char *field, unsigned *out) {
    unsigned long long v;
    if (!number(bus, field, &v)) return 3;
    *out = (unsigned)v;
    return 0;
}

nvmlReturn_t nvmlDeviceGetTemperature(nvmlDevice_t dev, int sensor, unsigned *t) {
    DEVICE_CALL("nvmlDeviceGetTemperature");
    unsigned long long hang = 0;
    if (number(bus, "hang", &hang) && hang) sleep(30);
    if ((size_t)dev - 1 < 64) reads[(size_t)dev - 1]++;
    return sensor == 0 ? answer(bus, "temp", t) : 2;
}
nvmlReturn_t nvmlDeviceGetTemperatureThreshold(nvmlDevice_t dev, int kind, unsigned *t) {
    DEVICE_CALL("nvmlDeviceGetTemperatureThreshold");
    static const char *names[] = {"shutdown", "slowdown", "mem_max", "gpu_max"};
    return kind >= 0 && kind < 4 ? answer(bus, names[kind], t) : 3;
}
nvmlReturn_t nvmlDeviceGetFieldValues(nvmlDevice_t dev, int n, nvmlFieldValue_t *values) {
    DEVICE_CALL("nvmlDeviceGetFieldValues");
    for (int i = 0; i < n; i++) {
        values[i].valueType = 1;
        values[i].nvmlReturn = values[i].fieldId == 82 ? answer(bus, "mem_temp", &values[i].value.uiVal) : 3;
    }
    return 0;
}
nvmlReturn_t nvmlDeviceGetPowerUsage(nvmlDevice_t dev, unsigned *mw) { DEVICE_CALL("nvmlDeviceGetPowerUsage"); return answer(bus, "power_mw", mw); }
nvmlReturn_t nvmlDeviceGetEnforcedPowerLimit(nvmlDevice_t dev, unsigned *mw) { DEVICE_CALL("nvmlDeviceGetEnforcedPowerLimit"); return answer(bus, "limit_mw", mw); }
static nvmlReturn_t reasons(nvmlDevice_t dev, const char *bus, unsigned long long *r) {
    char key[128], seq[512];
    snprintf(key, sizeof key, "%s.reasons_seq", bus);
    if (get(key, seq, sizeof seq)) {
        unsigned want = readsOf(dev) ? readsOf(dev) - 1 : 0, n = 0;
        char *save = NULL, *pick = NULL;
        for (char *t = strtok_r(seq, ",", &save); t; t = strtok_r(NULL, ",", &save), n++) {
            pick = t;
            if (n == want) break;
        }
        if (pick) { *r = strtoull(pick, NULL, 0); return 0; }
    }
    return number(bus, "reasons", r) ? 0 : 3;
}

#ifdef OLD_DRIVER
nvmlReturn_t nvmlDeviceGetCurrentClocksThrottleReasons(nvmlDevice_t dev, unsigned long long *r) {
    DEVICE_CALL("nvmlDeviceGetCurrentClocksThrottleReasons");
    return reasons(dev, bus, r);
}
#else
nvmlReturn_t nvmlDeviceGetCurrentClocksEventReasons(nvmlDevice_t dev, unsigned long long *r) {
    DEVICE_CALL("nvmlDeviceGetCurrentClocksEventReasons");
    return reasons(dev, bus, r);
}
nvmlReturn_t nvmlDeviceGetCurrentClocksThrottleReasons(nvmlDevice_t dev, unsigned long long *r) {
    DEVICE_CALL("nvmlDeviceGetCurrentClocksThrottleReasons");
    return reasons(dev, bus, r);
}
#endif
nvmlReturn_t nvmlDeviceGetNumFans(nvmlDevice_t dev, unsigned *n) { DEVICE_CALL("nvmlDeviceGetNumFans"); return answer(bus, "fans", n); }
nvmlReturn_t nvmlDeviceGetFanSpeed_v2(nvmlDevice_t dev, unsigned fan, unsigned *s) { (void)fan; DEVICE_CALL("nvmlDeviceGetFanSpeed_v2"); return answer(bus, "fan", s); }
nvmlReturn_t nvmlDeviceGetPerformanceState(nvmlDevice_t dev, int *p) { DEVICE_CALL("nvmlDeviceGetPerformanceState"); return answer(bus, "pstate", (unsigned *)p); }
nvmlReturn_t nvmlDeviceGetUtilizationRates(nvmlDevice_t dev, nvmlUtilization_t *u) {
    DEVICE_CALL("nvmlDeviceGetUtilizationRates");
    if (answer(bus, "util", &u->gpu)) return 3;
    u->memory = u->gpu / 2;
    return 0;
}

nvmlReturn_t nvmlDeviceGetIndex(nvmlDevice_t dev, unsigned *i) { DEVICE_CALL("nvmlDeviceGetIndex"); *i = (unsigned)(size_t)dev - 1; return 0; }

/* One process of a procs= list. */
typedef struct { unsigned pid; unsigned long long mem; int hasSM; unsigned sm; } standinProc;

/* The processes in <bus>.<field>, at most `max`; their count. */
static unsigned procsOf(const char *bus, const char *field, standinProc *out, unsigned max) {
    char key[128], list[4096];
    snprintf(key, sizeof key, "%s.%s", bus, field);
    if (!get(key, list, sizeof list)) return 0;
    unsigned n = 0;
    char *save = NULL;
    for (char *t = strtok_r(list, ",", &save); t && n < max; t = strtok_r(NULL, ",", &save)) {
        char *mem = strchr(t, ':'), *sm = mem ? strchr(mem + 1, ':') : NULL;
        if (mem) *mem++ = 0;
        if (sm) *sm++ = 0;
        out[n].pid = (unsigned)strtoul(t, NULL, 0);
        out[n].mem = !mem || strcmp(mem, "na") == 0 ? ~0ULL : strtoull(mem, NULL, 0);
        out[n].hasSM = sm != NULL;
        out[n].sm = sm ? (unsigned)strtoul(sm, NULL, 0) : 0;
        n++;
    }
    return n;
}

/* Filling calls answered so far, for procs_grow. */
static unsigned fills;

/* The in/out count protocol of a process list, for either struct layout. */
static nvmlReturn_t listProcs(const char *bus, const char *field, unsigned *count, void *infos, int v1) {
    unsigned long long rc = 0, grow = 0;
    if (number(bus, "procs_rc", &rc) && rc) return (nvmlReturn_t)rc;
    standinProc p[256];
    unsigned n = procsOf(bus, field, p, 256);
    if (infos && number(bus, "procs_grow", &grow) && fills < grow) {
        fills++;
        *count += 10;
        return 7;
    }
    if (!infos || *count < n) { unsigned had = *count; *count = n; return n == 0 && had == 0 ? 0 : 7; }
    for (unsigned i = 0; i < n; i++) {
        if (v1) {
            nvmlProcessInfo_v1_t *o = (nvmlProcessInfo_v1_t *)infos + i;
            o->pid = p[i].pid; o->usedGpuMemory = p[i].mem;
        } else {
            nvmlProcessInfo_t *o = (nvmlProcessInfo_t *)infos + i;
            o->pid = p[i].pid; o->usedGpuMemory = p[i].mem; o->gpuInstanceId = 0xFFFFFFFF; o->computeInstanceId = 0xFFFFFFFF;
        }
    }
    *count = n;
    return 0;
}

#define PROCS(name, field, type, v1) \
    nvmlReturn_t name(nvmlDevice_t dev, unsigned *count, type *infos) { DEVICE_CALL(#name); return listProcs(bus, field, count, infos, v1); }
#if !defined(PROCS_V1) && !defined(PROCS_V2)
PROCS(nvmlDeviceGetComputeRunningProcesses_v3, "procs", nvmlProcessInfo_t, 0)
PROCS(nvmlDeviceGetGraphicsRunningProcesses_v3, "gprocs", nvmlProcessInfo_t, 0)
#endif
#ifndef PROCS_V1
PROCS(nvmlDeviceGetComputeRunningProcesses_v2, "procs", nvmlProcessInfo_t, 0)
PROCS(nvmlDeviceGetGraphicsRunningProcesses_v2, "gprocs", nvmlProcessInfo_t, 0)
#endif
PROCS(nvmlDeviceGetComputeRunningProcesses, "procs", nvmlProcessInfo_v1_t, 1)
PROCS(nvmlDeviceGetGraphicsRunningProcesses, "gprocs", nvmlProcessInfo_v1_t, 1)

#ifndef NO_PROC_UTIL
/* One sample per process with an SM share, stamped after every earlier call's: a later call
   since the last stamp sees the new ones only. */
static unsigned long long stamp = 1000000;
nvmlReturn_t nvmlDeviceGetProcessUtilization(nvmlDevice_t dev, nvmlProcessUtilizationSample_t *out, unsigned *count,
                                             unsigned long long since) {
    DEVICE_CALL("nvmlDeviceGetProcessUtilization");
    unsigned long long rc = 0;
    if (number(bus, "util_rc", &rc) && rc) return (nvmlReturn_t)rc;
    standinProc p[512];
    unsigned n = procsOf(bus, "procs", p, 256);
    n += procsOf(bus, "gprocs", p + n, 256);
    unsigned with = 0;
    for (unsigned i = 0; i < n; i++) with += p[i].hasSM;
    if (with == 0 || since > stamp) return 6;   /* NVML_ERROR_NOT_FOUND: no samples after `since` */
    if (!out || *count < with) { *count = with; return 7; }
    stamp += 1000;
    unsigned k = 0;
    for (unsigned i = 0; i < n; i++) {
        if (!p[i].hasSM) continue;
        out[k].pid = p[i].pid; out[k].timeStamp = stamp; out[k].smUtil = p[i].sm;
        out[k].memUtil = p[i].sm / 2; out[k].encUtil = 0; out[k].decUtil = 0;
        k++;
    }
    *count = k;
    return 0;
}
#endif
