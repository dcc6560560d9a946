"""hicann/ops-nn conv/: convolutions and their backward."""

OPERATORS = {
    "aclnnConvDepthwise2d": "conv_tbc_depthwise",
    "aclnnConvTbc": "conv_tbc_depthwise",
    "aclnnConvTbcBackward": "conv_tbc_depthwise",
    "aclnnConvolution": "convolution",
    "aclnnConvolutionBackward": "convolution_backward",
}
