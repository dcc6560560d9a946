"""hicann/ops-nn optim/: optimizer steps (Adam, AdamW, SGD…)."""

OPERATORS = {
    "aclnnApplyFusedEmaAdam": "apply_fused_ema_adam",
}
