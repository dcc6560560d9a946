"""hicann/ops-nn activation/: activations and their backward, softmax and log-softmax."""

OPERATORS = {
    "aclnnGelu": "elementwise",
    "aclnnGeluV2": "elementwise",
    "aclnnInplaceRelu": "elementwise",
    "aclnnInplaceSigmoid": "elementwise",
    "aclnnLogSoftmax": "softmax",
    "aclnnLogSoftmaxBackward": "softmax_backward",
    "aclnnRelu": "elementwise",
    "aclnnSigmoid": "elementwise",
    "aclnnSilu": "elementwise",
    "aclnnSoftmax": "softmax",
    "aclnnSoftmaxBackward": "softmax_backward",
    "aclnnThresholdBackward": "threshold_backward",
}
