"""hicann/ops-transformer moe/: mixture-of-experts routing and gating."""

OPERATORS = {
}
