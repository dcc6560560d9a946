"""hicann/ops-cv objdetect/: object detection (IoU, non-maximum suppression, RoI align and pooling)."""

OPERATORS = {
}
