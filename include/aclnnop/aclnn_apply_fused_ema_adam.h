/* Same shape as the toolkit's auto-generated op headers: only acl_meta.h, no ACLNN_API. */
#ifndef ACLNN_APPLY_FUSED_EMA_ADAM_H_
#define ACLNN_APPLY_FUSED_EMA_ADAM_H_

#include "aclnn/acl_meta.h"

#ifdef __cplusplus
extern "C" {
#endif

__attribute__((visibility("default")))
aclnnStatus aclnnApplyFusedEmaAdamGetWorkspaceSize(
    const aclTensor *grad,
    aclTensor *varRef,
    aclTensor *mRef,
    aclTensor *vRef,
    aclTensor *sRef,
    const aclTensor *step,
    double lr,
    double emaDecay,
    double beta1,
    double beta2,
    double eps,
    int64_t mode,
    bool biasCorrection,
    double weightDecay,
    uint64_t *workspaceSize,
    aclOpExecutor **executor);

__attribute__((visibility("default")))
aclnnStatus aclnnApplyFusedEmaAdam(
    void *workspace,
    uint64_t workspaceSize,
    aclOpExecutor *executor,
    aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNN_APPLY_FUSED_EMA_ADAM_H_ */
