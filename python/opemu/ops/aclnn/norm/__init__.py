"""hicann/ops-nn norm/: normalisations (RmsNorm, LayerNorm, BatchNorm, GroupNorm…), their backward and p-norms."""

OPERATORS = {
    "aclnnLayerNorm": "norms",
    "aclnnNorm": "lp_norm",
    "aclnnRmsNorm": "norms",
}
