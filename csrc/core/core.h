/* What every file of the libraries above core uses: the entry-point marker, the settings, the
 * message and status model, and the handle table. The rest of core (devices, memory, streams, hooks,
 * the interpreter) is included where it is used. */
#ifndef OPEMU_CORE_H
#define OPEMU_CORE_H

#include "core/config.h"
#include "core/errors.h"
#include "core/handles.h"

/* Marks a definition of a public entry point. The build renames each to opemu_impl_X
 * (cmake/gen_bridge.py --impl-names); the exported X is the generated shim that calls it. */
#define OPEMU_EXPORT

#endif
