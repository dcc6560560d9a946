"""hicann/ops-math random/: random sampling and dropout (the generator's seed and offset contract)."""

OPERATORS = {
}
