"""Differential testing: ovonehot against OpenVINO (or onnxruntime, or stored outputs).

``diff`` is split the way Polygraphy splits it:

* :mod:`.runners`: everything a model runs on, behind one interface (ovonehot's evaluator,
  OpenVINO's reference, an OpenVINO plugin, onnxruntime, saved expected outputs);
* :mod:`.compare`, :mod:`.comparator`: one output against another (exact or within
  tolerances), and every output of two runs (no verdict policy);
* :mod:`.verdicts`: comparisons and facts about the runners in, a verdict per output out,
  drawing on :mod:`.evidence` (the runs and simulations, each made once) and
  :mod:`.explain` (the OneHot index behind a difference, the first node that differs);
* :mod:`.diff`: ``diff_model(model, inputs, runners, DiffOptions)``, the three together;
  :mod:`.report`: its report as data and as text; :mod:`.session`: ``ovonehot diff MODEL``
  (a model or replay folder, from files) as a library call;
* :mod:`.deviations`: the CPU plugin's documented deviations, simulated through the
  evaluator's override hook, to explain a difference;
* :mod:`.layers`: per-layer comparison (``--all-layers``);
* :mod:`.reduce`: shrink a failing model to the layers that still fail;
* :mod:`.replay`: replay folders (model, inputs, manifest) that reproduce a finding;
* :mod:`.gen_inputs`: seeded inputs chosen from the graph;
* :mod:`.fuzz`, :mod:`.fuzz_graphs`: random OneHot graphs diffed case by case;
* :mod:`.corpus`, :mod:`.engines`: many models at once, on a process pool or Dask.

The library takes typed settings and names its parameters in errors
(:class:`~ovonehot.errors.ParameterError`); the command line's syntax and flag names
(``ovonehot.cli._options``) and the HTML report (``ovonehot.cli.html_report``) live in
:mod:`ovonehot.cli`, which this package never imports (``tests/test_layout.py``).

OpenVINO itself is reached only through :mod:`ovonehot.oracle`.
"""
