"""Interpreter 2: run the graph on NumPy arrays.

Walks the plans in topological order, calls each op's kernel, and drops every
intermediate as soon as its last consumer has run, so peak memory is the live
set, not the whole graph.  Each value is checked against its inferred element
type and partial shape (a mismatch is an ovonehot bug, and stays loud).

An optional ``observer(index, plan, outputs, seconds)`` sees every node's outputs
as they are made (for ``--dump-intermediates`` and ``--verbose``).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence

import numpy as np

from .budget import check_allocation
from .errors import Error, InputError
from .infer import FOLD_LIMIT, Inference, NodePlan
from .ops.spec import TensorInfo, Variables
from .types import PartialShape

Observer = Callable[[int, NodePlan, Sequence[np.ndarray], float], None]


def evaluate(
    inference: Inference,
    feeds: Mapping[int, np.ndarray],
    observer: Observer | None = None,
    keep: Sequence[tuple[int, int]] = (),
    variables: Variables | None = None,
) -> dict[tuple[int, int], np.ndarray]:
    """Run the graph.  ``feeds`` maps Parameter node indices to arrays.

    Returns the value of every Result's input, keyed by (Result node index, 0), plus
    the outputs named in ``keep`` as (node index, output index).  ``variables`` is the
    state ReadValue reads and Assign updates (committed when the run ends); without it
    the run starts from the initial state and forgets what Assign wrote.
    """
    if variables is None:
        variables = Variables()
    graph = inference.graph
    remaining = [0] * len(graph.nodes)  # pending consumers per node
    for srcs in graph.sources:
        for s in srcs:
            remaining[s.node] += 1
    pinned = set(keep)
    values: dict[tuple[int, int], np.ndarray] = {}
    results: dict[tuple[int, int], np.ndarray] = {}
    for i, p in enumerate(inference.plans):
        srcs = graph.sources[i]
        args = [values[(s.node, s.output)] for s in srcs]
        start = time.perf_counter()
        if i in feeds:
            outs: Sequence[np.ndarray] = [feeds[i]]
        elif p.spec.evaluate_stateful is not None:
            try:
                outs = p.spec.evaluate_stateful(p.attrs, args, variables)
            except Error as exc:
                raise type(exc)(f"{p.node.describe()}: {exc}") from None
        else:
            assert p.spec.evaluate is not None, f"{p.spec.name} has no kernel and no feed"
            try:
                refused = check_output_sizes(inference, i, args)
                if refused is None:
                    outs = p.spec.evaluate(p.attrs, args)
                else:
                    outs = _run_refused(p, args, refused)
            except Error as exc:
                raise type(exc)(f"{p.node.describe()}: {exc}") from None
        elapsed = time.perf_counter() - start
        if p.node.type.lower() == "result":
            results[(i, 0)] = args[0]
        for k, out in enumerate(outs):
            _check(inference, i, k, out)
            values[(i, k)] = out
            if (i, k) in pinned:
                results[(i, k)] = out
        if observer is not None:
            observer(i, p, outs, elapsed)
        for s in srcs:  # free what no later node reads
            remaining[s.node] -= 1
            if remaining[s.node] == 0:
                for k in range(len(inference.outputs[s.node])):
                    values.pop((s.node, k), None)
    variables.commit()
    return results


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
