"""hicann/ops-nn foreach/: the Foreach* operators: one elementwise function over every tensor of a list."""

OPERATORS = {
    "aclnnForeachAbs": "elementwise",
    "aclnnForeachAddListV2": "elementwise",
    "aclnnForeachDivScalarV2": "elementwise",
    "aclnnForeachMulScalarV2": "elementwise",
    "aclnnForeachSqrt": "elementwise",
    "aclnnForeachSubListV2": "elementwise",
}
