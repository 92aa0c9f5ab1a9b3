"""Write the OneHot IR corpus under ir/onehot/ with OpenVINO itself.

Every model is built with the OpenVINO Python API (``openvino.opset1`` /
``openvino.opset16``) and written by ``openvino.save_model``, twice:

* ``<name>.xml/.bin``: the default ``save_model`` form, which compresses f32/f64
  constants to f16 where OpenVINO judges it harmless (``Const(f16) -> Convert``
  feeding on/off);
* ``<name>_plain.xml/.bin``: ``compress_to_fp16=False``, written only when it
  differs from the default form (models without float constants are identical).

Beside each model, ``<name>.npz`` (and ``<name>_plain.npz``) holds one seeded
input array per Parameter, keyed by the Parameter's name.  Reruns are
byte-identical: every node has an explicit name and every model has its own seed.

Run from the repository root::

    python ir/generate_onehot.py            # rewrites ir/onehot/
    python ir/generate_onehot.py --out DIR  # elsewhere
    python ir/generate_onehot.py --list     # name and purpose of each model

This script imports openvino (and numpy) only; it never uses ovonehot.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import openvino as ov
import openvino.passes as ov_passes
from openvino import opset1, opset16

I32_MAX = 2**31 - 1


# -- building blocks ----------------------------------------------------------------------


def ov_type(name: str) -> ov.Type:
    """``"f32"`` -> ``ov.Type.f32`` (OpenVINO's own element type names)."""
    return getattr(ov.Type, name)


def param(name: str, shape: object, element_type: str) -> ov.Node:
    """A Parameter whose friendly name and tensor name are both ``name``."""
    pshape = shape if isinstance(shape, ov.PartialShape) else ov.PartialShape(shape)
    node = opset1.parameter(pshape, ov_type(element_type), name=name)
    node.output(0).set_names({name})
    return node


def const(name: str, value: object, element_type: str) -> ov.Node:
    """A scalar Constant from a NumPy-typed value.

    Always from a 0-d array: ``opset1.constant(np.float64(0.1))`` goes through f32 in
    the Python binding (it stores 0.10000000149011612), ``np.array(0.1)`` does not.
    """
    node = ov.op.Constant(np.array(value, dtype=np.dtype(_NUMPY[element_type])))
    node.set_friendly_name(name)
    return node


def bits_const(name: str, bits: int, element_type: str) -> ov.Node:
    """A scalar Constant of ``element_type`` holding the raw bit pattern ``bits``
    (bf16, f8 and NaN payloads that NumPy has no type or no literal for)."""
    tensor = ov.Tensor(ov_type(element_type), ov.Shape([]))
    data = tensor.data.reshape(-1)
    data.view(f"u{data.itemsize}")[0] = bits
    node = ov.op.Constant(tensor, shared_memory=False)
    node.set_friendly_name(name)
    return node


_NUMPY = {
    "boolean": np.bool_,
    "f16": np.float16,
    "f32": np.float32,
    "f64": np.float64,
    "i8": np.int8,
    "i16": np.int16,
    "i32": np.int32,
    "i64": np.int64,
    "u8": np.uint8,
    "u16": np.uint16,
    "u32": np.uint32,
    "u64": np.uint64,
}


def one_hot(
    version: int,
    indices: ov.Node,
    depth: ov.Node,
    on: ov.Node,
    off: ov.Node,
    axis: int,
    mode: str | None = None,
    name: str = "onehot",
) -> ov.Node:
    if version == 1:
        node = opset1.one_hot(indices, depth, on, off, axis, name=name)
    else:
        node = opset16.one_hot(indices, depth, on, off, axis, negative_indices_mode=mode, name=name)
    node.output(0).set_names({name})
    return node


def model(outputs: list[ov.Node], params: list[ov.Node], name: str) -> ov.Model:
    m = ov.Model([o.output(0) for o in outputs], params, name)
    for k, result in enumerate(m.get_results()):
        result.set_friendly_name(f"result{k}" if len(outputs) > 1 else "result")
    return m


def indices_values(
    rng: np.random.Generator, shape: tuple[int, ...], depth: int, dtype: type, strays: bool = True
) -> np.ndarray:
    """Seeded indices in [0, depth); with ``strays``, one in four is out of range or negative, and
    (given four or more elements) -1, -depth - 1 and depth are always among them."""
    values = rng.integers(0, max(depth, 1), size=shape)
    if strays:
        stray = rng.random(size=shape) < (0.25 if depth else 1.0)
        values[stray] = rng.integers(-depth - 2, depth + 3, size=shape)[stray]
        if values.size >= 4:
            where = rng.permutation(values.size)[:3]
            values.reshape(-1)[where] = [-1, -depth - 1, depth]
    return np.asarray(values, dtype=dtype)


# -- the models ---------------------------------------------------------------------------

Built = tuple[ov.Model, dict[str, np.ndarray]]


@dataclass(frozen=True)
class Case:
    name: str
    what: str  # one line for ir/README.md
    build: Callable[[np.random.Generator, str], Built]
    ir_version: int = 11  # 10: written once by the Serialize pass with Version.IR_V10


def simple(
    version: int,
    shape: tuple[int, ...],
    axis: int,
    index_type: str,
    value_type: str,
    on: object,
    off: object,
    depth: int = 4,
    mode: str | None = None,
    depth_type: str | None = None,
    strays: bool = True,
) -> Callable[[np.random.Generator, str], Built]:
    """indices Parameter -> OneHot(Const depth, Const on, Const off) -> Result."""

    def build(rng: np.random.Generator, name: str) -> Built:
        p = param("indices", list(shape), index_type)
        d = const("depth", depth, depth_type or index_type)
        oh = one_hot(
            version, p, d, const("on_value", on, value_type), const("off_value", off, value_type), axis, mode
        )
        x = indices_values(rng, shape, depth, _NUMPY[index_type], strays)
        return model([oh], [p], name), {"indices": x}

    return build


def special_values(
    version: int, value_type: str, on_bits: int, off_bits: int, axis: int = -1, mode: str | None = None
) -> Callable[[np.random.Generator, str], Built]:
    """on/off given as raw bit patterns (NaN payloads, -0.0, inf, bf16, f8)."""

    def build(rng: np.random.Generator, name: str) -> Built:
        p = param("indices", [3, 4], "i64")
        oh = one_hot(
            version,
            p,
            const("depth", 5, "i64"),
            bits_const("on_value", on_bits, value_type),
            bits_const("off_value", off_bits, value_type),
            axis,
            mode,
        )
        return model([oh], [p], name), {"indices": indices_values(rng, (3, 4), 5, np.int64)}

    return build


def beyond_int32(version: int, mode: str | None = None) -> Callable[[np.random.Generator, str], Built]:
    """i64 indices whose low 32 bits alone would select a position (never truncate them)."""

    def build(rng: np.random.Generator, name: str) -> Built:
        p = param("indices", [2, 6], "i64")
        oh = one_hot(
            version,
            p,
            const("depth", 4, "i64"),
            const("on_value", 1, "i32"),
            const("off_value", 0, "i32"),
            -1,
            mode,
        )
        x = np.array(
            [
                [2**32 + 1, 2**32, -(2**32) + 2, 2**31 + 3, 2**63 - 1, -(2**63)],
                [1, -1, -4, -(2**32) - 1, 2**33 + 2, 3],
            ],
            dtype=np.int64,
        )
        return model([oh], [p], name), {"indices": x}

    return build


def depth_param(
    version: int,
    depth_type: str,
    index_type: str,
    value_type: str,
    depth: int,
    mode: str | None = None,
    axis: int = -1,
) -> Callable[[np.random.Generator, str], Built]:
    """depth fed at run time: the output's depth dimension is ``?`` until then."""

    def build(rng: np.random.Generator, name: str) -> Built:
        p = param("indices", [2, 3], index_type)
        d = param("depth", [], depth_type)
        oh = one_hot(
            version, p, d, const("on_value", 3, value_type), const("off_value", -1, value_type), axis, mode
        )
        inputs = {
            "indices": indices_values(rng, (2, 3), depth, _NUMPY[index_type]),
            "depth": np.array(depth, dtype=_NUMPY[depth_type]),
        }
        return model([oh], [p, d], name), inputs

    return build


def all_params(
    version: int, value_type: str, mode: str | None = None
) -> Callable[[np.random.Generator, str], Built]:
    """indices, depth, on_value and off_value all Parameters."""

    def build(rng: np.random.Generator, name: str) -> Built:
        p = param("indices", [4], "i32")
        d = param("depth", [], "i32")
        on = param("on_value", [], value_type)
        off = param("off_value", [], value_type)
        oh = one_hot(version, p, d, on, off, 0, mode)
        inputs = {
            "indices": indices_values(rng, (4,), 3, np.int32),
            "depth": np.array(3, np.int32),
            "on_value": np.array(0.5, _NUMPY[value_type]),
            "off_value": np.array(-2, _NUMPY[value_type]),
        }
        return model([oh], [p, d, on, off], name), inputs

    return build


def dynamic(
    version: int,
    pshape: ov.PartialShape,
    shape: tuple[int, ...],
    axis: int,
    index_type: str,
    mode: str | None = None,
) -> Callable[[np.random.Generator, str], Built]:
    """indices with dynamic / interval dims or a dynamic rank; run on one concrete shape."""

    def build(rng: np.random.Generator, name: str) -> Built:
        p = param("indices", pshape, index_type)
        oh = one_hot(
            version,
            p,
            const("depth", 3, index_type),
            const("on_value", 1, "f32"),
            const("off_value", 0, "f32"),
            axis,
            mode,
        )
        return model([oh], [p], name), {"indices": indices_values(rng, shape, 3, _NUMPY[index_type])}

    return build


def two_results(rng: np.random.Generator, name: str) -> Built:
    """One indices Parameter feeding a OneHot-1 and a OneHot-16 (normalize): two Results."""
    p = param("indices", [5], "i64")
    a = one_hot(
        1,
        p,
        const("depth_a", 3, "i64"),
        const("on_a", 1, "f32"),
        const("off_a", 0, "f32"),
        0,
        name="onehot_v1",
    )
    b = one_hot(
        16,
        p,
        const("depth_b", 4, "i32"),
        const("on_b", 9, "i16"),
        const("off_b", 0, "i16"),
        -1,
        "normalize",
        name="onehot_v16",
    )
    return model([a, b], [p], name), {"indices": indices_values(rng, (5,), 3, np.int64)}


def bf16_params(rng: np.random.Generator, name: str) -> Built:
    """on_value/off_value bf16 Parameters; the .npz holds them as NumPy saves bf16 (raw |V2 bytes)."""
    p = param("indices", [2, 3], "i32")
    on = param("on_value", [], "bf16")
    off = param("off_value", [], "bf16")
    oh = one_hot(1, p, const("depth", 3, "i32"), on, off, -1)
    raw = np.array([BF16_ONE_AND_A_BIT, BF16_NEG_ZERO], np.uint16).view("V2")
    inputs = {
        "indices": indices_values(rng, (2, 3), 3, np.int32),
        "on_value": raw[0:1].reshape(()),
        "off_value": raw[1:2].reshape(()),
    }
    return model([oh], [p, on, off], name), inputs


def named_output(rng: np.random.Generator, name: str) -> Built:
    """Several tensor names on the output ("labels", "one_hot:0", "a\\,b" with a comma)."""
    p = param("labels", [6], "i32")
    oh = one_hot(
        1, p, const("depth", 10, "i32"), const("on_value", 1, "f32"), const("off_value", 0, "f32"), -1
    )
    oh.output(0).set_names({"one_hot:0", "onehot_labels", "a,b"})
    x = np.array([3, 1, 4, 1, 5, 9], np.int32)
    return model([oh], [p], name), {"labels": x}


F32_NAN_PAYLOAD = 0x7FA00001  # a signalling NaN with a payload: must be copied, never quieted
F32_NEG_ZERO = 0x80000000
F16_POS_INF, F16_NEG_INF = 0x7C00, 0xFC00
BF16_NAN, BF16_ONE_AND_A_BIT = 0x7FC1, 0x3F81  # NaN with payload, 1.0078125
BF16_NEG_ZERO = 0x8000

CASES: tuple[Case, ...] = (
    Case(
        "v1_axis-1_i64_f32",
        "the everyday case: i64 labels [3,4] all in range, axis -1 (stored as 2), depth 5, on 1.0 / off 0.0",
        simple(1, (3, 4), -1, "i64", "f32", 1.0, 0.0, depth=5, strays=False),
    ),
    Case(
        "v1_axis0_i32_f32",
        "axis 0 on a vector, on 2.5 / off -1.0, i32 indices and depth",
        simple(1, (6,), 0, "i32", "f32", 2.5, -1.0, depth=6),
    ),
    Case(
        "v1_axis1_rank3_i64_i32",
        "new axis in the middle of a rank-3 input, i32 values",
        simple(1, (2, 3, 4), 1, "i64", "i32", 7, -7, depth=3),
    ),
    Case(
        "v1_axis-2_rank2_i32_f16",
        "a negative axis other than -1 (normalized to 1), f16 values",
        simple(1, (3, 2), -2, "i32", "f16", 1.0, 0.25, depth=4),
    ),
    Case(
        "v1_rank0",
        "scalar indices: output is a vector of length depth",
        simple(1, (), 0, "i32", "f32", 1.0, 0.0, depth=4),
    ),
    Case(
        "v1_rank5_axis3_i64_f32",
        "rank-5 indices, axis 3",
        simple(1, (2, 1, 3, 2, 2), 3, "i64", "f32", 1.0, 0.0, depth=3),
    ),
    Case(
        "v1_rank6_axis-7_i32_u8",
        "rank-6 indices, the most negative legal axis (-7 -> 0), u8 values",
        simple(1, (1, 2, 1, 2, 1, 2), -7, "i32", "u8", 255, 1, depth=2),
    ),
    Case(
        "v1_depth0",
        "depth 0: an empty one-hot dimension, output shape [3,0]",
        simple(1, (3,), -1, "i64", "f32", 1.0, 0.0, depth=0),
    ),
    Case(
        "v1_depth_u8_i64",
        "depth Constant of another integral type (u8) than the indices",
        simple(1, (2, 3), -1, "i64", "f32", 1.0, 0.0, depth=3, depth_type="u8"),
    ),
    Case(
        "v16_depth_u64_i32",
        "OneHot-16 with a u64 depth Constant",
        simple(16, (5,), 0, "i32", "i32", 1, 0, depth=4, depth_type="u64"),
    ),
    Case(
        "v1_depth_param",
        "depth from an i64 Parameter: output dim '?' until run time",
        depth_param(1, "i64", "i64", "f32", 4),
    ),
    Case(
        "v16_depth_param_i32_normalize",
        "depth from an i32 Parameter, normalize mode",
        depth_param(16, "i32", "i32", "i8", 3, mode="normalize"),
    ),
    Case("v1_all_params_f32", "indices, depth, on_value and off_value all Parameters", all_params(1, "f32")),
    Case(
        "v16_all_params_f16",
        "every input a Parameter, f16 values, OneHot-16",
        all_params(16, "f16", mode="ignore_negative"),
    ),
    Case(
        "v1_dynamic_dims",
        "indices [?,?]: output [?,?,3]",
        dynamic(1, ov.PartialShape([-1, -1]), (3, 2), -1, "i64"),
    ),
    Case(
        "v16_interval_dims",
        "indices [1..4,2..] with normalize: output [1..4,2..,3]",
        dynamic(16, ov.PartialShape("[1..4,2..]"), (4, 5), 2, "i32", mode="normalize"),
    ),
    Case(
        "v1_dynamic_rank",
        "indices of dynamic rank [...], axis 1 (OpenVINO leaves the axis unnormalized)",
        dynamic(1, ov.PartialShape.dynamic(), (2, 2, 3), 1, "i64"),
    ),
    Case(
        "v16_normalize_i32_f16",
        "OneHot-16 normalize: indices in [-depth,-1] count from the end",
        simple(16, (4, 3), -1, "i32", "f16", 1.0, 0.0, depth=4, mode="normalize"),
    ),
    Case(
        "v16_ignore_negative_i64_f32",
        "OneHot-16 ignore_negative: negative indices stay off",
        simple(16, (4, 3), 1, "i64", "f32", 1.0, 0.0, depth=4, mode="ignore_negative"),
    ),
    Case(
        "v1_bool_out",
        "boolean on/off (true/false): boolean output",
        simple(1, (2, 3), -1, "i64", "boolean", True, False, depth=3),
    ),
    Case(
        "v1_i8_out",
        "i8 values at the type's limits (-128 / 127)",
        simple(1, (5,), 0, "i32", "i8", -128, 127, depth=4),
    ),
    Case("v1_i16_out", "i16 values", simple(1, (2, 2), -1, "i64", "i16", -32768, 5, depth=3)),
    Case("v1_u16_out", "u16 values", simple(1, (2, 2), -1, "i32", "u16", 65535, 1, depth=3)),
    Case(
        "v1_u32_out",
        "u32 values above int32 (the CPU plugin would saturate them)",
        simple(1, (2, 2), -1, "i32", "u32", 2**32 - 1, 2**31, depth=3),
    ),
    Case(
        "v1_i64_out",
        "i64 values beyond int32 (2**40, -2**63)",
        simple(1, (2, 2), -1, "i64", "i64", 2**40, -(2**63), depth=3),
    ),
    Case(
        "v1_u64_out",
        "u64 values (2**64-1, 2**63)",
        simple(1, (2, 2), -1, "i64", "u64", 2**64 - 1, 2**63, depth=3),
    ),
    Case(
        "v1_f64_out",
        "f64 values 0.1 / 1e300 (the CPU plugin goes through f32)",
        simple(1, (2, 3), -1, "i32", "f64", 0.1, 1e300, depth=3),
    ),
    Case(
        "v1_f32_inexact_in_f16",
        "f32 on/off values f16 cannot hold (0.1, 1e-30): kept f32 even when compressed",
        simple(1, (2, 3), -1, "i64", "f32", 0.1, 1e-30, depth=3),
    ),
    Case(
        "v16_nan_negzero_values",
        "on = signalling NaN with payload, off = -0.0, copied bit for bit",
        special_values(16, "f32", F32_NAN_PAYLOAD, F32_NEG_ZERO, mode="normalize"),
    ),
    Case("v1_inf_f16", "on = +inf, off = -inf in f16", special_values(1, "f16", F16_POS_INF, F16_NEG_INF)),
    Case(
        "v1_bf16_values",
        "bf16 on 1.0078125 / off NaN with payload",
        special_values(1, "bf16", BF16_ONE_AND_A_BIT, BF16_NAN),
    ),
    Case(
        "v1_bf16_negzero",
        "bf16 on -0.0 / off 1.0078125, axis 0",
        special_values(1, "bf16", BF16_NEG_ZERO, BF16_ONE_AND_A_BIT, axis=0),
    ),
    Case(
        "v1_f8e4m3_values", "f8e4m3 on 0x7e (448) / off 0xff (NaN)", special_values(1, "f8e4m3", 0x7E, 0xFF)
    ),
    Case(
        "v16_f8e5m2_values",
        "f8e5m2 on 0x7c (+inf) / off 0x80 (-0.0)",
        special_values(16, "f8e5m2", 0x7C, 0x80, mode="normalize"),
    ),
    Case(
        "v1_f8e8m0_values",
        "f8e8m0 on 0x7f (1.0) / off 0x00 (2**-127)",
        special_values(1, "f8e8m0", 0x7F, 0x00),
    ),
    Case(
        "v1_i64_beyond_int32",
        "i64 indices like 2**32+1 and -2**63: compared as int64, never truncated",
        beyond_int32(1),
    ),
    Case(
        "v16_normalize_i64_beyond_int32",
        "normalize with i64 indices beyond int32 (-2**32+2 stays off)",
        beyond_int32(16, mode="normalize"),
    ),
    Case(
        "v1_v16_two_results",
        "one indices Parameter feeding a OneHot-1 and a OneHot-16: two Results in order",
        two_results,
    ),
    Case("v1_named_output", "an output with several tensor names, one holding a comma", named_output),
    Case(
        "v1_bf16_params", "bf16 on/off Parameters fed from raw bf16 bytes (how .npz stores bf16)", bf16_params
    ),
    Case(
        "v16_ir_v10_i32_f32",
        "IR version 10 (Serialize pass, Version.IR_V10), OneHot-16 normalize",
        simple(16, (2, 4), -1, "i32", "f32", 1.0, 0.0, depth=3, mode="normalize"),
        ir_version=10,
    ),
)


# -- writing ------------------------------------------------------------------------------


def seed_of(name: str) -> int:
    """Each model's own seed: adding a model never changes the others' inputs."""
    return zlib.crc32(name.encode())


def write_case(case: Case, out: Path) -> list[Path]:
    """Write ``<name>.xml/.bin/.npz`` and, when different, ``<name>_plain.*``; return the .xml paths."""
    written = []
    m, inputs = case.build(np.random.default_rng(seed_of(case.name)), case.name)
    default = out / f"{case.name}.xml"
    if case.ir_version == 10:
        manager = ov_passes.Manager()
        manager.register_pass(
            ov_passes.Serialize(default, default.with_suffix(".bin"), ov_passes.Version.IR_V10)
        )
        manager.run_passes(m)
        np.savez(default.with_suffix(".npz"), **inputs)
        return [default]
    ov.save_model(m, default)
    np.savez(default.with_suffix(".npz"), **inputs)
    written.append(default)
    m, _ = case.build(np.random.default_rng(seed_of(case.name)), case.name)
    with tempfile.TemporaryDirectory() as tmp:
        plain = Path(tmp) / "plain.xml"
        ov.save_model(m, plain, compress_to_fp16=False)
        if (
            plain.read_bytes() != default.read_bytes()
            or plain.with_suffix(".bin").read_bytes() != default.with_suffix(".bin").read_bytes()
        ):
            target = out / f"{case.name}_plain.xml"
            shutil.copyfile(plain, target)
            shutil.copyfile(plain.with_suffix(".bin"), target.with_suffix(".bin"))
            np.savez(target.with_suffix(".npz"), **inputs)
            written.append(target)
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--out",
        type=Path,
        default=Path(__file__).resolve().parent / "onehot",
        help="output directory (default: ir/onehot beside this script)",
    )
    parser.add_argument(
        "--list", action="store_true", help="print each model's name and purpose, write nothing"
    )
    args = parser.parse_args(argv)
    if args.list:
        for case in CASES:
            print(f"- `{case.name}`: {case.what}")
        return 0
    args.out.mkdir(parents=True, exist_ok=True)
    for stale in [*args.out.glob("*.xml"), *args.out.glob("*.bin"), *args.out.glob("*.npz")]:
        stale.unlink()
    count = 0
    for case in CASES:
        count += len(write_case(case, args.out))
    print(f"wrote {count} models for {len(CASES)} cases to {args.out} (OpenVINO {ov.get_version()})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
