"""``ovonehot run MODEL.xml --inputs SPEC... [--output out.npz]``: run an IR with NumPy.

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
from collections.abc import Sequence

import numpy as np

from ..atomic import check_output_dir, check_output_file
from ..errors import Error, UsageError
from ..infer import NodePlan
from ..model import Model, load
from ..npyio import check_input_specs, check_model_paths, parse_input_specs, save_archive
from ..ops.common.spec import NodeKey
from ..types import ElementType, PartialShape
from ._json import add_json_options, array_values, check_json_out, emit, human_output
from .dump import ARCHIVE, INDEX, IntermediateWriter

# Print values when an output has at most this many elements.
SMALL = 64


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("run", help="run a model on NumPy inputs and print or save its outputs")
    p.add_argument("model", help="model .xml or .onnx (an .xml's .bin beside it is read too)")
    p.add_argument("--bin", dest="bin_path", help="weights file, when not MODEL.bin")
    p.add_argument(
        "--inputs",
        nargs="+",
        action="append",
        metavar="SPEC",
        help="x.npy (single-input model), NAME=x.npy, or all.npz with arrays keyed by input name; "
        "repeat --inputs to run several steps of a stateful model, each step's inputs after one --inputs",
    )
    p.add_argument(
        "--steps",
        type=int,
        metavar="N",
        help="run N steps of a stateful model on the same inputs (ReadValue/Assign state kept between steps)",
    )
    p.add_argument("--output", metavar="OUT.npz", help="write every output to an .npz keyed by output name")
    p.add_argument(
        "--output-dir",
        metavar="DIR",
        help="write each output to DIR/<name>.npy; an output larger than the memory budget (half the memory "
        "available, or OVONEHOT_MEMORY_BUDGET bytes) is computed in chunks into its memory-mapped file",
    )
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
    add_json_options(p, "the outputs (name, shape, element type; values when small; per step)")
    p.set_defaults(func=run_command)


def run_command(args: argparse.Namespace) -> int:
    with human_output(args):
        return _run_command(args)


def _run_command(args: argparse.Namespace) -> int:
    groups = _input_groups(args)
    _check_paths(args, groups)  # bad paths are refused before the model is read or anything runs
    model = load(args.model, args.bin_path)
    steps = [parse_input_specs(model, specs) for specs in groups]
    report: dict[str, object] = {"model": args.model, "exact": not args.fast}
    if args.output_dir is not None:
        _write_output_dir(args, model, steps[0], report)
    elif len(steps) == 1:
        results = _run(model, steps[0], args.dump_intermediates, args.verbose, not args.fast)
        _print_outputs(model, results, args.output)
        report["outputs"] = _outputs_json(model, results)
        report["written"] = _written(args)
    else:
        _run_steps(args, model, steps, report)
    emit(args, report)
    return 0


def _input_groups(args: argparse.Namespace) -> list[list[str]]:
    """The --inputs of each step (one step without --steps), with --steps' usage checked."""
    groups: list[list[str]] = args.inputs or [[]]
    if args.steps is not None:
        if args.steps < 1:
            raise UsageError(f"--steps must be at least 1, got {args.steps}")
        if len(groups) > 1:
            raise UsageError("--steps repeats one set of inputs: give --inputs once with it")
        groups = groups * args.steps
    if len(groups) > 1 and args.dump_intermediates:
        raise UsageError("--dump-intermediates takes one step; run the step you want to look at alone")
    return groups


def _check_paths(args: argparse.Namespace, groups: list[list[str]]) -> None:
    """Every path the command reads or writes, and the options that take one step only."""
    check_model_paths(args.model, args.bin_path)
    for specs in groups:
        check_input_specs(specs)
    if args.output is not None:
        check_output_file(args.output, "--output")
    if args.dump_intermediates is not None:
        check_output_dir(args.dump_intermediates, "--dump-intermediates")
    if args.output_dir is not None:
        if len(groups) > 1 or args.dump_intermediates or args.verbose:
            raise UsageError("--output-dir takes one step, without --dump-intermediates or --verbose")
        check_output_dir(args.output_dir, "--output-dir")
    check_json_out(args, ("--output", args.output), *_dump_files(args.dump_intermediates))


def _write_output_dir(
    args: argparse.Namespace, model: Model, inputs: dict[str, np.ndarray], report: dict[str, object]
) -> None:
    """--output-dir: each output written to its own .npy file, in chunks (and --output's archive)."""
    from ..chunked import write_outputs

    paths = write_outputs(model, inputs, args.output_dir, exact=not args.fast)
    for name, path in paths.items():
        print(f"{name}: wrote {path}")
    if args.output is not None:
        save_archive(args.output, {name: np.load(path, mmap_mode="r") for name, path in paths.items()})
        print(f"wrote {len(paths)} output(s) to {args.output}")
    report["written"] = {**_written(args), "output_dir": args.output_dir}
    report["output_files"] = {name: str(path) for name, path in paths.items()}
    report["outputs"] = _outputs_json(
        model, {name: np.load(path, mmap_mode="r") for name, path in paths.items()}
    )


def _run_steps(
    args: argparse.Namespace, model: Model, steps: list[dict[str, np.ndarray]], report: dict[str, object]
) -> None:
    """Several steps: one request, so what Assign writes in a step is what ReadValue reads in the next."""
    request = model.create_request()
    everything: dict[str, np.ndarray] = {}
    per_step: list[dict[str, object]] = []
    for k, inputs in enumerate(steps, start=1):
        print(f"step {k}:")
        observer = _Progress(model).node if args.verbose else None
        results = request.run(inputs, observer=observer, exact=not args.fast)
        _print_outputs(model, results, None)
        everything.update({f"step{k}/{name}": value for name, value in results.items()})
        per_step.append({"step": k, "outputs": _outputs_json(model, results)})
    if args.output is not None:
        save_archive(args.output, everything)
        print(f"wrote {len(everything)} output(s) of {len(steps)} steps to {args.output}")
    report["steps"] = per_step
    report["written"] = _written(args)


def _dump_files(directory: str | None) -> tuple[tuple[str, str], ...]:
    """The files ``--dump-intermediates DIR`` writes, as (option, path) pairs."""
    if directory is None:
        return ()
    paths = (os.path.join(directory, name) for name in (ARCHIVE, INDEX))  # noqa: PTH118 - the user's spelling
    return tuple(("--dump-intermediates", path) for path in paths)


def _outputs_json(model: Model, results: dict[str, np.ndarray]) -> list[dict[str, object]]:
    """Each output's name, shape and element type; its values when it has at most SMALL elements."""
    rows: list[dict[str, object]] = []
    for name, value in results.items():
        desc = next(d for d in model.outputs if d.name == name)
        row: dict[str, object] = {
            "name": name,
            "shape": list(value.shape),
            "element_type": str(desc.element_type),
        }
        if value.size <= SMALL:
            row["values"] = array_values(value)
        rows.append(row)
    return rows


def _written(args: argparse.Namespace) -> dict[str, str]:
    files = {}
    if args.output is not None:
        files["output"] = args.output
    if args.dump_intermediates is not None:
        files["intermediates"] = args.dump_intermediates
    return files


def _print_outputs(model: Model, results: dict[str, np.ndarray], output: str | None) -> None:
    for name, value in results.items():
        desc = next(d for d in model.outputs if d.name == name)
        print(f"{name}: shape {list(value.shape)} element_type {desc.element_type}")
        if value.size <= SMALL:
            print("  " + np.array2string(value, separator=", ", threshold=SMALL).replace("\n", "\n  "))
    if output is not None:
        save_archive(output, results)
        print(f"wrote {len(results)} output(s) to {output}")


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
