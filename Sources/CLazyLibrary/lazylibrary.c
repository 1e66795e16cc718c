// Libraries mapped at their first use (see include/lazylibrary.h).
#include "lazylibrary.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

int notifyd_lazy_library_open(
    const char *soname, const char *package, const char *const *names, void **const *slots, size_t count,
    char *error, size_t capacity) {
    void *library = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
    if (!library) {
        const char *reason = dlerror();
        snprintf(error, capacity, "%s could not be loaded: %s (apt install %s)", soname,
                 reason ? reason : "not found", package);
        return 0;
    }
    for (size_t index = 0; index < count; index++) {
        *slots[index] = dlsym(library, names[index]);
        if (*slots[index]) continue;
        const char *reason = dlerror();
        snprintf(error, capacity, "%s has no %s: %s", soname, names[index], reason ? reason : "not found");
        for (size_t cleared = 0; cleared < count; cleared++) *slots[cleared] = NULL;
        dlclose(library);
        return 0;
    }
    return 1;
}

void notifyd_lazy_library_unloaded(const char *soname, const char *function) {
    fprintf(stderr, "notifyd: %s called before %s was loaded\n", function, soname);
    abort();
}
