"""``ovonehot run MODEL [--inputs SPEC]... [-o OUT.npz]``: run a model with NumPy and show its outputs.

Inputs not given are generated as ``diff`` generates them (``--seed``, ``--val-range``,
``--shape``; :mod:`ovonehot.differential.gen_inputs`); ``--save-inputs`` keeps them.  Each
output is printed with its shape, element type and statistics (min, max, mean, std, NaN and
infinity counts; a small histogram for a large output; its values when small), as
``polygraphy run`` does.  A stateful model (ReadValue/Assign) runs several steps on one
request: ``--steps N`` on the same inputs (read once), or one ``--step-inputs`` per step.

``--verbose`` prints one line per node to stderr as it runs (position, layer id,
type, name, each output's element type and shape, milliseconds) and a total;
``--dump-intermediates DIR`` writes every node's outputs to
``DIR/intermediates.npz`` keyed ``"<layer name>:<port>"`` (see :mod:`ovonehot.cli.dump`).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path

import numpy as np

from ..atomic import check_output_dir, check_output_file
from ..differential.gen_inputs import generate_inputs, refitted, refusal
from ..errors import Error, UsageError
from ..infer import NodePlan
from ..model import Model, TensorDesc, load
from ..npyio import check_input_specs, check_model_paths, parse_input_specs, save_archive, save_array
from ..ops.common.spec import NodeKey
from ..types import ElementType, PartialShape
from ._json import add_json_options, array_values, check_json_out, emit, human_output
from ._options import (
    add_generation_options,
    add_inputs_option,
    add_out_dir_option,
    add_renamed,
    parse_input_settings,
    parse_shapes,
)
from ._paths import input_files, model_files, refuse_writing_over
from ._stats import output_stats
from .dump import ARCHIVE, INDEX, IntermediateWriter

# Print values when an output has at most this many elements.
SMALL = 64
# What ``-o/--output`` writes, by the file's extension.
OUTPUT_SUFFIXES = (".npz", ".npy")


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("run", help="run a model with NumPy on given or generated inputs and show its outputs")
    p.add_argument("model", help="model .xml or .onnx (an .xml's .bin beside it is read too)")
    p.add_argument("--bin", dest="bin_path", help="weights file, when not MODEL.bin")
    add_inputs_option(p, "; default: generated as diff generates them (--seed, --val-range, --shape)")
    add_generation_options(p)
    p.add_argument(
        "--step-inputs",
        action="append",
        default=[],
        metavar="SPEC[,SPEC...]",
        help="one step of a stateful model (ReadValue/Assign): that step's inputs, an .npz or "
        "comma-separated specs (ids=a.npy,mask=b.npy); repeat it for each step",
    )
    p.add_argument(
        "--steps",
        type=int,
        metavar="N",
        help="run N steps of a stateful model on the same inputs (ReadValue/Assign state kept between steps)",
    )
    p.add_argument(
        "-o",
        "--output",
        metavar="OUT.npz|OUT.npy",
        help="write the outputs: .npz keyed by output name (several steps: step<K>/<name>), or .npy for "
        "a model with one output",
    )
    add_out_dir_option(
        p,
        "write each output to DIR/<name>.npy; an output larger than the memory budget (half the memory "
        "available, or OVONEHOT_MEMORY_BUDGET bytes) is computed in chunks into its memory-mapped file",
    )
    p.add_argument(
        "--save-inputs",
        metavar="IN.npz",
        help="write the inputs the model ran on (given or generated) to an .npz keyed by input name, "
        "for --inputs next time",
    )
    add_renamed(p, {"--save-outputs": "--output"})
    p.add_argument(
        "--dump-intermediates",
        metavar="DIR",
        help="write every node's outputs to DIR/intermediates.npz, keyed '<layer name>:<port>' "
        "(every node but Results), with DIR/intermediates.tsv listing each key's layer id, type and shape",
    )
    p.add_argument(
        "--verbose", action="store_true", help="print each node's output types, shapes and time to stderr"
    )
    p.add_argument(
        "--fast",
        action="store_true",
        help="speed over exactness: float sums (MatMul, reductions, MVN, Softmax, attention) in NumPy's order "
        "and MatMul by BLAS, not in OpenVINO's reference order; float outputs may differ from the exact run by rounding",
    )
    add_json_options(p, "the outputs (name, shape, element type, stats; values when small; per step)")
    p.set_defaults(func=run_command)


def run_command(args: argparse.Namespace) -> int:
    with human_output(args):
        return _run_command(args)


def _run_command(args: argparse.Namespace) -> int:
    groups = _input_groups(args)
    _check_paths(args, groups)  # bad paths are refused before the model is read or anything runs
    model = load(args.model, args.bin_path)
    _check_model(args, model, groups)
    report: dict[str, object] = {"model": args.model, "exact": not args.fast}
    if len(groups) == 1:
        inputs = _inputs(args, model, groups[0], report)
        if args.save_inputs is not None:
            _save_inputs(args.save_inputs, inputs)
        if args.out_dir is not None:
            _write_output_dir(args, model, inputs, report)
            emit(args, report)
            return 0
        steps = args.steps or 1
        feeds: Iterator[dict[str, np.ndarray]] = (inputs for _ in range(steps))  # one feed, reused
    else:
        steps = len(groups)
        feeds = (parse_input_specs(model, specs) for specs in groups)  # each step read when it runs
        report["inputs"] = {"generated": False, "seed": None}
        if args.save_inputs is not None:
            feeds = _saving_steps(args.save_inputs, feeds, steps)
    if steps == 1:
        results = _run(model, next(feeds), args.dump_intermediates, args.verbose, not args.fast)
        _print_outputs(model, results, args.output)
        if args.json or args.json_out is not None:
            report["outputs"] = _outputs_json(model, results)
        report["written"] = _written(args)
    else:
        _run_steps(args, model, feeds, steps, report)
    emit(args, report)
    return 0


def _input_groups(args: argparse.Namespace) -> list[list[str]]:
    """The input specs of each step: one step (``--inputs``, maybe none: generated), or one per
    ``--step-inputs``; the options that go together checked."""
    if args.steps is not None and args.steps < 1:
        raise UsageError(f"--steps must be at least 1, got {args.steps}")
    if args.step_inputs:
        if args.inputs or args.steps is not None:
            raise UsageError(
                "--step-inputs gives each step's inputs; --inputs (with --steps N) repeats one set: give one or the other"
            )
        groups = [[spec for spec in item.split(",") if spec] for item in args.step_inputs]
    else:
        groups = [list(args.inputs)]
    generating = args.seed or args.val_range or args.shape
    if generating and any(groups):
        raise UsageError(
            "--seed, --val-range and --shape are for generated inputs; the given inputs have their own"
        )
    several = len(groups) > 1 or (args.steps or 1) > 1
    if several and args.dump_intermediates:
        raise UsageError("--dump-intermediates takes one step; run the step you want to look at alone")
    if args.out_dir is not None and (several or args.dump_intermediates or args.verbose):
        raise UsageError("--out-dir takes one step, without --dump-intermediates or --verbose")
    return groups


def _check_paths(args: argparse.Namespace, groups: list[list[str]]) -> None:
    """Every path the command reads or writes."""
    check_model_paths(args.model, args.bin_path)
    for specs in groups:
        check_input_specs(specs)
    for option, path in (("--output", args.output), ("--save-inputs", args.save_inputs)):
        if path is not None:
            check_output_file(path, option)
    if args.output is not None and Path(args.output).suffix.lower() not in OUTPUT_SUFFIXES:
        raise UsageError(
            f"--output {args.output!r}: name an .npz (every output, keyed by name) or an .npy (a model's "
            "one output)"
        )
    if args.save_inputs is not None and not args.save_inputs.lower().endswith(".npz"):
        raise UsageError(f"--save-inputs {args.save_inputs!r}: name an .npz (the inputs keyed by name)")
    if args.dump_intermediates is not None:
        check_output_dir(args.dump_intermediates, "--dump-intermediates")
    if args.out_dir is not None:
        check_output_dir(args.out_dir, "--out-dir")
    check_json_out(
        args,
        ("--output", args.output),
        ("--save-inputs", args.save_inputs),
        *_dump_files(args.dump_intermediates),
    )
    reads = model_files(args.model, args.bin_path)
    reads += input_files(
        (spec for specs in groups for spec in specs), "--step-inputs" if args.step_inputs else "--inputs"
    )
    refuse_writing_over(
        reads,
        ("--output", args.output),
        ("--save-inputs", args.save_inputs),
        ("--json-out", args.json_out),
        *_dump_files(args.dump_intermediates),
    )


def _check_model(args: argparse.Namespace, model: Model, groups: list[list[str]]) -> None:
    """What needs the model: several steps need its state, an .npy output a single output."""
    steps = args.steps if args.steps is not None else len(groups)
    if (args.steps is not None or steps > 1) and not model.variables:
        option = "--steps" if args.steps is not None else "--step-inputs"
        raise UsageError(
            f"{option}: the model has no state (no ReadValue/Assign), so every step would compute the same; "
            "run it once"
        )
    if args.out_dir is not None:  # each output's file there may not be a file the run reads
        from ..chunked import file_names

        reads = model_files(args.model, args.bin_path) + input_files(
            spec for specs in groups for spec in specs
        )
        names = file_names([d.name for d in model.outputs])
        refuse_writing_over(
            reads,
            *(
                (f"--out-dir (output {d.name!r})", str(Path(args.out_dir) / f))
                for d, f in zip(model.outputs, names, strict=True)
            ),
        )
    npy = args.output is not None and Path(args.output).suffix.lower() == ".npy"
    if npy and (steps > 1 or len(model.outputs) != 1):
        what = f"{steps} steps" if steps > 1 else f"{len(model.outputs)} outputs"
        raise UsageError(
            f"--output {args.output!r}: an .npy holds one array and the run gives {what}; name an .npz"
        )


def _inputs(
    args: argparse.Namespace, model: Model, specs: list[str], report: dict[str, object]
) -> dict[str, np.ndarray]:
    """The given inputs, or inputs generated as ``diff`` makes them (said on stdout)."""
    if specs:
        report["inputs"] = {"generated": False, "seed": None}
        return parse_input_specs(model, specs)
    settings = parse_input_settings(args.seed, args.val_range)
    shapes = parse_shapes(args.shape)
    inputs, notes = generate_inputs(model, settings.seed, shapes, settings=settings, report=True)
    # (only then are generated inputs tried before the run: a dim left open and not given)
    if any(_open(d, shapes) for d in model.inputs) and refusal(model, inputs) is not None:
        # (an image whose size the IR leaves open: the default 3 x 3 is smaller than a patch or a
        # strided stem; grown to the first size the model takes, else each open dim sized as the
        # refusing layer names it, as diff does)
        inputs, notes = refitted(model, shapes, settings) or (inputs, notes)
    report["inputs"] = {"generated": True, "seed": settings.seed}
    print(f"generated inputs (--seed {settings.seed}; --save-inputs FILE.npz keeps them):")
    for name, value in inputs.items():
        desc = model.inputs[model.input_index(name)]
        print(f"  {name}: {_describe(value, desc.element_type)} {notes[name]['values']}")
    return inputs


def _open(desc: TensorDesc, shapes: Mapping[str, Sequence[int]]) -> bool:
    """Input ``desc`` has a dim its IR leaves open and ``--shape`` does not give."""
    given = any(n in shapes for n in (desc.name, *desc.names))
    return not given and (desc.shape.dims is None or not all(d.is_static for d in desc.shape.dims))


def _save_inputs(path: str, inputs: dict[str, np.ndarray]) -> None:
    save_archive(path, inputs)
    print(f"wrote {len(inputs)} input(s) to {path}")


def _saving_steps(
    path: str, feeds: Iterator[dict[str, np.ndarray]], steps: int
) -> Iterator[dict[str, np.ndarray]]:
    """The steps' inputs as they are read; after the last, all of them to ``path`` keyed
    ``step<K>/<input name>``."""
    kept: dict[str, np.ndarray] = {}
    for k, feed in enumerate(feeds, start=1):
        kept.update({f"step{k}/{name}": value for name, value in feed.items()})
        yield feed
    save_archive(path, kept)
    print(f"wrote the inputs of {steps} steps to {path}")


def _write_output_dir(
    args: argparse.Namespace, model: Model, inputs: dict[str, np.ndarray], report: dict[str, object]
) -> None:
    """--out-dir: each output written to its own .npy file, in chunks (and --output's file)."""
    from ..chunked import write_outputs

    paths = write_outputs(model, inputs, args.out_dir, exact=not args.fast)
    for name, path in paths.items():
        print(f"{name}: wrote {path}")
    if args.output is not None:
        _save_outputs(args.output, {name: np.load(path, mmap_mode="r") for name, path in paths.items()})
    report["written"] = {**_written(args), "out_dir": args.out_dir}
    report["output_files"] = {name: str(path) for name, path in paths.items()}
    report["outputs"] = _outputs_json(
        model, {name: np.load(path, mmap_mode="r") for name, path in paths.items()}
    )


def _save_outputs(path: str, outputs: dict[str, np.ndarray]) -> None:
    """``-o/--output``: an .npz keyed by output name, or the one output as an .npy."""
    if Path(path).suffix.lower() == ".npy":
        save_array(path, next(iter(outputs.values())))
    else:
        save_archive(path, outputs)
    print(f"wrote {len(outputs)} output(s) to {path}")


def _run_steps(
    args: argparse.Namespace,
    model: Model,
    feeds: Iterator[dict[str, np.ndarray]],
    steps: int,
    report: dict[str, object],
) -> None:
    """Several steps: one request, so what Assign writes in a step is what ReadValue reads in the
    next.  A step that fails is named (step K of N)."""
    request = model.create_request()
    everything: dict[str, np.ndarray] = {}
    per_step: list[dict[str, object]] = []
    for k in range(1, steps + 1):
        try:
            inputs = next(feeds)
            print(f"step {k}:")
            observer = _Progress(model).node if args.verbose else None
            results = request.run(inputs, observer=observer, exact=not args.fast)
        except Error as exc:
            raise exc.at(f"step {k} of {steps}") from None
        _print_outputs(model, results, None)
        if args.output is not None:
            everything.update({f"step{k}/{name}": value for name, value in results.items()})
        if args.json or args.json_out is not None:
            per_step.append({"step": k, "outputs": _outputs_json(model, results)})
    if args.output is not None:
        save_archive(args.output, everything)
        print(f"wrote {len(everything)} output(s) of {steps} steps to {args.output}")
    report["steps"] = per_step
    report["written"] = _written(args)


def _dump_files(directory: str | None) -> tuple[tuple[str, str], ...]:
    """The files ``--dump-intermediates DIR`` writes, as (option, path) pairs."""
    if directory is None:
        return ()
    paths = (os.path.join(directory, name) for name in (ARCHIVE, INDEX))  # noqa: PTH118 - the user's spelling
    return tuple(("--dump-intermediates", path) for path in paths)


def _outputs_json(model: Model, results: dict[str, np.ndarray]) -> list[dict[str, object]]:
    """Each output's name, shape, element type and stats; its values when it has at most SMALL
    elements."""
    rows: list[dict[str, object]] = []
    for name, value in results.items():
        desc = next(d for d in model.outputs if d.name == name)
        row: dict[str, object] = {
            "name": name,
            "shape": list(value.shape),
            "element_type": str(desc.element_type),
        }
        stats = output_stats(value)
        if stats is not None:
            row["stats"] = stats.as_json()
        if value.size <= SMALL:
            row["values"] = array_values(value)
        rows.append(row)
    return rows


def _written(args: argparse.Namespace) -> dict[str, str]:
    files = {}
    if args.output is not None:
        files["output"] = args.output
    if args.save_inputs is not None:
        files["inputs"] = args.save_inputs
    if args.dump_intermediates is not None:
        files["intermediates"] = args.dump_intermediates
    return files


def _print_outputs(model: Model, results: dict[str, np.ndarray], output: str | None) -> None:
    """Each output: its shape and element type, its stats, its values when small."""
    for name, value in results.items():
        desc = next(d for d in model.outputs if d.name == name)
        print(f"{name}: shape {list(value.shape)} element_type {desc.element_type}")
        stats = output_stats(value)
        if stats is not None:
            print("\n".join("  " + line for line in stats.lines()))
        if value.size <= SMALL:
            print("  " + np.array2string(value, separator=", ", threshold=SMALL).replace("\n", "\n  "))
    if output is not None:
        _save_outputs(output, results)


def _run(
    model: Model, inputs: dict[str, np.ndarray], dump_dir: str | None, verbose: bool, exact: bool
) -> dict[str, np.ndarray]:
    """``model.run`` with the observers ``--verbose`` and ``--dump-intermediates`` ask for."""
    if dump_dir is None and not verbose:
        return model.run(inputs, exact=exact)
    writer = IntermediateWriter(dump_dir) if dump_dir is not None else None
    progress = _Progress(model) if verbose else None

    def observe(key: NodeKey, plan: NodePlan, outputs: Sequence[np.ndarray], seconds: float) -> None:
        if progress is not None:
            progress.node(key, plan, outputs, seconds)
        if writer is not None:
            writer.add(plan, outputs, body_path(model, key))

    start = time.perf_counter()
    try:
        results = model.run(inputs, observer=observe, exact=exact)
    except Error:
        if writer is not None:  # what ran so far is what a failing run needs looked at
            writer.close(publish=writer.count > 0)
            if writer.count:
                print(
                    f"wrote {writer.count} intermediate(s) of the failed run to {writer.path}",
                    file=sys.stderr,
                )
        raise
    except BaseException:
        if writer is not None:
            writer.close(publish=False)
        raise
    if progress is not None:
        progress.total(time.perf_counter() - start)
    if writer is not None:
        writer.close()
        print(f"wrote {writer.count} intermediate(s) to {writer.path}")
    return results


class _Progress:
    """``--verbose``: one stderr line per node as it finishes."""

    def __init__(self, model: Model) -> None:
        self.model = model
        self.inference = model.inference
        self.n = len(model.graph.nodes)
        self.width = len(str(self.n))
        self.busy = 0.0

    def node(self, key: NodeKey, plan: NodePlan, outputs: Sequence[np.ndarray], seconds: float) -> None:
        node = plan.node
        if isinstance(key, int):
            types = [info.element_type for info in self.inference.outputs[key]]
            where = f"[{key + 1:>{self.width}}/{self.n}]"
            self.busy += seconds  # (a body's nodes count in their Loop's time)
        else:
            types = [ElementType.from_numpy(v.dtype) for v in outputs]
            where = f"  [{body_path(self.model, key)}]"
        shapes = ", ".join(_describe(v, et) for v, et in zip(outputs, types, strict=True)) or "-"
        print(
            f"{where} id={node.id} {node.type_version} {node.name!r}: {shapes} {seconds * 1e3:.3f} ms",
            file=sys.stderr,
            flush=True,
        )

    def total(self, seconds: float) -> None:
        print(
            f"ran {self.n} nodes in {seconds * 1e3:.3f} ms ({self.busy * 1e3:.3f} ms in kernels)",
            file=sys.stderr,
            flush=True,
        )


def body_path(model: Model, key: NodeKey) -> str:
    """Where a node of a sub-graph body ran, for ``--verbose`` and ``--dump-intermediates``:
    ``loop/body0.iteration2/`` (deeper bodies by their layer's index in the body); "" for a
    node of the model itself."""
    if isinstance(key, int):
        return ""
    parts = [model.graph.nodes[key[0]].name]
    for level in range(0, len(key) - 1, 3):
        if level:
            parts.append(f"#{key[level]}")
        parts.append(f"body{key[level + 1]}.iteration{key[level + 2]}")
    return "/".join(parts) + "/"


def _describe(value: np.ndarray, element_type: ElementType) -> str:
    """``f32[2,3]``: the (inferred) element type and the actual shape, in OpenVINO's notation."""
    return f"{element_type}{PartialShape.of(value.shape)}"
