"""docs/SUPPORT.md is generated from the headers and the operator registry and must be current."""
from opemu import support
from conftest import ROOT, opemu_only

pytestmark = [opemu_only]


def test_support_matrix_is_current():
    assert (ROOT / "docs" / "SUPPORT.md").read_text() == support.render(), \
        "docs/SUPPORT.md is stale: run `opemu support --write docs/SUPPORT.md`"


def test_every_declared_entry_point_is_listed():
    text = support.render()
    for name, meta in support.entry_points().items():
        assert meta.get("demangled", name) in text, name


def test_unimplemented_entry_points_say_so():
    table = support.entry_points()
    assert support.status_of("aclDumpOpTensors", table["aclDumpOpTensors"]).startswith("not")
    assert support.status_of("aclnnEmbedding", table["aclnnEmbedding"]).startswith("implemented")
    assert support.status_of("aclnnAcos", table["aclnnAcos"]) == "not supported"
