"""hicann/ops-transformer posembedding/: rotary position embeddings."""

OPERATORS = {
}
