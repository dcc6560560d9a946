/* MACA runtime (opemu): <mc_runtime.h> with -I$MACA_PATH/include/mcr, or <mcr/mc_runtime.h>.
 *
 * What a MACA program includes: the C API (mc_runtime_api.h), the C++ overloads
 * (mc_runtime_api_template_wrapper.h), and the C library headers the vendor's runtime header brings
 * along, so programs that call printf, malloc, memcpy or sqrt without including their headers
 * compile as they do against the real toolkit. */
#ifndef OPEMU_MC_RUNTIME_H
#define OPEMU_MC_RUNTIME_H

#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#ifdef __cplusplus
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#endif

#include "mc_runtime_api.h"
#include "mc_runtime_api_template_wrapper.h"

#endif
