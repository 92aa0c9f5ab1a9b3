"""Every exception a user can cause, with one base class: :class:`Error`.

Each class carries the process exit status the CLI turns it into, so the CLI
never has to guess.  Internal bugs are *not* ``Error`` subclasses: they stay
loud (a traceback) because they are ours to fix, not the user's.

Exit statuses (shared by every command):
    0 success, 1 a check or comparison found a difference, 2 usage error or bad
    input file, 3 invalid or unsupported IR, 4 OpenVINO missing or failing.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .oracle.common import Complaint

# Values quoted in messages are cut to this many characters: a 5 MB attribute must not
# become a 5 MB error line.
QUOTE_LIMIT = 200


def shorten(text: str, limit: int = QUOTE_LIMIT) -> str:
    """``text`` cut to ``limit`` characters, saying how many more there were (as ``cli.main`` does)."""
    return text if len(text) <= limit else f"{text[:limit]}... ({len(text) - limit} more characters)"


def quote(value: object, limit: int = QUOTE_LIMIT) -> str:
    """``repr(value)``, cut to ``limit`` characters like :func:`shorten`."""
    return shorten(repr(value), limit)


class Error(Exception):
    """Base of every error a user can cause; ``exit_code`` is the CLI status.

    An op's rules raise it with a bare message ("depth input must be scalar"); the one place
    that knows which layer was running (reading, inference, a run) attaches the layer with
    :meth:`at`, which keeps the exception object, its class and its fields, and puts the
    layer in front of the message.  A body layer inside a Loop gets the Loop too, outermost
    first.

    >>> str(InputError("depth input must be scalar").at("layer 3 (oh, OneHot)"))
    'layer 3 (oh, OneHot): depth input must be scalar'
    """

    exit_code = 2
    # Where the error happened, outermost layer first (``at``).
    layers: tuple[str, ...] = ()

    def at(self, layer: object) -> Error:
        """This error, said to have happened at ``layer`` (a Node, or its description)."""
        describe = getattr(layer, "describe", None)
        where = describe() if callable(describe) else str(layer)
        self.layers = (where, *self.layers)
        return self

    def __str__(self) -> str:
        message = super().__str__()
        return ": ".join((*self.layers, message)) if self.layers else message


class UsageError(Error):
    """Bad command line or bad API arguments."""

    exit_code = 2


class ParameterError(UsageError):
    """A bad argument of a library call, named by its parameter (``shapes``, ``value_range``).

    The message speaks of parameters; :meth:`describe` lets a front end name them its own
    way (the CLI names the flag that set each: ``--shape``, ``--val-range``).  ``value`` is
    the offending value as quoted (or None), ``problem`` what is wrong with it; other
    parameters the problem names stand in it as ``{name}`` and are listed in ``mentions``.

    >>> str(ParameterError("jobs", "sizes the cluster; with {scheduler} it has its own", mentions=("scheduler",)))
    'jobs sizes the cluster; with scheduler it has its own'
    >>> str(ParameterError("seed", "expected an integer", "'x'"))
    "seed 'x': expected an integer"
    """

    def __init__(
        self, parameter: str, problem: str, value: str | None = None, mentions: tuple[str, ...] = ()
    ) -> None:
        self.parameter, self.problem, self.value, self.mentions = parameter, problem, value, mentions
        super().__init__(self.describe(lambda name: name))

    def describe(self, name: Callable[[str], str]) -> str:
        """The message with each parameter called ``name(parameter)``."""
        problem = self.problem
        for other in self.mentions:
            problem = problem.replace("{" + other + "}", name(other))
        if self.value is None:
            return f"{name(self.parameter)} {problem}"
        return f"{name(self.parameter)} {self.value}: {problem}"


class InputError(Error):
    """A bad input file or input array (wrong type, shape, unreadable .npy)."""

    exit_code = 2


class IRError(Error):
    """The IR cannot be read: malformed XML, bad structure, bad .bin payload."""

    exit_code = 3


class ValidationError(IRError):
    """An op's inputs or attributes break its rules (OpenVINO's NodeValidationFailure)."""

    exit_code = 3


class UnsupportedError(IRError):
    """The IR is well formed but uses something ovonehot does not implement."""

    exit_code = 3


class UnknownParameterError(InputError):
    """Shapes given by name (a reshape) name no Parameter of the model; ``names`` lists those names."""

    def __init__(self, message: str, names: tuple[str, ...] = ()) -> None:
        super().__init__(message)
        self.names = names


class OpenVINOError(Error):
    """OpenVINO is not installed, or it failed on something we handed it."""

    exit_code = 4


class ResourceLimitError(InputError):
    """The inputs ask for more memory than ovonehot allows itself (an enormous OneHot output)."""


class NegativeDepthError(InputError):
    """A OneHot depth fed at run time is negative (OpenVINO: "OneHot depth value can't be negative")."""


class OracleRefusal(OpenVINOError):
    """An oracle cannot compute (part of) a model; ``cause`` says why, as a stable code.

    ``no-evaluate`` (OpenVINO's reference has no kernel for ``layer``), ``not-run`` (a
    known crash avoided), ``refused`` (a plugin or runtime refuses the model),
    ``no-kernel`` (onnxruntime has no kernel for an op), ``failed`` (it raised
    while running), ``crashed`` (it killed its process), ``unavailable`` (the oracle
    cannot be used here: not installed, not an ONNX model, no expected array).  ``layer`` describes the op that refused, when known.
    ``complaints`` is what OpenVINO's own message said, as data
    (:func:`ovonehot.oracle.openvino_messages.complaints`): match those, never the message.
    """

    def __init__(
        self,
        message: str,
        cause: str = "failed",
        layer: str = "",
        op: str = "",
        code: str = "",
        detail: str = "",
        complaints: tuple[Complaint, ...] = (),
    ) -> None:
        super().__init__(message)
        self.cause = cause
        self.layer = layer
        self.op = op  # the refusing op's type-version, e.g. "LogSoftmax-opset5"
        self.code = code  # a known deviation code (ovonehot.differential.deviations.KNOWN), when it is one
        self.detail = detail
        self.complaints = complaints


class OpenVINOResourceError(OpenVINOError):
    """OpenVINO ran out of memory (or another resource) on a model: no verdict on the model,
    so ``diff`` ends with exit 4 instead of reporting a difference."""
