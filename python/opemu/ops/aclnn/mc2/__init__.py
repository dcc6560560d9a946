"""hicann/ops-transformer mc2/: products fused with collectives across devices."""

OPERATORS = {
}
