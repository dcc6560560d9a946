"""hicann/ops-nn activation/: activations and their backward, softmax and log-softmax."""

OPERATORS = {
    "aclnnGelu": "elementwise",
    "aclnnGeluV2": "elementwise",
    "aclnnInplaceRelu": "elementwise",
    "aclnnInplaceSigmoid": "elementwise",
    "aclnnLogSoftmax": "softmax",
    "aclnnRelu": "elementwise",
    "aclnnSigmoid": "elementwise",
    "aclnnSilu": "elementwise",
    "aclnnSoftmax": "softmax",
}
