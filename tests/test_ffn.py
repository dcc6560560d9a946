"""ops-transformer ffn/: aclnnFFN(V2, V3) through the C ABI against a float64 reference of
activation(x @ w1 + b1) @ w2 + b2 written here, with the kernel's rounding points (the hidden layer rounded
to x's dtype before the second matmul); one test per documented check."""
import ctypes

import numpy as np
import pytest
import torch

from acl import DeviceTensor, recent_error, run_two_phase
from acl_args import handle, int_array
from opemu.core.status import ACLNN

INVALID, NULLPTR = ACLNN["ACLNN_ERR_PARAM_INVALID"], ACLNN["ACLNN_ERR_PARAM_NULLPTR"]
NULL = ctypes.c_void_p(None)


def reference(x, w1, w2, b1, b2, activation):
    h = x.astype(np.float64) @ w1.astype(np.float64) + (0 if b1 is None else b1.astype(np.float64))
    t = torch.from_numpy(h)
    if activation in ("geglu", "swiglu", "reglu"):
        a, b = t.chunk(2, -1)
        base = {"geglu": lambda z: torch.nn.functional.gelu(z, approximate="tanh"), "swiglu": torch.nn.functional.silu,
                "reglu": torch.relu}[activation]
        t = base(a) * b
    else:
        t = {"relu": torch.relu, "silu": torch.nn.functional.silu,
             "gelu": lambda z: torch.nn.functional.gelu(z, approximate="tanh"),
             "fastgelu": lambda z: z * torch.sigmoid(1.702 * z)}[activation](t)
    h = t.numpy().astype(x.dtype).astype(np.float64)
    return h @ w2.astype(np.float64) + (0 if b2 is None else b2.astype(np.float64))


def ffn(x, w1, w2, b1, b2, activation, precise, op="aclnnFFN", experts=None, index_flag=False, y=None):
    tensors = [DeviceTensor(t) if t is not None else None for t in (x, w1, w2, b1, b2)]
    out = DeviceTensor(np.zeros((x.shape[0], w2.shape[-1]), x.dtype) if y is None else y)
    tokens = NULL if experts is None else int_array(experts)
    extra = [] if op == "aclnnFFN" else [ctypes.c_bool(index_flag)]
    status, _, _ = run_two_phase(op, *[handle(t) for t in tensors[:3]], tokens, handle(tensors[3]), handle(tensors[4]),
                                 *[NULL] * 8, ctypes.c_char_p(activation.encode()), ctypes.c_int64(precise), *extra,
                                 handle(out))
    return status, recent_error(), out.storage().reshape(out.shape)


def weights(k, n, dtype, seed=0, experts=None):
    rng = np.random.default_rng(seed)
    lead = () if experts is None else (experts,)
    return ((rng.standard_normal(lead + (k, n)) / np.sqrt(k)).astype(dtype),
            (rng.standard_normal(lead + (n, k)) / np.sqrt(n)).astype(dtype))


@pytest.mark.parametrize("activation", ["relu", "silu", "gelu", "fastgelu"])
def test_ffn_high_precision_is_the_formula(activation):
    rng = np.random.default_rng(1)
    x = rng.standard_normal((12, 32)).astype(np.float16)
    w1, w2 = weights(32, 48, np.float16)
    b1, b2 = rng.standard_normal(48).astype(np.float16), rng.standard_normal(32).astype(np.float16)
    status, message, y = ffn(x, w1, w2, b1, b2, activation, 0)
    assert status == 0, message
    np.testing.assert_allclose(y.astype(np.float64), reference(x, w1, w2, b1, b2, activation), rtol=1e-2, atol=1e-2)


@pytest.mark.parametrize("activation", ["swiglu", "geglu", "reglu"])
def test_ffn_glu_forms_gate_the_second_half(activation):
    rng = np.random.default_rng(2)
    x = rng.standard_normal((8, 16)).astype(np.float16)
    w1 = (rng.standard_normal((16, 64)) / 4).astype(np.float16)
    w2 = (rng.standard_normal((32, 16)) / 6).astype(np.float16)
    status, message, y = ffn(x, w1, w2, None, None, activation, 1)
    assert status == 0, message
    np.testing.assert_allclose(y.astype(np.float64), reference(x, w1, w2, None, None, activation), rtol=2e-2, atol=2e-2)


def test_ffn_v2_expert_tokens_split_the_rows_among_experts():
    rng = np.random.default_rng(3)
    x = rng.standard_normal((10, 16)).astype(np.float16)
    w1, w2 = weights(16, 24, np.float16, experts=3)
    status, message, y = ffn(x, w1, w2, None, None, "relu", 0, op="aclnnFFNV2", experts=[3, 7, 10], index_flag=True)
    assert status == 0, message
    for e, rows in enumerate((slice(0, 3), slice(3, 7), slice(7, 10))):
        np.testing.assert_allclose(y[rows].astype(np.float64), reference(x[rows], w1[e], w2[e], None, None, "relu"),
                                   rtol=1e-2, atol=1e-2)


def test_null_x_is_nullptr():
    w1, w2 = weights(16, 24, np.float16)
    tensors = [DeviceTensor(t) for t in (w1, w2, np.zeros((4, 16), np.float16))]
    status, _, _ = run_two_phase("aclnnFFN", NULL, handle(tensors[0]), handle(tensors[1]), NULL, NULL, NULL,
                                 *[NULL] * 8, ctypes.c_char_p(b"relu"), ctypes.c_int64(0), handle(tensors[2]))
    assert status == NULLPTR and "x must not be nullptr." in recent_error()


def test_x_k_must_be_weight1_k():
    x = np.zeros((4, 8), np.float16)
    w1, w2 = weights(16, 24, np.float16)
    status, message, _ = ffn(x, w1, w2, None, None, "relu", 0, y=np.zeros((4, 16), np.float16))
    assert status == INVALID and "x KDimValue[8] is not equal to weight1 kDimValue[16]" in message


def test_glu_needs_high_performance():
    x = np.zeros((4, 16), np.float16)
    w1, w2 = np.zeros((16, 48), np.float16), np.zeros((24, 16), np.float16)
    status, message, _ = ffn(x, w1, w2, None, None, "swiglu", 0)
    assert status == INVALID and "Detected glu, inner precision is not right!" in message


def test_bf16_needs_high_precision():
    import ml_dtypes
    x = np.zeros((4, 16), ml_dtypes.bfloat16)
    w1, w2 = weights(16, 24, ml_dtypes.bfloat16)
    status, message, _ = ffn(x, w1, w2, None, None, "relu", 1)
    assert status == INVALID and "FFN bfloat16 is only support high precision now!" in message


def test_bias_of_the_wrong_length_is_invalid():
    x = np.zeros((4, 16), np.float16)
    w1, w2 = weights(16, 24, np.float16)
    status, message, _ = ffn(x, w1, w2, np.zeros(20, np.float16), None, "relu", 0)
    assert status == INVALID and "bias1 last dim should be 24, but bias1 last dim is 20" in message
