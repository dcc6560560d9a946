"""hicann/ops-nn index/: gathers, scatters, embeddings, index_put, top-k and sorts."""

OPERATORS = {
    "aclnnEmbedding": "embedding",
    "aclnnEmbeddingDenseBackward": "embedding_dense_backward",
    "aclnnIndexPutImpl": "index_select_put",
    "aclnnIndexSelect": "index_select_put",
    "aclnnTopk": "topk",
}
