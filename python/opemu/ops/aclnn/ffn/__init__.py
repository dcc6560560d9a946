"""hicann/ops-transformer ffn/: fused feed-forward networks."""

OPERATORS = {
}
