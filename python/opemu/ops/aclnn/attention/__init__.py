"""hicann/ops-transformer attention/: flash attention for training (forward, variable length, grad) and
inference (prompt, incremental, fused), over the layouts, masks and arithmetic of core.py."""

OPERATORS = {
    "aclnnFlashAttentionScore": "flash_attention_score",
    "aclnnFlashAttentionScoreGrad": "flash_attention_score_grad",
    "aclnnFlashAttentionScoreGradV2": "flash_attention_score_grad",
    "aclnnFlashAttentionScoreV2": "flash_attention_score",
    "aclnnFlashAttentionUnpaddingScoreGrad": "flash_attention_score_grad",
    "aclnnFlashAttentionUnpaddingScoreGradV2": "flash_attention_score_grad",
    "aclnnFlashAttentionUnpaddingScoreGradV3": "flash_attention_score_grad",
    "aclnnFlashAttentionUnpaddingScoreGradV4": "flash_attention_score_grad",
    "aclnnFlashAttentionVarLenScore": "flash_attention_score",
    "aclnnFlashAttentionVarLenScoreV2": "flash_attention_score",
    "aclnnFlashAttentionVarLenScoreV3": "flash_attention_score",
    "aclnnFlashAttentionVarLenScoreV4": "flash_attention_score",
    "aclnnFusedInferAttentionScore": "infer_attention",
    "aclnnFusedInferAttentionScoreV2": "infer_attention",
    "aclnnFusedInferAttentionScoreV3": "infer_attention",
    "aclnnFusedInferAttentionScoreV4": "infer_attention",
    "aclnnIncreFlashAttention": "infer_attention",
    "aclnnIncreFlashAttentionV2": "infer_attention",
    "aclnnIncreFlashAttentionV3": "infer_attention",
    "aclnnIncreFlashAttentionV4": "infer_attention",
    "aclnnPromptFlashAttention": "infer_attention",
    "aclnnPromptFlashAttentionV2": "infer_attention",
    "aclnnPromptFlashAttentionV3": "infer_attention",
}
