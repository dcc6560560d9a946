"""hicann/ops-nn quant/: quantisation and dequantisation."""

OPERATORS = {
}
