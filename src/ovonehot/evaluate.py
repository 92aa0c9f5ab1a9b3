"""Interpreter 2: run the graph on NumPy arrays.

Walks the plans in topological order, calls each op's kernel, and drops every
intermediate as soon as its last consumer has run, so peak memory is the live
set, not the whole graph.  Each value is checked against its inferred element
type and partial shape (a mismatch is an ovonehot bug, and stays loud).

How it walks is compiled once per :class:`Inference` into a :class:`Program`
(kernels bound to their parsed attributes, each input's slot, what to free after
each node) and, per input signature (the feeds' shapes and dtypes), the output
shapes the first run with that signature checked: later runs compare shapes for
equality instead of re-checking them against the partial shapes.  A different
signature compiles its own record; a value whose shape differs from the record (a
shape that depends on input values, as NonZero's) is checked in full again.

Per-node hooks: an optional ``observer(index, plan, outputs, seconds)`` sees every
node's outputs as they are made (for ``--dump-intermediates`` and ``--verbose``); an
optional ``override(index, plan, args)`` may replace a node's kernel: what it returns
(when not None) becomes the node's outputs, checked like a kernel's (``diff``'s model of
the CPU plugin runs this way, :mod:`ovonehot.differential.deviations`).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from .budget import check_allocation
from .errors import Error, InputError
from .infer import FOLD_LIMIT, Inference, NodePlan
from .ops.common.spec import TensorInfo, Variables
from .types import PartialShape

Observer = Callable[[int, NodePlan, Sequence[np.ndarray], float], None]
# Replaces a node's kernel: (node index, plan, input values) -> outputs, or None to run the kernel.
Override = Callable[[int, NodePlan, list[np.ndarray]], Sequence[np.ndarray] | None]
# Shapes and dtypes of the feeds, by Parameter node index: what a plan's checks hold for.
Signature = tuple[tuple[int, tuple[int, ...], np.dtype], ...]

# Signatures remembered per Inference (the oldest is dropped beyond this).
MAX_SIGNATURES = 8


@dataclass(slots=True)
class Step:
    """One node as the program runs it."""

    index: int
    plan: NodePlan
    args: tuple[int, ...]  # value slots of its inputs
    first: int  # slot of its output 0 (output k is first + k)
    n_out: int
    frees: tuple[int, ...]  # slots nobody reads after this node
    stateful: bool
    result: bool  # a Result: its input is a run's output
    kernel: object  # the spec's evaluate (or evaluate_stateful) function, None for a Parameter
    attrs: object
    sized: bool  # the output sizes need checking before the kernel runs (check_output_sizes)


@dataclass(slots=True)
class Program:
    """The signature-independent part of a plan: the steps and the value slots."""

    steps: tuple[Step, ...]
    slots: int
    # signature -> per slot, the (shape, dtype) the first run with it checked (None: not yet)
    signatures: dict[Signature, list[tuple[tuple[int, ...], np.dtype] | None]]
    compiles: int = 0  # how many signatures were compiled (for tests and curiosity)


def program(inference: Inference) -> Program:
    """The compiled program of ``inference`` (built on first use, then kept with it)."""
    cached = inference.cache.get("program")
    if cached is not None:
        return cached  # type: ignore[no-any-return]
    graph = inference.graph
    firsts = []
    slots = 0
    for outs in inference.outputs:
        firsts.append(slots)
        slots += len(outs)
    last_reader = [-1] * len(graph.nodes)  # the last node that reads a node's outputs
    for i, srcs in enumerate(graph.sources):
        for s in srcs:
            last_reader[s.node] = i
    frees: list[list[int]] = [[] for _ in graph.nodes]
    for n, reader in enumerate(last_reader):
        if reader >= 0:
            frees[reader].extend(range(firsts[n], firsts[n] + len(inference.outputs[n])))
    steps = []
    for i, p in enumerate(inference.plans):
        steps.append(
            Step(
                i,
                p,
                tuple(firsts[s.node] + s.output for s in graph.sources[i]),
                firsts[i],
                len(inference.outputs[i]),
                tuple(frees[i]),
                p.spec.evaluate_stateful is not None,
                p.node.type.lower() == "result",
                p.spec.evaluate_stateful if p.spec.evaluate_stateful is not None else p.spec.evaluate,
                p.attrs,
                not all(_small_static(t.shape, t.element_type.numpy_dtype) for t in inference.outputs[i]),
            )
        )
    prog = Program(tuple(steps), slots, {})
    inference.cache["program"] = prog
    return prog


def _small_static(shape: PartialShape, dtype: np.dtype | None) -> bool:
    """An output of this inferred shape always passes check_allocation (static, at most 1 MiB):
    the check is decided once, when the program is compiled."""
    if not shape.is_static:
        return False
    dims = shape.to_shape()
    itemsize = 8 if dtype is None else dtype.itemsize
    return len(dims) <= 64 and math.prod(d for d in dims if d) * max(itemsize, 1) <= 1 << 20


def signature(feeds: Mapping[int, np.ndarray]) -> Signature:
    return tuple((i, a.shape, a.dtype) for i, a in feeds.items())


def evaluate(
    inference: Inference,
    feeds: Mapping[int, np.ndarray],
    observer: Observer | None = None,
    keep: Sequence[tuple[int, int]] = (),
    variables: Variables | None = None,
    out: Mapping[int, np.ndarray | None] | None = None,
    override: Override | None = None,
) -> dict[tuple[int, int], np.ndarray]:
    """Run the graph.  ``feeds`` maps Parameter node indices to arrays.

    Returns the value of every Result's input, keyed by (Result node index, 0), plus
    the outputs named in ``keep`` as (node index, output index).  ``variables`` is the
    state ReadValue reads and Assign updates (committed when the run ends); without it
    the run starts from the initial state and forgets what Assign wrote.

    ``out`` offers buffers by Result node index: a kernel that can write into a given
    array (``OpSpec.evaluate_into``) and makes that Result's value writes into the buffer when
    its shape and dtype fit (the value returned is then the buffer itself); None offers
    no buffer but still lets such a kernel make a fresh array the caller may keep.

    ``override`` is asked first for every node that is not fed (Results included); what it
    returns replaces the node's kernel (and its errors get the layer context, as a kernel's).
    """
    if variables is None:
        variables = Variables()
    prog = program(inference)
    sig = signature(feeds)
    seen = prog.signatures.get(sig)
    if seen is None:
        if len(prog.signatures) >= MAX_SIGNATURES:
            del prog.signatures[next(iter(prog.signatures))]
        seen = prog.signatures[sig] = [None] * prog.slots
        prog.compiles += 1
    targets = _into_targets(inference, prog, out) if out else {}
    pinned = set(keep)
    values: list[np.ndarray | None] = [None] * prog.slots
    results: dict[tuple[int, int], np.ndarray] = {}
    perf_counter = time.perf_counter
    for step in prog.steps:
        i = step.index
        p = step.plan
        args = [values[a] for a in step.args]
        start = perf_counter() if observer is not None else 0.0
        outs: Sequence[np.ndarray]
        if i in feeds:
            outs = [feeds[i]]
        elif (
            override is not None
            and (
                replaced := _overridden(override, i, p, args)  # type: ignore[arg-type]
            )
            is not None
        ):
            outs = replaced
        else:
            kernel = step.kernel
            assert kernel is not None, f"{p.spec.name} has no kernel and no feed"
            try:
                if step.stateful:
                    outs = kernel(step.attrs, args, variables)  # type: ignore[operator]
                else:
                    refused = check_output_sizes(inference, i, args) if step.sized else None  # type: ignore[arg-type]
                    if refused is not None:
                        outs = _run_refused(p, args, refused)  # type: ignore[arg-type]
                    elif targets and i in targets and (into := p.spec.evaluate_into) is not None:
                        outs = into(step.attrs, args, targets[i])  # type: ignore[arg-type]
                    else:
                        outs = kernel(step.attrs, args)  # type: ignore[operator]
            except Error as exc:
                raise type(exc)(f"{p.node.describe()}: {exc}") from None
        if step.result:
            results[(i, 0)] = args[0]  # type: ignore[assignment]
        slot = step.first
        for k, value in enumerate(outs):
            known = seen[slot]
            if (
                known is None
                or value.shape != known[0]
                or (value.dtype is not known[1] and value.dtype != known[1])
            ):
                _check(inference, i, k, value)
                seen[slot] = (value.shape, value.dtype)
            values[slot] = value
            slot += 1
            if pinned and (i, k) in pinned:
                results[(i, k)] = value
        if observer is not None:
            observer(i, p, outs, perf_counter() - start)
        for f in step.frees:  # free what no later node reads
            values[f] = None
    variables.commit()
    return results


def _overridden(
    override: Override, index: int, p: NodePlan, args: list[np.ndarray]
) -> Sequence[np.ndarray] | None:
    try:
        return override(index, p, args)
    except Error as exc:
        raise type(exc)(f"{p.node.describe()}: {exc}") from None


def _into_targets(
    inference: Inference, prog: Program, out: Mapping[int, np.ndarray | None]
) -> dict[int, list[np.ndarray | None]]:
    """Producer node index -> [buffer] for the Results in ``out`` whose producer can write into one."""
    targets: dict[int, list[np.ndarray | None]] = {}
    for r, buffer in out.items():
        src = inference.graph.sources[r][0]
        step = prog.steps[src.node]
        if (
            src.output == 0
            and step.n_out == 1
            and not step.stateful
            and step.plan.spec.evaluate_into is not None
        ):
            targets[src.node] = [buffer]
    return targets


def _run_refused(p: NodePlan, args: Sequence[np.ndarray], refused: InputError) -> Sequence[np.ndarray]:
    """Inputs the op's shape rules refuse: the kernel's own error when it has one, else ``refused``."""
    try:
        p.spec.evaluate(p.attrs, args)  # type: ignore[misc]
    except Error:
        raise
    except Exception:  # noqa: BLE001, S110 - the kernel choked on the inputs its rules refuse
        pass
    raise refused


def check_output_sizes(inference: Inference, index: int, args: Sequence[np.ndarray]) -> InputError | None:
    """InputError when an output of node ``index`` would not fit in the memory budget.

    Static inferred shapes are checked as they are; a dynamic one is inferred again from
    the actual input shapes (and the values of small inputs: a Broadcast's target shape, a
    Range's bounds), so the kernel never allocates an output the budget refuses (InputError
    raised).  When the op's shape rules refuse the actual inputs, that error is returned.
    """
    p = inference.plans[index]
    infos = inference.outputs[index]
    if any(not t.shape.is_static for t in infos):
        graph = inference.graph
        ins = [
            TensorInfo(
                inference.outputs[s.node][s.output].element_type,
                PartialShape.of(a.shape),
                value=a if a.size <= FOLD_LIMIT and a.dtype != object else None,
            )
            for s, a in zip(graph.sources[index], args, strict=True)
        ]
        try:
            infos = tuple(p.spec.infer(p.attrs, ins))
        except Error as exc:
            # OpenVINO infers shapes again from the actual inputs when it runs, and refuses what
            # its rules refuse (an input size that differs from the weights'); so does ovonehot,
            # instead of the kernel failing on the mismatch (the kernel's own message first).
            return InputError(f"with these inputs: {exc}")
    for k, info in enumerate(infos):
        if info.shape.is_static:
            et = info.element_type
            itemsize = 8 if et.numpy_dtype is None else et.numpy_dtype.itemsize
            check_allocation(info.shape.to_shape(), itemsize, f"output {k}")
    return None


def _check(inference: Inference, index: int, port: int, value: np.ndarray) -> None:
    info = inference.outputs[index][port]
    expected = info.element_type.numpy_dtype
    if expected is not None and value.dtype != expected:
        raise AssertionError(
            f"ovonehot bug: {inference.plans[index].node.describe()} output {port} is {value.dtype}, "
            f"inferred {info.element_type}"
        )
    if not info.shape.accepts(value.shape):
        raise AssertionError(
            f"ovonehot bug: {inference.plans[index].node.describe()} output {port} has shape "
            f"{list(value.shape)}, inferred {info.shape}"
        )
