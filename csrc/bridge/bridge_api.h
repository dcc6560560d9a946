/* What the embedded Python sees of the C core.
 *
 * The build preprocesses this header (with the headers it includes) and hands the result to cffi,
 * so every struct layout and function Python uses is declared exactly once, in the header of the
 * folder that owns it, and reaches Python through this list. Keep those headers plain C that
 * pycparser understands: no system headers beyond the fixed-width types.
 *
 * Functions named opemu_py_* are implemented in Python: the build turns each declaration (and every
 * public entry point that C does not define) into a cffi embedded function, which Python fills in
 * when the bridge starts. A library declares the ones it calls in its own header. */
#ifndef OPEMU_BRIDGE_API_H
#define OPEMU_BRIDGE_API_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>
#include "acl/acl.h"
/* Every AscendCL header acl.h does not pull in: their types appear in entry points too. */
#include "acl/acl_dump.h"
#include "acl/acl_op_compiler.h"
#include "acl/acl_platform.h"
#include "acl/acl_prof.h"
#include "acl/acl_rt_memory_soma.h"
#include "acl/acl_tdt.h"
#include "acl/acl_tdt_queue.h"
/* The other families' public headers. */
#include "aclnn/aclnn_base.h"
#include "mcblas/mcblas.h"
#include "mcblas/mcblasLt.h"
#include "mcdnn/mcdnn.h"

/* Each folder's part: the objects Python reads and the C functions it calls. */
#include "acl/aclop_objects.h"
#include "aclnn/objects.h"
#include "core/config.h"
#include "core/errors.h"
#include "core/handles.h"
#include "core/memory.h"
#include "kernels/kernels.h"
#include "mcblas/handle.h"
#include "mcblas/lt_descriptors.h"
#include "mcdnn/adv_descriptors.h"
#include "mcdnn/descriptors.h"
#include "sanitizer/sanitizer.h"

/* The embedded interpreter (python.c): the directories it imports from (besides its own), and the
 * report of a failed start-up. */
const char *opemu_python_site_dirs(void);
const char *opemu_library_file(void);
void opemu_python_failed(const char *message);

#endif
