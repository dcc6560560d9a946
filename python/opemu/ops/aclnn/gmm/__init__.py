"""hicann/ops-transformer gmm/: grouped matrix products."""

OPERATORS = {
}
