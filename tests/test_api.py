"""opemu.api, as its docstring documents it: the operators on NumPy arrays, by the header's argument
names, with a clear error for each way to call it wrongly."""
import numpy as np
import pytest

import opemu.api as api
from opemu.core import dtypes


def test_call_runs_an_operator_by_the_headers_names():
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    out = api.call("aclnnAdds", self=x, other=api.Scalar.of(2.0, dtypes.acl("FLOAT")), alpha=api.Scalar.of(1),
                   out=np.empty_like(x))["out"]
    np.testing.assert_array_equal(out, x + 2)


def test_a_tensor_list_is_a_list_of_arrays():
    x = np.ones((2, 3), np.float32)
    out = api.call("aclnnCat", tensors=[x, 2 * x], dim=0, out=np.empty((4, 3), np.float32))["out"]
    np.testing.assert_array_equal(out, np.concatenate([x, 2 * x]))


def test_operators_lists_every_implemented_operator_before_any_call():
    names = api.operators()
    assert "aclnnAdd" in names and "aclnnEmbedding" in names and names == sorted(names)


def test_parameters_are_the_headers():
    assert api.parameters("aclnnAdds") == (("self", "aclTensor"), ("other", "aclScalar"), ("alpha", "aclScalar"),
                                           ("out", "aclTensor"))


def test_an_unknown_operator_names_close_ones():
    with pytest.raises(api.UnknownOperator, match=r"aclnnAddd is not an aclnn operator .* did you mean aclnnAdd"):
        api.call("aclnnAddd")


def test_an_argument_the_operator_does_not_take_is_a_type_error():
    x = np.zeros(3, np.float32)
    with pytest.raises(TypeError, match=r"aclnnAdds\(\) got unexpected argument\(s\) bogus; it takes self, other"):
        api.call("aclnnAdds", self=x, other=api.Scalar.of(1.0), alpha=api.Scalar.of(1), out=x, bogus=1)


def test_a_missing_value_argument_is_a_type_error():
    x = np.zeros(3, np.float32)
    with pytest.raises(TypeError, match=r"aclnnCat\(\) missing argument\(s\): dim"):
        api.call("aclnnCat", tensors=[x], out=x)


def test_a_missing_scalar_is_the_vendors_null_check():
    x = np.zeros(3, np.float32)
    with pytest.raises(api.VendorError, match="Expected a value of type number for argument other but instead "
                                              "found type null."):
        api.call("aclnnAdds", self=x, alpha=api.Scalar.of(1), out=x)
