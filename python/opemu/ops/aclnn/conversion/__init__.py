"""hicann/ops-math conversion/: concatenation and splits, transposes, copies and fills, pads, clamps."""

OPERATORS = {
    "aclnnCat": "cat_split",
    "aclnnClamp": "clamp",
    "aclnnInplaceCopy": "fill",
    "aclnnInplaceFillScalar": "fill",
    "aclnnInplaceFillTensor": "fill",
    "aclnnPermute": "permute",
    "aclnnSplitWithSize": "cat_split",
}
