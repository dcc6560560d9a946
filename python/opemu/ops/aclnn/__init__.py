"""The aclnn operators, in the vendor's tree: an operator lives in the folder of python/opemu/ops/aclnn/
named like the vendor folder that keeps it, the first component of its path in the vendor's repository
(cmake/surface/aclnn_ops.tsv, column `path`; opemu.ops.aclnn.declared reads it):

    hicann/ops-math         math/ conversion/ random/
    hicann/ops-nn           activation/ foreach/ index/ norm/ matmul/ quant/ loss/ pooling/ optim/
                            conv/ rnn/ vfusion/ control/
    hicann/ops-transformer  attention/ moe/ gmm/ posembedding/ ffn/ mc2/
    hicann/ops-cv           image/ objdetect/

Each folder's __init__.py lists the operators it implements and the module defining each
(opemu.implemented reads the lists as data). Inside a folder, simple operators are rows of a family
table (common/elementwise.py says how to add one, with its Inplace, scalar and Foreach forms);
an operator with semantics of its own has a module reading declaration → check → workspace →
compute. common/ holds what operators of several folders share: the family base classes
(elementwise rows, fills, reductions), dtype promotion and shared dtype lists, product lines, row
blocks. A helper used by one folder only lives in that folder (matmul/vocab_parallel.py)."""
