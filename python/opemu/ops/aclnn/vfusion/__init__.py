"""hicann/ops-nn vfusion/: fused vision operators (modulate, scaled masked softmax, deformable attention)."""

OPERATORS = {
    "aclnnModulate": "modulate",
    "aclnnModulateBackward": "modulate",
    "aclnnMultiScaleDeformableAttentionGrad": "deformable_attention",
    "aclnnMultiScaleDeformableAttnFunction": "deformable_attention",
    "aclnnScaledMaskedSoftmax": "scaled_masked_softmax",
    "aclnnScaledMaskedSoftmaxBackward": "scaled_masked_softmax",
}
