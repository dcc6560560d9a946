/* Starting the embedded interpreter.
 *
 * Python starts on the first call that needs it (an operator), never for the runtime alone. The
 * interpreter must find numpy and opemu without PYTHONPATH whether opemu sits in a virtualenv or
 * system-wide, so the import path gets: OPEMU_PYTHONPATH, the site-packages this library was
 * installed into (found from its own file name), and the site directories baked in at build time.
 * A start that fails is an error status with its reason, never a crash or a silent success.
 *
 * The libraries below reach the interpreter through core's hooks (opemu_python_ready), which this
 * file fills in when the library loads, and Python's functions through the cffi embedded functions
 * their headers declare (opemu_py_*). */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <dlfcn.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <pthread.h>
#include "aclnn/opdev/op_errno.h"
#include "bridge/bridge_api.h"
#include "core/errors.h"
#include "core/hooks.h"

#ifndef OPEMU_BAKED_PYTHONPATH
#define OPEMU_BAKED_PYTHONPATH ""
#endif
/* The interpreter opemu was built for and installed into (CMake's Python_EXECUTABLE). Without it
 * Python looks for "python3" on PATH to find its home, and under cron, sudo or another PATH that
 * is another install, whose standard library or NumPy does not fit this libpython. */
#ifndef OPEMU_PYTHON_EXECUTABLE
#define OPEMU_PYTHON_EXECUTABLE ""
#endif

int opemu_bridge_start(void); /* defined in the cffi-generated unit */

static pthread_once_t once = PTHREAD_ONCE_INIT;
static int started = -1;
static char failure[1024];
static char site_dirs[8192];

void opemu_python_failed(const char *message) { snprintf(failure, sizeof failure, "%s", message); }
const char *opemu_python_site_dirs(void) { return site_dirs; }

static void add_dir(const char *dir)
{
    if (dir == NULL || *dir == 0 || strlen(site_dirs) + strlen(dir) + 2 >= sizeof site_dirs)
        return;
    if (site_dirs[0])
        strcat(site_dirs, ":");
    strcat(site_dirs, dir);
}

static void add_path_list(const char *list)
{
    char *copy = strdup(list ? list : "");
    for (char *save = NULL, *dir = strtok_r(copy, ":", &save); dir; dir = strtok_r(NULL, ":", &save))
        add_dir(dir);
    free(copy);
}

const char *opemu_library_file(void)
{
    static char path[4096];
    Dl_info info;
    if (path[0] == 0 && dladdr((void *)opemu_library_file, &info) && info.dli_fname &&
        realpath(info.dli_fname, path) == NULL)
        path[0] = 0;
    return path;
}

/* <site>/opemu/prefix/lib64/libopemu.so -> <site> */
static void add_install_site(void)
{
    char *path = strdup(opemu_library_file());
    char *dir = path;
    for (int up = 0; up < 4; up++)
        dir = dirname(dir);
    char marker[4096];
    snprintf(marker, sizeof marker, "%s/opemu", dir);
    if (access(marker, F_OK) == 0)
        add_dir(dir);
    free(path);
}

static int initialize_interpreter(void)
{
    PyConfig config;
    PyConfig_InitPythonConfig(&config);
    config.install_signal_handlers = 0; /* the app owns its signals */
    config.parse_argv = 0;
    PyStatus status = PyStatus_Ok();
    if (OPEMU_PYTHON_EXECUTABLE[0] && access(OPEMU_PYTHON_EXECUTABLE, X_OK) == 0) /* a venv gone: PATH as before */
        status = PyConfig_SetBytesString(&config, &config.program_name, OPEMU_PYTHON_EXECUTABLE);
    /* our directories join PYTHONPATH's place in sys.path, ahead of the interpreter's own */
    const char *user = getenv("PYTHONPATH");
    size_t length = strlen(site_dirs) + (user ? strlen(user) : 0) + 2;
    char *joined = malloc(length);
    snprintf(joined, length, "%s%s%s", site_dirs, user && *user ? ":" : "", user ? user : "");
    if (!PyStatus_Exception(status))
        status = PyConfig_SetBytesString(&config, &config.pythonpath_env, joined);
    free(joined);
    if (!PyStatus_Exception(status))
        status = Py_InitializeFromConfig(&config);
    PyConfig_Clear(&config);
    if (PyStatus_Exception(status)) {
        snprintf(failure, sizeof failure, "the embedded Python interpreter failed to start: %s%s%s",
                 status.func ? status.func : "", status.func ? ": " : "", status.err_msg ? status.err_msg : "");
        return -1;
    }
    PyEval_SaveThread(); /* other threads take the GIL as they need it */
    return 0;
}

/* cffi's start-up lock on Python < 3.12 spins until PyCapsule_Type.tp_version_tag is 0, but the
 * type attribute cache sets it as soon as anything (torch, for one) looks up a capsule attribute,
 * so a host that is itself a Python process would hang. Invalidating the type's cache entry puts
 * the tag back to 0, which is all the lock needs. */
static void clear_capsule_version_tag(void)
{
#if PY_VERSION_HEX < 0x030C0000
    PyGILState_STATE state = PyGILState_Ensure();
    PyType_Modified(&PyCapsule_Type);
    PyGILState_Release(state);
#endif
}

static void start(void)
{
    add_path_list(getenv("OPEMU_PYTHONPATH"));
    add_install_site();
    add_path_list(OPEMU_BAKED_PYTHONPATH);
    if (!Py_IsInitialized() && initialize_interpreter() != 0)
        return;
    clear_capsule_version_tag();
    if (opemu_bridge_start() != 0) {
        if (failure[0] == 0)
            snprintf(failure, sizeof failure, "the opemu bridge failed to load in the embedded interpreter");
        return;
    }
    started = 0;
}

/* For a host that is itself Python (opemu.api, the tests) reaching the kernels before any operator
 * call: the bridge starts as an entry point starts it, capsule fix included (calling an embedded
 * function directly would spin in cffi's start-up lock). libopemu's own symbol, in no vendor table. */
__attribute__((visibility("default"))) int opemu_start_bridge(void)
{
    return opemu_python_ready("opemu.core.kernels");
}

/* The interpreter's start, given to the layers below through core's hooks (opemu_python_ready). */
static int start_python(const char *entry_point)
{
    pthread_once(&once, start);
    if (started == 0)
        return 0;
    opemu_fail(ACLNN_ERR_INNER, "%s: %s (import path: %s)", entry_point, failure, site_dirs);
    return -1;
}

__attribute__((constructor)) static void give_interpreter(void)
{
    static const opemu_hooks hooks = {.start_python = start_python};
    opemu_hooks_register(&hooks);
}
