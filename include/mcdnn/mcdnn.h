/* mcDNN (opemu): the umbrella header, <mcdnn/mcdnn.h> (or <mcdnn.h> with -I$MACA_PATH/include/mcdnn).
 * It includes every sub-library's header, as cuDNN 8's cudnn.h does. Like cuDNN's headers, which include
 * cuda_runtime.h, every mcDNN and mcBLAS header includes the whole runtime header (mc_runtime.h): a C++
 * program that includes only <mcdnn.h> gets the typed overloads, mcMalloc(&floatPtr, n) among them. */
#ifndef MCDNN_H_
#define MCDNN_H_

#include "../mcr/mc_runtime.h"
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
