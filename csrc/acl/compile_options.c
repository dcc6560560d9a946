/* Operator compile options (libacl_op_compiler): the values frameworks set at start-up
 * (aclSetCompileopt) and read back, and the compile flag. opemu compiles nothing, so the options
 * are kept and reported, in the vendor's way: the JIT switch is stored as "1"/"0" and read back as
 * the SoC's default ("disable" on the A2/A3 lines opemu emulates); other options have no getter. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "acl/acl.h"
#include "acl/acl_op_compiler.h"
#include "core/core.h"

#define JIT_VALUE_SIZE 256 /* the vendor's COMPILE_OPT_SIZE */

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static char *values[ACL_OP_DEBUG_OPTION + 1];
static int compile_flag; /* recorded for completeness: opemu compiles no operator */

OPEMU_EXPORT aclError aclSetCompileopt(aclCompileOpt opt, const char *value)
{
    if (value == NULL)
        return opemu_fail(ACL_ERROR_INVALID_PARAM, "aclSetCompileopt: value is null");
    if (opt == ACL_AUTO_TUNE_MODE)
        return opemu_fail(ACL_ERROR_FEATURE_UNSUPPORTED, "aclSetCompileopt: the Auto Tune function has been "
                          "discarded; use the AOE tool for tuning");
    /* the vendor answers an option outside its table with an internal error */
    if ((unsigned)opt > ACL_OP_DEBUG_OPTION)
        return opemu_fail(ACL_ERROR_INTERNAL_ERROR, "aclSetCompileopt: option %d is not an aclCompileOpt", (int)opt);
    const char *stored = opt == ACL_OP_JIT_COMPILE ? (strcmp(value, "enable") == 0 ? "1" : "0") : value;
    char *copy = strdup(stored);
    pthread_mutex_lock(&lock);
    free(values[opt]);
    values[opt] = copy;
    pthread_mutex_unlock(&lock);
    return ACL_SUCCESS;
}

/* Bytes a value needs, with its terminator; 0 for an option never set or not an option. */
OPEMU_EXPORT size_t aclGetCompileoptSize(aclCompileOpt opt)
{
    if (opt == ACL_OP_JIT_COMPILE)
        return JIT_VALUE_SIZE;
    if ((unsigned)opt > ACL_OP_DEBUG_OPTION)
        return 0;
    pthread_mutex_lock(&lock);
    size_t size = values[opt] && values[opt][0] ? strlen(values[opt]) + 1 : 0;
    pthread_mutex_unlock(&lock);
    return size;
}

static aclError copy_value(char *out, size_t length, const char *value, const char *api)
{
    if (strlen(value) >= length)
        return opemu_fail(ACL_ERROR_INVALID_PARAM, "%s: length %zu cannot hold the value [%s]", api, length, value);
    strcpy(out, value);
    return ACL_SUCCESS;
}

/* The vendor reads back only the JIT switch (its SoC default) and the debug option. */
OPEMU_EXPORT aclError aclGetCompileopt(aclCompileOpt opt, char *value, size_t length)
{
    if (value == NULL)
        return opemu_fail(ACL_ERROR_INVALID_PARAM, "aclGetCompileopt: value is null");
    if (opt == ACL_OP_JIT_COMPILE)
        return copy_value(value, length, "disable", "aclGetCompileopt");
    if (opt == ACL_OP_DEBUG_OPTION) {
        pthread_mutex_lock(&lock);
        char *set = values[opt] ? strdup(values[opt]) : NULL;
        pthread_mutex_unlock(&lock);
        int rc = set ? copy_value(value, length, set, "aclGetCompileopt")
                     : opemu_fail(ACL_ERROR_API_NOT_SUPPORT, "aclGetCompileopt: ACL_OP_DEBUG_OPTION was never set");
        free(set);
        return rc;
    }
    return opemu_fail(ACL_ERROR_API_NOT_SUPPORT, "aclGetCompileopt: option %d cannot be read back", (int)opt);
}

OPEMU_EXPORT aclError aclopSetCompileFlag(aclOpCompileFlag flag)
{
    if (flag != ACL_OP_COMPILE_DEFAULT && flag != ACL_OP_COMPILE_FUZZ)
        return opemu_fail(ACL_ERROR_INVALID_PARAM, "aclopSetCompileFlag: invalid flag %d", (int)flag);
    pthread_mutex_lock(&lock);
    compile_flag = flag;
    pthread_mutex_unlock(&lock);
    return ACL_SUCCESS;
}
