#ifndef OP_API_INC_ACLNN_FUSED_LINEAR_CROSS_ENTROPY_LOSS_GRAD_H_
#define OP_API_INC_ACLNN_FUSED_LINEAR_CROSS_ENTROPY_LOSS_GRAD_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnFusedLinearCrossEntropyLossGradGetWorkspaceSize(
    const aclTensor* grad, const aclTensor* input, const aclTensor* weight, const aclTensor* targetMask,
    const aclTensor* maskedTarget, float labelSmoothing, const aclTensor* logitsMaxOptional,
    const aclTensor* sumExpLogitsOptional, const aclTensor* softmaxOptional, aclTensor* inputGradOut,
    aclTensor* weightGradOut, uint64_t* workspaceSize, aclOpExecutor** executor);

ACLNN_API aclnnStatus aclnnFusedLinearCrossEntropyLossGrad(void* workspace, uint64_t workspaceSize,
                                                           aclOpExecutor* executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OP_API_INC_ACLNN_FUSED_LINEAR_CROSS_ENTROPY_LOSS_GRAD_H_ */
