"""The real-model regression corpus (ir/corpus/, issue 18): every model runs in ovonehot as in OpenVINO.

Every folder ``ir/corpus/<group>/<name>/`` holding a ``meta.json`` is a model users bring (tiny
random-init transformers, optimum-intel stateful LLM exports, NNCF weight-compressed LLMs, vision
nets, TensorFlow/TFLite/Paddle models), written by OpenVINO's own converters through the generator
script its meta names, with inputs and OpenVINO's outputs (ir/corpus/README.md). Here, from the
committed files only (OpenVINO is not imported):

* every case runs through ``ovonehot.load(xml).run(inputs)`` (a stateful model: its steps in order on
  one ``create_request()``), exact, and with ``exact=False`` where meta says ``fast``; outputs are
  compared with the expected ones: integers and booleans exactly, floats within meta's tolerance
  (NaN where expected NaN);
* ``validate`` must report no error-severity problem;
* every meta.json follows the format and names a generator that exists.

A model that breaks ovonehot stays in the corpus, with a strict xfail below naming the failure, so
the test turns red (XPASS) the day it is fixed and the entry must go.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import ovonehot
from ovonehot.check.validate import validate

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / "ir" / "corpus"
GROUPS = {
    "transformers",
    "llm",
    "nncf",
    "vision",
    "torch_ops",
    "tensorflow",
    "tflite",
    "paddle",
    "onnx",
    "layer_tests",
    "regressions",
}
EXPECTED_FROM = {"cpu", "reference", "framework", "cpu-folded-decompression"}
META_REQUIRED = {
    "generator": str,
    "source": str,
    "expected_from": str,
    "tolerance": dict,
    "stateful": bool,
    "fast": bool,
    "notes": str,
}
# tolerance_fast: the tolerance of runs with ``exact=False`` where fast mode computes otherwise
# than OpenVINO's reference beyond summation order (the group algebra of compressed weights).
META_OPTIONAL = {"tolerance_per_output": dict, "tolerance_fast": dict}
MAX_MODEL_BYTES = 2_000_000  # per folder (ideally < 1 MB)
MAX_CORPUS_BYTES = 40_000_000

# Known failures, strict: (folder, what) -> the precise failure. ``what`` is "exact", "fast" (a run
# mode, every case), "exact:<case>" / "fast:<case>" (one case), or "validate".
DIVIDE_FLOORS = (
    "written decision: the IR is Divide-1 with m_pythondiv=true on i32, floor division by OpenVINO's spec "
    "and core reference (-7 here); torch's trunc mode and the CPU plugin, which ignores m_pythondiv on "
    "integers, truncate (-6). ovonehot computes what the IR says (docs/layer_tests.md)"
)
MASKED_ROW_NAN = (
    "written decision: a left-padded row's padding position masks every key (OPT's SDPA-13 gets an "
    "all-false boolean mask row); the spec's softmax over -inf only is NaN, as the CPU plugin's plain "
    "SDPA gives, and the next layer spreads it over the whole row (0 * NaN); the expected outputs are the "
    "CPU plugin's stateful attention, which masks with the lowest finite value: finite logits (diff names "
    "it: stateful-attention-mask-lowest)"
)
XFAIL: dict[tuple[str, str], str] = {
    ("layer_tests/div_trunc_int32_by_int64", "exact"): DIVIDE_FLOORS,
    ("layer_tests/div_trunc_int32_by_int64", "fast"): DIVIDE_FLOORS,
    ("llm/opt", "exact:left_padded"): MASKED_ROW_NAN,
    ("llm/opt", "fast:left_padded"): MASKED_ROW_NAN,
}


def _xfail(folder: str, *whats: str) -> str | None:
    for what in whats:
        reason = XFAIL.get((folder, what))
        if reason is not None:
            return reason
    return None


# -- the corpus on disk ------------------------------------------------------------------------


@dataclass(frozen=True)
class Case:
    folder: str  # "<group>/<name>"
    name: str  # case name; a stateful case has steps
    steps: tuple[str, ...]  # file stems: "<case>" or "<case>.step1", "<case>.step2", ...


def folders() -> list[str]:
    return sorted(str(p.parent.relative_to(CORPUS)) for p in CORPUS.glob("*/*/meta.json"))


def meta(folder: str) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads((CORPUS / folder / "meta.json").read_text())
    return loaded


def cases(folder: str) -> list[Case]:
    stems = sorted(p.name[: -len(".inputs.npz")] for p in (CORPUS / folder).glob("*.inputs.npz"))
    grouped: dict[str, list[tuple[int, str]]] = {}
    for stem in stems:
        m = re.fullmatch(r"(.+)\.step(\d+)", stem)
        name, k = (m.group(1), int(m.group(2))) if m else (stem, 0)
        grouped.setdefault(name, []).append((k, stem))
    return [Case(folder, name, tuple(s for _, s in sorted(steps))) for name, steps in grouped.items()]


def read_npz(path: Path) -> dict[str, np.ndarray]:
    with np.load(path, allow_pickle=False) as archive:
        return {key: archive[key] for key in archive.files}


FOLDERS = folders()
CASES = [c for f in FOLDERS for c in cases(f)]


# -- the format ---------------------------------------------------------------------------------


def test_corpus_is_there_and_small() -> None:
    assert FOLDERS, f"no meta.json under {CORPUS}: run ir/corpus/generate_*.py"
    total = 0
    for folder in FOLDERS:
        size = sum(p.stat().st_size for p in (CORPUS / folder).iterdir())
        assert size <= MAX_MODEL_BYTES, f"{folder}: {size} bytes, over {MAX_MODEL_BYTES}"
        total += size
    assert total <= MAX_CORPUS_BYTES, f"the corpus holds {total} bytes, over {MAX_CORPUS_BYTES}"
    for key in XFAIL:
        assert key[0] in FOLDERS, f"XFAIL names {key[0]!r}, which is not in the corpus"


@pytest.mark.parametrize("folder", FOLDERS)
def test_meta_follows_the_format(folder: str) -> None:
    group = folder.split("/")[0]
    assert group in GROUPS, f"{folder}: group {group!r} is not one of {sorted(GROUPS)}"
    m = meta(folder)
    for key, kind in META_REQUIRED.items():
        assert key in m, f"{folder}/meta.json: no {key!r}"
        assert type(m[key]) is kind, (
            f"{folder}/meta.json: {key!r} is {type(m[key]).__name__}, not {kind.__name__}"
        )
    unknown = set(m) - set(META_REQUIRED) - set(META_OPTIONAL)
    assert not unknown, f"{folder}/meta.json: unknown keys {sorted(unknown)}"
    assert m["expected_from"] in EXPECTED_FROM, f"{folder}: expected_from {m['expected_from']!r}"
    assert m["source"].strip() and "\n" not in m["source"], f"{folder}: source must be one line"
    assert m["notes"].strip(), f"{folder}: notes must say why the tolerance is what it is"
    tolerances = [m["tolerance"], *m.get("tolerance_per_output", {}).values()]
    tolerances += [m["tolerance_fast"]] if "tolerance_fast" in m else []
    for tol in tolerances:
        assert set(tol) == {"atol", "rtol"}, f"{folder}: tolerance keys {sorted(tol)}"
        for v in tol.values():
            assert type(v) in (int, float) and 0 <= v < 1, f"{folder}: tolerance {tol}"
    generator = m["generator"]
    assert re.fullmatch(r"ir/corpus/generate_\w+\.py", generator), f"{folder}: generator {generator!r}"
    assert (ROOT / generator).is_file(), f"{folder}: generator {generator} does not exist"
    assert (CORPUS / folder / "model.xml").is_file() and (CORPUS / folder / "model.bin").is_file()
    found = cases(folder)
    assert found, f"{folder}: no <case>.inputs.npz"
    for case in found:
        assert (len(case.steps) > 1 or case.steps[0].endswith(".step1")) == m["stateful"], (
            f"{folder}:{case.name}: steps {case.steps} but stateful={m['stateful']}"
        )
        for stem in case.steps:
            assert (CORPUS / folder / f"{stem}.expected.npz").is_file(), f"{folder}: no {stem}.expected.npz"


# -- running ------------------------------------------------------------------------------------


def tolerance(
    m: dict[str, Any], output: str, names: tuple[str, ...], exact: bool = True
) -> tuple[float, float]:
    if not exact and "tolerance_fast" in m:
        return float(m["tolerance_fast"]["atol"]), float(m["tolerance_fast"]["rtol"])
    per = m.get("tolerance_per_output", {})
    for key in (output, *names):
        if key in per:
            return float(per[key]["atol"]), float(per[key]["rtol"])
    return float(m["tolerance"]["atol"]), float(m["tolerance"]["rtol"])


def compare(
    got: dict[str, np.ndarray],
    expected: dict[str, np.ndarray],
    model: ovonehot.Model,
    m: dict[str, Any],
    what: str,
    exact: bool = True,
) -> None:
    """Every expected output (keyed by tensor or Result name) against ovonehot's output of that name."""
    by_key = {}
    for desc in model.outputs:
        for key in (desc.name, *desc.names):
            by_key.setdefault(key, desc)
    assert len(expected) == len(got), (
        f"{what}: {len(got)} outputs, expected {len(expected)} ({sorted(expected)})"
    )
    for key, want in expected.items():
        assert key in by_key, f"{what}: expected output {key!r} names no output of the model"
        desc = by_key[key]
        have = np.asarray(got[desc.name])
        want = np.asarray(want)
        if want.dtype.kind == "V" and want.dtype.itemsize == have.dtype.itemsize:
            want = want.view(have.dtype)  # bf16 in an .npz: raw |V2 bits
        if want.dtype.kind == "U" and have.dtype == object:
            want = want.astype(object)  # strings: an .npz holds them as unicode, ovonehot as objects
        assert have.shape == want.shape, f"{what} {key!r}: shape {have.shape}, expected {want.shape}"
        assert have.dtype == want.dtype, f"{what} {key!r}: dtype {have.dtype}, expected {want.dtype}"
        if have.dtype.kind in "biuUSO":
            np.testing.assert_array_equal(have, want, err_msg=f"{what} {key!r}")
            continue
        atol, rtol = tolerance(m, desc.name, desc.names, exact)
        a, b = have.astype(np.float64), want.astype(np.float64)
        np.testing.assert_array_equal(
            np.isnan(a), np.isnan(b), err_msg=f"{what} {key!r}: NaN positions differ"
        )
        np.testing.assert_allclose(a, b, rtol=rtol, atol=atol, equal_nan=True, err_msg=f"{what} {key!r}")


def _run_case(case: Case, exact: bool) -> None:
    directory = CORPUS / case.folder
    m = meta(case.folder)
    model = ovonehot.load(directory / "model.xml")
    runner: Any = model.create_request() if m["stateful"] else model
    for stem in case.steps:
        inputs = read_npz(directory / f"{stem}.inputs.npz")
        got = runner.run(inputs, exact=exact)
        compare(got, read_npz(directory / f"{stem}.expected.npz"), model, m, f"{case.folder}:{stem}", exact)


def _run_params() -> list[Any]:
    params = []
    for case in CASES:
        modes = ["exact", "fast"] if meta(case.folder)["fast"] else ["exact"]
        for mode in modes:
            reason = _xfail(case.folder, f"{mode}:{case.name}", mode)
            marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
            params.append(pytest.param(case, mode, id=f"{case.folder}:{case.name}:{mode}", marks=marks))
    return params


@pytest.mark.parametrize(("case", "mode"), _run_params())
def test_corpus_case_matches_openvino(case: Case, mode: str) -> None:
    _run_case(case, exact=mode == "exact")


def _validate_params() -> list[Any]:
    params = []
    for folder in FOLDERS:
        reason = _xfail(folder, "validate")
        marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
        params.append(pytest.param(folder, id=folder, marks=marks))
    return params


@pytest.mark.parametrize("folder", _validate_params())
def test_corpus_model_validates_clean(folder: str) -> None:
    report = validate(CORPUS / folder / "model.xml")
    lines = [f"{p.code} {p.layer} port {p.port}: {p.message}" for p in report.errors]
    assert not lines, f"{folder}: validate reports {len(lines)} errors:\n" + "\n".join(lines[:10])
