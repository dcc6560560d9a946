"""hicann/ops-nn matmul/: matrix products, quantised and fused products, the vocab-parallel cross-entropy products."""

OPERATORS = {
    "aclnnAddmm": "matmul",
    "aclnnBatchMatMul": "matmul",
    "aclnnFusedLinearCrossEntropyLossGrad": "fused_linear_cross_entropy_loss_grad",
    "aclnnFusedLinearOnlineMaxSum": "fused_linear_online_max_sum",
    "aclnnInplaceAddmm": "matmul",
    "aclnnMatmul": "matmul",
    "aclnnMm": "matmul",
}
