"""mcBLAS routines, one module per BLAS level (and the host/device copies). A routine is a function
`(letter, call) -> task or None` registered for each entry point of its family table (S/D/C/Z/H
variants are rows of one table, not copies): ROUTINES maps the entry point to it."""
import functools

ROUTINES = {}


def family(table):
    """Registers the decorated routine under every `name: letter` pair of `table`; `letter` picks the
    element type (opemu.core.mcblas.TYPES) and any variant the routine distinguishes by it."""
    def register(fn):
        for name, letter in table.items():
            ROUTINES[name] = functools.partial(fn, letter)
        return fn
    return register


def letters(pattern, spelled="SDCZ"):
    """{pattern % letter: letter}: the usual S/D/C/Z family of one routine."""
    return {pattern % letter: letter for letter in spelled}
