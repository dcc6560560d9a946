"""hicann/ops-nn conv/: convolutions and their backward."""

OPERATORS = {
}
