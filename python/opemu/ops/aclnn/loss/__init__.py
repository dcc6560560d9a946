"""hicann/ops-nn loss/: losses and their backward."""

OPERATORS = {
    "aclnnFusedCrossEntropyLossWithMaxSum": "fused_cross_entropy_loss_with_max_sum",
    "aclnnNLLLoss": "nll_loss",
    "aclnnNLLLoss2d": "nll_loss",
    "aclnnNLLLoss2dBackward": "nll_loss",
    "aclnnNLLLossBackward": "nll_loss",
}
