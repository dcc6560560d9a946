"""hicann/ops-nn optim/: optimizer steps (Adam, AdamW, SGD…)."""

OPERATORS = {
    "aclnnAdvanceStep": "advance_step",
    "aclnnAdvanceStepV2": "advance_step",
    "aclnnApplyAdam": "adam",
    "aclnnApplyAdamW": "adam",
    "aclnnApplyAdamWV2": "adam",
    "aclnnApplyFusedEmaAdam": "apply_fused_ema_adam",
    "aclnnFusedAdamw": "fused",
    "aclnnFusedSgd": "fused",
}
