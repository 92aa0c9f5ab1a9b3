"""Differential testing: ovonehot against OpenVINO (or onnxruntime, or stored outputs).

* :mod:`.compare`: one output against another (exact or within tolerances);
* :mod:`.diff`: a model's verdicts, one per output, each explained;
* :mod:`.deviations`: the CPU plugin's documented deviations, simulated through the
  evaluator's override hook, to explain a difference;
* :mod:`.layers`: per-layer comparison (``--all-layers``);
* :mod:`.reduce`: shrink a failing model to the layers that still fail;
* :mod:`.replay`: replay folders (model, inputs, manifest) that reproduce a finding;
* :mod:`.gen_inputs`: seeded inputs chosen from the graph;
* :mod:`.fuzz`, :mod:`.fuzz_graphs`: random OneHot graphs diffed case by case;
* :mod:`.corpus`, :mod:`.engines`: many models at once, on a process pool or Dask.

The library takes typed settings and names its parameters in errors
(:class:`~ovonehot.errors.ParameterError`); the command line's syntax, its flag names and
its report text (``ovonehot.cli._options``, ``ovonehot.cli.diff_report``, ``cli.html_report``)
live in :mod:`ovonehot.cli`.

OpenVINO itself is reached only through :mod:`ovonehot.oracle`.
"""
