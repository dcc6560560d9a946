"""hicann/ops-math conversion/: concatenation and splits, transposes, copies and fills, pads, clamps."""

OPERATORS = {
    "aclnnCat": "cat_split",
    "aclnnClamp": "clamp",
    "aclnnInplaceCopy": "fill",
    "aclnnInplaceFillScalar": "fill",
    "aclnnInplaceFillTensor": "fill",
    "aclnnInplaceMaskedFillScalar": "masked_fill",
    "aclnnInplaceTril": "triangle",
    "aclnnInplaceTriu": "triangle",
    "aclnnPermute": "permute",
    "aclnnSplitWithSize": "cat_split",
    "aclnnStack": "pack",
    "aclnnTril": "triangle",
    "aclnnTriu": "triangle",
}
