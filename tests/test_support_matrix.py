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
    from opemu import implemented
    listed = {name for operators in implemented.aclnn_folders().values() for name in operators}
    unlisted = sorted(name for name, meta in table.items() if name.startswith("aclnn") and "GetWorkspaceSize" not in name
                      and meta.get("declared", True) and name not in listed)
    for name in unlisted[:3]:   # none once every declared operator is implemented
        assert support.status_of(name, table[name]) == "not supported", name


def test_support_matrix_counts_operators_per_vendor_folder():
    """Declared: the operator pairs the vendor keeps in the folder (math: aclStft and aclRfft1D among them); implemented:
    the folder's own list."""
    from opemu import implemented
    rows = {folder: (repo, declared, done) for repo, folder, declared, done in support.per_folder()}
    assert rows["math"] == ("hicann/ops-math", 293, len(implemented.aclnn_folders()["math"]))
    assert rows["foreach"][:2] == ("hicann/ops-nn", 78)
    assert set(rows) == set(implemented.aclnn_folders())
    assert "| hicann/ops-math | math/ | 293 | %d |" % rows["math"][2] in support.render()
