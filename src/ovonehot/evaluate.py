"""Interpreter 2: run the graph on NumPy arrays.

Walks the plans in topological order, calls each op's kernel, and drops every
intermediate as soon as its last consumer has run, so peak memory is the live
set, not the whole graph.  Each value is checked against its inferred element
type and partial shape (a mismatch is an ovonehot bug, and stays loud).

How it walks is compiled once per :class:`Inference` into a :class:`Program`
(kernels bound to their parsed attributes, each input's slot, what to free after
each node) and, per input signature (the feeds' shapes and dtypes), a :class:`Record`:
the output shapes the first run with that signature checked (later runs compare shapes
for equality instead of re-checking them against the partial shapes; a value whose
shape differs from the record, as NonZero's, is checked in full again) and, from the
signature's second run on, its :class:`Folded` plan.

Folding per signature: shapes are inferred again with the feeds' static shapes, so a
shape subgraph (ShapeOf -> Gather -> Concat -> a Reshape's target, a Range's bounds, a
mask built from shapes) depends on nothing a run can change.  Every node whose inputs
are all known then (Constants, ShapeOf of a statically shaped tensor, nodes fed only by
those) is computed once, by its own kernel on the same inputs (so the values are
bit-identical to a run's), when its outputs are small (``FOLD_LIMIT`` elements), its op
is ``foldable`` and ``deterministic``, and it is not stateful; runs then skip it and
start from its values.  Runs with an ``override`` skip nothing; an observer still sees
every node, the folded ones with their folded values.  A signature is folded only on its
second run, after a first run checked that its shapes are the inferred ones (a model run
once, as by the CLI, pays no second inference).  What folds from Constants alone (a
decompression Convert of a small weight) is the same for every signature: the model keeps
it once (``CONSTANT_BYTES``); the rest counts against a signature's ``FOLDED_BYTES``.

Bound kernels: a folded plan (made on a signature's second run, even when nothing folds)
also asks each running node's op for a kernel specialised to the signature (``OpSpec.bind``:
the attributes and the folded inputs -- a Gather's axis, a Reshape's pattern, a OneHot's
depth and values -- decoded once, the checks the signature settles dropped).  A bound kernel
gives exactly the bytes of the op's own kernel for inputs of those shapes and types
(``tests/test_bind.py``); what it does not decide (an index out of range, shapes NumPy
refuses to broadcast) goes to the op's own kernel, which words the error.  Its outputs are
checked as any kernel's, and a step whose output size a run decides still has it checked
before the kernel runs.

Exactness: ``exact=False`` runs each op's ``OpSpec.evaluate_fast`` where it has one (float
sums in NumPy's order, MatMul by BLAS: not bit-exact with OpenVINO's reference), bound by
``OpSpec.bind_fast`` in a folded plan to the same bytes as unbound, so a fast result does not
depend on folding either.

Per-node hooks: an optional ``observer(index, plan, outputs, seconds)`` sees every
node's outputs as they are made (for ``--dump-intermediates`` and ``--verbose``); an
optional ``override(index, plan, args)`` may replace a node's kernel: what it returns
(when not None) becomes the node's outputs, checked like a kernel's (``diff``'s model of
the CPU plugin runs this way, :mod:`ovonehot.differential.deviations`).
"""

from __future__ import annotations

import functools
import math
import operator
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, NoReturn

import numpy as np

from .budget import check_allocation
from .errors import Error, InputError
from .graph import Graph
from .infer import FOLD_LIMIT, Inference, NodePlan, infer
from .ops.common.bounds import shape_of_bounds
from .ops.common.spec import BindFn, Bound, TensorInfo, Variables
from .types import ElementType, PartialShape

Observer = Callable[[int, NodePlan, Sequence[np.ndarray], float], None]
# Replaces a node's kernel: (node index, plan, input values) -> outputs, or None to run the kernel.
Override = Callable[[int, NodePlan, list[np.ndarray]], Sequence[np.ndarray] | None]
# Shapes and dtypes of the feeds, by Parameter node index: what a plan's checks hold for.
Signature = tuple[tuple[int, tuple[int, ...], np.dtype], ...]

# Signatures remembered per Inference (the oldest is dropped beyond this).
MAX_SIGNATURES = 8
# Bytes of folded values (other than Constants' own arrays) one signature may keep, and the
# bytes of those computed from Constants alone, which a model keeps once for all signatures.
FOLDED_BYTES = 32 << 20
# Whether folded plans use the ops' bound kernels (``OpSpec.bind``); off only to compare.
BIND = True
CONSTANT_BYTES = 256 << 20

# How the hook-free loop runs a step (``Folded.loop``); _BOUND: a kernel ``OpSpec.bind`` made.
(
    _PLAIN,
    _SIZED,
    _STATEFUL,
    _FEED,
    _RESULT,
    _RESULT_COPY,
    _BOUND,
    _BOUND_FAST,
    _SIZED_BOUND,
    _SIZED_BOUND_FAST,
) = range(10)
# (kind, node index, kernel, attributes, input slots -- a getter for a bound step --, first output slot, frees)
LoopStep = tuple[int, int, Any, Any, Any, int, tuple[int, ...]]


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
    result: int  # a Result (its input is a run's output): 1, or 2 when that input is a folded value
    kernel: object  # the spec's evaluate (or evaluate_stateful) function, None for a Parameter
    attrs: object
    sized: bool  # the output sizes need checking before the kernel runs (check_output_sizes)


@dataclass(slots=True)
class Folded:
    """A signature's plan without the nodes whose outputs the signature alone decides."""

    steps: tuple[Step, ...]  # the nodes that still run, with what to free after each of them
    every: tuple[Step, ...]  # every node (for an observer), Results reading folded values marked
    initial: tuple[np.ndarray | None, ...]  # per slot: the folded value running nodes read, if any
    known: dict[int, Sequence[np.ndarray]]  # folded node index -> its outputs
    # ``steps`` as (kind, index, kernel, attrs, args, first, frees) for the hook-free loop,
    # with the kernels ``OpSpec.bind`` specialised to the signature; ``loop_fast`` the same
    # with each op's ``evaluate_fast`` where it has one (runs with ``exact=False``).
    loop: tuple[LoopStep, ...]
    loop_fast: tuple[LoopStep, ...]


@dataclass(slots=True)
class Record:
    """What runs with one input signature know: the shapes checked, and the folded plan."""

    seen: list[tuple[tuple[int, ...], np.dtype] | None]  # per slot, as the first run checked it
    runs: int = 0  # runs that completed
    folded: Folded | None = None
    tried: bool = False  # folding was attempted (``folded`` stays None when nothing could fold)


@dataclass(slots=True)
class Program:
    """The signature-independent part of a plan: the steps and the value slots."""

    steps: tuple[Step, ...]
    slots: int
    signatures: dict[Signature, Record]
    owners: tuple[int, ...]  # per slot, the index of the node whose output it holds
    compiles: int = 0  # how many signatures were compiled (for tests and curiosity)
    folds: int = 0  # how many signatures got a folded plan
    # Folded outputs computed from Constants alone (the same for every signature), shared by
    # the signatures' plans, and the bytes of those that are new arrays.
    constants: dict[int, Sequence[np.ndarray]] = field(default_factory=dict)
    constant_bytes: int = 0


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
                int(p.node.type.lower() == "result"),
                p.spec.evaluate_stateful if p.spec.evaluate_stateful is not None else p.spec.evaluate,
                p.attrs,
                not all(_small_static(t.shape, t.element_type.numpy_dtype) for t in inference.outputs[i]),
            )
        )
    owners = tuple(i for i, outs in enumerate(inference.outputs) for _ in outs)
    prog = Program(tuple(steps), slots, {}, owners)
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


def _small_bounded(shape: PartialShape, dtype: np.dtype | None) -> bool:
    """Every shape within these bounds passes check_allocation (at most 1 MiB): a node whose
    shape depends on values (after a NonZero) but is bounded by the signature's shapes."""
    if not shape.rank_is_static or shape.rank > 64 or any(d.max is None for d in shape):
        return False
    itemsize = 8 if dtype is None else dtype.itemsize
    return math.prod(d.max for d in shape if d.max) * max(itemsize, 1) <= 1 << 20


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
    exact: bool = True,
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
    A value the run returns is never one a later run returns again (folded values are copied).

    ``exact=False`` runs each op's ``OpSpec.evaluate_fast`` where it has one (float sums in
    NumPy's order, MatMul by BLAS: not bit-exact with OpenVINO's reference); the values
    folded for a signature are the exact kernels' either way.
    """
    if variables is None:
        variables = Variables()
    prog = program(inference)
    sig = signature(feeds)
    record = prog.signatures.get(sig)
    if record is None:
        if len(prog.signatures) >= MAX_SIGNATURES:
            del prog.signatures[next(iter(prog.signatures))]
        record = prog.signatures[sig] = Record([None] * prog.slots)
        prog.compiles += 1
    elif record.runs and not record.tried and override is None:
        record.tried = True
        record.folded = fold(inference, prog, feeds, record.seen)
        prog.folds += record.folded is not None
    folded = record.folded if override is None else None
    targets = _into_targets(inference, prog, out) if out else {}
    if folded is not None and observer is None and not keep and not targets:
        loop = folded.loop if exact else folded.loop_fast
        with np.errstate(all="ignore"):  # once for the run
            results = _run_folded(inference, loop, folded.initial, feeds, record.seen, variables)
    else:
        results = _run(
            inference, prog, folded, feeds, record.seen, observer, keep, variables, targets, override, exact
        )
    record.runs += 1
    variables.commit()
    return results


def _run_folded(
    inference: Inference,
    loop: tuple[LoopStep, ...],
    initial: tuple[np.ndarray | None, ...],
    feeds: Mapping[int, np.ndarray],
    seen: list[tuple[tuple[int, ...], np.dtype] | None],
    variables: Variables,
) -> dict[tuple[int, int], np.ndarray]:
    """The hook-free loop over a folded plan (what ``Model.run`` takes from a signature's second
    run), called with NumPy's warnings off: bound kernels do not set them per call."""
    values = list(initial)
    results: dict[tuple[int, int], np.ndarray] = {}
    outs: Sequence[np.ndarray]
    for kind, i, kernel, attrs, args, first, frees in loop:
        if kind >= _BOUND:
            inputs = args(values)  # (a bound step's ``args`` is its getter: ``_getter``)
            if kind >= _SIZED_BOUND:
                _check_sizes(inference, i, inputs)
            try:
                outs = kernel(inputs)
            except Exception:  # noqa: BLE001 - NumPy refused the inputs (or a value the bound
                # kernel does not decide): the op's own kernel runs, and words any error
                outs = _run_general(inference, i, attrs, list(inputs), kind in (_BOUND, _SIZED_BOUND))
        elif kind == _FEED:
            outs = (feeds[i],)
        elif kind >= _RESULT:
            value = values[args[0]]
            results[(i, 0)] = value if kind == _RESULT else value.copy()
            outs = ()
        else:
            inputs = [values[a] for a in args]
            if kind == _SIZED:
                _check_sizes(inference, i, inputs)
            try:
                if kind == _STATEFUL:
                    outs = kernel(attrs, inputs, variables)
                else:
                    outs = kernel(attrs, inputs)
            except Error as exc:
                raise type(exc)(f"{inference.plans[i].node.describe()}: {exc}") from None
        slot = first
        for value in outs:
            known = seen[slot]
            if (
                known is None
                or value.shape != known[0]
                or (value.dtype is not known[1] and value.dtype != known[1])
            ):
                _check(inference, i, slot - first, value)
                seen[slot] = (value.shape, value.dtype)
            values[slot] = value
            slot += 1
        for f in frees:  # free what no later node reads
            values[f] = None
    return results


def _run(
    inference: Inference,
    prog: Program,
    folded: Folded | None,
    feeds: Mapping[int, np.ndarray],
    seen: list[tuple[tuple[int, ...], np.dtype] | None],
    observer: Observer | None,
    keep: Sequence[tuple[int, int]],
    variables: Variables,
    targets: Mapping[int, list[np.ndarray | None]],
    override: Override | None,
    exact: bool,
) -> dict[tuple[int, int], np.ndarray]:
    """The loop with every hook: an observer, an override, kept outputs, buffers to write into."""
    known: Mapping[int, Sequence[np.ndarray]] = {}
    steps = prog.steps
    values: list[np.ndarray | None] = [None] * prog.slots
    if folded is not None:
        if observer is not None:  # every node, the folded ones with their values
            steps, known = folded.every, folded.known
        else:
            steps, values = folded.steps, list(folded.initial)
    pinned = set(keep)
    results: dict[tuple[int, int], np.ndarray] = {}
    perf_counter = time.perf_counter
    for step in steps:
        i = step.index
        p = step.plan
        args = [values[a] for a in step.args]
        start = perf_counter() if observer is not None else 0.0
        outs: Sequence[np.ndarray]
        folded_outs = known.get(i) if known else None
        if i in feeds:
            outs = [feeds[i]]
        elif folded_outs is not None:
            outs = folded_outs
        elif (
            override is not None
            and (
                replaced := _overridden(override, i, p, args)  # type: ignore[arg-type]
            )
            is not None
        ):
            outs = replaced
        else:
            outs = _run_step(inference, step, args, variables, targets.get(i) if targets else None, exact)
        if step.result:
            results[(i, 0)] = args[0] if step.result == 1 else args[0].copy()  # type: ignore[union-attr,assignment]
        slot = step.first
        for k, value in enumerate(outs):
            record = seen[slot]
            if (
                record is None
                or value.shape != record[0]
                or (value.dtype is not record[1] and value.dtype != record[1])
            ):
                _check(inference, i, k, value)
                seen[slot] = (value.shape, value.dtype)
            values[slot] = value
            slot += 1
            if pinned and (i, k) in pinned:
                results[(i, k)] = value if folded_outs is None else value.copy()
        if observer is not None:
            observer(i, p, outs, perf_counter() - start)
        for f in step.frees:  # free what no later node reads
            values[f] = None
    if folded is not None and pinned:  # kept outputs of nodes the loop skipped
        for i, k in pinned - results.keys():
            if i in folded.known:
                results[(i, k)] = np.array(folded.known[i][k], copy=True)
    return results


def _run_step(
    inference: Inference,
    step: Step,
    args: list[np.ndarray | None],
    variables: Variables,
    target: list[np.ndarray | None] | None,
    exact: bool = True,
) -> Sequence[np.ndarray]:
    """One node's kernel, after its output size check (writing into ``target`` when it can)."""
    p = step.plan
    kernel = step.kernel if exact or p.spec.evaluate_fast is None else p.spec.evaluate_fast
    assert kernel is not None, f"{p.spec.name} has no kernel and no feed"
    if step.sized and not step.stateful:
        _check_sizes(inference, step.index, args)
    try:
        if step.stateful:
            return kernel(step.attrs, args, variables)  # type: ignore[operator,no-any-return]
        if target is not None and (into := p.spec.evaluate_into) is not None and kernel is p.spec.evaluate:
            return into(step.attrs, args, target)  # type: ignore[arg-type]
        return kernel(step.attrs, args)  # type: ignore[operator,no-any-return]
    except Error as exc:
        raise type(exc)(f"{p.node.describe()}: {exc}") from None


def fold(
    inference: Inference,
    prog: Program,
    feeds: Mapping[int, np.ndarray],
    seen: Sequence[tuple[tuple[int, ...], np.dtype] | None],
) -> Folded | None:
    """The folded plan of the signature of ``feeds`` (see the module docstring), or None when
    shape inference with the feeds' shapes disagrees with ``seen`` (the shapes a completed
    run with this signature checked)."""
    graph = inference.graph
    params = {}
    for i, feed in feeds.items():
        et = inference.outputs[i][0].element_type if inference.outputs[i] else ElementType.dynamic
        try:
            if et.is_dynamic:
                et = ElementType.from_numpy(feed.dtype)
            params[i] = TensorInfo(et, PartialShape.of(feed.shape))
        except Error:
            return None
    try:
        sig = infer(graph, inference.plans, parameters=params).outputs
    except Error:  # the shape rules refuse these shapes: the kernels say so when they run
        return None
    for step in prog.steps:  # the inferred static shapes are the ones the run checked
        for k, t in enumerate(sig[step.index]):
            record = seen[step.first + k]
            if t.shape.is_static and (record is None or record[0] != t.shape.to_shape()):
                return None
    known: list[np.ndarray | None] = [None] * prog.slots
    done = _fold_values(prog, graph, sig, seen, known)  # (when nothing folds, the plan still binds kernels)
    return _folded_plan(prog, feeds, sig, done, known)


def _fold_values(
    prog: Program,
    graph: Graph,
    sig: Sequence[Sequence[TensorInfo]],
    seen: Sequence[tuple[tuple[int, ...], np.dtype] | None],
    known: list[np.ndarray | None],
) -> dict[int, Sequence[np.ndarray]]:
    """Node index -> outputs of every node the signature decides (``known`` gets them by slot)."""
    done: dict[int, Sequence[np.ndarray]] = {}
    room = FOLDED_BYTES
    for step in prog.steps:
        outs = prog.constants.get(step.index)
        if outs is None:
            outs = _fold_step(step, graph, sig, known, seen)
            if outs is None:
                continue
            nbytes = sum(v.nbytes for v in outs) if step.args else 0  # (a Constant's own array: free)
            pure = all(s.node in prog.constants for s in graph.sources[step.index])
            if pure and prog.constant_bytes + nbytes <= CONSTANT_BYTES:  # the same for every signature
                prog.constants[step.index] = outs
                prog.constant_bytes += nbytes
                nbytes = 0
            room -= nbytes
            if room < 0:
                break
        done[step.index] = outs
        known[step.first : step.first + step.n_out] = outs
    return done


def _folded_plan(
    prog: Program,
    feeds: Mapping[int, np.ndarray],
    sig: Sequence[Sequence[TensorInfo]],
    done: dict[int, Sequence[np.ndarray]],
    known: list[np.ndarray | None],
) -> Folded:
    """The plan that skips the nodes in ``done``: what to free after each running node, the
    values a run starts from, the size checks the signature's bounds leave."""
    running = [s for s in prog.steps if s.index not in done]
    last: dict[int, int] = {}  # slot -> position of the last running step that reads it
    for pos, s in enumerate(running):
        for a in s.args:
            last[a] = pos
    frees: list[list[int]] = [[] for _ in running]
    for slot, pos in last.items():
        frees[pos].append(slot)
    initial: list[np.ndarray | None] = [None] * prog.slots
    steps = []
    loop: list[LoopStep] = []
    loop_fast: list[LoopStep] = []
    every = list(prog.steps)  # (an observer's run frees as the full program does)
    for pos, s in enumerate(running):
        for a in s.args:
            if known[a] is not None:
                initial[a] = known[a]
        result = 2 if s.result and known[s.args[0]] is not None else s.result
        sized = s.sized and not all(_small_bounded(t.shape, t.element_type.numpy_dtype) for t in sig[s.index])
        every[s.index] = replace(s, result=result, sized=sized)
        s = replace(s, frees=tuple(sorted(frees[pos])), result=result, sized=sized)
        steps.append(s)
        if s.index in feeds:
            kind = _FEED
        elif s.result:
            kind = _RESULT if s.result == 1 else _RESULT_COPY
        elif s.stateful:
            kind = _STATEFUL
        else:
            kind = _SIZED if s.sized else _PLAIN
        entry: LoopStep = (kind, s.index, s.kernel, s.attrs, s.args, s.first, s.frees)
        spec = s.plan.spec
        if kind in (_PLAIN, _SIZED) and spec.bind is not None and BIND:
            bound = _bind(spec.bind, s, sig, prog, known)
            if bound is not None:
                bound_kind = _BOUND if kind == _PLAIN else _SIZED_BOUND
                entry = (bound_kind, s.index, bound, s.attrs, _getter(s.args), s.first, s.frees)
        loop.append(entry)
        if spec.evaluate_fast is not None and kind in (_PLAIN, _SIZED):
            entry = (kind, s.index, spec.evaluate_fast, s.attrs, s.args, s.first, s.frees)
            if spec.bind_fast is not None and BIND:
                bound = _bind(spec.bind_fast, s, sig, prog, known)
                if bound is not None:
                    fast_kind = _BOUND_FAST if kind == _PLAIN else _SIZED_BOUND_FAST
                    entry = (fast_kind, s.index, bound, s.attrs, _getter(s.args), s.first, s.frees)
        loop_fast.append(entry)
    return Folded(tuple(steps), tuple(every), tuple(initial), done, tuple(loop), tuple(loop_fast))


def _getter(args: tuple[int, ...]) -> Callable[[list[np.ndarray | None]], Sequence[np.ndarray | None]]:
    """The inputs of a bound step from the value slots, as a tuple (``itemgetter`` for several:
    cheaper per step than building a list)."""
    if len(args) == 1:
        (a,) = args
        return lambda values: (values[a],)
    if not args:
        return lambda values: ()
    return operator.itemgetter(*args)


def _bind(
    bind: BindFn[Any],
    step: Step,
    sig: Sequence[Sequence[TensorInfo]],
    prog: Program,
    known: Sequence[np.ndarray | None],
) -> Bound | None:
    """``step``'s kernel specialised to the signature's input and output infos, when they are
    all typed (each op's ``bind`` decides what it needs static).
    An input's ``value`` is the folded array every run of the plan reads there, else None."""
    infos = []
    for slot in step.args:  # an input's value: the folded one the runs read, or unknown
        info = sig[prog.owners[slot]][slot - prog.steps[prog.owners[slot]].first]
        infos.append(TensorInfo(info.element_type, info.shape, known[slot]))
    outs = [TensorInfo(t.element_type, t.shape) for t in sig[step.index]]
    if not all(t.element_type.numpy_dtype is not None for t in (*infos, *outs)):
        return None
    return bind(step.attrs, infos, outs)


def _fold_step(
    step: Step,
    graph: Graph,
    sig: Sequence[Sequence[TensorInfo]],
    known: Sequence[np.ndarray | None],
    seen: Sequence[tuple[tuple[int, ...], np.dtype] | None],
) -> Sequence[np.ndarray] | None:
    """The outputs of ``step`` computed now by its kernel, when the signature decides them."""
    spec = step.plan.spec
    if (
        step.kernel is None
        or step.stateful
        or step.result
        or not step.n_out
        or not spec.foldable
        or not spec.deterministic
    ):
        return None
    infos = sig[step.index]
    if not all(t.shape.is_static and math.prod(t.shape.to_shape()) <= FOLD_LIMIT for t in infos):
        return None
    args: list[np.ndarray]
    if spec.bounds is shape_of_bounds:  # reads only its input's shape: a stand-in of that shape
        src = graph.sources[step.index][0]
        shape = sig[src.node][src.output].shape
        if not shape.is_static:
            return None
        try:
            args = [np.broadcast_to(np.zeros((), np.uint8), shape.to_shape())]
        except ValueError:  # too large for NumPy even without memory
            return None
    else:
        args = [a for a in (known[s] for s in step.args) if a is not None]
        if len(args) != len(step.args):
            return None
    try:
        outs = step.kernel(step.attrs, args)  # type: ignore[operator]
    except Error:  # the run raises it, with the layer context
        return None
    if len(outs) != step.n_out:
        return None
    for k, value in enumerate(outs):
        record = seen[step.first + k]
        if (
            not isinstance(value, np.ndarray)
            or record is None
            or value.shape != record[0]
            or value.dtype != record[1]
        ):
            return None
    return tuple(outs)


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


def _run_general(
    inference: Inference, i: int, attrs: Any, inputs: list[np.ndarray | None], exact: bool
) -> Sequence[np.ndarray]:
    """Node ``i``'s own kernel (``evaluate_fast`` for a fast bound one), where NumPy refused
    what its bound kernel was given (a shape the signature left open): it raises the error
    the op words, with the layer named."""
    p = inference.plans[i]
    kernel = p.spec.evaluate if exact else p.spec.evaluate_fast
    assert kernel is not None
    try:
        return kernel(attrs, inputs)  # type: ignore[arg-type]
    except Error as exc:
        raise type(exc)(f"{p.node.describe()}: {exc}") from None


def _check_sizes(inference: Inference, i: int, inputs: list[np.ndarray | None]) -> None:
    """``check_output_sizes`` before a node's kernel runs: its refusal raised, the layer named."""
    try:
        refused = check_output_sizes(inference, i, inputs)  # type: ignore[arg-type]
        if refused is not None:
            _run_refused(inference.plans[i], inputs, refused)  # type: ignore[arg-type]
    except Error as exc:
        raise type(exc)(f"{inference.plans[i].node.describe()}: {exc}") from None


def _run_refused(p: NodePlan, args: Sequence[np.ndarray], refused: InputError) -> NoReturn:
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
        key = _sizes_key(index, args)
        accepted: set[object] = inference.cache.setdefault("small outputs", set())
        if key is not None and key in accepted:
            return None
        graph = inference.graph
        ins = [
            TensorInfo(
                inference.outputs[s.node][s.output].element_type,
                _static_shape(a.shape),
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
        if key is not None and all(_small_static(t.shape, t.element_type.numpy_dtype) for t in infos):
            if len(accepted) >= 4096:
                accepted.clear()
            accepted.add(key)  # (outputs under 1 MiB: accepted whatever the memory available)
    for k, info in enumerate(infos):
        if info.shape.is_static:
            et = info.element_type
            itemsize = 8 if et.numpy_dtype is None else et.numpy_dtype.itemsize
            check_allocation(info.shape.to_shape(), itemsize, f"output {k}")
    return None


def _sizes_key(index: int, args: Sequence[np.ndarray]) -> tuple[object, ...] | None:
    """What ``check_output_sizes`` infers node ``index``'s outputs from: the inputs' shapes,
    dtypes and values (when small); None when an input's value is too large to key on."""
    key: list[object] = [index]
    for a in args:
        if a.size > 64 or a.dtype == object:
            if a.size <= FOLD_LIMIT:  # (a value inference reads, too large to key on)
                return None
            key.append((a.shape, a.dtype))
        else:
            key.append((a.shape, a.dtype, a.tobytes()))
    return tuple(key)


@functools.lru_cache(maxsize=4096)
def _static_shape(shape: tuple[int, ...]) -> PartialShape:
    """``PartialShape.of`` for the shapes a run meets again and again (immutable: shared)."""
    return PartialShape.of(shape)


def _check(inference: Inference, index: int, port: int, value: np.ndarray) -> None:
    info = inference.outputs[index][port]
    if not isinstance(value, np.ndarray):
        raise AssertionError(  # noqa: TRY004 - an ovonehot bug, as the checks below
            f"ovonehot bug: {inference.plans[index].node.describe()} output {port} is a {type(value).__name__}, "
            "not an array"
        )
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
