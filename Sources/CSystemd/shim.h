#ifndef THERMTOP_CSYSTEMD_SHIM_H
#define THERMTOP_CSYSTEMD_SHIM_H
/* sd-bus from libsystemd: the D-Bus client thermtop uses to follow power-profiles-daemon
   (and tuned-ppd). libsystemd is loaded with dlopen the first time a power-profiles source
   is made, not linked: it and its dependencies (libgcrypt, liblzma, libzstd, liblz4, libcap)
   add about 1.2 MB to peak RSS, which a run without a system bus (containers, --sysfs-root,
   --simulate) should not pay. The tt_ wrappers below have sd-bus's own signatures and call
   through the loaded table; call them only after thermtop_sdbus_load() returned 1. */
#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* The part of <systemd/sd-bus.h> used here, declared so that building needs no libsystemd-dev.
   These types and signatures are libsystemd's stable ABI (sd-bus, since systemd 221). */
typedef struct sd_bus sd_bus;
typedef struct sd_bus_message sd_bus_message;
typedef struct sd_bus_slot sd_bus_slot;
typedef struct sd_bus_error {
    const char *name;
    const char *message;
    int _need_free;
} sd_bus_error;
typedef int (*sd_bus_message_handler_t)(sd_bus_message *m, void *userdata, sd_bus_error *ret_error);

int sd_bus_add_match(sd_bus *bus, sd_bus_slot **slot, const char *match, sd_bus_message_handler_t callback, void *userdata);
int sd_bus_call(sd_bus *bus, sd_bus_message *m, uint64_t usec, sd_bus_error *ret_error, sd_bus_message **reply);
int sd_bus_call_async(sd_bus *bus, sd_bus_slot **slot, sd_bus_message *m, sd_bus_message_handler_t callback, void *userdata, uint64_t usec);
void sd_bus_error_free(sd_bus_error *e);
sd_bus *sd_bus_flush_close_unref(sd_bus *bus);
int sd_bus_get_events(sd_bus *bus);
int sd_bus_get_fd(sd_bus *bus);
int sd_bus_match_signal(sd_bus *bus, sd_bus_slot **ret, const char *sender, const char *path, const char *interface, const char *member, sd_bus_message_handler_t callback, void *userdata);
int sd_bus_message_append_basic(sd_bus_message *m, char type, const void *p);
int sd_bus_message_enter_container(sd_bus_message *m, char type, const char *contents);
int sd_bus_message_exit_container(sd_bus_message *m);
const char *sd_bus_message_get_path(sd_bus_message *m);
const char *sd_bus_message_get_sender(sd_bus_message *m);
int sd_bus_message_is_method_error(sd_bus_message *m, const char *name);
int sd_bus_message_new_method_call(sd_bus *bus, sd_bus_message **m, const char *destination, const char *path, const char *interface, const char *member);
int sd_bus_message_peek_type(sd_bus_message *m, char *type, const char **contents);
int sd_bus_message_read_basic(sd_bus_message *m, char type, void *p);
int sd_bus_message_skip(sd_bus_message *m, const char *types);
sd_bus_message *sd_bus_message_unref(sd_bus_message *m);
int sd_bus_new(sd_bus **ret);
int sd_bus_open_system(sd_bus **ret);
int sd_bus_process(sd_bus *bus, sd_bus_message **r);
int sd_bus_set_address(sd_bus *bus, const char *address);
int sd_bus_set_bus_client(sd_bus *bus, int b);
int sd_bus_set_method_call_timeout(sd_bus *bus, uint64_t usec);
sd_bus_slot *sd_bus_slot_unref(sd_bus_slot *slot);
int sd_bus_start(sd_bus *bus);

struct thermtop_sdbus_table {
    int loaded;
    char error[256];
    __typeof__(sd_bus_add_match) *add_match;
    __typeof__(sd_bus_call) *call;
    __typeof__(sd_bus_call_async) *call_async;
    __typeof__(sd_bus_error_free) *error_free;
    __typeof__(sd_bus_flush_close_unref) *flush_close_unref;
    __typeof__(sd_bus_get_events) *get_events;
    __typeof__(sd_bus_get_fd) *get_fd;
    __typeof__(sd_bus_match_signal) *match_signal;
    __typeof__(sd_bus_message_append_basic) *message_append_basic;
    __typeof__(sd_bus_message_enter_container) *message_enter_container;
    __typeof__(sd_bus_message_exit_container) *message_exit_container;
    __typeof__(sd_bus_message_get_path) *message_get_path;
    __typeof__(sd_bus_message_get_sender) *message_get_sender;
    __typeof__(sd_bus_message_is_method_error) *message_is_method_error;
    __typeof__(sd_bus_message_new_method_call) *message_new_method_call;
    __typeof__(sd_bus_message_peek_type) *message_peek_type;
    __typeof__(sd_bus_message_read_basic) *message_read_basic;
    __typeof__(sd_bus_message_skip) *message_skip;
    __typeof__(sd_bus_message_unref) *message_unref;
    __typeof__(sd_bus_new) *new;
    __typeof__(sd_bus_open_system) *open_system;
    __typeof__(sd_bus_process) *process;
    __typeof__(sd_bus_set_address) *set_address;
    __typeof__(sd_bus_set_bus_client) *set_bus_client;
    __typeof__(sd_bus_set_method_call_timeout) *set_method_call_timeout;
    __typeof__(sd_bus_slot_unref) *slot_unref;
    __typeof__(sd_bus_start) *start;
};

static inline struct thermtop_sdbus_table *thermtop_sdbus(void) {
    static struct thermtop_sdbus_table table;
    return &table;
}

static inline void thermtop_sdbus_load_once(void) {
    struct thermtop_sdbus_table *t = thermtop_sdbus();
    void *lib = dlopen("libsystemd.so.0", RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        const char *e = dlerror();
        snprintf(t->error, sizeof t->error, "%s", e ? e : "dlopen libsystemd.so.0 failed");
        return;
    }
    snprintf(t->error, sizeof t->error, "libsystemd.so.0 lacks an sd-bus symbol");
    if (!(t->add_match = (__typeof__(sd_bus_add_match) *)dlsym(lib, "sd_bus_add_match"))) return;
    if (!(t->call = (__typeof__(sd_bus_call) *)dlsym(lib, "sd_bus_call"))) return;
    if (!(t->call_async = (__typeof__(sd_bus_call_async) *)dlsym(lib, "sd_bus_call_async"))) return;
    if (!(t->error_free = (__typeof__(sd_bus_error_free) *)dlsym(lib, "sd_bus_error_free"))) return;
    if (!(t->flush_close_unref = (__typeof__(sd_bus_flush_close_unref) *)dlsym(lib, "sd_bus_flush_close_unref"))) return;
    if (!(t->get_events = (__typeof__(sd_bus_get_events) *)dlsym(lib, "sd_bus_get_events"))) return;
    if (!(t->get_fd = (__typeof__(sd_bus_get_fd) *)dlsym(lib, "sd_bus_get_fd"))) return;
    if (!(t->match_signal = (__typeof__(sd_bus_match_signal) *)dlsym(lib, "sd_bus_match_signal"))) return;
    if (!(t->message_append_basic = (__typeof__(sd_bus_message_append_basic) *)dlsym(lib, "sd_bus_message_append_basic"))) return;
    if (!(t->message_enter_container = (__typeof__(sd_bus_message_enter_container) *)dlsym(lib, "sd_bus_message_enter_container"))) return;
    if (!(t->message_exit_container = (__typeof__(sd_bus_message_exit_container) *)dlsym(lib, "sd_bus_message_exit_container"))) return;
    if (!(t->message_get_path = (__typeof__(sd_bus_message_get_path) *)dlsym(lib, "sd_bus_message_get_path"))) return;
    if (!(t->message_get_sender = (__typeof__(sd_bus_message_get_sender) *)dlsym(lib, "sd_bus_message_get_sender"))) return;
    if (!(t->message_is_method_error = (__typeof__(sd_bus_message_is_method_error) *)dlsym(lib, "sd_bus_message_is_method_error"))) return;
    if (!(t->message_new_method_call = (__typeof__(sd_bus_message_new_method_call) *)dlsym(lib, "sd_bus_message_new_method_call"))) return;
    if (!(t->message_peek_type = (__typeof__(sd_bus_message_peek_type) *)dlsym(lib, "sd_bus_message_peek_type"))) return;
    if (!(t->message_read_basic = (__typeof__(sd_bus_message_read_basic) *)dlsym(lib, "sd_bus_message_read_basic"))) return;
    if (!(t->message_skip = (__typeof__(sd_bus_message_skip) *)dlsym(lib, "sd_bus_message_skip"))) return;
    if (!(t->message_unref = (__typeof__(sd_bus_message_unref) *)dlsym(lib, "sd_bus_message_unref"))) return;
    if (!(t->new = (__typeof__(sd_bus_new) *)dlsym(lib, "sd_bus_new"))) return;
    if (!(t->open_system = (__typeof__(sd_bus_open_system) *)dlsym(lib, "sd_bus_open_system"))) return;
    if (!(t->process = (__typeof__(sd_bus_process) *)dlsym(lib, "sd_bus_process"))) return;
    if (!(t->set_address = (__typeof__(sd_bus_set_address) *)dlsym(lib, "sd_bus_set_address"))) return;
    if (!(t->set_bus_client = (__typeof__(sd_bus_set_bus_client) *)dlsym(lib, "sd_bus_set_bus_client"))) return;
    if (!(t->set_method_call_timeout = (__typeof__(sd_bus_set_method_call_timeout) *)dlsym(lib, "sd_bus_set_method_call_timeout"))) return;
    if (!(t->slot_unref = (__typeof__(sd_bus_slot_unref) *)dlsym(lib, "sd_bus_slot_unref"))) return;
    if (!(t->start = (__typeof__(sd_bus_start) *)dlsym(lib, "sd_bus_start"))) return;
    t->error[0] = 0;
    t->loaded = 1;
}

/* 1 when libsystemd is loaded with every function below; else 0, and
   thermtop_sdbus_error() says why. Safe to call from any thread. */
static inline int thermtop_sdbus_load(void) {
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, thermtop_sdbus_load_once);
    return thermtop_sdbus()->loaded;
}

static inline const char *thermtop_sdbus_error(void) { return thermtop_sdbus()->error; }

static inline int tt_sd_bus_add_match(sd_bus *bus, sd_bus_slot **slot, const char *match, sd_bus_message_handler_t callback, void *userdata) { return thermtop_sdbus()->add_match(bus, slot, match, callback, userdata); }
static inline int tt_sd_bus_call(sd_bus *bus, sd_bus_message *m, uint64_t usec, sd_bus_error *ret_error, sd_bus_message **reply) { return thermtop_sdbus()->call(bus, m, usec, ret_error, reply); }
static inline int tt_sd_bus_call_async(sd_bus *bus, sd_bus_slot **slot, sd_bus_message *m, sd_bus_message_handler_t callback, void *userdata, uint64_t usec) { return thermtop_sdbus()->call_async(bus, slot, m, callback, userdata, usec); }
static inline void tt_sd_bus_error_free(sd_bus_error *e) { thermtop_sdbus()->error_free(e); }
static inline sd_bus* tt_sd_bus_flush_close_unref(sd_bus *bus) { return thermtop_sdbus()->flush_close_unref(bus); }
static inline int tt_sd_bus_get_events(sd_bus *bus) { return thermtop_sdbus()->get_events(bus); }
static inline int tt_sd_bus_get_fd(sd_bus *bus) { return thermtop_sdbus()->get_fd(bus); }
static inline int tt_sd_bus_match_signal(sd_bus *bus, sd_bus_slot **ret, const char *sender, const char *path, const char *interface, const char *member, sd_bus_message_handler_t callback, void *userdata) { return thermtop_sdbus()->match_signal(bus, ret, sender, path, interface, member, callback, userdata); }
static inline int tt_sd_bus_message_append_basic(sd_bus_message *m, char type, const void *p) { return thermtop_sdbus()->message_append_basic(m, type, p); }
static inline int tt_sd_bus_message_enter_container(sd_bus_message *m, char type, const char *contents) { return thermtop_sdbus()->message_enter_container(m, type, contents); }
static inline int tt_sd_bus_message_exit_container(sd_bus_message *m) { return thermtop_sdbus()->message_exit_container(m); }
static inline const char* tt_sd_bus_message_get_path(sd_bus_message *m) { return thermtop_sdbus()->message_get_path(m); }
static inline const char* tt_sd_bus_message_get_sender(sd_bus_message *m) { return thermtop_sdbus()->message_get_sender(m); }
static inline int tt_sd_bus_message_is_method_error(sd_bus_message *m, const char *name) { return thermtop_sdbus()->message_is_method_error(m, name); }
static inline int tt_sd_bus_message_new_method_call(sd_bus *bus, sd_bus_message **m, const char *destination, const char *path, const char *interface, const char *member) { return thermtop_sdbus()->message_new_method_call(bus, m, destination, path, interface, member); }
static inline int tt_sd_bus_message_peek_type(sd_bus_message *m, char *type, const char **contents) { return thermtop_sdbus()->message_peek_type(m, type, contents); }
static inline int tt_sd_bus_message_read_basic(sd_bus_message *m, char type, void *p) { return thermtop_sdbus()->message_read_basic(m, type, p); }
static inline int tt_sd_bus_message_skip(sd_bus_message *m, const char *types) { return thermtop_sdbus()->message_skip(m, types); }
static inline sd_bus_message* tt_sd_bus_message_unref(sd_bus_message *m) { return thermtop_sdbus()->message_unref(m); }
static inline int tt_sd_bus_new(sd_bus **ret) { return thermtop_sdbus()->new(ret); }
static inline int tt_sd_bus_open_system(sd_bus **ret) { return thermtop_sdbus()->open_system(ret); }
static inline int tt_sd_bus_process(sd_bus *bus, sd_bus_message **r) { return thermtop_sdbus()->process(bus, r); }
static inline int tt_sd_bus_set_address(sd_bus *bus, const char *address) { return thermtop_sdbus()->set_address(bus, address); }
static inline int tt_sd_bus_set_bus_client(sd_bus *bus, int b) { return thermtop_sdbus()->set_bus_client(bus, b); }
static inline int tt_sd_bus_set_method_call_timeout(sd_bus *bus, uint64_t usec) { return thermtop_sdbus()->set_method_call_timeout(bus, usec); }
static inline sd_bus_slot* tt_sd_bus_slot_unref(sd_bus_slot *slot) { return thermtop_sdbus()->slot_unref(slot); }
static inline int tt_sd_bus_start(sd_bus *bus) { return thermtop_sdbus()->start(bus); }

#endif
