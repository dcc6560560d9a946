"""hicann/ops-transformer attention/: attention (flash attention, incremental and prompt attention, MLA prolog…)."""

OPERATORS = {
}
