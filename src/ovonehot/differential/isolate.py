"""Where a plugin leaves the rounding envelope, and whether the layer does it alone.

When the CPU plugin is outside an output's envelope and ovonehot inside, and OpenVINO's
reference cannot compute that output (no evaluate for Convolution...), the float64 truth alone
does not say who is wrong: it runs ovonehot's own kernels.  A numerical analyst would isolate the
layer: :func:`isolate` compares every node output of the plugin (inner outputs made visible)
with its envelope and takes the first one outside while ovonehot's is inside; then it runs that
layer alone, on ovonehot's values of its inputs, on the same plugin, with the layer's own
envelope (its truth from those inputs).

* The layer alone lands inside: the plugin computes it right by itself and wrong inside the
  model (a fusion, a layout, a precision its graph transformations chose): **theirs wrong**,
  named at that layer.
* The layer alone is outside too: the plugin's kernel and ovonehot's disagree on that op, and
  nothing independent of ovonehot decides: the verdict stays unexplained, naming the layer.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..atomic import scratch
from ..errors import Error
from ..model import Model, load
from .envelope import NOT_COMPUTED, Carried, Envelope, carry, truth
from .runners import OpenVINOSource, PluginRunner
from .subgraph import Candidate, extract, write_candidate


@dataclass(frozen=True, slots=True)
class Isolation:
    """The first layer where the plugin leaves the envelope, and how the layer does alone."""

    layer: str  # node.describe()
    port: int
    in_model: float  # the plugin's value there, in the whole model, over the layer's bound
    alone: float | None  # the layer alone on ovonehot's inputs, over its own bound (None: not run)
    ours_alone: float | None
    why_not: str = ""  # why the layer alone was not run

    @property
    def confirmed(self) -> bool:
        """The plugin computes the layer inside its envelope alone (and ovonehot does too)."""
        return self.alone is not None and self.ours_alone is not None and self.alone <= 1.0 >= self.ours_alone

    def sentence(self, oracle: str) -> str:
        where = f"{oracle} first leaves the envelope at {self.layer} output {self.port} ({self.in_model:.3g} x its bound)"
        if self.alone is None:
            return f"{where}; the layer alone could not be run ({self.why_not})"
        if self.confirmed:
            return (
                f"{where}; the layer alone, on ovonehot's values of its inputs, it computes inside "
                f"its own envelope ({self.alone:.3g} x): the difference comes from how {oracle} "
                "compiles the whole model"
            )
        return (
            f"{where}; the layer alone, on ovonehot's values of its inputs, {oracle} is at "
            f"{self.alone:.3g} x its own envelope and ovonehot at {self.ours_alone:.3g} x: the two "
            "kernels disagree on this op, and ovonehot's float64 truth (its own kernels) cannot decide"
        )


def isolate(
    model: Model,
    ours: Mapping[tuple[int, int], np.ndarray],
    theirs: Mapping[tuple[str, int], np.ndarray],
    carried: Carried,
    runner: PluginRunner,
    result: int,
) -> Isolation | None:
    """The first layer (topological) feeding Result ``result`` where ``runner`` is outside the
    envelope and ovonehot inside (``ours``: its every node output; ``theirs``: the runner's, by
    layer name and port, from its run keeping them), and that layer run alone; None when none
    is found."""
    for i in sorted(model.graph.ancestors([result])):
        node = model.graph.nodes[i]
        if node.type.lower() in NOT_COMPUTED:
            continue
        for k in range(len(node.outputs)):
            env = carried.at(i, k)
            got = theirs.get((node.name, k))
            mine = ours.get((i, k))
            if env is None or got is None or mine is None or np.shape(got) != env.truth.shape:
                continue
            if env.ratio(got) > 1.0 and env.ratio(mine) <= 1.0:
                return _alone(model, ours, runner, i, k, env.ratio(got))
    return None


def _alone(
    model: Model,
    ours: Mapping[tuple[int, int], np.ndarray],
    runner: PluginRunner,
    i: int,
    k: int,
    ratio: float,
) -> Isolation:
    layer = model.graph.nodes[i].describe()
    outputs = tuple((i, port) for port in range(len(model.graph.nodes[i].outputs)))
    try:
        graph, feeds = extract(model, ours, Candidate((i,), outputs))
        with scratch("ovonehot-isolate-") as folder:
            xml = write_candidate(graph, Path(folder))
            alone = load(xml)
            plugin = PluginRunner(OpenVINOSource(alone, str(xml), None), runner.plugin, runner.isolated)
            got = plugin.run(feeds)
        name = alone.outputs[k].name
        env: Envelope | None = carry(alone, truth(alone, feeds)).at(*_producer(alone, k))
        if env is None:
            return Isolation(layer, k, ratio, None, None, "the layer alone has no envelope")
        return Isolation(layer, k, ratio, env.ratio(got[name]), env.ratio(alone.run(feeds)[name]))
    except (Error, KeyError, OSError) as exc:
        return Isolation(layer, k, ratio, None, None, str(exc))


def _producer(model: Model, k: int) -> tuple[int, int]:
    src = model.graph.sources[model.graph.kind_indices("Result")[k]][0]
    return src.node, src.output
