"""Runners: everything ``diff`` runs a model on, behind one interface (Polygraphy's runners).

A :class:`Runner` takes the model's inputs and answers its outputs keyed by output name
(:class:`~ovonehot.oracle.common.OracleOutputs`, with why each output it could not compute is
missing), or raises why it refused.  The runners:

* :class:`OvonehotRunner`: ovonehot's evaluator (``Model.run``), exact or fast;
* :class:`ReferenceRunner`: OpenVINO's core reference, ``Node.evaluate`` node by node;
* :class:`PluginRunner`: an OpenVINO plugin compiled with :class:`PluginSettings`
  (the deterministic CPU by default);
* :class:`OnnxRuntimeRunner`: onnxruntime on the ``.onnx`` file;
* :class:`ExpectedRunner`: saved outputs (``expected.npz``, a replay's or a corpus case's).

The oracle runners (all but ovonehot's) carry the facts the verdicts need as attributes:
their :class:`~ovonehot.oracle.common.OracleKind`, whether their known deviations can be
simulated, whether they keep intermediate tensors.  :func:`oracle_runners` turns the oracles
chosen (by kind, parsed once from their names where the command line reads them) into runner
objects.  OpenVINO and onnxruntime are reached through :mod:`ovonehot.oracle` only, in a child
process when ``isolate`` is set.
"""

from __future__ import annotations

import abc
import shutil
import weakref
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ..atomic import scratch_directory
from ..budget import BUDGET_ENV, memory_budget
from ..errors import Error, OpenVINOError, ParameterError
from ..infer import NodePlan
from ..ir.writer import write_ir
from ..model import Model
from ..oracle import openvino_runtime
from ..oracle.common import OracleKind, OracleOutputs, PluginSettings, Refusal, oracle_kind
from ..oracle.onnx_frontend import is_onnx_path
from ..oracle.process import IsolatedOracle
from ..oracle.process import shared as shared_oracle

Intermediates = dict[tuple[int, int], np.ndarray]  # (node index, output index) -> value


@dataclass
class OracleRun:
    """One oracle's outputs (``missing``: those it could not compute, and why), or why it refused."""

    oracle: str
    outputs: dict[str, np.ndarray] | None
    error: str | None = None
    refusal: Refusal | None = None
    missing: dict[str, Refusal] = field(default_factory=dict)


class Runner(abc.ABC):
    """Runs a model on inputs: ``run(inputs) -> outputs`` keyed by output name."""

    name: str  # as reports call it

    @abc.abstractmethod
    def run(self, inputs: Mapping[str, np.ndarray]) -> OracleOutputs:
        """The outputs, or an exception saying why the runner refused the inputs."""

    @abc.abstractmethod
    def describe(self) -> str:
        """How this runner runs the model, for the report."""


# -- ovonehot -------------------------------------------------------------------------------------


class OursRefused(Exception):
    """ovonehot refused the inputs: the error and the index of the node that raised it."""

    def __init__(self, error: Error, node: int | None) -> None:
        super().__init__(str(error))
        self.error, self.node = error, node


@dataclass(frozen=True, slots=True)
class OursRun:
    """ovonehot's outputs and the indices input of every OneHot (to explain positions)."""

    outputs: dict[str, np.ndarray]
    one_hot_indices: dict[int, np.ndarray]


class OvonehotRunner(Runner):
    """ovonehot's evaluator on ``model`` (its own plans: a model carrying a deliberately wrong
    kernel is judged like any other); ``exact=False`` runs the fast kernels."""

    def __init__(self, model: Model, exact: bool = True) -> None:
        self.model, self.exact = model, exact
        self.name = "ovonehot" if exact else "ovonehot (fast)"

    def describe(self) -> str:
        return "ovonehot's evaluator" + ("" if self.exact else " with its fast kernels")

    def run(self, inputs: Mapping[str, np.ndarray]) -> OracleOutputs:
        return OracleOutputs(self.model.run(inputs, exact=self.exact))

    def run_recorded(self, inputs: Mapping[str, np.ndarray]) -> OursRun:
        """The outputs and every OneHot's indices; :class:`OursRefused` names the node that refused
        (the one after the last top-level node that ran: plans run in order)."""
        graph = self.model.graph
        wanted = {(s.node, s.output): i for i in graph.kind_indices("OneHot") for s in graph.sources[i][:1]}
        seen: dict[int, np.ndarray] = {}
        last = [-1]

        def observe(index: object, plan: NodePlan, outs: Sequence[np.ndarray], seconds: float) -> None:
            if not isinstance(index, int):
                return  # a node inside a sub-graph body (its key is a path)
            last[0] = index
            for k, out in enumerate(outs):
                if (index, k) in wanted:
                    seen[wanted[(index, k)]] = out

        try:
            outputs = self.model.run(inputs, observer=observe, exact=self.exact)
        except Error as exc:
            raise OursRefused(exc, last[0] + 1 if last[0] + 1 < len(graph.nodes) else None) from None
        return OursRun(outputs, seen)

    def intermediates(
        self,
        inputs: Mapping[str, np.ndarray],
        partial: bool = False,
        budget: int | None = None,
        keep: Callable[[int, np.ndarray], bool] | None = None,
    ) -> Intermediates:
        """Every top-level node output; with ``partial`` those computed before a refusal (else it
        raises).  ``budget``: the most bytes kept; past it none are (:class:`LayersOverBudget`
        says how many they take).  ``keep``: only the outputs it takes (node index, value)."""
        seen: Intermediates = {}
        total = 0

        def observe(index: object, plan: NodePlan, outs: Sequence[np.ndarray], seconds: float) -> None:
            nonlocal total
            if isinstance(index, int):
                for k, out in enumerate(outs):
                    if keep is not None and not keep(index, out):
                        continue
                    total += int(getattr(out, "nbytes", 0))
                    if budget is None or total <= budget:
                        seen[(index, k)] = out
                if budget is not None and total > budget:
                    seen.clear()  # (the run goes on, counting: the message says how much)

        try:
            self.model.run(inputs, observer=observe, exact=self.exact)
        except Error:
            if not partial:
                raise
        if budget is not None and total > budget:
            raise LayersOverBudget(total, budget)
        return seen


def layers_budget() -> int:
    """The most bytes of node outputs an every-node run may keep: a third of the memory budget
    (:func:`~ovonehot.budget.memory_budget`)."""
    return memory_budget() // 3


class LayersOverBudget(OpenVINOError):
    """Every node's output kept (``--all-layers``, the plugin's picks) would take more memory than
    the budget allows: ovonehot keeps them, the plugin's child process keeps them again and sends
    them over (a 5,171-layer MViT-v2 took 17 GB, and the kernel's OOM killer ended the child)."""

    def __init__(self, total: int, budget: int) -> None:
        self.total, self.budget = total, budget
        super().__init__(
            f"not run: keeping every layer's output takes {total / 2**30:.2f} GiB, over the budget "
            f"of {budget / 2**30:.2f} GiB (a third of the memory budget: ovonehot and the oracle "
            f"each keep them, and the oracle sends them over; {BUDGET_ENV} caps it, the memory "
            "available sets it): compare a part of the model (ovonehot reduce, or a cut) or free memory"
        )


# -- oracles --------------------------------------------------------------------------------------


class OracleRunner(Runner):
    """A runner ovonehot is compared with, and the facts about it the verdicts draw on."""

    kind: OracleKind
    keeps_intermediates = False  # run(..., keep_intermediates=True) gives every node's output
    deterministic = True  # False: a plugin configuration that may compute otherwise (bf16, threads)
    defines_semantics = False  # OpenVINO's reference: a difference from it is ours wrong

    @property
    def simulated(self) -> OracleKind | None:
        """The oracle whose known deviations predict this runner's outputs (None: not OpenVINO)."""
        return None

    @abc.abstractmethod
    def run(self, inputs: Mapping[str, np.ndarray], keep_intermediates: bool = False) -> OracleOutputs:
        """The outputs (and, when asked and kept, every node's as ``intermediates``)."""

    def disagreement(self) -> str:
        """What the report says when it computes something else and nothing explains it."""
        return f"{self.name} computes something else"

    def printed(self) -> str:
        """What the child process running it printed on stderr during its last run ("" when it
        runs in this process, whose stderr is the user's)."""
        return ""

    def versions(self) -> dict[str, str]:
        """Versions of what it runs, besides OpenVINO's and ovonehot's (always reported)."""
        return {}


class OpenVINOSource:
    """What OpenVINO's oracles read: the model's IR files, or for an ONNX model the IR ovonehot
    made of it (with its corrections), written on first use into a scratch folder removed with
    this object.  Converting the ONNX file again would name the generated layers differently
    (Convert_17 vs Convert_122), and layers are matched by name."""

    def __init__(self, model: Model, xml: str, bin_path: str | None) -> None:
        self.model, self.xml, self.bin = model, xml, bin_path
        self._written: tuple[str, str | None] | None = None

    def paths(self) -> tuple[str, str | None]:
        if not is_onnx_path(self.xml):
            return self.xml, self.bin
        if self._written is None:
            folder = scratch_directory("ovonehot-diff-")
            weakref.finalize(self, shutil.rmtree, folder, True)
            xml, weights = write_ir(
                self.model.graph, Path(folder) / "model.xml", inference=self.model.inference
            )
            self._written = (str(xml), str(weights))
        return self._written


class OpenVINORunner(OracleRunner):
    """An OpenVINO oracle: the reference or a plugin, in this process or an isolated child."""

    keeps_intermediates = True
    _oracle = ""  # the oracle module's name for it (openvino_runtime.run)

    def __init__(self, source: OpenVINOSource, isolated: IsolatedOracle | None) -> None:
        self.source, self.isolated = source, isolated

    @property
    def simulated(self) -> OracleKind | None:
        return self.kind

    def _options(self) -> dict[str, Any]:
        return {}

    def printed(self) -> str:
        return "" if self.isolated is None else self.isolated.printed

    def run(self, inputs: Mapping[str, np.ndarray], keep_intermediates: bool = False) -> OracleOutputs:
        xml, bin_path = self.source.paths()
        if self.isolated is not None:
            return self.isolated.run(
                self._oracle, xml, inputs, bin_path, keep_intermediates, **self._options()
            )
        return openvino_runtime.run(
            self._oracle, xml, inputs, bin_path, keep_intermediates, **self._options()
        )

    def reference(self) -> ReferenceRunner:
        """OpenVINO's reference on the same model, where it arbitrates another oracle."""
        return ReferenceRunner(self.source, self.isolated)

    def deterministic_cpu(self) -> PluginRunner:
        """The deterministic CPU plugin on the same model, the run a configured plugin is checked against."""
        return PluginRunner(self.source, PluginSettings(), self.isolated, name="cpu (deterministic)")


class ReferenceRunner(OpenVINORunner):
    kind = OracleKind.REFERENCE
    defines_semantics = True
    _oracle = "reference"

    def __init__(self, source: OpenVINOSource, isolated: IsolatedOracle | None) -> None:
        super().__init__(source, isolated)
        self.name = self.kind.value

    def _options(self) -> dict[str, Any]:
        return {"partial": True}  # runs up to an op it has no evaluate for

    def describe(self) -> str:
        return "OpenVINO's core reference, Node.evaluate node by node"


class PluginRunner(OpenVINORunner):
    kind = OracleKind.CPU
    _oracle = "cpu"

    def __init__(
        self,
        source: OpenVINOSource,
        plugin: PluginSettings,
        isolated: IsolatedOracle | None,
        name: str = OracleKind.CPU.value,
    ) -> None:
        super().__init__(source, isolated)
        self.plugin, self.name = plugin, name
        self.deterministic = plugin.deterministic

    def _options(self) -> dict[str, Any]:
        return {"config": self.plugin.config, "device": self.plugin.device}

    def describe(self) -> str:
        how = self.plugin.describe()
        if not self.deterministic:
            hint = self.precision_hint()
            how += f" (INFERENCE_PRECISION_HINT={hint})" if hint else ""
        return how

    def precision_hint(self) -> str:
        """The inference precision it compiles with: from its configuration, else the device's default."""
        config = self.plugin.config
        if "INFERENCE_PRECISION_HINT" in config:
            return str(config["INFERENCE_PRECISION_HINT"])
        try:
            value = openvino_runtime.plugin_property(self.plugin.device, "INFERENCE_PRECISION_HINT")
        except OpenVINOError:
            return ""
        return {"<Type: 'bfloat16'>": "bf16", "<Type: 'float32'>": "f32", "<Type: 'float16'>": "f16"}.get(
            value, value
        )


class OnnxRuntimeRunner(OracleRunner):
    kind = OracleKind.ONNXRUNTIME

    def __init__(self, model: Model, path: str, isolated: IsolatedOracle | None) -> None:
        self.model, self.path, self.isolated = model, path, isolated
        self.name = self.kind.value

    def describe(self) -> str:
        return "onnxruntime on the .onnx file, CPU execution provider, 1 thread"

    def printed(self) -> str:
        return "" if self.isolated is None else self.isolated.printed

    def run(self, inputs: Mapping[str, np.ndarray], keep_intermediates: bool = False) -> OracleOutputs:
        if self.isolated is not None:
            raw = self.isolated.run("onnxruntime", self.path, inputs)
        else:
            from ..oracle import onnxruntime_runner

            raw = onnxruntime_runner.run(self.path, inputs)
        return keyed(self.model, raw, self.name)

    def versions(self) -> dict[str, str]:
        from ..oracle import onnxruntime_runner

        return {"onnxruntime": onnxruntime_runner.version()}


class ExpectedRunner(OracleRunner):
    """Saved outputs, keyed by output name, tensor name or Result layer name."""

    kind = OracleKind.EXPECTED

    def __init__(self, model: Model, arrays: Mapping[str, np.ndarray], source: str = "") -> None:
        self.model, self.arrays, self.source = model, arrays, source
        self.name = self.kind.value

    def describe(self) -> str:
        return f"saved outputs from {self.source or 'the caller'}"

    def disagreement(self) -> str:
        return f"ovonehot differs from the expected outputs ({self.source or 'given'})"

    def run(self, inputs: Mapping[str, np.ndarray], keep_intermediates: bool = False) -> OracleOutputs:
        return keyed(self.model, OracleOutputs(self.arrays), self.name, self.source, strict=True)


def oracle_runners(
    oracles: Sequence[OracleKind | str],
    model: Model,
    xml: str,
    bin_path: str | None = None,
    *,
    plugin: PluginSettings | None = None,
    expected: Mapping[str, np.ndarray] | None = None,
    expected_source: str = "",
    isolate: bool = False,
) -> tuple[OracleRunner, ...]:
    """The runners of ``oracles`` for ``model`` read from ``xml`` (and ``bin_path``).

    ``plugin`` says how the ``cpu`` oracle is compiled (deterministic CPU by default),
    ``expected`` holds the ``expected`` oracle's arrays.  With ``isolate``, OpenVINO and
    onnxruntime run in a child process (:func:`ovonehot.oracle.process.shared`), so a crash
    inside them is reported as that oracle's failure instead of killing this process."""
    kinds = [oracle_kind(o) if not isinstance(o, OracleKind) else o for o in oracles]
    if OracleKind.EXPECTED in kinds and expected is None:
        raise ParameterError("expected", "is needed by the expected oracle: its saved outputs")
    isolated = shared_oracle() if isolate else None
    source = OpenVINOSource(model, str(xml), bin_path)
    runners: list[OracleRunner] = []
    for kind in kinds:
        if kind is OracleKind.REFERENCE:
            runners.append(ReferenceRunner(source, isolated))
        elif kind is OracleKind.CPU:
            runners.append(PluginRunner(source, plugin or PluginSettings(), isolated))
        elif kind is OracleKind.ONNXRUNTIME:
            runners.append(OnnxRuntimeRunner(model, str(xml), isolated))
        else:  # OracleKind.EXPECTED, its outputs given (checked above)
            runners.append(ExpectedRunner(model, expected or {}, expected_source))
    return tuple(runners)


def keyed(
    model: Model, raw: OracleOutputs, oracle: str, source: str = "", strict: bool = False
) -> OracleOutputs:
    """Arrays keyed by another tool's names (ONNX output names, Result layer names, tensor names)
    re-keyed by ovonehot's output names; an output none of them names is missing.  With
    ``strict`` (saved outputs), a key naming no output is a usage error."""
    graph = model.graph
    results = graph.kind_indices("Result")
    out: dict[str, np.ndarray] = {}
    missing: dict[str, Refusal] = dict(raw.missing)
    used: set[str] = set()
    for desc, r in zip(model.outputs, results, strict=True):
        for key in (desc.name, *desc.names, graph.nodes[r].name):
            if key in raw:
                out[desc.name] = _as_output(desc.element_type.numpy_dtype, np.asarray(raw[key]))
                used.add(key)
                break
        else:
            if desc.name not in missing:
                held = ", ".join(repr(k) for k in raw) or "nothing"
                missing[desc.name] = Refusal(
                    f"{oracle} has no array for output {desc.name!r} ({source or oracle} holds {held})",
                    "unavailable",
                )
    unknown = [k for k in raw if k not in used]
    if strict and unknown:
        known = ", ".join(repr(d.name) for d in model.outputs)
        raise ParameterError(
            "expected",
            f"{', '.join(map(repr, unknown))} names no output of the model; "
            f"its outputs are: {known} (Result layer names and tensor names are accepted too)",
            source,
        )
    return OracleOutputs(out, raw.intermediates, missing)


def _as_output(dtype: np.dtype | None, value: np.ndarray) -> np.ndarray:
    """Raw-bit arrays (bf16/f8 saved by ``np.save`` come back as ``|V2``/``|V1``) viewed as the output's dtype."""
    if dtype is not None and value.dtype.kind == "V" and value.dtype.itemsize == dtype.itemsize:
        return value.view(dtype)
    return value
