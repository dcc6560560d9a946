"""hicann/ops-nn control/: stream control operators."""

OPERATORS = {
    "aclnnSleep": "sleep",
}
