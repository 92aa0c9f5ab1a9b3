"""OneHot lint rules for ``validate``: what OpenVINO refuses (errors) and what the spec excludes
but OpenVINO accepts (warnings), as two tables of rules.

Each :class:`Rule` is a stable ``code``, a severity, the input whose port it names (None: the
layer), a predicate and a message.  :data:`ATTRIBUTE_RULES` look at the layer's attributes
before they are parsed; :data:`INPUT_RULES` at the parsed attributes and the inferred inputs
(indices, depth, on_value, off_value).  A finding of severity error stops the layer's
inference (OpenVINO refuses it), a warning does not.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from ..errors import ValidationError
from ..graph import Node
from ..ops.common.bounds import depth_interval
from ..ops.common.spec import OpSpec, TensorInfo
from ..ops.one_hot import OneHotAttrs
from ..problems import Problem, Severity, problem
from ..types import Dimension, ElementType

# The index types the OneHot specification allows (OpenVINO accepts any integral type).
SPEC_INDEX_TYPES = (ElementType.i32, ElementType.i64)

C = TypeVar("C")


@dataclass(frozen=True, slots=True)
class Rule(Generic[C]):
    """One finding: ``applies(context)`` says whether it is found, ``message(context)`` why."""

    code: str
    severity: Severity
    input: int | None  # the input whose port the finding names; None names the layer
    applies: Callable[[C], bool]
    message: Callable[[C], str]


# -- attributes (before parsing) -------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Attributes:
    node: Node
    spec: OpSpec[Any]

    @property
    def mode(self) -> str | None:
        return self.node.attr("negative_indices_mode")


ATTRIBUTE_RULES: tuple[Rule[Attributes], ...] = (
    Rule(
        "onehot-negative-indices-mode-ignored",
        Severity.WARNING,
        None,
        lambda c: c.mode is not None and c.spec.version < 16,
        lambda c: (
            f"negative_indices_mode={c.mode!r} on a {c.node.version} layer (OneHot-1) is ignored by "
            "OpenVINO: negative indices give all-off rows; use version opset16 for the mode"
        ),
    ),
    Rule(
        "onehot-ignore-negative-spelling",
        Severity.ERROR,
        None,
        lambda c: c.mode is not None and c.spec.version >= 16 and c.mode.lower() == "ignore-negative",
        lambda c: (
            "negative_indices_mode='ignore-negative' is the spec page's spelling; OpenVINO accepts "
            "only 'ignore_negative' (or 'normalize') and refuses the file"
        ),
    ),
)


# -- parsed attributes and inputs ------------------------------------------------------------------
@dataclass(frozen=True)
class Inputs:
    """A OneHot's parsed attributes and inferred inputs (indices, depth, on_value, off_value)."""

    node: Node
    attrs: OneHotAttrs
    ins: Sequence[TensorInfo]
    _depth: list[Dimension | ValidationError] = field(default_factory=list, compare=False, repr=False)

    def depth_dim(self) -> Dimension | ValidationError:
        """The output dim the depth gives, or OpenVINO's refusal of a depth that can be negative."""
        if not self._depth:
            try:
                self._depth.append(depth_interval(self.ins[1]))
            except ValidationError as exc:
                self._depth.append(exc)
        return self._depth[0]

    def reads_depth(self) -> bool:
        """OpenVINO reads the depth only for indices of static rank (else the output is [...]);
        a depth whose value cannot be computed (``depth.error``) fails the layer's inference
        instead, and a depth that is no scalar is its own finding."""
        depth = self.ins[1]
        return self.ins[0].shape.rank_is_static and depth.error is None and not _not_scalar(depth)


def _not_scalar(info: TensorInfo) -> bool:
    return info.shape.is_static and info.shape.rank != 0


def _type_rules(k: int, label: str) -> tuple[Rule[Inputs], ...]:
    return (
        Rule(
            f"onehot-{label}-not-integral",
            Severity.ERROR,
            k,
            lambda c: c.ins[k].element_type.is_real,
            lambda c: f"{label} of type {c.ins[k].element_type}: OpenVINO refuses non-integral {label}",
        ),
        Rule(
            f"onehot-{label}-type",
            Severity.WARNING,
            k,
            lambda c: (
                not c.ins[k].element_type.is_real
                and not c.ins[k].element_type.is_dynamic
                and c.ins[k].element_type not in SPEC_INDEX_TYPES
            ),
            lambda c: (
                f"{label} of type {c.ins[k].element_type}: the spec allows only i32 and i64, "
                "OpenVINO accepts it"
            ),
        ),
    )


def _scalar_rule(k: int, label: str) -> Rule[Inputs]:
    return Rule(
        f"onehot-{label}-not-scalar",
        Severity.ERROR,
        k,
        lambda c: _not_scalar(c.ins[k]),
        lambda c: (
            f"{label.replace('-', '_')} has shape {c.ins[k].shape}; it must be a scalar "
            "(OpenVINO refuses even a one-element [1])"
        ),
    )


def _axis_out_of_range(c: Inputs) -> bool:
    shape = c.ins[0].shape
    return shape.rank_is_static and not -(shape.rank + 1) <= c.attrs.axis <= shape.rank


def _depth_zero(c: Inputs) -> bool:
    dim = c.depth_dim()
    return isinstance(dim, Dimension) and dim.is_static and dim.min == 0


INPUT_RULES: tuple[Rule[Inputs], ...] = (
    *_type_rules(0, "indices"),
    *_type_rules(1, "depth"),
    Rule(
        "onehot-on-off-type-mismatch",
        Severity.ERROR,
        3,
        lambda c: not c.ins[2].element_type.compatible(c.ins[3].element_type),
        lambda c: (
            f"on_value is {c.ins[2].element_type}, off_value is {c.ins[3].element_type}; "
            "OpenVINO requires the same type"
        ),
    ),
    _scalar_rule(1, "depth"),
    _scalar_rule(2, "on-value"),
    _scalar_rule(3, "off-value"),
    Rule(
        "onehot-axis-out-of-range",
        Severity.ERROR,
        None,
        _axis_out_of_range,
        lambda c: (
            f"axis {c.attrs.axis} is outside [{-(c.ins[0].shape.rank + 1)}, {c.ins[0].shape.rank}] "
            f"for indices of rank {c.ins[0].shape.rank}"
        ),
    ),
    Rule(
        "onehot-negative-depth",
        Severity.ERROR,
        1,
        lambda c: c.reads_depth() and isinstance(c.depth_dim(), ValidationError),
        lambda c: f"depth can be negative, OpenVINO refuses it: {c.depth_dim()}",
    ),
    Rule(
        "onehot-depth-zero",
        Severity.WARNING,
        1,
        lambda c: c.reads_depth() and _depth_zero(c),
        lambda c: (
            "depth is 0: OpenVINO accepts it and the output has an empty dimension "
            "(the spec asks for a positive depth)"
        ),
    ),
)


def _findings(node: Node, rules: Sequence[Rule[C]], context: C) -> list[Problem]:
    ports = [p.id for p in node.inputs]
    return [
        problem(r.code, r.severity, node, None if r.input is None else ports[r.input], r.message(context))
        for r in rules
        if r.applies(context)
    ]


def onehot_attribute_findings(node: Node, spec: OpSpec[Any]) -> list[Problem]:
    """Attribute findings: ``negative_indices_mode`` on OneHot-1, the spec's hyphenated spelling."""
    return _findings(node, ATTRIBUTE_RULES, Attributes(node, spec))


def onehot_findings(node: Node, attrs: OneHotAttrs, ins: Sequence[TensorInfo]) -> list[Problem]:
    """What OpenVINO refuses (errors) and what the spec excludes but OpenVINO accepts (warnings)."""
    return _findings(node, INPUT_RULES, Inputs(node, attrs, ins))
