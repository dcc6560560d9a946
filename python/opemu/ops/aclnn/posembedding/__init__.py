"""hicann/ops-transformer posembedding/: rotary position embeddings."""

OPERATORS = {
    "aclnnApplyRotaryPosEmb": "rope",
    "aclnnApplyRotaryPosEmbV2": "rope",
    "aclnnInterleaveRope": "rope",
    "aclnnRopeWithSinCosCache": "rope",
    "aclnnRotaryPositionEmbedding": "rope",
    "aclnnRotaryPositionEmbeddingGrad": "rope",
}
