"""hicann/ops-nn vfusion/: fused vision operators (modulate, scaled masked softmax, deformable attention)."""

OPERATORS = {
}
