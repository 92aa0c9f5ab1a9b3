"""Real exports around OneHot (ir/exports/) run by ovonehot and compared with OpenVINO and ONNX.

The corpus is made by ``ir/exports/generate_torch.py``, ``generate_onnx.py`` and
``generate_transformers.py``: PyTorch modules using ``F.one_hot``, ONNX OneHot models and a tiny
transformers MoE LLM, converted by OpenVINO's frontends and saved as IR v11.
Per model and input case the corpus stores the inputs and OpenVINO's outputs; here every case is

* run through ``ovonehot.load(xml).run(inputs)``: an op ovonehot lacks fails the test, naming it;
* compared with OpenVINO recomputed now (``openvino_runtime.cpu_run``: the CPU plugin compiled
  deterministically; ``reference_run``, the core reference, for the cases listed in
  REFERENCE_CASES, which lie outside the CPU plugin's exact envelope), the stored outputs being
  checked against the recomputed ones too, so a stale file cannot pass;
* for ONNX models, compared with onnxruntime recomputed now (or, where onnxruntime has no kernel,
  ``onnx.reference``) and with the ONNX backend test's own expected outputs.

Integer and boolean outputs must match exactly, floats bit for bit unless the model's entry in
TOLERANCES states a tolerance and why.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest
from exact import assert_same

import ovonehot
from ovonehot.check.validate import validate
from ovonehot.errors import UnsupportedError
from ovonehot.ir.reader import read_ir
from ovonehot.ops import unsupported_types
from ovonehot.oracle import openvino_runtime

EXPORTS = Path(__file__).resolve().parents[1] / "ir" / "exports"


@dataclass(frozen=True)
class Tolerance:
    """How float outputs are compared: exact (bit for bit) or ``|a - b| <= atol + rtol * |b|``."""

    rtol: float
    atol: float
    why: str

    @property
    def exact(self) -> bool:
        return self.rtol == 0.0 and self.atol == 0.0


EXACT = Tolerance(0.0, 0.0, "only OneHot, Convert, data movement and integer arithmetic: no rounding")
LOSS = Tolerance(
    1e-5,
    1e-6,
    "a loss through (Log)Softmax and reductions: exp/log kernels and summation order differ between "
    "NumPy and the CPU plugin by a few ulps (measured: <= 9.6e-7 absolute, 2.1e-7 relative)",
)
FOCAL = Tolerance(
    1e-5,
    5e-6,
    "focal loss: 1 - pt cancels when pt is near 1 (the 'confident' case), so a one-ulp difference in "
    "Softmax becomes ~1% of 1 - pt and ~1e-6 of the loss (measured 8.2e-7 on a loss of 0.13)",
)
GEMM = Tolerance(
    1e-5,
    1e-6,
    "MatMul + bias on f32: the CPU plugin's GEMM accumulates in its own order (and with FMA), NumPy "
    "in another; a few ulps on dot products of length 8 (measured: <= 2.4e-7 absolute)",
)

RECURRENT = Tolerance(
    1e-5,
    1e-6,
    "Convolution, GRU, LayerNorm (MVN) and Linear on f32: ovonehot sums in float64 and rounds once, the "
    "CPU plugin sums in f32 in its own order (measured: <= 2.4e-7 absolute on outputs of order 1)",
)

ATTENTION = Tolerance(
    1e-5,
    1e-6,
    "a transformers LLM: ScaledDotProductAttention, RMSNorm, RoPE and MatMuls on f32; the CPU plugin's fused "
    "attention and GEMMs sum in their own order (measured: <= 3.6e-8 absolute on logits of order 0.3)",
)

# Every model in the corpus, with the tolerance for its float outputs (integer and boolean
# outputs are always compared exactly).
TOLERANCES: dict[str, Tolerance] = {
    "torch/label_smoothing_loss": LOSS,
    "torch/onehot_embedding": GEMM,
    "torch/onehot_embedding_f32const": GEMM,
    "torch/segmentation_masks_nchw": EXACT,
    "torch/segmentation_masks_static_bool": EXACT,
    "torch/one_hot_data_depth": EXACT,
    "torch/dice_loss": LOSS,
    "torch/class_histogram_int32": EXACT,
    "torch/hashed_buckets_f16": EXACT,
    "torch/tabular_features": EXACT,
    "torch/focal_loss": FOCAL,
    "torch/positional_one_hot": EXACT,
    "torch/foreground_masks": EXACT,
    "torch/char_cnn_gru": RECURRENT,
    "torch/scatter_targets": LOSS,
    "onnx/backend_without_axis": EXACT,
    "onnx/backend_with_axis": EXACT,
    "onnx/backend_negative_indices": EXACT,
    "onnx/backend_out_of_range_indices": EXACT,
    "onnx/backend_with_negative_axis": EXACT,
    "onnx/backend_with_bfloat16_values": EXACT,
    "onnx/backend_with_axis_opset9": EXACT,
    "onnx/backend_negative_indices_opset9": EXACT,
    "onnx/opset9_depth_input_int64": EXACT,
    "onnx/opset9_float16_indices_axis0": EXACT,
    "onnx/opset11_depth_initializer_int32_indices": EXACT,
    "onnx/opset11_depth_vector_tf_style": EXACT,
    "onnx/opset11_float_indices_truncation": EXACT,
    "onnx/opset11_bool_values": EXACT,
    "onnx/opset11_uint8_indices_f16_values": EXACT,
    "onnx/opset11_int64_indices_beyond_int32": EXACT,
    "onnx/torch_label_smoothing_opset9": LOSS,
    "onnx/torch_label_smoothing_opset13": LOSS,
    "onnx/torch_segmentation_opset11": EXACT,
    "transformers/tiny_mixtral": ATTENTION,
    "transformers/tiny_bert": ATTENTION,
    "transformers/tiny_gpt2": ATTENTION,
    "transformers/tiny_qwen3": ATTENTION,
    "transformers/tiny_t5": ATTENTION,
}

# Cases outside the CPU plugin's exact envelope (docs/openvino-behaviour.md): OpenVINO's core reference is the
# expectation; the generator stored it as <case>.reference.npz.
REFERENCE_CASES: dict[tuple[str, str], str] = {
    (
        "torch/hashed_buckets_f16",
        "large_ids",
    ): "the CPU plugin's FloorMod computes through f32: wrong for |ids| > 2**24",
    (
        "onnx/opset11_int64_indices_beyond_int32",
        "beyond_int32",
    ): "the CPU plugin wraps i64 indices to i32 (2**32 + 1 becomes 1)",
}

# Cases where ONNX's side (onnxruntime / onnx.reference) and OpenVINO disagree.  OpenVINO is what
# ovonehot follows; for these the test asserts that ovonehot and ONNX's side do differ, so it
# fails if they ever agree (and then the entry must go).
ONNX_DEVIATIONS: dict[tuple[str, str], str] = {
    (
        "onnx/backend_negative_indices_opset9",
        "backend",
    ): "onnxruntime wraps negative indices at opset 9 too; ONNX OneHot-9 (and OpenVINO's OneHot-1) "
    "leaves them off",
    (
        "onnx/opset9_depth_input_int64",
        "negative_and_large",
    ): "onnxruntime wraps negative indices at opset 9 too; OneHot-9 leaves them off",
    (
        "onnx/opset11_float_indices_truncation",
        "non_integer",
    ): "onnxruntime never sets a non-integer float index hot; ONNX says cast to int64 (truncation), "
    "which OpenVINO does (1.9 -> 1, -0.7 -> 0)",
}

# ONNX cases with no ONNX-side oracle at all.
NO_ONNX_ORACLE: dict[tuple[str, str], str] = {
    (
        "onnx/opset11_bool_values",
        "typical",
    ): "onnxruntime 1.31 has no OneHot kernel for bool values and onnx.reference fails on them "
    "(it subtracts booleans)",
}


# -- the corpus on disk -----------------------------------------------------------------------


def corpus_models() -> list[str]:
    return sorted(str(p.relative_to(EXPORTS).with_suffix("")) for p in EXPORTS.glob("*/*.xml"))


def model_cases(model: str) -> list[str]:
    stem = (EXPORTS / model).name
    return sorted(
        p.name[len(stem) + 1 : -len(".inputs.npz")]
        for p in (EXPORTS / model).parent.glob(f"{stem}.*.inputs.npz")
    )


def case_file(model: str, case: str, kind: str) -> Path:
    return EXPORTS / f"{model}.{case}.{kind}.npz"


def read_npz(path: Path) -> dict[str, np.ndarray]:
    with np.load(path, allow_pickle=False) as archive:
        return {key: archive[key] for key in archive.files}


def typed(inputs: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Inputs for ONNX's runners: raw ``|V2`` arrays (how .npz keeps bf16) back to bfloat16."""
    return {k: v.view(ml_dtypes.bfloat16) if v.dtype == np.dtype("V2") else v for k, v in inputs.items()}


ALL_CASES = [(m, c) for m in corpus_models() for c in model_cases(m)]
ONNX_CASES = [(m, c) for m, c in ALL_CASES if m.startswith("onnx/")]


def case_id(model: str, case: str) -> str:
    return f"{model}:{case}"


# -- comparing ----------------------------------------------------------------------------


def assert_close(got: np.ndarray, want: np.ndarray, tol: Tolerance, what: str) -> None:
    """Shape, then dtype, then values: every bit for integers, booleans and exact outputs
    (exact.assert_same), per ``tol`` for other floats."""
    got, want = np.asarray(got), np.asarray(want)
    if want.dtype.kind == "V" and got.dtype.itemsize == want.dtype.itemsize:
        want = want.view(got.dtype)  # bf16 from an .npz comes back as raw |V2 bits
    if tol.exact or got.dtype.kind in "biu" or got.dtype != want.dtype or got.shape != want.shape:
        assert_same(got, want, what)
        return
    np.testing.assert_allclose(
        got.astype(np.float64),
        want.astype(np.float64),
        rtol=tol.rtol,
        atol=tol.atol,
        equal_nan=True,
        err_msg=f"{what} (rtol={tol.rtol}, atol={tol.atol}: {tol.why})",
    )


def run_ovonehot(model: str, inputs: dict[str, np.ndarray]) -> tuple[ovonehot.Model, dict[str, np.ndarray]]:
    xml = EXPORTS / f"{model}.xml"
    try:
        loaded = ovonehot.load(xml)
    except UnsupportedError:
        loaded = None
    if loaded is None:  # failed outside the except block: one clear line, no chained traceback
        missing = ", ".join(unsupported_types(read_ir(xml)))
        pytest.fail(f"ovonehot cannot run {model}.xml yet: unsupported ops {missing}", pytrace=False)
    return loaded, loaded.run(inputs)


def result_layer_names(loaded: ovonehot.Model) -> dict[str, str]:
    """ovonehot output name -> its Result layer's name (the key of the stored OpenVINO outputs)."""
    graph = loaded.graph
    layers = [graph.nodes[r].name for r in graph.kind_indices("Result")]
    return {desc.name: layer for desc, layer in zip(loaded.outputs, layers, strict=True)}


def onnx_output_names(loaded: ovonehot.Model, onnx_names: list[str]) -> dict[str, str]:
    """ONNX output name -> the ovonehot output carrying that tensor name."""
    found = {}
    for name in onnx_names:
        matches = [d.name for d in loaded.outputs if name == d.name or name in d.names]
        assert len(matches) == 1, f"ONNX output {name!r} is not exactly one IR output: {matches}"
        found[name] = matches[0]
    return found


# -- the table is the corpus ----------------------------------------------------------------


def test_table_lists_every_corpus_model() -> None:
    assert corpus_models(), f"no IR under {EXPORTS}: run ir/exports/generate_*.py"
    assert sorted(TOLERANCES) == corpus_models()
    for model in corpus_models():
        assert model_cases(model), f"{model}: no <case>.inputs.npz"
        for case in model_cases(model):
            assert case_file(model, case, "openvino").is_file(), f"{model}:{case}: no OpenVINO outputs"
        if model.startswith("onnx/"):
            assert (EXPORTS / f"{model}.onnx").is_file(), f"{model}: the .onnx file is missing"
    stored_reference = {(m, c) for m, c in ALL_CASES if case_file(m, c, "reference").is_file()}
    assert stored_reference == set(REFERENCE_CASES)
    for key in (*ONNX_DEVIATIONS, *NO_ONNX_ORACLE):
        assert key in ONNX_CASES, f"{key} names no ONNX corpus case"
    without_oracle = {
        (m, c)
        for m, c in ONNX_CASES
        if not any(case_file(m, c, k).is_file() for k in ("onnxruntime", "onnx_reference", "backend"))
    }
    assert without_oracle == set(NO_ONNX_ORACLE)


def test_every_corpus_op_is_supported() -> None:
    """One line per model that uses an op ovonehot lacks: the overview when several fail."""
    missing = {m: unsupported_types(read_ir(EXPORTS / f"{m}.xml")) for m in corpus_models()}
    lines = [f"{m}: {', '.join(ops)}" for m, ops in missing.items() if ops]
    assert not lines, "unsupported ops in the exports corpus:\n" + "\n".join(lines)


# -- ovonehot vs OpenVINO ----------------------------------------------------------------------


@pytest.mark.parametrize(("model", "case"), ALL_CASES, ids=[case_id(*mc) for mc in ALL_CASES])
def test_export_matches_openvino(model: str, case: str) -> None:
    pytest.importorskip("openvino", reason="compares with OpenVINO's CPU plugin and reference, not installed")
    xml = EXPORTS / f"{model}.xml"
    tol = TOLERANCES[model]
    inputs = read_npz(case_file(model, case, "inputs"))
    loaded, got = run_ovonehot(model, inputs)
    layer_of = result_layer_names(loaded)

    cpu = openvino_runtime.cpu_run(xml, inputs)
    stored_cpu = read_npz(case_file(model, case, "openvino"))
    assert sorted(stored_cpu) == sorted(layer_of.values())
    for name, value in cpu.items():
        assert_close(
            value, stored_cpu[layer_of[name]], tol, f"{model}:{case} stored CPU output {name!r} vs now"
        )

    expected = cpu
    if (model, case) in REFERENCE_CASES:
        expected = openvino_runtime.reference_run(xml, inputs)
        stored_ref = read_npz(case_file(model, case, "reference"))
        for name, value in expected.items():
            assert_close(value, stored_ref[layer_of[name]], tol, f"{model}:{case} stored reference {name!r}")

    assert list(got) == list(expected), f"{model}:{case}: outputs {list(got)}, OpenVINO's {list(expected)}"
    for name, value in expected.items():
        assert_close(got[name], value, tol, f"{model}:{case} output {name!r} vs OpenVINO")


# -- ovonehot vs ONNX ------------------------------------------------------------------------


def _onnx_param(model: str, case: str) -> object:
    key = (model, case)
    marks = [pytest.mark.skip(reason=NO_ONNX_ORACLE[key])] if key in NO_ONNX_ORACLE else []
    return pytest.param(model, case, id=case_id(model, case), marks=marks)


def run_onnxruntime(path: Path, inputs: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    ort = pytest.importorskip("onnxruntime", reason="onnxruntime (test extra) cross-checks ONNX models")
    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    names = [o.name for o in session.get_outputs()]
    return dict(zip(names, session.run(names, inputs), strict=True))


def run_onnx_reference(path: Path, inputs: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    onnx = pytest.importorskip("onnx", reason="onnx (test extra) cross-checks ONNX models")
    from onnx.reference import ReferenceEvaluator

    model = onnx.load(str(path))
    names = [o.name for o in model.graph.output]
    return dict(zip(names, ReferenceEvaluator(model).run(names, inputs), strict=True))


@pytest.mark.held_for("onnxruntime==1.31.1")
@pytest.mark.held_for("onnx==1.23.2")
@pytest.mark.parametrize(("model", "case"), [_onnx_param(*mc) for mc in ONNX_CASES])
def test_onnx_export_matches_onnx(model: str, case: str) -> None:
    onnx_path = EXPORTS / f"{model}.onnx"
    tol = TOLERANCES[model]
    inputs = read_npz(case_file(model, case, "inputs"))
    loaded, got = run_ovonehot(model, inputs)
    deviation = ONNX_DEVIATIONS.get((model, case))
    compared = 0
    for kind, run in (("onnxruntime", run_onnxruntime), ("onnx_reference", run_onnx_reference)):
        path = case_file(model, case, kind)
        if not path.is_file():
            continue
        now = run(onnx_path, typed(inputs))
        stored = read_npz(path)
        assert sorted(stored) == sorted(now)
        names = onnx_output_names(loaded, list(now))
        for name, value in now.items():
            assert_close(value, stored[name], tol, f"{model}:{case} stored {kind} output {name!r} vs now")
            if deviation is None:
                assert_close(got[names[name]], value, tol, f"{model}:{case} output {name!r} vs {kind}")
            else:
                with pytest.raises(AssertionError, match="differ"):
                    assert_close(got[names[name]], value, tol, f"known deviation: {deviation}")
        compared += 1
    backend = case_file(model, case, "backend")
    if backend.is_file():  # ONNX's own expected outputs for its backend test case
        expected = read_npz(backend)
        names = onnx_output_names(loaded, list(expected))
        for name, value in expected.items():
            assert_close(got[names[name]], value, tol, f"{model}:{case} output {name!r} vs ONNX backend test")
        compared += 1
    assert compared, f"{model}:{case}: no ONNX-side expectation stored"


# -- validate ------------------------------------------------------------------------------------

TRANSFORMERS = [m for m in corpus_models() if m.startswith("transformers/")]


@pytest.mark.parametrize("model", TRANSFORMERS)
def test_transformers_export_validates_clean(model: str) -> None:
    """OpenVINO's own IR of a transformers model: ``validate`` must find no error (issue 11)."""
    report = validate(EXPORTS / f"{model}.xml")
    lines = [f"{p.code} {p.layer} port {p.port}: {p.message}" for p in report.errors]
    assert not lines, f"{model}: validate reports {len(lines)} errors:\n" + "\n".join(lines[:10])
