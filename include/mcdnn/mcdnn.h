/* mcDNN (opemu): the umbrella header, <mcdnn/mcdnn.h>. */
#ifndef MCDNN_H_
#define MCDNN_H_

#include "../mcr/mc_runtime_api.h"
#include <stdint.h>

#include "mcdnn_version.h"
#include "mcdnn_ops_infer.h"
#include "mcdnn_ops_train.h"

#endif
