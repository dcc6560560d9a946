/* MACA runtime (opemu): <mc_runtime.h> with -I$MACA_PATH/include/mcr, or <mcr/mc_runtime.h>. */
#ifndef OPEMU_MC_RUNTIME_H
#define OPEMU_MC_RUNTIME_H
#include "mc_runtime_api.h"
#endif
