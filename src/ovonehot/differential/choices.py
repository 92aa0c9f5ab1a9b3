"""Differences that are choices: a selection op (TopK, NonMaxSuppression, ...) picks
differently in the CPU plugin and in ovonehot, and both picks are right.

A detector's output can differ everywhere while every kernel is right, in two ways:

* **ties**: TopK-1/-3, and TopK-11 with ``stable=false``, leave the order of equal elements
  open (and which of them a row keeps at the k-th place).  The plugin's indices are a valid
  answer when they are distinct, in range, select exactly the values the plugin outputs, no
  value left out is better than one kept, and they follow the ``sort`` attribute: checked from
  the data alone, not against ovonehot's answer;
* **rounding**: the op's inputs differ by rounding (the plugin sums a convolution in another
  order), and a near tie goes the other way.  The plugin's pick is right when ovonehot's own
  kernel, given the plugin's values of the inputs, picks as the plugin does (up to the ties
  above), and those inputs are within the tolerance (or the rounding envelope) of ovonehot's.

:func:`substitute` runs the model again with every such pick of the plugin put in place of
ovonehot's (an ``override``: the node's outputs are the plugin's, everything after it
ovonehot's kernels).  When an output then equals the plugin's, the choices explain the whole
difference: the verdict is a *choice difference* naming them.  A pick that fits neither rule
(a wrong index, inputs further apart than rounding) stays ovonehot's, and the output then
still differs: the verdict stays what it was.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from ..errors import Error
from ..graph import Node
from ..infer import NodePlan
from ..model import Model
from ..ops.common.shape_util import normalize_axis
from ..ops.common.spec import NodeKey
from ..ops.topk import TopKAttrs, TopKMode, TopKSort
from .compare import Tolerance, compare
from .envelope import Carried, decision

# The ops whose outputs are picks (indices, selected boxes), by lower-case type.
SELECTIONS = frozenset(
    {
        "topk",
        "nonmaxsuppression",
        "nmsrotated",
        "multiclassnms",
        "matrixnms",
        "experimentaldetectrontopkrois",
        "experimentaldetectrongenerateproposalssingleimage",
        "experimentaldetectrondetectionoutput",
        "detectionoutput",
        "proposal",
    }
)


@dataclass(frozen=True, slots=True)
class Choice:
    """One node where the plugin's pick was put in place of ovonehot's."""

    node: int  # index in the model's graph
    layer: int  # the IR layer id
    where: str  # node.describe()
    rounding: bool  # its inputs differ by rounding (else: identical inputs, tied elements)
    detail: str


def describe(choices: Sequence[Choice], oracle: str) -> str:
    """The picks in a sentence: the tied ones, then those rounding tipped, a few layers named."""
    parts = []
    ties = [c for c in choices if not c.rounding]
    tipped = [c for c in choices if c.rounding]
    if ties:
        parts.append(
            f"{oracle} orders tied elements another way at {_layers(ties)} (TopK-1/-3, and TopK-11 "
            "with stable=false, leave their order open: its indices are distinct, each picks the "
            "value it outputs, they follow the sort attribute, and no element left out is better "
            "than one kept)"
        )
    if tipped:
        parts.append(
            f"at {_layers(tipped)} the inputs differ from ovonehot's by rounding ({tipped[0].detail}), "
            f"and ovonehot's own kernel, given {oracle}'s values of them, picks as {oracle} does"
        )
    return "; ".join(parts)


def _layers(choices: Sequence[Choice], named: int = 4) -> str:
    first = choices[0].where
    rest = [f"id={c.layer}" for c in choices[1:named]]
    more = f" and {len(choices) - named} more" if len(choices) > named else ""
    return first if not rest else f"{first} ({len(choices)} layers: also {', '.join(rest)}{more})"


@dataclass(frozen=True, slots=True)
class Substituted:
    """ovonehot's outputs with the plugin's picks in place, and the picks."""

    outputs: dict[str, np.ndarray]
    choices: tuple[Choice, ...]
    picks: frozenset[int]  # the selection nodes this run ran
    decided: dict[tuple[int, int], np.ndarray]  # its integer, boolean and DISCRETE node outputs


# A node output's tolerance, and its rounding envelope's test: (node, port, a, b) -> within.
Within = Callable[[int, int, np.ndarray, np.ndarray], bool]


def substitute(
    model: Model,
    inputs: Mapping[str, np.ndarray],
    theirs: Mapping[tuple[str, int], np.ndarray],
    tolerances: Mapping[tuple[int, int], Tolerance],
    carried: Carried | None,
) -> Substituted | None:
    """Run ``model`` (exact) with the plugin's picks (``theirs``: its every node output by layer
    name and port) in place of ovonehot's wherever they are right by the rules above; None when
    the model has no selection op, or the run fails."""
    graph = model.graph
    if not picks(model):
        return None  # (no run needed)
    made: list[Choice] = []
    ran: set[int] = set()
    decided: dict[tuple[int, int], np.ndarray] = {}

    def within(node: int, port: int, a: np.ndarray, b: np.ndarray) -> bool:
        tol = tolerances.get((node, port))
        if tol is not None and compare(a, b, tol).equal:
            return True
        # The envelope is the float64 run's, which made ovonehot's picks: it holds only where no
        # replaced pick is upstream.
        replaced = {c.node for c in made}
        env = None if carried is None or graph.ancestors([node]) & replaced else carried.at(node, port)
        return env is not None and env.fits(a, b) and env.between(a, b) <= 1.0

    def hook(key: NodeKey, plan: NodePlan, args: list[np.ndarray]) -> Sequence[np.ndarray] | None:
        if not isinstance(key, int) or not _selects(plan.node):
            return None
        choice, outs = _pick(model, key, plan, args, theirs, within)
        if choice is not None:
            made.append(choice)
        ran.add(key)
        return outs

    def observe(key: NodeKey, plan: NodePlan, outs: Sequence[np.ndarray], seconds: float) -> None:
        if isinstance(key, int):
            decided.update({(key, k): o for k, o in enumerate(outs) if decision(plan.node, o)})

    try:
        outputs = model.run(inputs, observer=observe, override=hook)
    except Error:
        return None
    return Substituted(outputs, tuple(made), frozenset(ran), decided) if ran else None


def picks(model: Model) -> bool:
    """The model holds a selection op (at the top level or in a body)."""
    return any(_selects(node) for node in model.graph.nodes)


def _selects(node: Node) -> bool:
    """A selection op, or a sub-graph op (If, Loop) with one in a body: the plugin shows no
    node of a body, so such a node is judged as a whole, by the rounding rule."""
    return node.type.lower() in SELECTIONS or any(
        _selects(inner) for _, body in node.bodies for inner in body.nodes
    )


def _pick(
    model: Model,
    i: int,
    plan: NodePlan,
    args: list[np.ndarray],
    theirs: Mapping[tuple[str, int], np.ndarray],
    within: Within,
) -> tuple[Choice | None, list[np.ndarray]]:
    """Node ``i``'s outputs: the plugin's with why they are right, or ovonehot's (no Choice)."""
    node = plan.node
    ours = [np.asarray(o) for o in plan.spec.reference(plan.attrs, args)]
    got = [theirs.get((node.name, k)) for k in range(len(node.outputs))]
    if any(g is None for g in got):
        return None, ours  # (fused or renamed by the plugin: nothing to put in place)
    picked = [_as(np.asarray(g), o.dtype) for g, o in zip(got, ours, strict=False) if g is not None]
    if len(ours) != len(picked) or all(_same(o, g) for o, g in zip(ours, picked, strict=True)):
        return None, ours
    choice = _why(model, i, plan, args, picked, theirs, within)
    return (None, ours) if choice is None else (choice, [np.array(g, copy=True) for g in picked])


def _why(
    model: Model,
    i: int,
    plan: NodePlan,
    args: list[np.ndarray],
    picked: list[np.ndarray],
    theirs: Mapping[tuple[str, int], np.ndarray],
    within: Within,
) -> Choice | None:
    """Why the plugin's ``picked`` outputs of node ``i`` are right (a Choice), or None."""
    node = plan.node
    # The plugin's values of the inputs (a constant, or an input it does not show: ovonehot's).
    sources = model.graph.sources[i]
    given = []
    for s, mine in zip(sources, args, strict=True):
        value = theirs.get((model.graph.nodes[s.node].name, s.output))
        given.append(mine if value is None else np.asarray(value))
    moved = [k for k, (a, b) in enumerate(zip(args, given, strict=True)) if not _same(a, b)]
    for k in moved:
        a, b = args[k], given[k]
        if a.shape != b.shape or a.dtype != b.dtype or not within(sources[k].node, sources[k].output, a, b):
            return None
    if _tied(plan.attrs, given, picked):
        detail = "tied elements"
    else:
        try:
            expected = plan.spec.reference(plan.attrs, given)
        except Error:
            return None
        if len(expected) != len(picked) or not all(
            _same(e, g) for e, g in zip(expected, picked, strict=True)
        ):
            return None
        detail = "the same pick"
    if moved:
        worst = max(_moved_by(args[k], given[k]) for k in moved)
        detail = f"by up to {worst:.3g}, inside the tolerance or the rounding envelope"
    elif not _tie_open(plan.attrs):
        return None  # (the same inputs, and one right answer: ovonehot's)
    return Choice(i, node.id, node.describe(), bool(moved), detail)


def _moved_by(a: np.ndarray, b: np.ndarray) -> float:
    """The largest absolute difference of two inputs (0 for non-numbers)."""
    if a.dtype.kind not in "biuf" or not a.size:
        return 0.0
    with np.errstate(invalid="ignore", over="ignore"):
        d = np.abs(a.astype(np.float64) - b.astype(np.float64))
    return float(np.nanmax(d)) if np.isfinite(d).any() else 0.0


def _as(value: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """The plugin's output in ovonehot's type when it holds the same values (the CPU plugin gives
    i64 indices as i32), else as it is (it then differs, and is not put in place)."""
    if value.dtype == dtype or value.dtype.kind != dtype.kind or dtype.kind not in "iu":
        return value
    cast = value.astype(dtype)
    return cast if np.array_equal(cast, value) else value


def _tie_open(attrs: object) -> bool:
    """TopK-1/-3, and TopK-11 with stable=false: the order of equal elements is left open."""
    return isinstance(attrs, TopKAttrs) and not attrs.stable


def _tied(attrs: object, args: Sequence[np.ndarray], picked: Sequence[np.ndarray]) -> bool:
    """``picked`` is a right TopK answer on ``args`` with tied elements in an order the op leaves
    open (the rules of the module's docstring, from the data alone)."""
    if not isinstance(attrs, TopKAttrs) or attrs.stable or len(args) < 2 or len(picked) != 2:
        return False
    data, (values, indices) = np.asarray(args[0]), picked
    if data.dtype.kind not in "biuf" or indices.dtype.kind not in "iu" or values.dtype != data.dtype:
        return False
    if data.dtype.kind == "f" and np.isnan(data).any():
        return False  # (NaN's place is the reference's: compared as it is)
    try:
        axis = normalize_axis(attrs.axis, data.ndim)
    except Error:
        return False
    if values.shape != indices.shape or values.ndim != data.ndim:
        return False
    rows = np.moveaxis(data, axis, -1)
    idx = np.moveaxis(indices, axis, -1).astype(np.int64)
    return rows.shape[:-1] == idx.shape[:-1] and _right(attrs, rows, idx, np.moveaxis(values, axis, -1))


def _right(attrs: TopKAttrs, rows: np.ndarray, idx: np.ndarray, val: np.ndarray) -> bool:
    """Rows of indices and values (the TopK axis last) are a right answer on the data ``rows``."""
    n, k = rows.shape[-1], idx.shape[-1]
    if ((idx < 0) | (idx >= n)).any():
        return False
    ordered = np.sort(idx, axis=-1)
    if k and (ordered[..., 1:] == ordered[..., :-1]).any():
        return False  # (an element picked twice)
    if not _same(np.take_along_axis(rows, idx, axis=-1), val) or not _best(rows, idx, val, attrs.mode):
        return False  # (a value that is not the data's at its index, or a better one left out)
    if attrs.sort is TopKSort.INDEX and k and (idx[..., 1:] <= idx[..., :-1]).any():
        return False
    if attrs.sort is TopKSort.VALUE and k:
        step = val[..., 1:] <= val[..., :-1] if attrs.mode is TopKMode.MAX else val[..., 1:] >= val[..., :-1]
        return bool(step.all())
    return True


def _best(rows: np.ndarray, idx: np.ndarray, val: np.ndarray, mode: TopKMode) -> bool:
    """No element left out of a row is better than one kept (greater for max, less for min)."""
    k, n = idx.shape[-1], rows.shape[-1]
    if k in (0, n):
        return True
    kept = np.zeros(rows.shape, dtype=bool)
    np.put_along_axis(kept, idx, True, axis=-1)
    if mode is TopKMode.MAX:
        worst_kept = val.min(axis=-1)
        best_out = np.where(kept, rows.min(axis=-1, keepdims=True), rows).max(axis=-1)
        return bool((best_out <= worst_kept).all())
    worst_kept = val.max(axis=-1)
    best_out = np.where(kept, rows.max(axis=-1, keepdims=True), rows).min(axis=-1)
    return bool((best_out >= worst_kept).all())


def _same(a: np.ndarray, b: np.ndarray) -> bool:
    """Bit for bit (NaN payloads and the sign of zero included): diff's exact comparison."""
    return compare(a, b, Tolerance.exact()).equal
