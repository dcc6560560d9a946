"""hicann/ops-nn pooling/: pooling and its backward."""

OPERATORS = {
    "aclnnAdaptiveAvgPool2d": "adaptive_pool",
    "aclnnAdaptiveAvgPool2dBackward": "adaptive_pool",
    "aclnnAdaptiveAvgPool3d": "adaptive_pool",
    "aclnnAdaptiveAvgPool3dBackward": "adaptive_pool",
    "aclnnAdaptiveMaxPool2d": "adaptive_pool",
    "aclnnAdaptiveMaxPool2dBackward": "adaptive_pool",
    "aclnnAdaptiveMaxPool3d": "adaptive_pool",
    "aclnnAdaptiveMaxPool3dBackward": "adaptive_pool",
    "aclnnAvgPool2d": "avg_pool",
    "aclnnAvgPool2dBackward": "avg_pool",
    "aclnnAvgPool3d": "avg_pool",
    "aclnnAvgPool3dBackward": "avg_pool",
    "aclnnMaxPool": "max_pool",
    "aclnnMaxPool2dWithIndices": "max_pool",
    "aclnnMaxPool2dWithIndicesBackward": "max_pool",
    "aclnnMaxPool2dWithMask": "max_pool",
    "aclnnMaxPool2dWithMaskBackward": "max_pool",
    "aclnnMaxPool3dWithArgmax": "max_pool",
    "aclnnMaxPool3dWithArgmaxBackward": "max_pool",
}
