/* mcDNN (opemu): the umbrella header, <mcdnn/mcdnn.h> (or <mcdnn.h> with -I$MACA_PATH/include/mcdnn).
 * It includes every sub-library's header, as cuDNN 8's cudnn.h does. */
#ifndef MCDNN_H_
#define MCDNN_H_

#include "../mcr/mc_runtime_api.h"
#include <stdint.h>

#include "mcdnn_version.h"
#include "mcdnn_ops_infer.h"
#include "mcdnn_ops_train.h"
#include "mcdnn_adv_infer.h"
#include "mcdnn_adv_train.h"
#include "mcdnn_cnn_infer.h"
#include "mcdnn_cnn_train.h"
#include "mcdnn_backend.h"

#endif
