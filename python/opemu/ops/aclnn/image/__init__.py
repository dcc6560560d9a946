"""hicann/ops-cv image/: image sampling and resizing (grid samplers, upsampling…)."""

OPERATORS = {
}
