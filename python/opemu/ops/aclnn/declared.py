"""The aclnn operators the vendor declares, as data: each one's phase-1 parameters and where the vendor
keeps it. Read from cmake/surface/aclnn_ops.tsv, the table the aclnnop headers are generated from
(installed as share/opemu/aclnn_ops.tsv), so a signature is typed once: the family tables take
their parameter names and kinds from here, and docs/SUPPORT.md its per-folder counts.

`path` is where the vendor declares the operator in its repository (its op_api header, or the doc
page of an operator opbuild generates); its first component is the vendor folder (math, activation,
foreach…), which is also the folder of python/opemu/ops/aclnn/ that implements it."""
import functools
import re
from pathlib import Path

from opemu import paths

_TABLE = ("share", "opemu", "aclnn_ops.tsv")
_NAME = re.compile(r"(\w+)\s*(\[\s*\])?$")
# Parameter kinds by declared type, most specific first ("aclTensorList" also contains "aclTensor").
_KINDS = (("aclTensorList", "aclTensorList"), ("aclScalarList", "aclScalarList"), ("aclTensor", "aclTensor"),
          ("aclScalar", "aclScalar"), ("aclIntArray", "aclIntArray"), ("aclFloatArray", "aclFloatArray"),
          ("aclBoolArray", "aclBoolArray"))
_prefix = None


def use_prefix(prefix):
    """Reads the table of this prefix (the bridge passes its library's own) instead of opemu.prefix()'s."""
    global _prefix
    _prefix = prefix
    operators.cache_clear()


class Operator:
    """One declared operator pair: `name` (aclnnXxx), `repo` (hicann/ops-math…), `folder` (math…) and
    `parameters`, the phase-1 parameters as (name, kind) without workspaceSize and executor; a kind is
    aclTensor, aclScalar, aclTensorList, aclScalarList, aclIntArray, aclFloatArray, aclBoolArray or
    value."""

    def __init__(self, name, repo, path, text):
        self.name, self.repo, self.folder = name, repo, path.split("/")[0]
        self.declared = bool(text)
        self._text = text

    @functools.cached_property
    def parameters(self):
        parsed = []
        for declaration in self._text.split(",")[:-2]:   # the last two: workspaceSize, executor
            declaration = declaration.strip()
            name = _NAME.search(declaration).group(1)
            kind = next((kind for marker, kind in _KINDS if marker in declaration), "value")
            parsed.append((name, kind))
        return tuple(parsed)


@functools.lru_cache(maxsize=1)
def operators():
    """{aclnnXxx: Operator} of every operator pair of the table (plain tab-separated fields: the columns
    are looked up by name in the header row, without csv's per-field work on the long parameter lists)."""
    with open(Path(_prefix or paths.prefix()).joinpath(*_TABLE)) as f:
        columns = f.readline().rstrip("\n").split("\t")
        at = [columns.index(c) for c in ("name", "repo", "path", "workspace_parameters")]
        rows = (line.rstrip("\n").split("\t") for line in f)
        return {row[at[0]]: Operator(*(row[k] for k in at)) for row in rows}


def operator(name):
    """The declared operator `name` (aclnnXxx), or None when the vendor declares none by that name (or
    documents it by name only, without a prototype)."""
    found = operators().get(name)
    return found if found is not None and found.declared else None
