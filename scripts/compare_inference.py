"""Compare ovonehot's inference with OpenVINO's ``read_model``, layer by layer, on any IR.

For every layer, every output port: the partial shape and element type ovonehot infers
(its own reader and ``infer``, as ``read_model`` reports them: no value passes a
``decompression`` Convert) against what ``openvino.Core().read_model`` gives the node
of the same name.  Layers are matched by name, ports by index; a name used by several
layers is compared only when all of them agree.

Usage::

    python scripts/compare_inference.py MODEL.xml|DIR... [--torch] [--onnx-node REGEX] [--quiet]

A directory is searched for ``*.xml``.  ``--torch`` also converts a set of small PyTorch
modules on the fly (``ov.convert_model``: F.pad with computed pads, interpolate with
computed sizes, view/reshape with computed dims, slicing with computed bounds,
masked_fill/where with shape arithmetic, arange from shapes, repeat/expand) and compares
each; it needs torch, which only this generator uses.  ``--onnx-node REGEX`` compares the IR
OpenVINO's ONNX frontend makes of ONNX's backend node cases (scripts/onnx_node_suite.py).  Exit 0 when every layer agrees,
1 otherwise.

The library part (:func:`compare`, :func:`compare_model`) is what
``tests/test_inference_vs_read_model.py`` uses, on IR built with OpenVINO's Python API.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
UNSUPPORTED = "unsupported"  # ovonehot lacks an op: a gap, not a disagreement


@dataclass(frozen=True)
class Mismatch:
    layer: str  # "name (Type-opsetN)"
    port: int
    what: str  # "shape" | "type" | "missing" | "error" | UNSUPPORTED
    ours: str
    theirs: str

    def __str__(self) -> str:
        if self.what == UNSUPPORTED:
            return f"not compared: ovonehot does not support {self.ours}"
        return f"{self.layer} port {self.port}: {self.what}: ovonehot {self.ours}, read_model {self.theirs}"


def compare(xml: str | Path, bin_path: str | Path | None = None, dynamic: bool = False) -> list[Mismatch]:
    """Every layer output where ovonehot's inference differs from ``read_model`` of the same files.

    ``dynamic`` compares a copy whose inputs are all fully dynamic (same rank): the bound
    propagation of the shape subgraphs then carries the whole result.
    """
    import openvino as ov

    xml = Path(xml)
    weights = Path(bin_path) if bin_path is not None else xml.with_suffix(".bin")
    if dynamic:
        with tempfile.TemporaryDirectory(prefix="compare-inference-") as tmp:
            copy = Path(tmp) / xml.name
            if not _dynamic_copy(xml, copy):
                return []  # no input with dims: the plain comparison covers it
            try:
                return compare(copy, weights)
            except RuntimeError:
                return []  # read_model refuses the dynamic copy (an op needing static shapes)
    model = (
        ov.Core().read_model(str(xml), str(weights)) if weights.is_file() else ov.Core().read_model(str(xml))
    )
    return compare_model(model, xml, weights if weights.is_file() else None)


def _dynamic_copy(xml: Path, target: Path) -> bool:
    """``xml`` with every Parameter's shape made fully dynamic (same rank), written to ``target``.

    Edited in the file, not with ``Model.reshape`` (which also runs OpenVINO's reshape
    transformations and so changes the graph): both readers then see one and the same IR.
    """
    from lxml import etree

    tree = etree.parse(str(xml))
    changed = False
    for layer in tree.iterfind(".//layers/layer[@type='Parameter']"):
        data = layer.find("data")
        shape = data.get("shape") if data is not None else None
        if data is None or shape is None or shape.strip() in ("", "..."):
            continue
        rank = len(shape.strip("[]").split(","))
        data.set("shape", ",".join(["?"] * rank))
        for dim in layer.iterfind("output/port/dim"):
            dim.text = "-1"
        changed = True
    if changed:
        tree.write(str(target))
    return changed


def compare_model(model: Any, xml: Path, weights: Path | None) -> list[Mismatch]:
    """``model`` (read_model of ``xml``) against ovonehot's inference of the same files."""
    from ovonehot.errors import Error
    from ovonehot.infer import infer, parameter_infos, plan
    from ovonehot.ir.reader import read_ir
    from ovonehot.ops import unsupported_types

    graph = read_ir(xml, weights)
    missing = unsupported_types(graph)
    if missing:
        return [Mismatch("(model)", 0, UNSUPPORTED, ", ".join(missing), "-")]
    try:
        plans = plan(graph)
        first = infer(graph, plans)
        shapes = {n.name: s for n, _, s in parameter_infos(first)}
        inference = infer(graph, plans, shapes, as_read_model=True)
    except Error as exc:
        return [Mismatch("(model)", 0, "error", str(exc)[:300], "read fine")]

    theirs: dict[str, list[Any]] = {}
    for op in model.get_ordered_ops():
        theirs.setdefault(op.get_friendly_name(), []).append(op)
    names: dict[str, int] = {}
    for node in graph.nodes:
        names[node.name] = names.get(node.name, 0) + 1

    problems = []
    for i, node in enumerate(graph.nodes):
        label = f"{node.name} ({node.type_version})"
        ops = theirs.get(node.name, [])
        if not ops:
            problems.append(Mismatch(label, 0, "missing", "a layer", "no node of this name"))
            continue
        for port, info in enumerate(inference.outputs[i]):
            ours_shape, ours_type = str(info.shape), info.element_type.value
            seen = {(_shape(op, port), _type(op, port)) for op in ops if port < op.get_output_size()}
            if (ours_shape, ours_type) in seen:
                continue
            if names[node.name] > 1 or len(seen) != 1:
                continue  # a repeated name: the match is ambiguous
            ((shape, et),) = seen
            if shape != ours_shape:
                problems.append(Mismatch(label, port, "shape", ours_shape, shape))
            if et != ours_type:
                problems.append(Mismatch(label, port, "type", ours_type, et))
    return problems


def _both_refuse(xml: Path, exc: BaseException) -> list[Mismatch]:
    """No mismatch when ovonehot refuses the model read_model refused; else one saying it reads it."""
    from ovonehot.errors import Error
    from ovonehot.infer import infer
    from ovonehot.ir.reader import read_ir

    try:
        infer(read_ir(xml))
    except Error:
        return []
    return [Mismatch("(model)", 0, "error", "reads and infers it", " ".join(str(exc).split())[-200:])]


def _shape(op: Any, port: int) -> str:
    from ovonehot.types import PartialShape

    return str(PartialShape.parse(str(op.get_output_partial_shape(port))))


def _type(op: Any, port: int) -> str:
    return str(op.get_output_element_type(port).get_type_name())


# -- PyTorch modules converted on the fly (torch only here, never in tests or src) --------------


def torch_cases() -> list[tuple[str, Callable[[], Any]]]:  # noqa: C901 - a table of nested torch modules
    """(name, build) pairs; ``build()`` returns the ov.Model ``ov.convert_model`` makes."""
    import openvino as ov
    import torch
    import torch.nn.functional as F

    def convert(
        module: torch.nn.Module,
        example: tuple[Any, ...],
        shapes: list[list[int]],
        types: Iterable[Any] | None = None,
    ) -> Any:
        inputs = [ov.PartialShape(s) for s in shapes]
        if types is not None:
            inputs = [(s, t) for s, t in zip(inputs, types, strict=True)]
        return ov.convert_model(module, example_input=example, input=inputs)

    class PadToMultiple(torch.nn.Module):  # LongT5 transient-global: pad a block dim to a multiple
        def forward(self, x: torch.Tensor) -> torch.Tensor:
            pad_len = -x.shape[2] % 8
            return F.pad(x, (0, 0, 0, pad_len), value=0.0)

    class PadLastTwo(torch.nn.Module):
        def forward(self, x: torch.Tensor) -> torch.Tensor:
            n = x.shape[-1]
            return F.pad(x, (0, (8 - n % 8) % 8, 0, 4 - x.shape[-2]))

    class MambaConvState(torch.nn.Module):  # Mamba: conv_state = F.pad(x, (d_conv - L, 0))
        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return F.pad(x, (4 - x.shape[-1], 0))

    class PadFromOther(torch.nn.Module):
        def forward(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
            return F.pad(x, (0, y.shape[-1] - x.shape[-1]))

    class InterpolateComputed(torch.nn.Module):
        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return F.interpolate(x, size=(x.shape[2] * 2, x.shape[3] + 1), mode="nearest")

    class ViewComputed(torch.nn.Module):
        def forward(self, x: torch.Tensor) -> torch.Tensor:
            b, t, c = x.shape
            return x.view(b, t // 2, c * 2).reshape(b, -1, 2, c)

    class SliceComputed(torch.nn.Module):
        def forward(self, x: torch.Tensor) -> torch.Tensor:
            n = x.shape[1]
            return x[:, n // 4 : n - 1, : x.shape[2] // 2]

    class MaskedFillShapes(torch.nn.Module):
        def forward(self, x: torch.Tensor) -> torch.Tensor:
            t = x.shape[-1]
            mask = torch.arange(t).unsqueeze(0) > torch.arange(t).unsqueeze(1)
            return x.masked_fill(mask, float("-inf"))

    class WhereArange(torch.nn.Module):
        def forward(self, x: torch.Tensor) -> torch.Tensor:
            pos = torch.arange(x.shape[1] - 1, -1, -1)
            return torch.where(pos.unsqueeze(0) < x.shape[0], x, torch.zeros_like(x))

    class RepeatExpand(torch.nn.Module):
        def forward(self, x: torch.Tensor) -> torch.Tensor:
            y = x.unsqueeze(1).expand(-1, x.shape[0], -1)
            return y.repeat(1, 2, x.shape[1] // x.shape[1])

    class CausalMaskPad(torch.nn.Module):  # attention-mask padding to a multiple, as in long-context models
        def forward(self, x: torch.Tensor) -> torch.Tensor:
            t = x.shape[1]
            blocks = (t + 3) // 4
            mask = torch.ones(x.shape[0], t)
            mask = F.pad(mask, (0, blocks * 4 - t), value=0.0)
            return mask.view(x.shape[0], blocks, 4)

    class LongT5Blocks(torch.nn.Module):  # pad to a multiple of the block, then split into blocks
        def forward(self, x: torch.Tensor) -> torch.Tensor:
            b, t, d = x.shape
            pad_len = -t % 4
            x = F.pad(x, (0, 0, 0, pad_len))
            return x.reshape(b, (t + pad_len) // 4, 4, d)

    class ReflectComputed(torch.nn.Module):
        def forward(self, x: torch.Tensor) -> torch.Tensor:
            p = x.shape[-1] // 4
            return F.pad(x, (p, p, 1, 1), mode="reflect")

    class ArangeStep(torch.nn.Module):
        def forward(self, x: torch.Tensor) -> torch.Tensor:
            idx = torch.arange(0, x.shape[1], 2)
            return x[:, idx] + torch.arange(x.shape[1] // 2 + x.shape[1] % 2, dtype=torch.float32)

    class NegativeSlice(torch.nn.Module):
        def forward(self, x: torch.Tensor) -> torch.Tensor:
            n = x.shape[1]
            return x[:, -(n // 2) :, 1 - x.shape[2] :]

    class NewZerosCat(torch.nn.Module):
        def forward(self, x: torch.Tensor) -> torch.Tensor:
            z = x.new_zeros(x.shape[0], 8 - x.shape[1])
            return torch.cat([x, z], dim=1)

    class ExpandAs(torch.nn.Module):
        def forward(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
            return x[:, :1].expand(y.shape[0], y.shape[1] * 2) + 1

    class TopkHalf(torch.nn.Module):
        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return torch.topk(x, x.shape[-1] // 2, dim=-1).values

    class ChunkNarrow(torch.nn.Module):
        def forward(self, x: torch.Tensor) -> torch.Tensor:
            a, b = x.chunk(2, dim=-1)
            return a.narrow(1, 0, x.shape[1] - 1) * b[:, 1:]

    class FlattenUnflatten(torch.nn.Module):
        def forward(self, x: torch.Tensor) -> torch.Tensor:
            b, c, h, w = x.shape
            y = x.flatten(2).transpose(1, 2)
            return y.reshape(b, h, w, c).permute(0, 3, 1, 2).contiguous().view(b * c, -1)

    class MaskFromLengths(torch.nn.Module):
        def forward(self, x: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
            mask = torch.arange(x.shape[1]).unsqueeze(0) < lengths.unsqueeze(1)
            return x.masked_fill(~mask, 0.0).sum(1) / x.shape[1]

    class TriuMask(torch.nn.Module):
        def forward(self, x: torch.Tensor) -> torch.Tensor:
            t = x.shape[-1]
            mask = torch.triu(torch.ones(t, t), diagonal=1).bool()
            return x.masked_fill(mask, 0.0)

    class BatchIndex(torch.nn.Module):
        def forward(self, x: torch.Tensor, idx: torch.Tensor) -> torch.Tensor:
            return x[torch.arange(x.shape[0]), idx]

    class FloatCeilPad(torch.nn.Module):  # pads from float arithmetic on a shape (ceil(n / 4) * 4 - n)
        def forward(self, x: torch.Tensor) -> torch.Tensor:
            n = torch.tensor(x.shape[1])
            target = (torch.ceil(n / 4) * 4).to(torch.int64)
            return F.pad(x, (0, 0, 0, int(target - n)))

    return [
        ("triu_mask", lambda: convert(TriuMask(), (torch.randn(2, 5, 5),), [[-1, 5, 5]])),
        ("triu_mask_dynamic", lambda: convert(TriuMask(), (torch.randn(2, 5, 5),), [[-1, -1, -1]])),
        (
            "batch_index",
            lambda: convert(
                BatchIndex(), (torch.randn(3, 4, 2), torch.tensor([0, 3, 1])), [[-1, 4, 2], [-1]]
            ),
        ),
        ("float_ceil_pad", lambda: convert(FloatCeilPad(), (torch.randn(2, 5, 3),), [[-1, 5, 3]])),
        ("float_ceil_pad_dynamic", lambda: convert(FloatCeilPad(), (torch.randn(2, 5, 3),), [[-1, -1, 3]])),
        ("longt5_blocks", lambda: convert(LongT5Blocks(), (torch.randn(2, 6, 3),), [[-1, 6, 3]])),
        ("longt5_blocks_dynamic", lambda: convert(LongT5Blocks(), (torch.randn(2, 6, 3),), [[-1, -1, 3]])),
        (
            "longt5_blocks_interval",
            lambda: convert(LongT5Blocks(), (torch.randn(2, 6, 3),), [[-1, [2, 9], 3]]),
        ),
        ("reflect_computed", lambda: convert(ReflectComputed(), (torch.randn(1, 2, 4, 8),), [[-1, 2, 4, 8]])),
        (
            "reflect_computed_dynamic",
            lambda: convert(ReflectComputed(), (torch.randn(1, 2, 4, 8),), [[-1, 2, 4, -1]]),
        ),
        ("arange_step", lambda: convert(ArangeStep(), (torch.randn(2, 7),), [[-1, 7]])),
        ("arange_step_dynamic", lambda: convert(ArangeStep(), (torch.randn(2, 7),), [[-1, -1]])),
        ("negative_slice", lambda: convert(NegativeSlice(), (torch.randn(2, 7, 5),), [[-1, 7, 5]])),
        (
            "negative_slice_interval",
            lambda: convert(NegativeSlice(), (torch.randn(2, 7, 5),), [[-1, [2, 9], 5]]),
        ),
        ("new_zeros_cat", lambda: convert(NewZerosCat(), (torch.randn(2, 5),), [[-1, 5]])),
        ("new_zeros_cat_interval", lambda: convert(NewZerosCat(), (torch.randn(2, 5),), [[-1, [1, 8]]])),
        ("expand_as", lambda: convert(ExpandAs(), (torch.randn(3, 2), torch.randn(3, 4)), [[3, 2], [3, 4]])),
        (
            "expand_as_dynamic",
            lambda: convert(ExpandAs(), (torch.randn(3, 2), torch.randn(3, 4)), [[-1, 2], [-1, -1]]),
        ),
        ("topk_half", lambda: convert(TopkHalf(), (torch.randn(2, 8),), [[-1, 8]])),
        ("topk_half_interval", lambda: convert(TopkHalf(), (torch.randn(2, 8),), [[-1, [2, 10]]])),
        ("chunk_narrow", lambda: convert(ChunkNarrow(), (torch.randn(2, 5, 6),), [[-1, 5, 6]])),
        ("chunk_narrow_dynamic", lambda: convert(ChunkNarrow(), (torch.randn(2, 5, 6),), [[-1, -1, 6]])),
        (
            "flatten_unflatten",
            lambda: convert(FlattenUnflatten(), (torch.randn(2, 3, 4, 5),), [[-1, 3, 4, 5]]),
        ),
        (
            "flatten_unflatten_dynamic",
            lambda: convert(FlattenUnflatten(), (torch.randn(2, 3, 4, 5),), [[-1, 3, -1, -1]]),
        ),
        (
            "mask_from_lengths",
            lambda: convert(MaskFromLengths(), (torch.randn(2, 5), torch.tensor([3, 5])), [[-1, 5], [-1]]),
        ),
        (
            "pad_to_multiple_static",
            lambda: convert(PadToMultiple(), (torch.randn(1, 2, 5, 3),), [[-1, -1, 5, 3]]),
        ),
        (
            "pad_to_multiple_dynamic",
            lambda: convert(PadToMultiple(), (torch.randn(1, 2, 5, 3),), [[-1, -1, -1, 3]]),
        ),
        ("pad_last_two", lambda: convert(PadLastTwo(), (torch.randn(1, 2, 3, 5),), [[-1, -1, 3, 5]])),
        (
            "pad_last_two_interval",
            lambda: convert(PadLastTwo(), (torch.randn(1, 2, 3, 5),), [[-1, -1, 3, [1, 5]]]),
        ),
        ("mamba_conv_state", lambda: convert(MambaConvState(), (torch.randn(1, 6, 3),), [[-1, 6, 3]])),
        (
            "mamba_conv_state_dynamic",
            lambda: convert(MambaConvState(), (torch.randn(1, 6, 3),), [[-1, -1, -1]]),
        ),
        (
            "pad_from_other",
            lambda: convert(PadFromOther(), (torch.randn(2, 3), torch.randn(2, 7)), [[-1, 3], [-1, 7]]),
        ),
        (
            "interpolate_computed",
            lambda: convert(InterpolateComputed(), (torch.randn(1, 2, 3, 4),), [[-1, 2, 3, 4]]),
        ),
        (
            "interpolate_computed_dynamic",
            lambda: convert(InterpolateComputed(), (torch.randn(1, 2, 3, 4),), [[-1, 2, -1, -1]]),
        ),
        ("view_computed", lambda: convert(ViewComputed(), (torch.randn(2, 6, 3),), [[-1, 6, 3]])),
        ("view_computed_dynamic", lambda: convert(ViewComputed(), (torch.randn(2, 6, 3),), [[-1, -1, 3]])),
        ("slice_computed", lambda: convert(SliceComputed(), (torch.randn(2, 8, 6),), [[-1, 8, 6]])),
        (
            "slice_computed_interval",
            lambda: convert(SliceComputed(), (torch.randn(2, 8, 6),), [[-1, [4, 16], 6]]),
        ),
        ("masked_fill_shapes", lambda: convert(MaskedFillShapes(), (torch.randn(2, 5, 5),), [[-1, 5, 5]])),
        (
            "masked_fill_shapes_dynamic",
            lambda: convert(MaskedFillShapes(), (torch.randn(2, 5, 5),), [[-1, -1, -1]]),
        ),
        ("where_arange", lambda: convert(WhereArange(), (torch.randn(3, 5),), [[3, 5]])),
        ("where_arange_dynamic", lambda: convert(WhereArange(), (torch.randn(3, 5),), [[-1, -1]])),
        ("repeat_expand", lambda: convert(RepeatExpand(), (torch.randn(3, 4),), [[3, 4]])),
        ("repeat_expand_dynamic", lambda: convert(RepeatExpand(), (torch.randn(3, 4),), [[-1, 4]])),
        ("causal_mask_pad", lambda: convert(CausalMaskPad(), (torch.randn(2, 6),), [[-1, 6]])),
        ("causal_mask_pad_interval", lambda: convert(CausalMaskPad(), (torch.randn(2, 6),), [[-1, [1, 10]]])),
    ]


def compare_torch(save_dir: Path | None = None, dynamic: bool = False) -> dict[str, list[Mismatch]]:
    import openvino as ov

    results = {}
    for name, build in torch_cases():
        with tempfile.TemporaryDirectory(prefix="compare-inference-") as tmp:
            where = (save_dir or Path(tmp)) / f"{name}.xml"
            where.parent.mkdir(parents=True, exist_ok=True)
            try:
                ov.save_model(build(), str(where), compress_to_fp16=False)
            except Exception as exc:  # noqa: BLE001 - a module OpenVINO cannot convert is reported, not fatal
                results[name] = [Mismatch("(conversion)", 0, "error", "-", " ".join(str(exc).split())[:200])]
                continue
            results[name] = compare(where, dynamic=dynamic)
    return results


def compare_onnx_node(pattern: str, dynamic: bool = False) -> dict[str, list[Mismatch]]:
    """The IR OpenVINO's ONNX frontend makes of each ONNX backend node case (scripts/onnx_node_suite.py)."""
    import re

    import onnx

    from ovonehot.errors import Error
    from ovonehot.oracle.onnx_frontend import convert_onnx

    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from onnx_node_suite import collect_cases

    rx = re.compile(pattern)
    results = {}
    for name, case in collect_cases().items():
        if not rx.search(name):
            continue
        with tempfile.TemporaryDirectory(prefix="compare-inference-") as tmp:
            path = Path(tmp) / "model.onnx"
            onnx.save(case.model, str(path))
            try:
                xml, weights = convert_onnx(path)
            except Error:
                continue  # the frontend cannot convert it: nothing to compare
            (Path(tmp) / "model.xml").write_bytes(xml)
            (Path(tmp) / "model.bin").write_bytes(weights)
            try:
                results[name] = compare(Path(tmp) / "model.xml", dynamic=dynamic)
            except Error as exc:
                results[name] = [Mismatch("(model)", 0, "error", str(exc)[:300], "-")]
    return results


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("paths", nargs="*", type=Path, help="IR files or directories to search for *.xml")
    parser.add_argument("--torch", action="store_true", help="also convert and compare the PyTorch modules")
    parser.add_argument("--save-torch", type=Path, default=None, help="keep the converted PyTorch IR here")
    parser.add_argument(
        "--onnx-node",
        metavar="REGEX",
        default=None,
        help="also compare the converted ONNX backend node cases whose names match",
    )
    parser.add_argument(
        "--dynamic",
        action="store_true",
        help="reshape every input to a fully dynamic shape of its rank first (both sides)",
    )
    parser.add_argument("--quiet", action="store_true", help="print only models with mismatches")
    args = parser.parse_args(argv)

    from ovonehot.errors import Error

    results: dict[str, list[Mismatch]] = {}
    for path in args.paths:
        files = sorted(path.rglob("*.xml")) if path.is_dir() else [path]
        for xml in files:
            try:
                results[str(xml)] = compare(xml, dynamic=args.dynamic)
            except Error as exc:
                results[str(xml)] = [Mismatch("(model)", 0, "error", str(exc)[:300], "-")]
            except RuntimeError as exc:  # OpenVINO cannot read it (ir/invalid holds such files)
                results[str(xml)] = _both_refuse(xml, exc)
    if args.onnx_node is not None:
        results.update({f"onnx:{k}": v for k, v in compare_onnx_node(args.onnx_node, args.dynamic).items()})
    if args.torch:
        results.update({f"torch:{k}": v for k, v in compare_torch(args.save_torch, args.dynamic).items()})
    bad = _print_results(results, args.quiet)
    return 1 if bad else 0


def _print_results(results: dict[str, list[Mismatch]], quiet: bool) -> int:
    """Print each model's mismatches (and, unless ``quiet``, the agreeing ones); how many mismatch."""
    bad = gaps = 0
    for name, problems in results.items():
        if problems and all(p.what == UNSUPPORTED for p in problems):
            gaps += 1
            if not quiet:
                print(f"{name}: {problems[0]}")
        elif problems:
            bad += 1
            print(f"{name}: {len(problems)} mismatch(es)")
            for p in problems:
                print(f"  {p}")
        elif not quiet:
            print(f"{name}: every layer agrees")
    print(f"{len(results)} models, {bad} with mismatches, {gaps} not compared (unsupported ops)")
    return bad


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT / "src"))
    sys.exit(main())
