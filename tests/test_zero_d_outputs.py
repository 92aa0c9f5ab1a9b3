"""0-d inputs give 0-d arrays, never NumPy scalars, against OpenVINO's CPU plugin.

NumPy ufuncs return a NumPy scalar (``np.bool_``, ``np.int8``...) for a 0-d input; the
evaluator refuses anything but an array ("output 0 is a bool, not an array").  OpenVINO's
PyTorch frontend makes such 0-d values often (``~mask`` on a scalar, ``torch.isfinite`` of a
0-d loss): BitwiseNot crashed in 20 of OpenVINO's own layer-test cases.  LogicalNot, Convert
i32 -> f16, Pad and RandomUniform (``np.ascontiguousarray`` makes a 0-d array 1-d) were found by a
sweep of 0-d inputs through the registry.  Each case runs the
one-op IR exactly and with ``exact=False``.  Expected values come from the CPU plugin in its
deterministic config (exact for these ops on normal values): the core reference has no
``Node.evaluate`` for BitwiseNot, IsNaN, IsInf or IsFinite (it returns false).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from ovref import C, P, assert_same, build, compare_op, cpu_outputs, export

ops = pytest.importorskip("openvino.opset15")

INTEGERS = [np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64, np.uint64]


@pytest.mark.parametrize("value", [np.bool_(True), np.bool_(False)] + [t(5) for t in INTEGERS], ids=repr)
def test_bitwise_not_0d(tmp_path: Path, value: Any) -> None:
    _against_cpu(tmp_path, ops.bitwise_not, np.asarray(value))


FLOAT_CHECKS: dict[str, Callable[[Any], Any]] = {
    "IsNaN": ops.is_nan,
    "IsFinite": ops.is_finite,
    "IsInf": ops.is_inf,
}
# (not bf16: cpu_outputs feeds none; not f64: the plugin computes it in f32 and saturates -inf)
FLOATS = [np.float16, np.float32]


@pytest.mark.parametrize("op", list(FLOAT_CHECKS))
@pytest.mark.parametrize("dtype", FLOATS, ids=lambda t: np.dtype(t).name)
@pytest.mark.parametrize("value", [1.5, float("nan"), float("-inf")], ids=["finite", "nan", "-inf"])
def test_float_checks_0d(tmp_path: Path, op: str, dtype: Any, value: float) -> None:
    _against_cpu(tmp_path, FLOAT_CHECKS[op], np.asarray(value, dtype=dtype))


def _against_cpu(tmp_path: Path, factory: Callable[[Any], Any], x: np.ndarray) -> None:
    node, params = build(factory, [P(x)])
    expected = cpu_outputs(node, params, [x])[0]
    model = export(tmp_path, node, params)
    for exact in (True, False):
        ours = next(iter(model.run([x], exact=exact).values()))
        assert isinstance(ours, np.ndarray) and ours.shape == ()
        assert_same(ours, expected, where=f"exact={exact}")


def test_logical_not_0d(tmp_path: Path) -> None:
    _against_cpu(tmp_path, ops.logical_not, np.asarray(True))


# Found by a sweep of 0-d inputs through the registry: these are checked against the core reference.
def _against_reference(tmp_path: Path, factory: Callable[..., Any], inputs: list[Any]) -> None:
    out = compare_op(tmp_path, factory, inputs)
    assert out.ours is not None and out.ours[0].shape == ()
    feeds = [i.array for i in inputs if not i.const]
    fast = next(iter(out.model.run(feeds, exact=False).values()))
    assert out.theirs is not None
    assert_same(fast, out.theirs[0], where="exact=False")


def test_convert_i32_to_f16_0d(tmp_path: Path) -> None:
    _against_reference(tmp_path, lambda x: ops.convert(x, "f16"), [P(np.int32(70000))])


def test_pad_0d(tmp_path: Path) -> None:
    empty = np.zeros(0, np.int64)
    _against_reference(
        tmp_path, lambda x, b, e: ops.pad(x, b, e, "constant"), [P(np.float32(1.5)), C(empty), C(empty)]
    )


def test_random_uniform_0d(tmp_path: Path) -> None:
    _against_reference(
        tmp_path,
        lambda s, lo, hi: ops.random_uniform(s, lo, hi, "f32", 7, 11),
        [C(np.zeros(0, np.int64)), C(np.float32(0.0)), C(np.float32(1.0))],
    )
