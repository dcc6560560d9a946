// The ops-math elementwise families' tiny two-phase calls for aclnn_ops_speed.cpp: one case per family, its
// slowest member (name[family]).
#include "aclnnop/aclnn_angle_v2.h"
#include "aclnnop/aclnn_div.h"
#include "aclnnop/aclnn_gt_scalar.h"
#include "aclnnop/aclnn_isclose.h"
#include "aclnnop/aclnn_isin_tensor_scalar.h"
#include "aclnnop/aclnn_left_shift.h"
#include "aclnnop/aclnn_maxn.h"
#include "aclnnop/aclnn_nan_to_num.h"
#include "aclnnop/aclnn_scale.h"
#include "aclnnop/aclnn_sinc.h"

static std::vector<Case> math_cases()
{
    int64_t n = 8;
    aclTensor *x = tensor({n}), *y = tensor({n}), *out = tensor({n});
    aclTensor *xi = tensor({n}, ACL_INT32), *yi = tensor({n}, ACL_INT32), *outi = tensor({n}, ACL_INT32);
    aclTensor* flags = tensor({n}, ACL_BOOL);
    float half = 0.5f;
    static aclScalar* threshold = aclCreateScalar(&half, ACL_FLOAT);
    aclTensor* three[3] = {tensor({n}), tensor({n}), tensor({n})};
    aclTensorList* list = aclCreateTensorList(three, 3);
    std::vector<Case> all = {
        {"sinc[transcendental]", [=](uint64_t* s, aclOpExecutor** e) { return aclnnSincGetWorkspaceSize(x, out, s, e); },
         aclnnSinc},
        {"nan_to_num[rounding]", [=](uint64_t* s, aclOpExecutor** e) {
             return aclnnNanToNumGetWorkspaceSize(x, 0.0f, 1e4f, -1e4f, out, s, e); }, aclnnNanToNum},
        {"div_mod_trunc[division]", [=](uint64_t* s, aclOpExecutor** e) {
             return aclnnDivModGetWorkspaceSize(xi, yi, 1, outi, s, e); }, aclnnDivMod},
        {"left_shift[bitwise]", [=](uint64_t* s, aclOpExecutor** e) {
             return aclnnLeftShiftGetWorkspaceSize(xi, yi, outi, s, e); }, aclnnLeftShift},
        {"gt_scalar[comparison]", [=](uint64_t* s, aclOpExecutor** e) {
             return aclnnGtScalarGetWorkspaceSize(x, threshold, flags, s, e); }, aclnnGtScalar},
        {"is_close[logical]", [=](uint64_t* s, aclOpExecutor** e) {
             return aclnnIsCloseGetWorkspaceSize(x, y, 1e-5, 1e-8, false, flags, s, e); }, aclnnIsClose},
        {"angle_v2[complex]", [=](uint64_t* s, aclOpExecutor** e) { return aclnnAngleV2GetWorkspaceSize(x, out, s, e); },
         aclnnAngleV2},
        {"max_n[lists]", [=](uint64_t* s, aclOpExecutor** e) { return aclnnMaxNGetWorkspaceSize(list, out, s, e); },
         aclnnMaxN},
        {"is_in_tensor_scalar[isin]", [=](uint64_t* s, aclOpExecutor** e) {
             return aclnnIsInTensorScalarGetWorkspaceSize(x, threshold, false, false, flags, s, e); },
         aclnnIsInTensorScalar},
        {"scale[scale]", [=](uint64_t* s, aclOpExecutor** e) {
             return aclnnScaleGetWorkspaceSize(x, y, y, 0, 1, true, out, s, e); }, aclnnScale},
    };
    return all;
}
