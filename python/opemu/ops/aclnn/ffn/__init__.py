"""hicann/ops-transformer ffn/: the transformer feed-forward block, dense or split among experts."""

OPERATORS = {
    "aclnnFFN": "ffn",
    "aclnnFFNV2": "ffn",
    "aclnnFFNV3": "ffn",
}
