"""hicann/ops-nn foreach/: the Foreach* operators: one elementwise function over every tensor of a list."""

OPERATORS = {
}
