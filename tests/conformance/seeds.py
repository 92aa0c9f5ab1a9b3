"""What a conformance seed says about an op: the one declarative place for op facts that the
spec itself cannot give (which inputs must be Constants, valid index ranges, a Reshape pattern,
sensible attribute samples, the op's stated tolerance).

A :class:`Seed` is a base signature: attribute variants as the IR's ``<data>`` strings, and per
input an element-type set (``None``: every type the generator knows, filtered by the spec's own
``evaluate_types`` and ``infer``), a shape (``None``: every shape of the rank table, 0-d and empty
included), a value kind, and whether it is a Constant.  :mod:`.generate` expands seeds across
types, ranks, values and Parameter declarations; an op without an entry gets the derived seed
(every input data of one type and one shape, broadcasting variants tried).

The table (:mod:`.table`) is keyed by the spec objects the registry gives, never by names
scanned from module globals.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tests.conformance.generate import Case


@dataclass(frozen=True, slots=True)
class Data:
    """Any values of the element type: random ones, and the type's boundary values (NaN, +-inf,
    -0.0, subnormals, min/max)."""


@dataclass(frozen=True, slots=True)
class Ints:
    """Integers valid in ``[lo, hi]``; the out-of-range variant adds ``lo - 1`` and ``hi + 1``."""

    lo: int
    hi: int


@dataclass(frozen=True, slots=True)
class Fixed:
    """Exactly this value (nested lists as ``np.asarray`` takes them), cast to the input's type."""

    value: object


@dataclass(frozen=True, slots=True)
class Positive:
    """Positive floats (a variance, a scale): random in (0.1, 4), boundary values among them."""


Values = Data | Ints | Fixed | Positive
DATA = Data()


@dataclass(frozen=True, slots=True)
class In:
    """One input of a seed.

    ``types``: element type names to try (``None``: every generated type); ``like``: the element
    type of input ``like`` (and, when ``shape`` is None, its shape or one broadcasting to it);
    ``shape_like``: the shape alone.
    ``shape``: a fixed shape, or ``None`` for the rank table (0-d and empty dims included).
    """

    types: tuple[str, ...] | None = None
    shape: tuple[int, ...] | None = None
    values: Values = DATA
    const: bool = False
    like: int | None = None
    shape_like: int | None = None  # the shape (or one broadcasting to it) of input ``shape_like`` only


def C(value: object, types: tuple[str, ...] = ("i64",), shape: tuple[int, ...] | None = None) -> In:
    """A Constant input holding ``value`` (its shape is the value's unless given)."""
    import numpy as np

    return In(types, tuple(np.shape(value)) if shape is None else shape, Fixed(value), const=True)


@dataclass(frozen=True, slots=True)
class Seed:
    """A base signature: inputs, and attribute variants (``(name, (value, ...))`` pairs; the
    generator takes their product)."""

    inputs: tuple[In, ...]
    attrs: tuple[tuple[str, tuple[str, ...]], ...] = ()
    outputs: int = 1  # output ports of the layer, where its parse reads them (VariadicSplit)


@dataclass(frozen=True, slots=True)
class Known:
    """A known failure: the cases ``applies`` selects fail for ``reason`` (strict xfail in the
    suite: a fix turns it into a failure until the entry goes)."""

    reason: str
    applies: Callable[[Case], bool]


@dataclass(frozen=True, slots=True)
class Conformance:
    """An op's conformance facts.

    ``seeds``: empty means the derived seed.  ``ulp``: the float tolerance the op module states
    against OpenVINO's reference (0: bit-exact).  ``cpu_exact``: the CPU plugin computes this op
    bit-identically to the reference inside its type envelope, so it may stand in where the
    reference has no kernel (without it, only copying ops and all-integer signatures get the
    plugin as oracle).  ``not_generated``: why the op gets no
    generated cases (a body-carrying op), checked by the coverage test.  ``bf16_steps``: why
    the op rounds bf16 after every step (so its nearest-even outputs may drift from the
    reference's rounding by more than one rounding; empty: rounded once, and checked so).
    """

    seeds: tuple[Seed, ...] = ()
    ulp: int = 0
    cpu_exact: bool = False
    not_generated: str = ""
    extra_types: tuple[str, ...] = field(default=())
    no_oracle: str = ""  # why OpenVINO cannot compute this op alone (the kernels are still checked)
    known: tuple[Known, ...] = ()
    bf16_steps: str = ""
