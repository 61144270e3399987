#ifndef THERMTOP_CNVML_SHIM_H
#define THERMTOP_CNVML_SHIM_H
/* NVML (libnvidia-ml.so.1), the only place an NVIDIA driver reports its GPUs' temperatures,
   power and clock-limiting reasons. Loaded with dlopen at run time, never linked: the library
   ships with the driver, so a machine without one (and every build machine) runs without it.
   Declared here with NVML's own ABI (nvml.h), only the types and entry points thermtop uses.
   A symbol the loaded driver lacks is a NULL pointer in the table: "not supported". */
#include <dlfcn.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef int nvmlReturn_t;
enum {
    NVML_SUCCESS = 0,
    NVML_ERROR_UNINITIALIZED = 1,
    NVML_ERROR_NOT_SUPPORTED = 3,
    NVML_ERROR_NO_PERMISSION = 4,
    NVML_ERROR_NOT_FOUND = 6,
    NVML_ERROR_INSUFFICIENT_SIZE = 7,
    NVML_ERROR_DRIVER_NOT_LOADED = 9,
    NVML_ERROR_TIMEOUT = 10,
    NVML_ERROR_FUNCTION_NOT_FOUND = 13,
    NVML_ERROR_GPU_IS_LOST = 15,
    NVML_ERROR_LIB_RM_VERSION_MISMATCH = 18,
    NVML_ERROR_UNKNOWN = 999
};

typedef struct nvmlDevice_st *nvmlDevice_t;

/* nvmlTemperatureSensors_t */
enum { NVML_TEMPERATURE_GPU = 0 };
/* nvmlTemperatureThresholds_t */
enum {
    NVML_TEMPERATURE_THRESHOLD_SHUTDOWN = 0,
    NVML_TEMPERATURE_THRESHOLD_SLOWDOWN = 1,
    NVML_TEMPERATURE_THRESHOLD_MEM_MAX = 2,
    NVML_TEMPERATURE_THRESHOLD_GPU_MAX = 3
};
#define NVML_FI_DEV_MEMORY_TEMP 82
#define NVML_DEVICE_NAME_V2_BUFFER_SIZE 96
#define NVML_DEVICE_UUID_V2_BUFFER_SIZE 96

typedef struct nvmlPciInfo_st {
    char busIdLegacy[16];
    unsigned int domain;
    unsigned int bus;
    unsigned int device;
    unsigned int pciDeviceId;
    unsigned int pciSubSystemId;
    char busId[32];
} nvmlPciInfo_t;

typedef struct nvmlUtilization_st {
    unsigned int gpu;
    unsigned int memory;
} nvmlUtilization_t;

/* nvmlProcessInfo_v1_t: what the unversioned nvmlDevice{Compute,Graphics}RunningProcesses
   fill (drivers before the _v2 calls). */
typedef struct nvmlProcessInfo_v1_st {
    unsigned int pid;
    unsigned long long usedGpuMemory;   /* bytes; NVML_VALUE_NOT_AVAILABLE when unknown */
} nvmlProcessInfo_v1_t;

/* nvmlProcessInfo_t as the _v2 and _v3 calls fill it (one layout for both). */
typedef struct nvmlProcessInfo_st {
    unsigned int pid;
    unsigned long long usedGpuMemory;
    unsigned int gpuInstanceId;         /* MIG; 0xFFFFFFFF without */
    unsigned int computeInstanceId;
} nvmlProcessInfo_t;

/* usedGpuMemory when NVML cannot tell (nvml.h: (unsigned long long)-1). */
#define NVML_VALUE_NOT_AVAILABLE (~0ULL)

typedef struct nvmlProcessUtilizationSample_st {
    unsigned int pid;
    unsigned long long timeStamp;       /* CPU timestamp, microseconds */
    unsigned int smUtil;
    unsigned int memUtil;
    unsigned int encUtil;
    unsigned int decUtil;
} nvmlProcessUtilizationSample_t;

/* nvmlValueType_t */
enum {
    NVML_VALUE_TYPE_DOUBLE = 0,
    NVML_VALUE_TYPE_UNSIGNED_INT = 1,
    NVML_VALUE_TYPE_UNSIGNED_LONG = 2,
    NVML_VALUE_TYPE_UNSIGNED_LONG_LONG = 3,
    NVML_VALUE_TYPE_SIGNED_LONG_LONG = 4,
    NVML_VALUE_TYPE_SIGNED_INT = 5
};
typedef union nvmlValue_st {
    double dVal;
    unsigned int uiVal;
    unsigned long ulVal;
    unsigned long long ullVal;
    long long sllVal;
    int siVal;
    unsigned short usVal;
} nvmlValue_t;

typedef struct nvmlFieldValue_st {
    unsigned int fieldId;
    unsigned int scopeId;
    long long timestamp;
    long long latencyUsec;
    int valueType;
    nvmlReturn_t nvmlReturn;
    nvmlValue_t value;
} nvmlFieldValue_t;

/* The entry points, as pointers; NULL when the loaded library lacks the symbol. */
typedef struct thermtop_nvml {
    nvmlReturn_t (*initV2)(void);                                       /* nvmlInit_v2 */
    nvmlReturn_t (*shutdown)(void);                                     /* nvmlShutdown */
    const char *(*errorString)(nvmlReturn_t);                           /* nvmlErrorString */
    nvmlReturn_t (*getCount)(unsigned int *);                           /* nvmlDeviceGetCount_v2 */
    nvmlReturn_t (*getHandleByIndex)(unsigned int, nvmlDevice_t *);     /* nvmlDeviceGetHandleByIndex_v2 */
    nvmlReturn_t (*getHandleByPciBusId)(const char *, nvmlDevice_t *);  /* nvmlDeviceGetHandleByPciBusId_v2 */
    nvmlReturn_t (*getName)(nvmlDevice_t, char *, unsigned int);
    nvmlReturn_t (*getPciInfo)(nvmlDevice_t, nvmlPciInfo_t *);          /* _v3, else _v2 */
    nvmlReturn_t (*getUUID)(nvmlDevice_t, char *, unsigned int);
    nvmlReturn_t (*getTemperature)(nvmlDevice_t, int, unsigned int *);
    nvmlReturn_t (*getTemperatureThreshold)(nvmlDevice_t, int, unsigned int *);
    nvmlReturn_t (*getFieldValues)(nvmlDevice_t, int, nvmlFieldValue_t *);
    nvmlReturn_t (*getPowerUsage)(nvmlDevice_t, unsigned int *);
    nvmlReturn_t (*getEnforcedPowerLimit)(nvmlDevice_t, unsigned int *);
    nvmlReturn_t (*getClockReasons)(nvmlDevice_t, unsigned long long *); /* ...ClocksEventReasons, else ...ClocksThrottleReasons */
    nvmlReturn_t (*getNumFans)(nvmlDevice_t, unsigned int *);
    nvmlReturn_t (*getFanSpeed)(nvmlDevice_t, unsigned int, unsigned int *); /* nvmlDeviceGetFanSpeed_v2 */
    nvmlReturn_t (*getPerformanceState)(nvmlDevice_t, int *);
    nvmlReturn_t (*getUtilizationRates)(nvmlDevice_t, nvmlUtilization_t *);
    nvmlReturn_t (*getIndex)(nvmlDevice_t, unsigned int *);
    /* The process lists: _v3, else _v2 (the same layout), else the unversioned call with the
       v1 layout in the *V1 field. */
    nvmlReturn_t (*getComputeProcesses)(nvmlDevice_t, unsigned int *, nvmlProcessInfo_t *);
    nvmlReturn_t (*getGraphicsProcesses)(nvmlDevice_t, unsigned int *, nvmlProcessInfo_t *);
    nvmlReturn_t (*getComputeProcessesV1)(nvmlDevice_t, unsigned int *, nvmlProcessInfo_v1_t *);
    nvmlReturn_t (*getGraphicsProcessesV1)(nvmlDevice_t, unsigned int *, nvmlProcessInfo_v1_t *);
    nvmlReturn_t (*getProcessUtilization)(nvmlDevice_t, nvmlProcessUtilizationSample_t *, unsigned int *, unsigned long long);
} thermtop_nvml;

static inline void *thermtop_nvml_sym(void *lib, const char *name, const char *fallback) {
    void *p = dlsym(lib, name);
    if (!p && fallback) p = dlsym(lib, fallback);
    return p;
}

/* Loads the library into `t`. Returns 1 when it loaded and has nvmlInit_v2; 0 otherwise, with
   dlerror()'s text (or a sentence) copied into `why`. */
static inline int thermtop_nvml_load(thermtop_nvml *t, char *why, size_t whySize) {
    void *lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        const char *e = dlerror();
        if (whySize) snprintf(why, whySize, "%s", e ? e : "libnvidia-ml.so.1 could not be loaded");
        return 0;
    }
#define TT_SYM(field, name, fallback) *(void **)(&t->field) = thermtop_nvml_sym(lib, name, fallback)
    TT_SYM(initV2, "nvmlInit_v2", NULL);
    TT_SYM(shutdown, "nvmlShutdown", NULL);
    TT_SYM(errorString, "nvmlErrorString", NULL);
    TT_SYM(getCount, "nvmlDeviceGetCount_v2", NULL);
    TT_SYM(getHandleByIndex, "nvmlDeviceGetHandleByIndex_v2", NULL);
    TT_SYM(getHandleByPciBusId, "nvmlDeviceGetHandleByPciBusId_v2", NULL);
    TT_SYM(getName, "nvmlDeviceGetName", NULL);
    TT_SYM(getPciInfo, "nvmlDeviceGetPciInfo_v3", "nvmlDeviceGetPciInfo_v2");
    TT_SYM(getUUID, "nvmlDeviceGetUUID", NULL);
    TT_SYM(getTemperature, "nvmlDeviceGetTemperature", NULL);
    TT_SYM(getTemperatureThreshold, "nvmlDeviceGetTemperatureThreshold", NULL);
    TT_SYM(getFieldValues, "nvmlDeviceGetFieldValues", NULL);
    TT_SYM(getPowerUsage, "nvmlDeviceGetPowerUsage", NULL);
    TT_SYM(getEnforcedPowerLimit, "nvmlDeviceGetEnforcedPowerLimit", NULL);
    TT_SYM(getClockReasons, "nvmlDeviceGetCurrentClocksEventReasons", "nvmlDeviceGetCurrentClocksThrottleReasons");
    TT_SYM(getNumFans, "nvmlDeviceGetNumFans", NULL);
    TT_SYM(getFanSpeed, "nvmlDeviceGetFanSpeed_v2", NULL);
    TT_SYM(getPerformanceState, "nvmlDeviceGetPerformanceState", NULL);
    TT_SYM(getUtilizationRates, "nvmlDeviceGetUtilizationRates", NULL);
    TT_SYM(getIndex, "nvmlDeviceGetIndex", NULL);
    TT_SYM(getComputeProcesses, "nvmlDeviceGetComputeRunningProcesses_v3", "nvmlDeviceGetComputeRunningProcesses_v2");
    TT_SYM(getGraphicsProcesses, "nvmlDeviceGetGraphicsRunningProcesses_v3", "nvmlDeviceGetGraphicsRunningProcesses_v2");
    TT_SYM(getComputeProcessesV1, "nvmlDeviceGetComputeRunningProcesses", NULL);
    TT_SYM(getGraphicsProcessesV1, "nvmlDeviceGetGraphicsRunningProcesses", NULL);
    TT_SYM(getProcessUtilization, "nvmlDeviceGetProcessUtilization", NULL);
#undef TT_SYM
    if (!t->initV2) {
        if (whySize) snprintf(why, whySize, "%s", "libnvidia-ml.so.1 has no nvmlInit_v2");
        dlclose(lib);
        return 0;
    }
    return 1;
}
#endif
