"""Interpreter 2: run the graph on NumPy arrays.

One path runs every graph, the top level and every sub-graph body alike:

1. :func:`program` compiles an :class:`Inference` once: each node's value slots, what to free
   after it, whether its output sizes need checking before its kernel runs.
2. Per input signature (the feeds' shapes and dtypes) and exactness, a :class:`Plan` is made:
   each running node becomes one callable (its inputs read from the slots, its output sizes
   checked when its shapes are not settled, its kernel called, its outputs checked against
   the inferred types and shapes and stored, dead slots freed).  Its kernel is the one place
   a kernel is chosen: the op's ``OpSpec.specialize`` for the plan's infos and the run's
   :class:`RunMode`, else its reference ``evaluate``.
3. :func:`_run` -- the one loop -- calls a plan's callables in order.

Weight decompression chains (an integer Constant -> Convert -> Subtract -> Multiply -> ... ->
MatMul/Gather) that a plan does not fold run inside their consumer: the plan gives the
consumer the fused kernel :mod:`ovonehot.decompression` makes and leaves the chain's nodes out,
except in runs whose hooks or kept outputs must see every node.

Folding per signature: on a signature's second run, shapes are inferred again with the feeds'
static shapes, so a shape subgraph (ShapeOf -> Gather -> Concat -> a Reshape's target) depends
on nothing a run can change.  Every node whose inputs are all known then (Constants, ShapeOf of
a statically shaped tensor, nodes fed only by those) is computed once, by its own ``evaluate``
(so the values are bit-identical to a run's), when its outputs are small (``FOLD_LIMIT``
elements) and its op is ``foldable`` and ``deterministic``; the plan then starts from those
values, and ``specialize`` sees them as the inputs' ``value``.  A signature is folded only on
its second run, after a first run checked that its shapes are the inferred ones (a model run
once, as by the CLI, pays no second inference).  What folds from Constants alone is the same
for every signature: the model keeps it once (``CONSTANT_BYTES``); the rest counts against a
signature's ``FOLDED_BYTES``.  In a stateful run the variables a ReadValue reads are part of the
signature as the feeds are (their shapes and dtypes, a variable in its initial state left out):
the nodes after an LLM's KV cache get static shapes, and the shape subgraphs on them fold.

What a run brings beyond its exactness reaches the plan per run, without recompiling it:

* ``mode.variables`` (a Request's state): the ``uses_run`` ops (ReadValue/Assign, and the body
  ops, whose bodies may hold them) are specialized again for the run;
* ``out`` buffers (``share_outputs``): the producers of the Results given a buffer are
  specialized again with ``mode.out``;
* hooks (an observer, an override) and kept outputs: every node runs (none is skipped as
  folded when there is an override; an observer sees folded nodes with their values), each
  callable wrapped with the hooks, and the body ops get a mode whose hooks see their bodies'
  nodes, keyed by path (``RunMode.scope``).

Errors: an op raises a bare message; the callable that ran it attaches the layer
(``Error.at``), the one place a run error gets its layer.  A specialized kernel that raises
anything else (NumPy refusing a broadcast the signature left open) hands over to the op's
``evaluate``, which words the error.  A value whose type or shape differs from the inferred
one is an ovonehot bug, and stays loud.
"""

from __future__ import annotations

import functools
import math
import operator
import time
import weakref
from collections.abc import Callable, Mapping, Sequence
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field, replace
from typing import Any, NoReturn

import numpy as np

from . import decompression, threads
from .budget import MAX_RANK, check_allocation, check_rank
from .errors import Error, InputError
from .graph import Graph
from .infer import FOLD_LIMIT, Inference, NodePlan, infer
from .ops.common.bounds import shape_of_bounds
from .ops.common.spec import Kernel, NodeKey, Observer, Override, RunMode, TensorInfo, Variables
from .types import Dimension, ElementType, PartialShape

__all__ = ["Observer", "Override", "Plan", "RunMode", "check_output_sizes", "evaluate", "plan_of", "program"]

# Shapes and dtypes of the feeds, by Parameter node index: what a plan's checks hold for.
Signature = tuple[tuple[int, tuple[int, ...], np.dtype], ...]
# A family of signatures: the dims its members differ in are None.
Pattern = tuple[tuple[int, tuple[int | None, ...], np.dtype], ...]
# One node as a plan runs it: reads the value slots, writes its outputs there.
Call = Callable[[list[Any]], None]
# Per slot, the (shape, dtype) a run of the signature checked.
Seen = list[tuple[tuple[int, ...], np.dtype] | None]

# Signatures remembered per Inference (the oldest is dropped beyond this).
MAX_SIGNATURES = 8
# Families of signatures (see ``Family``) planned per Inference, and the signatures of one
# family a program meets before planning it (a family met once is a prefill, not a loop).
MAX_FAMILIES = 4
FAMILY_AFTER = 2
# Bytes of folded values (other than Constants' own arrays) one signature may keep, and the
# bytes of those computed from Constants alone, which a model keeps once for all signatures.
FOLDED_BYTES = 32 << 20
CONSTANT_BYTES = 256 << 20
# A Convert of a Constant whose every consumer takes it as weights (an f16-compressed model's
# convolution filters and MatMul weights, as ovc saves them) folds up to this many elements,
# within CONSTANT_BYTES: run, it decompresses every weight on every call (tens of ms for a
# ResNet, 48 ms of convnext_tiny's MatMul weights); an integer weight's chain is decompression.py's.
FILTER_FOLD_LIMIT = 1 << 24
# The ops that read weights, and the inputs they read them on.
_FILTER_CONSUMERS = {
    "convolution": (1,),
    "groupconvolution": (1,),
    "convolutionbackpropdata": (1,),
    "groupconvolutionbackpropdata": (1,),
    "matmul": (0, 1),
}
_CONSTANTS = frozenset({"constant", "const"})


@dataclass(slots=True)
class Step:
    """One node as the program knows it, whatever the signature."""

    index: int
    plan: NodePlan
    args: tuple[int, ...]  # value slots of its inputs
    first: int  # slot of its output 0 (output k is first + k)
    n_out: int
    frees: tuple[int, ...]  # slots nobody reads after this node
    feed: bool  # a Parameter: its value is fed
    result: bool  # a Result: its input is a run's output
    sized: bool  # the output sizes need checking before the kernel runs (check_output_sizes)


@dataclass(slots=True)
class Folded:
    """What a signature's second run decided: the nodes its shapes alone compute."""

    infos: Sequence[Sequence[TensorInfo]]  # every node's outputs inferred with the feeds' shapes
    known: dict[int, Sequence[np.ndarray]]  # folded node index -> its outputs
    slots: list[np.ndarray | None]  # per slot, the folded value there, if any


@dataclass(slots=True)
class Plan:
    """A signature's run, compiled: one callable per running node, in order."""

    calls: list[Call]
    steps: tuple[Step, ...]  # the running nodes, as ``calls``
    kernels: tuple[Kernel | None, ...]  # each running node's kernel (None: a feed or a Result)
    specialized: frozenset[int]  # the nodes whose kernel ``specialize`` made
    initial: tuple[np.ndarray | None, ...]  # per slot, the folded value a run starts from
    results: tuple[tuple[int, int, bool], ...]  # (Result index, slot, copy: a folded value)
    position: dict[int, int]  # node index -> its position in ``steps``
    infos: Sequence[Sequence[TensorInfo]]  # what ``specialize`` was told of each node's outputs
    known: dict[int, Sequence[np.ndarray]]  # folded node index -> its outputs
    folded: bool  # made from a folded signature (``infos`` the signature's, values folded)
    feeds: tuple[tuple[int, int], ...]  # (slot, Parameter index) of each feed
    blas: bool  # a running node's op calls BLAS (``OpSpec.blas``): a run limits BLAS's threads
    seen: Seen  # what its callables check values against (a record's, or the program's: see Program)
    # A stateful run's callables (its ``uses_run`` nodes specialized for its variables), kept
    # per Variables (a Request's) with the mode they were made for, while the Request lives.
    stateful: weakref.WeakKeyDictionary[Variables, tuple[RunMode, list[Call]]] = field(
        default_factory=weakref.WeakKeyDictionary
    )
    # The consumers of a weight decompression chain running it fused, and the chains' nodes
    # (which do not run): :mod:`ovonehot.decompression`.
    fused: frozenset[int] = frozenset()

    def kernel_of(self, index: int) -> str:
        """How node ``index`` runs in this plan: "folded", "fused" (a decompression chain's
        node, or its consumer), "specialized", "evaluate", or "fed"."""
        if index in self.fused:
            return "fused"
        if index in self.known:
            return "folded"
        if index in self.specialized:
            return "specialized"
        pos = self.position.get(index)
        return "evaluate" if pos is not None and self.kernels[pos] is not None else "fed"


@dataclass(slots=True)
class Record:
    """What runs with one input signature know: the shapes checked, the plans made."""

    seen: Seen  # per slot, as the first run checked it
    runs: int = 0  # runs that completed
    folded: Folded | None = None
    tried: bool = False  # folding was attempted (``folded`` stays None when nothing could fold)
    plans: dict[tuple[bool, bool, bool, bool], Plan] = field(
        default_factory=dict
    )  # (exact, specialized, folded, fused)
    family: Pattern | None = None  # the family of signatures it belongs to (see ``Family``)


@dataclass(slots=True)
class Family:
    """Signatures that differ from one another only in some dims (a generation loop's steps: the
    KV cache, the mask and the positions grow by one token a step, so every step is the first
    run of a new signature).  Its plan is folded for the dims its members share: everything
    the other dims do not reach (the hidden states' shapes, the shape arithmetic of a
    sequence of one token) is decided once for the whole family, so a step runs neither the
    unfolded plan's shape subgraphs nor its general kernels there."""

    folded: Folded | None  # None: the family's shapes refuse folding (the unfolded plan runs)
    seen: Seen
    plans: dict[tuple[bool, bool, bool, bool], Plan] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Layout:
    """A plan's steps and kernels, before its callables are compiled for a record."""

    steps: tuple[Step, ...]
    kernels: tuple[Kernel | None, ...]
    specialized: frozenset[int]
    initial: tuple[np.ndarray | None, ...]
    fused: frozenset[int]  # the fused consumers and the chains' skipped nodes


@dataclass(slots=True)
class Program:
    """The signature-independent part of a plan: the steps and the value slots."""

    steps: tuple[Step, ...]
    slots: int
    signatures: dict[Signature, Record]
    owners: tuple[int, ...]  # per slot, the index of the node whose output it holds
    readers: tuple[tuple[int, str], ...]  # (node index, variable_id) of each node reading a variable
    compiles: int = 0  # how many signatures were compiled (for tests and curiosity)
    folds: int = 0  # how many signatures got a folded plan
    # Folded outputs computed from Constants alone (the same for every signature), shared by
    # the signatures' plans, and the bytes of those that are new arrays.
    constants: dict[int, Sequence[np.ndarray]] = field(default_factory=dict)
    constant_bytes: int = 0
    # The unfolded plan per (exact, specialized): made from the model's own infos, it is the same
    # for every signature (a generation loop's steps each have a signature of their own, and run
    # it without making a plan).  Its callables check values against the program's ``seen``
    # (a value's shape and dtype met before passed the same inferred infos); after a completed
    # run the record gets a copy, what its signature's folding checks.
    general: dict[tuple[bool, bool, bool, bool], Plan] = field(default_factory=dict)
    seen: Seen = field(default_factory=list)
    # After the program's first completed run, its unfolded plan skips what the model's own
    # infos decide (Constants and what they alone compute, ShapeOf of a statically shaped
    # tensor): the same for every signature, folded once (``general_fold``).
    runs: int = 0
    general_fold: Folded | None = None
    general_tried: bool = False
    # The families of signatures met (see ``Family``), how many of each, and the last signature.
    families: dict[Pattern, Family] = field(default_factory=dict)
    members: dict[Pattern, int] = field(default_factory=dict)
    last: Signature | None = None


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
    results = {i for i, p in enumerate(inference.plans) if p.node.type.lower() == "result"}
    outputs = {firsts[s.node] + s.output for r in results for s in graph.sources[r]}  # (never freed)
    steps = []
    for i, p in enumerate(inference.plans):
        result = i in results
        steps.append(
            Step(
                i,
                p,
                tuple(firsts[s.node] + s.output for s in graph.sources[i]),
                firsts[i],
                len(inference.outputs[i]),
                tuple(f for f in frees[i] if f not in outputs),
                p.spec.evaluate is None and not result,
                result,
                not (p.spec.sizes_within_inputs and all(_known_rank(t.shape) for t in inference.outputs[i]))
                and not all(_small_static(t.shape, t.element_type.numpy_dtype) for t in inference.outputs[i]),
            )
        )
    owners = tuple(i for i, outs in enumerate(inference.outputs) for _ in outs)
    readers = tuple(
        (i, p.spec.reads_variable(p.attrs)) for i, p in enumerate(inference.plans) if p.spec.reads_variable
    )
    prog = Program(tuple(steps), slots, {}, owners, readers, seen=[None] * slots)
    inference.cache["program"] = prog
    return prog


def signature(feeds: Mapping[int, np.ndarray]) -> Signature:
    return tuple((i, a.shape, a.dtype) for i, a in feeds.items())


def evaluate(
    inference: Inference,
    feeds: Mapping[int, np.ndarray],
    mode: RunMode = RunMode(),  # noqa: B008 - frozen: one shared default
    keep: Sequence[tuple[int, int]] = (),
    out: Mapping[int, np.ndarray | None] | None = None,
) -> dict[tuple[int, int], np.ndarray]:
    """Run the graph.  ``feeds`` maps Parameter node indices to arrays.

    Returns the value of every Result's input, keyed by (Result node index, 0), plus the
    outputs named in ``keep`` as (node index, output index).  ``mode`` says how (see
    :class:`RunMode`): exactness, the state ReadValue reads and Assign updates (committed
    when the run ends; None: the initial state, and what Assign writes is dropped), the hooks.

    ``out`` offers buffers by Result node index: a kernel that can write into a given array
    (OneHot's) writes that Result's value into the buffer when its shape and dtype fit (the
    value returned is then the buffer itself).  A value the run returns is never one a later
    run returns again (folded values are copied).
    """
    record = _record(inference, feeds, mode)
    plan = _plan(inference, record, mode, fuse=not (mode.hooked or keep))
    values: list[Any] = list(plan.initial)
    for slot, i in plan.feeds:
        values[slot] = feeds[i]
    kept: dict[tuple[int, int], np.ndarray] = {}
    if mode.hooked or keep:
        calls = _hooked_calls(inference, plan, plan.seen, mode, set(keep), kept)
    else:
        calls = _calls_for(inference, plan, plan.seen, mode, out or {})
    with np.errstate(all="ignore"), _threads(mode, plan):  # once for the run: each kernel checks
        _run(calls, values)
    if plan.seen is not record.seen:  # (the program's unfolded plan: what this run checked)
        record.seen[:] = plan.seen
        program(inference).runs += 1
    record.runs += 1
    if mode.variables is not None:
        mode.variables.commit()
    results = {(r, 0): values[slot].copy() if copy else values[slot] for r, slot, copy in plan.results}
    for i, k in set(keep) - kept.keys():  # kept outputs of nodes the run skipped (folded)
        kept[(i, k)] = np.array(plan.known[i][k], copy=True)
    return {**results, **kept}


def _threads(mode: RunMode, plan: Plan) -> AbstractContextManager[None]:
    """The run's thread limit (:mod:`ovonehot.threads`), set by the outermost run only (a body's
    run goes on under its op's)."""
    if threads.running():
        return nullcontext()
    return threads.limited(threads.resolve(mode.threads), plan.blas)


def _run(calls: Sequence[Call], values: list[Any]) -> None:
    """The loop: each running node of a plan, in order (see :func:`_compile`)."""
    for call in calls:
        call(values)


def plan_of(inference: Inference, feeds: Mapping[int, np.ndarray], mode: RunMode = RunMode()) -> Plan:  # noqa: B008 - RunMode is frozen: one shared default is safe
    """The plan the next run of ``feeds``'s signature in ``mode`` runs (made now if needed): how
    each node runs, for tests and ``--verbose``."""
    record = _record(inference, feeds, mode, count=False)
    return _plan(inference, record, mode, fuse=not mode.hooked)


def _record(
    inference: Inference, feeds: Mapping[int, np.ndarray], mode: RunMode, count: bool = True
) -> Record:
    """The signature's record, folded on its second run (runs with an override fold nothing)."""
    prog = program(inference)
    shaped = _with_state(prog, feeds, mode)
    sig = signature(shaped)
    record = prog.signatures.get(sig)
    if record is None:
        if len(prog.signatures) >= MAX_SIGNATURES:
            del prog.signatures[next(iter(prog.signatures))]
        record = prog.signatures[sig] = Record([None] * prog.slots, family=_pattern(sig, prog.last))
        prog.compiles += count
        known = record.family in prog.members or len(prog.members) < 4 * MAX_FAMILIES  # (bounded)
        if record.family is not None and known:
            prog.members[record.family] = prog.members.get(record.family, 0) + 1
        prog.last = sig
    elif record.runs and not record.tried and mode.override is None:
        record.tried = True
        record.folded = _fold(inference, prog, shaped, record.seen)
        prog.folds += record.folded is not None
        record.plans.clear()
    return record


def _with_state(prog: Program, feeds: Mapping[int, np.ndarray], mode: RunMode) -> Mapping[int, np.ndarray]:
    """``feeds`` and, in a stateful run, the value each variable-reading node (ReadValue) reads,
    by node index: what a plan is made for.  A variable in its initial state is left out (its
    node reads its init input, which the feeds decide)."""
    variables = mode.variables
    if variables is None or not prog.readers:
        return feeds
    held = variables.values
    state = {i: held[v] for i, v in prog.readers if v in held}
    return {**feeds, **state} if state else feeds


def _plan(inference: Inference, record: Record, mode: RunMode, fuse: bool = False) -> Plan:
    """The record's folded plan for ``mode``'s exactness, else the program's unfolded one (an
    override runs the unfolded one); ``fuse``: decompression chains run inside their consumers
    (not for runs that see every node)."""
    folded = record.folded if mode.override is None else None
    prog = program(inference)
    static = RunMode(mode.exact, specialized=mode.specialized)
    fuse = fuse and mode.specialized
    if folded is None and mode.override is None and record.family is not None:
        plan = _family_plan(inference, prog, record.family, static, fuse)
        if plan is not None:
            return plan
    if folded is None:
        if prog.runs and not prog.general_tried:
            prog.general_tried = True
            prog.general_fold = _fold_general(inference, prog)
        general_fold = prog.general_fold if mode.override is None else None
        key4 = (mode.exact, mode.specialized, general_fold is not None, fuse)
        general = prog.general.get(key4)
        if general is None:
            general = prog.general[key4] = _make_plan(inference, prog, prog.seen, general_fold, static, fuse)
        return general
    key = (mode.exact, mode.specialized, True, fuse)
    plan = record.plans.get(key)
    if plan is None:
        plan = record.plans[key] = _make_plan(inference, prog, record.seen, folded, static, fuse)
    return plan


def _pattern(sig: Signature, last: Signature | None) -> Pattern | None:
    """The family of ``sig`` and the signature before it: the same inputs, dtypes and ranks,
    the dims that differ left open (None when they are not of one family)."""
    if last is None or len(last) != len(sig):
        return None
    pattern = []
    for (i, shape, dtype), (j, before, was) in zip(sig, last, strict=True):
        if i != j or dtype != was or len(shape) != len(before):
            return None
        pattern.append((i, tuple(d if d == b else None for d, b in zip(shape, before, strict=True)), dtype))
    if all(d is None for _, shape, _ in pattern for d in shape):
        return None  # (nothing shared: the unfolded plan is that family's plan)
    return tuple(pattern)


def _family_plan(inference: Inference, prog: Program, key: Pattern, mode: RunMode, fuse: bool) -> Plan | None:
    """The plan of the family ``key`` (made when the program has met ``FAMILY_AFTER`` of its
    members and completed a run), or None: the unfolded plan runs."""
    family = prog.families.get(key)
    if family is None:
        if prog.members.get(key, 0) < FAMILY_AFTER or not prog.runs or len(prog.families) >= MAX_FAMILIES:
            return None
        family = prog.families[key] = _family(inference, prog, key)
    if family.folded is None:
        return None
    plan_key = (mode.exact, mode.specialized, True, fuse)
    plan = family.plans.get(plan_key)
    if plan is None:
        plan = family.plans[plan_key] = _make_plan(inference, prog, family.seen, family.folded, mode, fuse)
    return plan


def _family(inference: Inference, prog: Program, key: Pattern) -> Family:
    """What the family's shared dims decide: shapes inferred with its open dims dynamic, checked
    against what the program's runs met, then the nodes those shapes alone compute."""
    params = {}
    for i, shape, dtype in key:
        et = inference.outputs[i][0].element_type if inference.outputs[i] else ElementType.dynamic
        try:
            if et.is_dynamic:
                et = ElementType.from_numpy(dtype)
        except Error:
            return Family(None, [])
        dims = [Dimension() if d is None else Dimension.static(d) for d in shape]
        params[i] = TensorInfo(et, PartialShape.of(dims))
    sig = _infer_signature(inference, prog, params)
    seen = list(prog.seen)
    if sig is None or not _agrees(inference, prog, sig, seen):
        return Family(None, seen)
    known: list[np.ndarray | None] = [None] * prog.slots
    done = _fold_values(prog, inference.graph, sig, seen, known)
    return Family(Folded(sig, done, known), seen)


def _make_plan(
    inference: Inference, prog: Program, seen: Seen, folded: Folded | None, mode: RunMode, fuse: bool = False
) -> Plan:
    """The plan that skips what ``folded`` computed (everything runs without it) and, with
    ``fuse``, the decompression chains its consumers run fused."""
    known = folded.known if folded is not None else {}
    slots: Sequence[np.ndarray | None] = folded.slots if folded is not None else [None] * prog.slots
    infos = folded.infos if folded is not None else inference.outputs
    layout = _layout(inference, prog, folded, known, slots, infos, mode, fuse)
    steps = layout.steps
    calls = [
        _compile(inference, s, k, s.index in layout.specialized, seen)
        for s, k in zip(steps, layout.kernels, strict=True)
    ]
    results = tuple((s.index, s.args[0], slots[s.args[0]] is not None) for s in steps if s.result)
    position = {s.index: pos for pos, s in enumerate(steps)}
    feeds = tuple((s.first, s.index) for s in steps if s.feed)
    return Plan(
        calls,
        steps,
        layout.kernels,
        layout.specialized,
        layout.initial,
        results,
        position,
        infos,
        known,
        folded is not None,
        feeds,
        any(s.plan.spec.blas for s in steps),
        seen,
        fused=layout.fused,
    )


def _layout(
    inference: Inference,
    prog: Program,
    folded: Folded | None,
    known: Mapping[int, Sequence[np.ndarray]],
    slots: Sequence[np.ndarray | None],
    infos: Sequence[Sequence[TensorInfo]],
    mode: RunMode,
    fuse: bool,
) -> Layout:
    """The running steps (what each frees, whether its sizes are checked) and their kernels;
    with ``fuse``, the decompression chains its consumers run fused."""
    fusion = decompression.fusion(inference, mode.exact, known) if fuse else decompression.NO_FUSION
    running = [s for s in prog.steps if s.index not in known and s.index not in fusion.skipped]
    last: dict[int, int] = {}  # slot -> position of the last running step that reads it
    for pos, s in enumerate(running):
        for a in s.args:
            last[a] = pos
    frees: list[list[int]] = [[] for _ in running]
    pinned = {a for s in running if s.result for a in s.args}
    for slot, pos in last.items():
        if slot not in pinned:
            frees[pos].append(slot)
    initial: list[np.ndarray | None] = [None] * prog.slots
    steps: list[Step] = []
    kernels: list[Kernel | None] = []
    specialized: set[int] = set()
    for pos, s in enumerate(running):
        for a in s.args:
            initial[a] = slots[a]
        sized = s.sized and s.index not in fusion.kernels  # (a fused kernel checks its own)
        sized = sized and (
            folded is None
            or not all(_small_bounded(t.shape, t.element_type.numpy_dtype) for t in infos[s.index])
        )
        s = replace(s, frees=tuple(sorted(frees[pos])), sized=sized)
        steps.append(s)
        kernel, made = fusion.kernels.get(s.index), False  # (a fused kernel words its own errors)
        if kernel is None:
            unused = frozenset(k for k in range(s.n_out) if fuse and s.first + k not in last)
            step_mode = replace(mode, unused=unused) if unused else mode
            kernel, made = _kernel(s, _infos(s, prog, infos, slots, folded is not None), step_mode)
        specialized.update((s.index,) if made else ())
        kernels.append(kernel)
    return Layout(
        tuple(steps),
        tuple(kernels),
        frozenset(specialized),
        tuple(initial),
        fusion.skipped | fusion.kernels.keys(),
    )


def _infos(
    step: Step,
    prog: Program,
    infos: Sequence[Sequence[TensorInfo]],
    slots: Sequence[np.ndarray | None],
    signature_infos: bool,
) -> tuple[list[TensorInfo], list[TensorInfo]]:
    """What ``specialize`` is told of a step's inputs and outputs: types and shapes as the plan
    knows them, an input's value only where the plan folded it (what every call gets there)."""
    ins = []
    for slot in step.args:
        owner = prog.owners[slot]
        info = infos[owner][slot - prog.steps[owner].first]
        ins.append(TensorInfo(info.element_type, info.shape, slots[slot] if signature_infos else None))
    return ins, [TensorInfo(t.element_type, t.shape) for t in infos[step.index]]


def _kernel(
    step: Step, infos: tuple[list[TensorInfo], list[TensorInfo]], mode: RunMode
) -> tuple[Kernel | None, bool]:
    """The one place a kernel is chosen: the op's ``specialize`` for these infos and ``mode``,
    else its reference ``evaluate``; and whether ``specialize`` made it."""
    spec = step.plan.spec
    if step.feed or step.result:
        return None, False
    if spec.specialize is not None and (mode.specialized or spec.uses_run):  # (the run's state and hooks)
        if spec.uses_run:  # (its bodies' nodes are keyed under its own key)
            mode = replace(mode, scope=(*mode.scope, step.index))
        kernel = spec.specialize(step.plan.attrs, infos[0], infos[1], mode)
        if kernel is not None:
            return kernel, True
    return functools.partial(_reference, spec.reference, step.plan.attrs), False


def _reference(
    evaluate: Callable[[Any, Sequence[np.ndarray]], Sequence[np.ndarray]],
    attrs: Any,
    inputs: Sequence[np.ndarray],
) -> Sequence[np.ndarray]:
    return evaluate(attrs, list(inputs))


def _compile(inference: Inference, step: Step, kernel: Kernel | None, made: bool, seen: Seen) -> Call:
    """``step`` as one callable of the value slots: inputs read, sizes checked when the plan
    left them open, the kernel run (errors get the layer), outputs checked and stored, dead
    slots freed."""
    index, first, frees, node = step.index, step.first, step.frees, step.plan.node
    if kernel is None:  # a feed (the loop's caller put it in its slot) or a Result

        def check(values: list[Any]) -> None:
            if step.feed:
                _store(inference, index, first, (values[first],), values, seen)

        return check
    get = _getter(step.args)
    sized = step.sized
    # What a kernel ``specialize`` made for the plan's infos does not decide (an index out of
    # range, a shape the plan left open) it hands to ``evaluate``, which computes it or words the
    # error; a kernel that carries the run (a body op's, a stateful one's) is not run twice.
    fallback = Exception if made and not step.plan.spec.uses_run else ()
    if step.n_out == 1 and not sized:  # (most nodes: one output, sizes settled by the plan)
        return _one_output_call(inference, step, kernel, get, fallback, seen)

    def call(values: list[Any]) -> None:
        inputs = get(values)
        if sized:
            _check_sizes(inference, index, inputs)
        try:
            outs = kernel(inputs)
        except fallback:
            outs = _reference_at(step, inputs)
        except Error as exc:
            raise exc.at(node) from None
        _store(inference, index, first, outs, values, seen)
        for f in frees:  # free what no later node reads
            values[f] = None

    return call


def _one_output_call(
    inference: Inference,
    step: Step,
    kernel: Kernel,
    get: Callable[[list[Any]], Sequence[np.ndarray]],
    fallback: type[Exception] | tuple[()],
    seen: Seen,
) -> Call:
    """``_compile``'s callable for a node of one output whose sizes the plan settled: its value
    stored directly when it has the shape and dtype a run of the signature checked there."""
    index, first, frees, node = step.index, step.first, step.frees, step.plan.node

    def call(values: list[Any]) -> None:
        inputs = get(values)
        try:
            outs = kernel(inputs)
        except fallback:
            outs = _reference_at(step, inputs)
        except Error as exc:
            raise exc.at(node) from None
        value, record = outs[0], seen[first]
        if (
            record is not None
            and len(outs) == 1
            and type(value) is np.ndarray
            and value.shape == record[0]
            and (value.dtype is record[1] or value.dtype == record[1])
        ):
            values[first] = value  # (what _store does for a value of the checked shape and dtype)
        else:
            _store(inference, index, first, outs, values, seen)
        for f in frees:  # free what no later node reads
            values[f] = None

    return call


def _reference_at(step: Step, inputs: Sequence[np.ndarray]) -> Sequence[np.ndarray]:
    """The op's ``evaluate``, where what ``specialize`` made refused the inputs (a shape the
    plan left open): it computes them, or raises the error the op words, with the layer."""
    p = step.plan
    try:
        return p.spec.reference(p.attrs, list(inputs))
    except Error as exc:
        raise exc.at(p.node) from None


def _store(
    inference: Inference, index: int, first: int, outs: Sequence[np.ndarray], values: list[Any], seen: Seen
) -> None:
    """Node ``index``'s outputs into their slots, each checked against its inferred type and
    shape unless it has the shape and dtype a run of the signature checked there."""
    slot = first
    for value in outs:
        record = seen[slot]
        if (
            record is None
            or value.shape != record[0]
            or (value.dtype is not record[1] and value.dtype != record[1])
        ):
            _check(inference, index, slot - first, value)
            seen[slot] = (value.shape, value.dtype)
        values[slot] = value
        slot += 1


def _getter(args: tuple[int, ...]) -> Callable[[list[Any]], Sequence[np.ndarray]]:
    """The inputs of a step from the value slots, as a tuple (``itemgetter`` for several:
    cheaper per step than building a list)."""
    if len(args) == 1:
        (a,) = args
        return lambda values: (values[a],)
    if not args:
        return lambda values: ()
    return operator.itemgetter(*args)


def _calls_for(
    inference: Inference, plan: Plan, seen: Seen, mode: RunMode, out: Mapping[int, np.ndarray | None]
) -> list[Call]:
    """The plan's callables for this run: the ``uses_run`` nodes specialized again when the run
    has variables (kept for the next run with these variables), the producers of Results given
    a buffer again with the buffer."""
    variables = mode.variables
    if variables is not None and not out:
        kept = plan.stateful.get(variables)
        if kept is not None and kept[0] == mode:
            return kept[1]
    again: dict[int, RunMode] = {}
    if variables is not None:
        for s in plan.steps:
            if s.plan.spec.uses_run:
                again[s.index] = mode
    graph = inference.graph
    for r, buffer in out.items():
        src = graph.sources[r][0]
        feed = src.node in plan.position and plan.steps[plan.position[src.node]].feed
        if src.node in plan.position and not feed and src.node not in plan.fused:
            buffers: list[np.ndarray | None] = [None] * len(inference.outputs[src.node])
            buffers[src.output] = buffer
            again[src.node] = replace(again.get(src.node, mode), out=tuple(buffers))
    if not again:
        return plan.calls
    calls = list(plan.calls)
    for i, node_mode in again.items():
        pos = plan.position[i]
        step = plan.steps[pos]
        calls[pos] = _compile(inference, step, *_respecialized(inference, plan, step, node_mode), seen)
    if variables is not None and not out:
        plan.stateful[variables] = (mode, calls)
    return calls


def _respecialized(inference: Inference, plan: Plan, step: Step, mode: RunMode) -> tuple[Kernel | None, bool]:
    """``_kernel`` of one of ``plan``'s steps again, for a run's own ``mode`` (its variables,
    buffers or hooks), with the infos the plan was made with."""
    return _kernel(step, _infos(step, program(inference), plan.infos, plan.initial, plan.folded), mode)


def _hooked_calls(
    inference: Inference,
    plan: Plan,
    seen: Seen,
    mode: RunMode,
    keep: set[tuple[int, int]],
    kept: dict[tuple[int, int], np.ndarray],
) -> list[Call]:
    """The plan's callables with the run's hooks: every node (the folded ones with their
    values, for an observer), an override asked first, the outputs in ``keep`` recorded; the
    ``uses_run`` nodes specialized again with the hooks, so they reach the bodies too."""
    prog = program(inference)
    calls: list[Call] = []
    steps = prog.steps if mode.observer is not None or keep else plan.steps
    for step in steps:
        pos = plan.position.get(step.index)
        if pos is None:  # folded: its values, for the observer and ``keep``
            calls.append(
                _hooked(inference, step, None, False, seen, mode, keep, kept, plan.known[step.index])
            )
            continue
        kernel, made = plan.kernels[pos], step.index in plan.specialized
        step = plan.steps[pos]
        if step.plan.spec.uses_run:
            kernel, made = _respecialized(inference, plan, step, mode)
        calls.append(_hooked(inference, step, kernel, made, seen, mode, keep, kept, None))
    return calls


def _folded(values: list[Any]) -> None:
    """A folded step's kernel, which ``_hooked`` never calls: its outputs are known."""
    raise AssertionError("ovonehot bug: a folded step's kernel was called")


def _hooked(
    inference: Inference,
    step: Step,
    kernel: Kernel | None,
    made: bool,
    seen: Seen,
    mode: RunMode,
    keep: set[tuple[int, int]],
    kept: dict[tuple[int, int], np.ndarray],
    known: Sequence[np.ndarray] | None,
) -> Call:
    """``_compile`` with the hooks around the kernel (a folded node: its ``known`` values)."""
    plain = _compile(inference, step, kernel, made, seen) if known is None else _folded
    key, index, p = mode.key(step.index), step.index, step.plan
    observer, override = mode.observer, mode.override

    def call(values: list[Any]) -> None:
        start = time.perf_counter()
        outs: Sequence[np.ndarray] | None = known
        if outs is None:
            if override is not None and not step.feed:
                outs = _overridden(override, key, p, [values[a] for a in step.args])
            if outs is None:
                plain(values)
                outs = [values[step.first + k] for k in range(step.n_out)]
            else:
                _store(inference, index, step.first, outs, values, seen)
                for f in step.frees:
                    values[f] = None
        for k, value in enumerate(outs):
            if (index, k) in keep:
                kept[(index, k)] = value if known is None else np.array(value, copy=True)
        if observer is not None:
            observer(key, p, outs, time.perf_counter() - start)

    return call


def _overridden(
    override: Override, key: NodeKey, p: NodePlan, args: list[np.ndarray]
) -> Sequence[np.ndarray] | None:
    try:
        return override(key, p, args)
    except Error as exc:
        raise exc.at(p.node) from None


def _fold(inference: Inference, prog: Program, feeds: Mapping[int, np.ndarray], seen: Seen) -> Folded | None:
    """What the signature of ``feeds`` decides (see the module docstring), or None when shape
    inference with the feeds' shapes disagrees with ``seen`` (the shapes a completed run with
    this signature checked)."""
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
    sig = _infer_signature(inference, prog, params)
    if sig is None or not _agrees(inference, prog, sig, seen):
        return None
    known: list[np.ndarray | None] = [None] * prog.slots
    done = _fold_values(prog, graph, sig, seen, known)  # (when nothing folds, the plan still specializes)
    return Folded(sig, done, known)


def _agrees(inference: Inference, prog: Program, sig: Sequence[Sequence[TensorInfo]], seen: Seen) -> bool:
    """Every static shape of ``sig`` is the one a completed run checked there (``seen``; a
    fused chain's nodes, never checked, get the inferred record)."""
    fused = decompression.chain_nodes(inference)
    for step in prog.steps:
        for k, t in enumerate(sig[step.index]):
            record = seen[step.first + k]
            if record is None and step.index in fused:  # (ran inside its consumer: never checked)
                record = seen[step.first + k] = _inferred_record(t)
            if t.shape.is_static and (record is None or record[0] != t.shape.to_shape()):
                return False
    return True


def _fold_general(inference: Inference, prog: Program) -> Folded | None:
    """What the model's own infos decide, for every signature (see ``Program.runs``): the nodes
    of static inferred shapes whose inputs are all known then, checked against the program's
    ``seen`` (what its completed runs met there)."""
    known: list[np.ndarray | None] = [None] * prog.slots
    done = _fold_values(prog, inference.graph, inference.outputs, prog.seen, known)
    return Folded(inference.outputs, done, known) if done else None


def _infer_signature(
    inference: Inference, prog: Program, params: dict[int, TensorInfo]
) -> Sequence[Sequence[TensorInfo]] | None:
    """Every node's outputs inferred with ``params`` (the feeds' and the held variables' shapes),
    or None when the shape rules refuse them.  A variable-reading node in its initial state
    reads its init input (input 0, when it has one): inferred again with that input's info,
    where its own rule gives the variable's declared (often dynamic) shape."""
    graph = inference.graph
    try:
        sig = infer(graph, inference.plans, parameters=params).outputs
        initial = {
            i: sig[src.node][src.output]
            for i, _ in prog.readers
            if i not in params and (src := next(iter(graph.sources[i]), None)) is not None
        }
        if initial:
            sig = infer(graph, inference.plans, parameters={**params, **initial}).outputs
    except Error:  # the shape rules refuse these shapes: the kernels say so when they run
        return None
    return sig


def _fold_values(
    prog: Program,
    graph: Graph,
    sig: Sequence[Sequence[TensorInfo]],
    seen: Seen,
    known: list[np.ndarray | None],
) -> dict[int, Sequence[np.ndarray]]:
    """Node index -> outputs of every node the signature decides (``known`` gets them by slot)."""
    done: dict[int, Sequence[np.ndarray]] = {}
    room = FOLDED_BYTES
    filters = _filter_converts(graph)
    for step in prog.steps:
        outs = prog.constants.get(step.index)
        if outs is None:
            limit = FILTER_FOLD_LIMIT if step.index in filters else FOLD_LIMIT
            outs = _fold_step(step, graph, sig, known, seen, limit)
            if outs is None:
                continue
            nbytes = sum(v.nbytes for v in outs) if step.args else 0  # (a Constant's own array: free)
            pure = all(s.node in prog.constants for s in graph.sources[step.index])
            if pure and prog.constant_bytes + nbytes <= CONSTANT_BYTES:  # the same for every signature
                prog.constants[step.index] = outs
                prog.constant_bytes += nbytes
                nbytes = 0
            elif any(v.size > FOLD_LIMIT for v in outs):  # (filters beyond the model's budget: they run)
                continue
            room -= nbytes
            if room < 0:
                break
        done[step.index] = outs
        known[step.first : step.first + step.n_out] = outs
    return done


def _inferred_record(info: TensorInfo) -> tuple[tuple[int, ...], np.dtype] | None:
    """What a check of a value of this inferred info records, when the info settles it."""
    dtype = info.element_type.numpy_dtype
    return (info.shape.to_shape(), dtype) if info.shape.is_static and dtype is not None else None


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


def _filter_converts(graph: Graph) -> frozenset[int]:
    """The Converts whose every consumer reads them as weights (a convolution's filters, either
    MatMul input), and the Constants they convert."""
    converts = graph.kind_indices("Convert")
    if not converts:
        return frozenset()
    consumers = graph.consumers()
    found = {
        i
        for i in converts
        if consumers[i]
        and all(port in _FILTER_CONSUMERS.get(graph.nodes[c].type.lower(), ()) for _, c, port in consumers[i])
    }
    sources = {
        s.node for i in found for s in graph.sources[i] if graph.nodes[s.node].type.lower() in _CONSTANTS
    }
    return frozenset(found | sources)


def _fold_step(
    step: Step,
    graph: Graph,
    sig: Sequence[Sequence[TensorInfo]],
    known: Sequence[np.ndarray | None],
    seen: Sequence[tuple[tuple[int, ...], np.dtype] | None],
    limit: int = FOLD_LIMIT,
) -> Sequence[np.ndarray] | None:
    """The outputs of ``step`` computed now by its kernel, when the signature decides them
    (outputs of at most ``limit`` elements)."""
    spec = step.plan.spec
    if step.feed or step.result or not step.n_out or not spec.foldable or not spec.deterministic:
        return None
    infos = sig[step.index]
    if not all(t.shape.is_static and math.prod(t.shape.to_shape()) <= limit for t in infos):
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
        outs = spec.reference(step.plan.attrs, args)
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


def _check_sizes(inference: Inference, i: int, inputs: Sequence[np.ndarray]) -> None:
    """``check_output_sizes`` before a node's kernel runs: its refusal raised, the layer named."""
    try:
        refused = check_output_sizes(inference, i, inputs)
        if refused is not None:
            _run_refused(inference.plans[i], inputs, refused)
    except Error as exc:
        raise exc.at(inference.plans[i].node) from None


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
    infos: Sequence[TensorInfo] | None = inference.outputs[index]
    if index in _dynamic_outputs(inference):
        inferred = _inferred_sizes(inference, index, args)
        if inferred is None or isinstance(inferred, InputError):
            return inferred
        infos = inferred
    for k, info in enumerate(infos or ()):
        if info.shape.rank_is_static:  # (a runtime shape of 70 values: NumPy would raise, untold)
            check_rank(info.shape.rank, f"output {k}")
        if info.shape.is_static:
            et = info.element_type
            itemsize = 8 if et.numpy_dtype is None else et.numpy_dtype.itemsize
            check_allocation(info.shape.to_shape(), itemsize, f"output {k}")
    return None


def _known_rank(shape: PartialShape) -> bool:
    """A static rank NumPy can hold (the rank check's at load; a larger one is checked per run)."""
    return shape.rank_is_static and shape.rank <= MAX_RANK


def _dynamic_outputs(inference: Inference) -> frozenset[int]:
    """The nodes with an output whose inferred shape is not static (found once per inference)."""
    found = inference.cache.get("dynamic outputs")
    if found is None:
        found = inference.cache["dynamic outputs"] = frozenset(
            i for i, outs in enumerate(inference.outputs) if any(not t.shape.is_static for t in outs)
        )
    return found


def _inferred_sizes(
    inference: Inference, index: int, args: Sequence[np.ndarray]
) -> tuple[TensorInfo, ...] | InputError | None:
    """Node ``index``'s outputs inferred from ``args`` (None: all small, accepted whatever the
    memory available), or the shape rules' refusal.  Kept per ``_sizes_key`` (what the inference
    reads), so a run of the same shapes and small values infers once: a stateful model's nodes
    after its variables (their shapes are not the signature's) are checked on every run."""
    p = inference.plans[index]
    shapes_only = p.spec.shapes_only
    key = _sizes_key(index, args, shapes_only)
    known: dict[object, tuple[TensorInfo, ...] | None] = inference.cache.setdefault("inferred sizes", {})
    if key in known:
        return known[key]
    graph = inference.graph
    ins = [
        TensorInfo(
            inference.outputs[s.node][s.output].element_type,
            _static_shape(a.shape),
            value=a if not shapes_only and _valued(a) else None,
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
    small = all(_small_static(t.shape, t.element_type.numpy_dtype) for t in infos)
    if len(known) >= 4096:
        known.clear()
    known[key] = None if small else infos  # (outputs under 1 MiB: accepted whatever the memory)
    return None if small else infos


# The largest input whose value a size check reads (see ``_valued``).
VALUED_SIZE = 64


def _sizes_key(index: int, args: Sequence[np.ndarray], shapes_only: bool) -> tuple[object, ...]:
    """What ``check_output_sizes`` infers node ``index``'s outputs from: the inputs' shapes,
    dtypes and the values of small ones (``_valued``; none when the op's shapes read no values:
    ``OpSpec.shapes_only``)."""
    if shapes_only:
        return (index, *[(a.shape, a.dtype) for a in args])
    return (index, *[(a.shape, a.dtype, a.tobytes()) if _valued(a) else (a.shape, a.dtype) for a in args])


def _valued(a: np.ndarray) -> bool:
    """An input whose value the size check's inference reads: at most ``VALUED_SIZE`` elements
    (shape vectors, axes, bounds, counts); a larger one is data, of which the sizes read only
    the shape.  (Reading data too made every node after an LLM's KV cache infer again on
    every step of a generation loop: its hidden state of a few hundred values never keyed.)"""
    return a.size <= VALUED_SIZE and a.dtype != object


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
