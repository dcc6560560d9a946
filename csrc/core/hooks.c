/* The hook tables (core/hooks.h), and the two services core offers through them: findings, which
 * the sanitizer reports, and the interpreter, which the bridge starts. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include "aclnn/opdev/op_errno.h"
#include "core/errors.h"
#include "core/hooks.h"

const opemu_hooks *opemu_hook_tables[OPEMU_HOOK_TABLES];
int opemu_hook_table_count;

void opemu_hooks_register(const opemu_hooks *hooks)
{
    if (opemu_hook_table_count == OPEMU_HOOK_TABLES)
        abort(); /* a build with more layers than tables: fix OPEMU_HOOK_TABLES */
    opemu_hook_tables[opemu_hook_table_count++] = hooks;
}

void opemu_finding(const char *kind, const char *fmt, ...)
{
    char message[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(message, sizeof message, fmt, ap);
    va_end(ap);
    OPEMU_NOTIFY(finding, kind, message);
}

int opemu_python_ready(const char *entry_point)
{
    for (int i = 0; i < opemu_hook_table_count; i++)
        if (opemu_hook_tables[i]->start_python)
            return opemu_hook_tables[i]->start_python(entry_point);
    opemu_fail(ACLNN_ERR_INNER, "%s: this library has no Python bridge", entry_point);
    return -1;
}
