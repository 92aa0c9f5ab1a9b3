"""``ovonehot run MODEL.xml --inputs SPEC... [--output out.npz]``: run an IR with NumPy."""

from __future__ import annotations

import argparse

import numpy as np

from ..model import load
from ..npyio import parse_input_specs, save_archive

# Print values when an output has at most this many elements.
SMALL = 64


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("run", help="run a model on NumPy inputs and print or save its outputs")
    p.add_argument("model", help="model .xml (the .bin beside it is read too)")
    p.add_argument("--bin", dest="bin_path", help="weights file, when not MODEL.bin")
    p.add_argument(
        "--inputs",
        nargs="+",
        default=[],
        metavar="SPEC",
        help="x.npy (single-input model), NAME=x.npy, or all.npz with arrays keyed by input name",
    )
    p.add_argument("--output", metavar="OUT.npz", help="write every output to an .npz keyed by output name")
    p.set_defaults(func=run_command)


def run_command(args: argparse.Namespace) -> int:
    model = load(args.model, args.bin_path)
    inputs = parse_input_specs(model, args.inputs)
    results = model.run(inputs)
    for name, value in results.items():
        desc = next(d for d in model.outputs if d.name == name)
        print(f"{name}: shape {list(value.shape)} element_type {desc.element_type}")
        if value.size <= SMALL:
            print("  " + np.array2string(value, separator=", ", threshold=SMALL).replace("\n", "\n  "))
    if args.output:
        save_archive(args.output, results)
        print(f"wrote {len(results)} output(s) to {args.output}")
    return 0
