"""Make the replay folders of docs/FINDINGS.md: one small model per finding, built with OpenVINO's
Python API, then ``ovonehot diff MODEL --oracle both --out-dir ir/replays/NAME`` (or the one oracle
``ORACLE`` names; inputs given, so
every folder replays the exact run: ``ovonehot diff ir/replays/NAME``), and the standalone
upstream reproducer ``docs/repros/NAME.py`` (``ovonehot repro``; numpy + openvino only) for
every finding where ovonehot computes the outputs.

Run from the repository root: ``python ir/replays/generate.py``.  Needs openvino.
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

import numpy as np
import openvino as ov
from openvino import opset1, opset16

from ovonehot import cli
from ovonehot.npyio import save_archive

HERE = Path(__file__).resolve().parent
REPROS = HERE.parent.parent / "docs" / "repros"
T = ov.Type


def const(value: object, et: object) -> object:
    return opset16.constant(value, dtype=et)


def bits16(u: int) -> np.ndarray:
    return np.array(u, np.uint16).view(np.float16)


def one_hot(
    p: object, depth: object, on: object, off: object, axis: int = -1, mode: str | None = None
) -> object:
    if mode is None:
        return opset1.one_hot(p, depth, on, off, axis)
    return opset16.one_hot(p, depth, on, off, axis, negative_indices_mode=mode)


Built = tuple[ov.Model, dict[str, np.ndarray]]


def wrap_i64_indices() -> Built:
    p = opset16.parameter([4], T.i64, name="indices")
    out = one_hot(p, const(4, T.i64), const(1.0, T.f32), const(0.0, T.f32))
    return ov.Model([out], [p], "m"), {"indices": np.array([1, 2**32 + 1, 2**32 + 3, -(2**32) + 2], np.int64)}


def saturate_i64_values() -> Built:
    p = opset16.parameter([3], T.i32, name="indices")
    out = one_hot(p, const(3, T.i64), const(2**40, T.i64), const(-(2**40), T.i64))
    return ov.Model([out], [p], "m"), {"indices": np.array([0, 1, 5], np.int32)}


def f64_values_through_f32() -> Built:
    p = opset16.parameter([3], T.i32, name="indices")
    out = one_hot(p, const(3, T.i64), const(0.1, T.f64), const(np.inf, T.f64))
    return ov.Model([out], [p], "m"), {"indices": np.array([0, 2, 7], np.int32)}


def subnormal_values_flushed() -> Built:
    p = opset16.parameter([2], T.i32, name="indices")
    out = one_hot(p, const(3, T.i64), const(1e-40, T.f32), const(-1e-45, T.f32))
    return ov.Model([out], [p], "m"), {"indices": np.array([0, 2], np.int32)}


def i16_convert_not_narrowing() -> Built:
    p = opset16.parameter([3], T.i32, name="x")
    narrowed = opset16.convert(p, T.i16)
    out = one_hot(narrowed, const(4, T.i64), const(1.0, T.f32), const(0.0, T.f32))
    return ov.Model([out], [p], "m"), {"x": np.array([65536, 65537, 3], np.int32)}


def f16_signalling_nan_quieted() -> Built:
    p = opset16.parameter([2], T.i32, name="indices")
    on = opset16.constant(ov.Tensor(bits16(0x7C01).reshape(())))
    out = one_hot(p, const(2, T.i64), on, const(0.0, T.f16))
    return ov.Model([out], [p], "m"), {"indices": np.array([0, 1], np.int32)}


def f64_convert_saturates() -> Built:
    p = opset16.parameter([3], T.f64, name="x")
    as_u8 = opset16.convert(opset16.convert(p, T.u8), T.i32)
    out = one_hot(as_u8, const(4, T.i64), const(1.0, T.f32), const(0.0, T.f32))
    return ov.Model([out], [p], "m"), {"x": np.array([-2.5, 300.0, 1.5], np.float64)}


def bf16_rounding() -> Built:
    p = opset16.parameter([4], T.f32, name="x")
    out = opset16.convert(p, T.bf16)
    x = np.array([0x3F80C000, 0x3F818000, 0x7F7FFFFF, 0xFF808000], np.uint32).view(np.float32)
    return ov.Model([out], [p], "m"), {"x": x}


def narrow_index_types_refused() -> Built:
    p = opset16.parameter([3], T.i8, name="indices")
    out = one_hot(p, const(3, T.i64), const(1.0, T.f32), const(0.0, T.f32))
    return ov.Model([out], [p], "m"), {"indices": np.array([0, -1, 2], np.int8)}


def negative_axis_dynamic_rank() -> Built:
    p = opset16.parameter(ov.PartialShape.dynamic(), T.i32, name="indices")
    out = one_hot(p, const(3, T.i64), const(1.0, T.f32), const(0.0, T.f32), axis=-1)
    return ov.Model([out], [p], "m"), {"indices": np.array([[0, 1], [2, 3]], np.int32)}


def negative_depth_not_run() -> Built:
    p = opset16.parameter([3], T.i32, name="indices")
    d = opset16.parameter([], T.i64, name="depth")
    out = one_hot(p, d, const(1.0, T.f32), const(0.0, T.f32))
    return ov.Model([out], [p, d], "m"), {
        "indices": np.array([0, 1, 2], np.int32),
        "depth": np.array(-2, np.int64),
    }


def uninitialized_rank7_eltwise() -> Built:
    p = opset16.parameter([-1, 1, 2, 3, 2, 1], T.i32, name="x")
    hot = one_hot(
        opset16.add(p, const(2, T.i32)), const(3, T.i64), const(5, T.i32), const(-47, T.i32), axis=5
    )
    out = opset16.add(hot, const(1, T.i32))
    x = np.array([4, -2, -4, 1, -1, 0, 3, 2, -3, 0, 4, 2] * 3, np.int32).reshape(3, 1, 2, 3, 2, 1)
    return ov.Model([out], [p], "m"), {"x": x}


def f8_to_boolean_empty() -> Built:
    p = opset16.parameter([-1], T.i32, name="indices")
    hot = one_hot(p, const(3, T.i64), const(1.0, T.f8e4m3), const(0.0, T.f8e4m3))
    out = opset16.convert(hot, T.boolean)
    return ov.Model([out], [p], "m"), {"indices": np.array([0, 2, 5, -1], np.int32)}


FINDINGS: dict[str, Callable[[], Built]] = {
    "cpu-int32-wrap-i64-indices": wrap_i64_indices,
    "cpu-int32-saturation-i64-values": saturate_i64_values,
    "cpu-f64-values-through-f32": f64_values_through_f32,
    "cpu-subnormal-values-flushed": subnormal_values_flushed,
    "cpu-i16-convert-does-not-narrow": i16_convert_not_narrowing,
    "cpu-f16-signalling-nan-quieted": f16_signalling_nan_quieted,
    "cpu-float-convert-saturates": f64_convert_saturates,
    "reference-bf16-rounding": bf16_rounding,
    "cpu-refuses-i8-indices": narrow_index_types_refused,
    "reference-negative-axis-dynamic-rank": negative_axis_dynamic_rank,
    "cpu-negative-depth-not-run": negative_depth_not_run,
    "cpu-uninitialized-rank7-eltwise": uninitialized_rank7_eltwise,
    "cpu-f8-to-boolean-empty-output": f8_to_boolean_empty,
}


# Findings diffed against one oracle only (default: both).  The reference's bf16 rounding: the CPU
# plugin agrees with ovonehot (nearest-even), so the reproducer runs the reference.
ORACLE = {"reference-bf16-rounding": "reference"}


def main(names: list[str]) -> int:
    worst = 0
    with tempfile.TemporaryDirectory() as tmp:
        for name, build in FINDINGS.items():
            if names and name not in names:
                continue
            model, inputs = build()
            model.outputs[0].get_tensor().set_names({"out"})
            xml = Path(tmp) / f"{name}.xml"
            ov.save_model(model, str(xml), compress_to_fp16=False)
            npz = Path(tmp) / f"{name}.npz"
            save_archive(npz, inputs)
            target = HERE / name
            shutil.rmtree(target, ignore_errors=True)
            print(f"== {name}")
            code = cli.main(
                [
                    "diff",
                    str(xml),
                    "--inputs",
                    str(npz),
                    "--oracle",
                    ORACLE.get(name, "both"),
                    "--out-dir",
                    str(target),
                ]
            )
            worst = max(worst, code)
            if (target / "ours.npz").is_file():
                repro = REPROS / f"{name}.py"
                worst = max(worst, cli.main(["repro", str(target), "--output", str(repro)]))
    return 0 if worst <= 1 else worst


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
