/* What the generated entry points (entry_shims.c, cmake/gen_bridge.py) call: the trace, the
 * not-supported report, the interpreter, and aclnn's two phases. Every library's public entry points
 * come from the public headers (all_public.h). */
#ifndef OPEMU_BRIDGE_SHIMS_H
#define OPEMU_BRIDGE_SHIMS_H

#include "aclnn/entry.h"
#include "bridge/bridge_api.h"
#include "core/errors.h"
#include "core/hooks.h"
#include "trace/trace.h"

#endif
