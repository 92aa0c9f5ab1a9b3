"""``ovonehot run --out-dir DIR``: one .npy per output, an output too big for memory
computed in chunks straight into its file.

An output whose size (from the input shapes) exceeds the memory budget is computed in
chunks of rows along its first dimension and written through a memory map of its .npy,
when the layers that make it can be sliced that way: a OneHot whose axis is not 0, then any
chain of element-wise layers (Convert, unary activations, binary arithmetic/comparison
with a constant) whose only consumer is the next layer of the chain.  The OneHot's inputs
must be model inputs or constants.  Anything else over the budget is refused in one line.
The other outputs are computed as usual, by a run of the graph without the chunked layers.

Every file is written atomically (:class:`ovonehot.atomic.AtomicFile`).  The budget is
half the memory available (``ops.one_hot.output_budget``), or ``OVONEHOT_MEMORY_BUDGET``
bytes when that environment variable is set.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from .atomic import AtomicFile
from .errors import ResourceLimitError, UsageError
from .evaluate import RunMode, evaluate
from .graph import Graph
from .infer import Inference, infer
from .model import Model
from .npyio import ensure_directory, storable
from .ops import one_hot as one_hot_module
from .progress import bar as progress_bar
from .types import PartialShape

# Layers a chunk passes through unchanged in shape, element by element.
UNARY = frozenset(
    t.lower()
    for t in (
        "Convert",
        "Relu",
        "Sigmoid",
        "Tanh",
        "Abs",
        "Negative",
        "Exp",
        "Log",
        "Sqrt",
        "Floor",
        "Ceiling",
        "Sign",
        "Clamp",
        "Erf",
        "Gelu",
        "Elu",
        "Swish",
        "HSwish",
        "HSigmoid",
        "SoftPlus",
        "Mish",
        "LogicalNot",
        "Sin",
        "Cos",
        "Round",
    )
)
BINARY = frozenset(
    t.lower()
    for t in (
        "Add",
        "Subtract",
        "Multiply",
        "Divide",
        "Maximum",
        "Minimum",
        "Power",
        "SquaredDifference",
        "FloorMod",
        "Mod",
        "Equal",
        "NotEqual",
        "Less",
        "LessEqual",
        "Greater",
        "GreaterEqual",
        "LogicalAnd",
        "LogicalOr",
        "LogicalXor",
    )
)
BUDGET_ENV = "OVONEHOT_MEMORY_BUDGET"


def memory_budget() -> int:
    """Bytes one output may take in memory before it is written in chunks."""
    text = os.environ.get(BUDGET_ENV)
    if text:
        try:
            value = int(text)
        except ValueError:
            raise UsageError(f"{BUDGET_ENV}={text!r} is not a number of bytes") from None
        if value <= 0:
            raise UsageError(f"{BUDGET_ENV}={text!r} must be positive")
        return value
    return one_hot_module.output_budget()


def file_names(names: list[str]) -> list[str]:
    """A distinct, safe ``.npy`` file name per output name."""
    used: set[str] = set()
    result = []
    for k, name in enumerate(names):
        base = re.sub(r"[^A-Za-z0-9._-]", "_", name)[:100].lstrip(".") or f"output{k}"
        candidate = f"{base}.npy"
        n = 1
        while candidate.lower() in used:
            candidate = f"{base}_{n}.npy"
            n += 1
        used.add(candidate.lower())
        result.append(candidate)
    return result


@dataclass(frozen=True, slots=True)
class ChunkPlan:
    """How one output is made in chunks: the OneHot, then the chain of element-wise layers."""

    one_hot: int  # node index (of the OneHot, or of the Parameter the chain starts at)
    chain: tuple[int, ...]  # node indices after the OneHot, in order
    shape: tuple[int, ...]
    dtype: np.dtype


def write_outputs(
    model: Model,
    inputs: Mapping[str, np.ndarray],
    directory: str | os.PathLike[str],
    budget: int | None = None,
    progress: bool | None = None,
    exact: bool = True,
) -> dict[str, Path]:
    """Run ``model`` on ``inputs`` and write each output to ``DIR/<name>.npy``; returns the paths.
    ``exact`` is :meth:`Model.run`'s (the chunked chains hold no op it changes)."""
    budget = memory_budget() if budget is None else budget
    folder = ensure_directory(directory)
    bound = [
        a if cast is None else model_convert(a, cast)
        for a, cast in zip(model.bind(inputs), model._input_casts, strict=True)
    ]
    graph, inference = model.graph, model.inference
    shapes = {d.name: PartialShape.of(a.shape) for d, a in zip(model.inputs, bound, strict=True)}
    sized = infer(graph, inference.plans, shapes)  # output shapes for these inputs
    feeds = dict(zip(model._params, bound, strict=True))
    names = file_names([d.name for d in model.outputs])
    chunked: dict[int, ChunkPlan] = {}
    for k, r in enumerate(model._results):
        src = graph.sources[r][0]
        info = sized.outputs[src.node][src.output]
        dtype = info.element_type.numpy_dtype
        if not info.shape.is_static or dtype is None or model._output_casts[k] is not None:
            continue
        shape = info.shape.to_shape()
        if math.prod(shape) * dtype.itemsize > budget:
            chunked[k] = _chunk_plan(graph, sized, r, shape, dtype, budget)
    paths: dict[str, Path] = {}
    rest = [k for k in range(len(model.outputs)) if k not in chunked]
    if rest:
        values = _run_without(model, inference, feeds, [model._results[k] for k in rest], chunked, exact)
        for k in rest:
            path = folder / names[k]
            with AtomicFile(path) as f:
                np.lib.format.write_array(f, np.asanyarray(storable(values[k])), allow_pickle=False)
            paths[model.outputs[k].name] = path
    for k, plan in chunked.items():
        path = folder / names[k]
        _write_chunked(graph, inference, feeds, plan, path, budget, progress)
        paths[model.outputs[k].name] = path
    return paths


def _chunk_plan(
    graph: Graph, inference: Inference, result: int, shape: tuple[int, ...], dtype: np.dtype, budget: int
) -> ChunkPlan:
    where = graph.nodes[result].describe()
    size = math.prod(shape) * dtype.itemsize

    def refuse(why: str) -> ResourceLimitError:
        return ResourceLimitError(
            f"{where}: the output {list(shape)} of {dtype} needs {size} bytes, more than the {budget} bytes "
            f"of memory allowed, and cannot be computed in chunks: {why}"
        )

    consumers = graph.consumers()
    chain: list[int] = []
    node = graph.sources[result][0].node
    while True:
        n = graph.nodes[node]
        t = n.type.lower()
        if t == "onehot" or (t == "parameter" and chain):
            break
        if len(n.outputs) != 1:
            raise refuse(f"{n.describe()} is not an element-wise layer")
        data = _computed_input(graph, inference, node)
        if isinstance(data, str):
            raise refuse(f"{n.describe()} {data}")
        if inference.outputs[data][0].shape != inference.outputs[node][0].shape:
            raise refuse(f"{n.describe()} broadcasts its computed input")
        chain.append(node)
        node = data
        if len(consumers[node]) != 1 and graph.nodes[node].type.lower() != "parameter":
            raise refuse(f"{graph.nodes[node].describe()} has other consumers")
    n = graph.nodes[node]
    if n.type.lower() == "parameter":  # the chain starts at a model input: its rows are the output's
        return ChunkPlan(node, tuple(reversed(chain)), shape, dtype)
    axis = inference.plans[node].attrs.axis
    rank = len(shape)
    if axis % rank == 0 or rank < 2:
        raise refuse(f"{n.describe()} puts its depth on the first dimension")
    for s in graph.sources[node]:
        src = graph.nodes[s.node]
        if inference.outputs[s.node][s.output].value is None and src.type.lower() != "parameter":
            raise refuse(f"{n.describe()} has an input computed by {src.describe()}")
    return ChunkPlan(node, tuple(reversed(chain)), shape, dtype)


def _computed_input(graph: Graph, inference: Inference, node: int) -> int | str:
    """The one computed input of the element-wise layer ``node`` (the others are constants),
    or why there is none a chunk can follow."""
    n = graph.nodes[node]
    t = n.type.lower()
    if t in UNARY and len(graph.sources[node]) == 1:
        return graph.sources[node][0].node
    if t in BINARY and n.attr("auto_broadcast", "numpy") in ("numpy", "none"):
        ins = [s.node for s in graph.sources[node]]
        known = [inference.outputs[s.node][s.output].value is not None for s in graph.sources[node]]
        if known.count(False) != 1:
            return "has more than one computed input"
        return ins[known.index(False)]
    return "is not an element-wise layer ovonehot can slice"


def _run_without(
    model: Model,
    inference: Inference,
    feeds: Mapping[int, np.ndarray],
    results: list[int],
    chunked: Mapping[int, ChunkPlan],
    exact: bool,
) -> dict[int, np.ndarray]:
    """The values of the Results ``results`` (by output position), from a run of only the layers they need."""
    graph = inference.graph
    if not chunked:
        values = evaluate(inference, feeds, RunMode(exact=exact))
    else:
        needed: set[int] = set()
        todo = list(results)
        while todo:
            i = todo.pop()
            if i not in needed:
                needed.add(i)
                todo.extend(s.node for s in graph.sources[i])
        keep = sorted(needed)
        position = {old: new for new, old in enumerate(keep)}
        sub = Graph(
            graph.name,
            graph.ir_version,
            tuple(graph.nodes[i] for i in keep),
            tuple(tuple(type(s)(position[s.node], s.output) for s in graph.sources[i]) for i in keep),
        )
        sub_inference = Inference(
            sub, tuple(inference.plans[i] for i in keep), tuple(inference.outputs[i] for i in keep)
        )
        sub_feeds = {position[i]: a for i, a in feeds.items() if i in position}
        sub_values = evaluate(sub_inference, sub_feeds, RunMode(exact=exact))
        values = {(old, 0): sub_values[(position[old], 0)] for old in results}
    out = {}
    for k, r in enumerate(model._results):
        if (r, 0) in values:
            value = values[(r, 0)]
            cast = model._output_casts[k]
            out[k] = value if cast is None else model_convert(value, cast)
    return out


def model_convert(value: np.ndarray, cast: Any) -> np.ndarray:
    from .ops.convert import convert_array

    return convert_array(value, cast)


def _write_chunked(
    graph: Graph,
    inference: Inference,
    feeds: Mapping[int, np.ndarray],
    plan: ChunkPlan,
    path: Path,
    budget: int,
    progress: bool | None,
) -> None:
    def value_of(i: int, output: int) -> np.ndarray:
        if i in feeds:
            return feeds[i]
        known = inference.outputs[i][output].value
        assert known is not None  # noqa: S101 - the plan reads only fed inputs and values infer folded
        return known

    oh = inference.plans[plan.one_hot]
    oh_args = [value_of(s.node, s.output) for s in graph.sources[plan.one_hot]]
    start_fed = plan.one_hot in feeds  # the chain starts at a model input, not at a OneHot
    rows = plan.shape[0]
    row_bytes = max(1, math.prod(plan.shape[1:]) * plan.dtype.itemsize)
    # a chunk and the temporaries of the chain (each layer's output) within the budget
    per_chunk = max(1, min(rows, budget // (row_bytes * (len(plan.chain) + 2)), (64 << 20) // row_bytes))
    steps: list[tuple[Callable[..., Any], Any, list[Any], int]] = []
    for i in plan.chain:
        p = inference.plans[i]
        args: list[Any] = []
        data_at = 0
        for k, s in enumerate(graph.sources[i]):
            prev = s.node in plan.chain or s.node == plan.one_hot
            if prev:
                data_at = k
                args.append(None)
            else:
                args.append(value_of(s.node, s.output))
        assert p.spec.evaluate is not None  # noqa: S101 - the plan chains only layers that have a kernel
        steps.append((p.spec.evaluate, p.attrs, args, data_at))
    bar = progress_bar(rows, path.name, "row", force=progress)
    with AtomicFile(path) as f:
        header = {
            "descr": np.lib.format.dtype_to_descr(plan.dtype),
            "fortran_order": False,
            "shape": plan.shape,
        }
        np.lib.format.write_array_header_1_0(f, header)
        offset = f.tell()
        f.truncate(offset + rows * row_bytes)
        f.flush()
        if rows * row_bytes:
            target = np.memmap(f, dtype=plan.dtype, mode="r+", offset=offset, shape=plan.shape)
            for lo in range(0, rows, per_chunk):
                hi = min(lo + per_chunk, rows)
                if start_fed:
                    value = feeds[plan.one_hot][lo:hi]
                else:
                    value = _chunk(oh.spec.evaluate, oh.attrs, oh_args, lo, hi, rows)
                for fn, attrs, args, data_at in steps:
                    call = [
                        value if k == data_at else _rows(a, lo, hi, rows, len(plan.shape))
                        for k, a in enumerate(args)
                    ]
                    value = fn(attrs, call)[0]
                target[lo:hi] = value
                bar.update(hi - lo)
            target.flush()
            del target
    bar.close()


def _chunk(fn: Any, attrs: Any, args: list[np.ndarray], lo: int, hi: int, rows: int) -> np.ndarray:
    indices = args[0][lo:hi]  # the OneHot's axis is not 0: output row r comes from indices row r
    return fn(attrs, [indices, *args[1:]])[0]  # type: ignore[no-any-return]


def _rows(value: np.ndarray, lo: int, hi: int, rows: int, rank: int) -> np.ndarray:
    """A constant operand's part for output rows lo..hi (whole when it broadcasts along rows)."""
    arr = np.asarray(value)
    if arr.ndim == rank and arr.shape[0] == rows and rows != 1:
        return arr[lo:hi]
    return arr
