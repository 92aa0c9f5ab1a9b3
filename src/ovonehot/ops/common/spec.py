"""What an op is to ovonehot: typed attributes, a shape/type rule, a NumPy kernel, and its other facts.

Every fact about an op lives on its :class:`OpSpec` (in the op's family module):
its bound propagation rule, the element types OpenVINO evaluates it for, whether
``diff`` compares its outputs bit for bit.  There are no tables keyed by type name.

``OpSpec.infer`` and ``OpSpec.evaluate`` raise :class:`ValidationError` /
:class:`InputError` with a bare message ("depth input must be scalar, got shape
[1]"); the interpreters add the layer context once, at their boundary.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Generic, TypeVar

import numpy as np

from ...graph import Node
from ...types import ElementType, PartialShape

if TYPE_CHECKING:
    from ...infer import NodePlan


@dataclass(frozen=True, slots=True)
class TensorInfo:
    """What shape inference knows about one tensor.

    ``value`` is the tensor's value when it is known before running (a Constant, or
    anything folded from constants); ``lower``/``upper`` are element-wise bounds of an
    integer tensor whose value is not known exactly (OpenVINO's bound propagation),
    ``None`` when unknown.  ``error`` says why computing the value throws in OpenVINO (a
    StridedSlice shrinking an axis out of range): OpenVINO computes values lazily, so
    only a layer that reads this value (a Reshape pattern, a OneHot depth) is refused.
    """

    element_type: ElementType
    shape: PartialShape
    value: np.ndarray | None = field(default=None, compare=False)
    lower: np.ndarray | None = field(default=None, compare=False)
    upper: np.ndarray | None = field(default=None, compare=False)
    error: str | None = field(default=None, compare=False)


class Variables:
    """The variables of a stateful model (ReadValue/Assign, by ``variable_id``).

    ``values`` holds what each variable holds now; a variable that is absent is in its
    initial (reset) state, where ReadValue gives its init input (or zeros).  Assign writes
    go to ``pending`` and become the values only when the run ends (``commit``), so every
    ReadValue of one run sees the state the run started with.
    """

    def __init__(self) -> None:
        self.values: dict[str, np.ndarray] = {}
        self.pending: dict[str, np.ndarray] = {}

    def commit(self) -> None:
        self.values.update(self.pending)
        self.pending.clear()


A = TypeVar("A")  # an op's typed attributes (a frozen dataclass)

# A kernel of the inputs alone: what ``OpSpec.specialize`` returns, and what a plan runs.
Kernel = Callable[[Sequence[np.ndarray]], Sequence[np.ndarray]]
# The key of a node in hooks: its index in the top-level graph, or for a node of a sub-graph
# body the path (outer node's key..., body, iteration, inner index) (see ``RunMode.scope``).
NodeKey = int | tuple[int, ...]
# Sees every node's outputs as they are made: (key, plan, outputs, seconds).
Observer = Callable[[NodeKey, "NodePlan", Sequence[np.ndarray], float], None]
# Replaces a node's kernel: (key, plan, input values) -> outputs, or None to run the kernel.
Override = Callable[[NodeKey, "NodePlan", list[np.ndarray]], Sequence[np.ndarray] | None]


@dataclass(frozen=True, slots=True)
class RunMode:
    """How a run runs: what ``OpSpec.specialize`` and the evaluator's plans are made for.

    * ``exact``: bit-exact with OpenVINO's reference (True), or speed over exactness (float
      sums in NumPy's order, MatMul by BLAS; values within rounding of the exact ones).
    * ``variables``: the state of a stateful model (ReadValue/Assign); None: every
      variable in its initial state and what Assign writes is dropped (a stateless run).
    * ``out``: buffers offered for this node's outputs (one per output, or None each): a
      kernel may write an output into its buffer when shape and dtype fit (``share_outputs``);
      a None entry still asks for a fresh array the caller may keep.
    * ``observer`` / ``override``: the per-node hooks (``--dump-intermediates``, diff's model
      of the CPU plugin); they see the nodes of sub-graph bodies too, keyed by path.
    * ``specialized``: False runs every op's reference ``evaluate`` (no ``specialize``): what
      the specialized kernels are compared against, and a way to rule them out of a bug.
    * ``threads``: the threads the kernels may use, BLAS's and OneHot's workers
      (:mod:`ovonehot.threads`; None: ``OVONEHOT_NUM_THREADS``, else 1).
    * ``scope``: the key prefix of the body being run (() at the top level); in the mode an
      op's ``specialize`` gets (``uses_run`` ops), the op's own key, which a body op extends
      with (body, iteration) for the nodes of its bodies.
    * ``unused``: in the mode an op's ``specialize`` gets, the node's output ports nothing
      reads (no node, no Result) in a plan whose runs see no node's outputs (no hooks, no kept
      outputs); its kernel may return ``placeholder`` there: MaxPool-8/14's indices, which
      the PyTorch frontend writes and nothing reads, cost twice the values.
    """

    exact: bool = True
    specialized: bool = True
    variables: Variables | None = None
    out: tuple[np.ndarray | None, ...] | None = None
    observer: Observer | None = None
    override: Override | None = None
    threads: int | None = None
    scope: tuple[int, ...] = ()
    unused: frozenset[int] = frozenset()

    @property
    def hooked(self) -> bool:
        return self.observer is not None or self.override is not None

    def key(self, index: int) -> NodeKey:
        """The hooks' key of node ``index`` of the graph this mode runs."""
        return (*self.scope, index) if self.scope else index


def placeholder(info: TensorInfo) -> np.ndarray:
    """What a kernel returns at an output port in ``RunMode.unused``: zeros of the port's static
    shape and type, as a read-only view of one element (no memory, no work)."""
    return np.broadcast_to(np.zeros((), info.element_type.numpy_dtype), info.shape.to_shape())


# specialize(attrs, input infos, output infos, mode) -> a kernel of the inputs alone, or None.
SpecializeFn = Callable[[A, Sequence["TensorInfo"], Sequence["TensorInfo"], RunMode], Kernel | None]

Bounds = tuple[np.ndarray, np.ndarray]  # element-wise (lower, upper) of one tensor
# A bound propagation rule: spec, attributes, input infos, output infos -> each output's bounds.
BoundsFn = Callable[["OpSpec[A]", A, Sequence[TensorInfo], Sequence[TensorInfo]], list["Bounds | None"]]


@dataclass(frozen=True, slots=True, kw_only=True)
class OpSpec(Generic[A]):
    """One version of one op, with every fact ovonehot knows about it.

    * ``type``: OpenVINO's type name (``OneHot``); matched case-insensitively.
    * ``version``: the op's own version number (``OneHot-16``).
    * ``since``: the first opset holding this version; a layer ``version="opsetN"``
      selects the newest spec with ``since <= N``.
    * ``inputs``: the number of inputs, or a (min, max) range.
    * ``parse``: raw ``<data>`` strings -> typed attributes ``A`` (a frozen dataclass).
    * ``infer``: attributes + input infos -> output infos (element type, partial shape).
    * ``evaluate``: attributes + input arrays -> output arrays, the op's reference kernel
      (what OpenVINO's reference computes, or its spec where the two differ); ``None`` for
      ops the executor handles itself (Parameter).  ``specialize`` (below) is the only other
      way to run an op.
    * ``foldable``: whether inference may evaluate the op on known values (constant
      folding).  Off for ops whose values are not knowable (Parameter).
    * ``deterministic``: the kernel's outputs depend on nothing but its inputs and attributes,
      so the evaluator may compute a node once per input signature when its inputs are known
      then (:mod:`ovonehot.evaluate`).  Off for RandomUniform (both seeds 0 draw afresh).
    * ``bounds``: the op's value/bound propagation rule, OpenVINO's ``evaluate_lower`` /
      ``evaluate_upper`` (machinery and shared rules: :mod:`ovonehot.ops.common.bounds`);
      ``None``: the op has none, its values still fold.
    * ``evaluate_types``: the element types OpenVINO's ``evaluate`` accepts, per input port
      (``None`` in an entry, or ports past the tuple: any type); ``None``: any types.  Where
      it refuses the types, OpenVINO neither folds nor bounds the op, and neither do we.
    * ``lower_is_value``: OpenVINO takes the value of this op, inputs all exact, from its
      lower-bound evaluator, which differs from the kernel on "unbounded" (type max) inputs
      (see :func:`ovonehot.ops.common.bounds.propagate`).
    * ``copies_values``: the op's float outputs are copies of input values (a Reshape, a
      Gather), so ``diff`` compares them bit for bit.
    """

    type: str
    version: int
    since: int
    inputs: int | tuple[int, int]
    parse: Callable[[Node], A]
    infer: Callable[[A, Sequence[TensorInfo]], Sequence[TensorInfo]]
    evaluate: Callable[[A, Sequence[np.ndarray]], Sequence[np.ndarray]] | None
    foldable: bool = True
    deterministic: bool = True
    bounds: BoundsFn[A] | None = None
    evaluate_types: tuple[frozenset[ElementType] | None, ...] | None = None
    lower_is_value: bool = False
    copies_values: bool = False
    # The one way to run an op other than ``evaluate``: a kernel made for one plan (see
    # ``SpecializeFn`` and :mod:`ovonehot.evaluate`), or None for ``evaluate`` itself.
    #
    # Asked once per node when a plan is made, with the infos the plan knows (shapes may be
    # partial and element types dynamic in a signature's first plan; an input's ``value`` is
    # the folded array every call of the plan gets there, else None) and the run's mode.
    # With ``mode.exact`` its kernel gives exactly the bytes ``evaluate`` gives for every input
    # the infos allow (it may drop the checks they settle).  Without (``Model.run(...,
    # exact=False)``) it may give a variant that is not bit-exact with OpenVINO's reference:
    # float sums in NumPy's pairwise order instead of the reference's sequential (Kahan) one,
    # MatMul by BLAS; same output shapes, types and errors, values within rounding (each
    # variant's tests bound the difference).  With ``mode.out`` it may write an output into
    # its buffer.  It may raise a non-``Error`` exception for an input it does not decide
    # (NumPy refusing a broadcast): ``evaluate`` then runs, and words the error.  The
    # run-dependent parts of the mode (``variables``, hooks) reach it only for ops that
    # declare ``uses_run``.
    specialize: SpecializeFn[A] | None = None
    # ``specialize`` reads the run's variables or hooks (ReadValue/Assign read and write
    # ``mode.variables``; Loop/If/TensorIterator run their bodies with the mode): the evaluator
    # asks it again for each run that has them, whether or not ``mode.specialized``.
    uses_run: bool = False
    # Every output's type and shape follow from the inputs' types and shapes alone, never from an
    # input's value (element-wise ops, MatMul, Concat, attention): the evaluator's check of a
    # node's output sizes before it runs keys on its inputs' shapes and reads no value.
    shapes_only: bool = False
    # The output is the one data input's values moved, never more of them (Reshape, Squeeze,
    # Unsqueeze, Transpose, Assign: as many elements, of its type): where its output rank is
    # known, the evaluator does not check a node's output sizes before it runs (the input is
    # in memory already; NumPy's rank limit is the rank check's at load), so a
    # generation step does not infer them again each time its KV cache grows; a refusal of the
    # actual shapes is the kernel's own error.  Not Concat: one array given a million times
    # as its inputs would make an output a million times its size.
    sizes_within_inputs: bool = False
    # The variable a node of this op reads (ReadValue: its ``variable_id``), or None: a stateful
    # run's plan is made for the shapes its variables hold, as for the feeds' (evaluate.py).  In
    # its initial state such a node gives its input 0 when it has one (ReadValue's init input).
    reads_variable: Callable[[A], str] | None = None
    # The kernels call NumPy's BLAS (matmul, dot, tensordot, einsum), or run bodies that may: a
    # run whose plan holds such an op limits BLAS's threads to the run's (:mod:`ovonehot.threads`).
    blas: bool = False

    @property
    def name(self) -> str:
        return f"{self.type}-{self.version}"

    @property
    def reference(self) -> Callable[[A, Sequence[np.ndarray]], Sequence[np.ndarray]]:
        """``evaluate``, where the caller runs a node that has a kernel (every op but Parameter,
        which plans feed and never run): a missing one is an ovonehot bug."""
        if self.evaluate is None:
            raise AssertionError(f"ovonehot bug: {self.name} has no kernel")
        return self.evaluate

    def accepts_input_count(self, n: int) -> bool:
        if isinstance(self.inputs, int):
            return n == self.inputs
        lo, hi = self.inputs
        return lo <= n <= hi

    def evaluates_types(self, in_types: Sequence[ElementType]) -> bool:
        """Whether OpenVINO's ``evaluate`` of this op computes anything for these input types."""
        if self.evaluate_types is None:
            return True
        pairs = zip(self.evaluate_types, in_types, strict=False)  # ports past the tuple: any type
        return all(accepted is None or et in accepted for accepted, et in pairs)
