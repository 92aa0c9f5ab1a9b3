"""The CPU plugin's integer Divide truncates although ``m_pythondiv=true`` asks for floor division.

OpenVINO's Divide-1 spec and core reference floor integer quotients when
``m_pythondiv`` is true (its default, and what PyTorch's and ONNX's integer
divisions become); the CPU plugin of 2026.4 computes C's truncating ``/`` whatever
the attribute says.  ``ovonehot diff --oracle cpu`` names it ``divide-truncates``;
with operands of one sign nothing deviates.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from ovonehot.cli import main

ov = pytest.importorskip("openvino", reason="expected values come from OpenVINO, which is not installed")
ops = pytest.importorskip("openvino.opset15")


def _divide_then_one_hot(tmp_path: Path, dtype: type) -> Path:
    x = ops.parameter([6], ov.Type(np.dtype(dtype)), name="x")
    q = ops.divide(x, ops.constant(np.array([3], dtype)))
    assert q.get_attributes()["m_pythondiv"] is True
    one_hot = ops.one_hot(
        q, ops.constant(np.int64(4)), ops.constant(np.float32(1)), ops.constant(np.float32(0)), -1
    )
    xml = tmp_path / "divide.xml"
    ov.save_model(ov.Model([one_hot, q], [x]), str(xml), compress_to_fp16=False)
    return xml


@pytest.mark.parametrize("dtype", [np.int32, np.int64], ids=["i32", "i64"])
def test_cpu_truncating_divide_is_a_named_deviation(tmp_path, capsys, dtype):  # type: ignore[no-untyped-def]
    xml = _divide_then_one_hot(tmp_path, dtype)
    np.savez(tmp_path / "in.npz", x=np.array([-7, -6, -1, 0, 5, 7], dtype))
    assert main(["diff", str(xml), "--inputs", str(tmp_path / "in.npz"), "--oracle", "both"]) == 0
    out = capsys.readouterr().out
    assert "[reference]" in out and "plugin deviation" in out and "divide-truncates" in out
    assert "-3 -> -2" in out  # -7 / 3: floor -3, the CPU's -2


def test_cpu_divide_of_nonnegative_operands_does_not_deviate(tmp_path, capsys):  # type: ignore[no-untyped-def]
    xml = _divide_then_one_hot(tmp_path, np.int32)
    np.savez(tmp_path / "in.npz", x=np.array([0, 1, 2, 3, 7, 11], np.int32))
    assert main(["diff", str(xml), "--inputs", str(tmp_path / "in.npz"), "--oracle", "cpu"]) == 0
    out = capsys.readouterr().out
    assert "divide-truncates" not in out and "plugin deviation" not in out
