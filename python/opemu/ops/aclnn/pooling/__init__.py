"""hicann/ops-nn pooling/: pooling and its backward."""

OPERATORS = {
}
