"""Generate ir/corpus/torch_ops/: small PyTorch models whose IRs use the op types issue 22 added.

Each model is a tiny module (random init from ``torch.manual_seed(0)`` where it has weights, nothing
downloaded), converted by ``ov.convert_model(module, example_input=...)`` (TorchScript tracing; the
``slice_scatter_index_put`` model through ``torch.export``, the only path whose frontend converts the
functional ``aten.slice_scatter``/``aten.index_put``) and saved with ``ov.save_model``. Expected
outputs: the CPU plugin compiled deterministically (corpus_common.CPU_CONFIG), but see below; each
folder's notes give |CPU - PyTorch| (or |CPU - expected|) at generation.

* ``embedding_bag``: ``nn.EmbeddingBag`` sum with offsets and per_sample_weights, and mean
  (EmbeddingBagOffsets-15), an empty bag included;
* ``whisper_log_mel``: Whisper-style log-mel features: ``torch.stft`` (n_fft 400, hop 160, Hann
  window, return_complex) -> ``abs() ** 2`` -> mel filter bank -> log10 clamp and dynamic range
  (STFT-15);
* ``stft_istft_roundtrip``: ``torch.istft(torch.stft(x))`` (STFT-15 and ISTFT-16);
* ``searchsorted_bucketize``: ``torch.searchsorted`` left and right, ``torch.bucketize``
  (SearchSorted-15, Bucketize-3), values tied with boundaries;
* ``slice_scatter_index_put``: ``torch.slice_scatter`` with a step, ``x[idx] = v`` and
  ``index_put(accumulate=True)`` with a repeated index (ScatterNDUpdate-4/15: OpenVINO's PyTorch
  frontend lowers them so; no SliceScatter-15 in the IR);
* ``erfinv_gaussian``: ``sqrt(2) * torch.erfinv(2p - 1)`` with p at 0, 1 and outside [0, 1] (ErfInv-17);
* ``adaptive_pool``: conv -> ``adaptive_avg_pool2d`` and ``adaptive_max_pool2d(return_indices=True)``
  7 x 9 -> 3 x 4 and ``adaptive_avg_pool1d`` 9 -> 4 (AdaptiveAvgPool-8, AdaptiveMaxPool-8);
* ``pixel_shuffle``: conv -> ``pixel_shuffle(2)`` and ``pixel_unshuffle(2)`` (Reshape/Transpose);
* ``moe_grouped_mm``: a top-1 MoE layer whose experts run through ``torch._grouped_mm`` on the
  tokens sorted by expert (GroupedMatMul-17);
* ``multinomial_sampling``: ``torch.multinomial`` of ``softmax(logits / T)``, with and without
  replacement (Multinomial-13; the frontend writes seeds 0/0, set here to fixed seeds).

Where the CPU plugin deviates, the expectation comes from elsewhere (the folder's meta says so):
``erfinv_gaussian`` from the framework (erfinv in float64; the plugin's f32 approximation is off by
up to 0.011 here), ``multinomial_sampling`` from OpenVINO's reference algorithm composed from its
kernels by ``Node.evaluate`` (the plugin draws with another generator).

    /work/gen/torch/bin/python ir/corpus/generate_torch_ops.py [--only REGEX]
"""

from __future__ import annotations

import argparse
import math
import re
import sys
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

sys.path.insert(0, str(Path(__file__).resolve().parent))
from corpus_common import Folder, max_diff

GENERATOR = "ir/corpus/generate_torch_ops.py"
GROUP = "torch_ops"
ATOL, RTOL = 1e-6, 1e-5


@dataclass(frozen=True)
class Spec:
    """One model: its module, example input, named cases and what the meta says."""

    module: nn.Module
    names: tuple[str, ...]
    cases: dict[str, tuple[np.ndarray, ...]]
    source: str
    notes: str
    atol: float = ATOL
    rtol: float = RTOL
    export: bool = False  # convert through torch.export instead of TorchScript tracing
    edit: Callable[[Any], None] | None = None  # changes the converted ov.Model before saving
    compare_torch: bool = True
    static: bool = False  # convert with the example's shapes as the inputs' static shapes
    # where the CPU plugin deviates: "framework" or "reference" and what computes the expected outputs
    # (ov.Model as saved, the case's arrays) -> outputs in the model's output order
    expected_from: str = "cpu"
    expected: Callable[[Any, tuple[np.ndarray, ...]], list[np.ndarray]] | None = None
    per_output: dict[str, tuple[float, float]] = field(default_factory=dict)


def _rng(seed: int) -> np.random.Generator:
    return np.random.default_rng(seed)


# -- 1. EmbeddingBag ---------------------------------------------------------------------------
class Bags(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.bag_sum = nn.EmbeddingBag(20, 6, mode="sum")
        self.bag_mean = nn.EmbeddingBag(20, 6, mode="mean")

    def forward(self, indices: torch.Tensor, offsets: torch.Tensor, weights: torch.Tensor) -> Any:
        return self.bag_sum(indices, offsets, per_sample_weights=weights), self.bag_mean(indices, offsets)


def embedding_bag() -> Spec:
    rng = _rng(1)
    typical = (
        rng.integers(0, 20, 9).astype(np.int64),
        np.array([0, 2, 5, 6], np.int64),
        rng.uniform(-1, 2, 9).astype(np.float32),
    )
    empty_bag = (
        np.array([3, 3, 19, 0, 7, 7, 7, 12, 5], np.int64),
        np.array([0, 3, 3, 8], np.int64),  # bag 1 is empty, bag 3 holds the last index alone
        np.array([1.0, -1.0, 0.5, 2.0, 0.25, 0.25, 0.25, -2.0, 3.0], np.float32),
    )
    return Spec(
        Bags(),
        ("indices", "offsets", "per_sample_weights"),
        {"typical": typical, "empty_bag": empty_bag},
        "nn.EmbeddingBag(20, 6) sum (offsets, per_sample_weights) and mean (offsets) by ov.convert_model "
        "(tracing): EmbeddingBagOffsets-15",
        "Cases: typical (9 indices in 4 bags), empty_bag (bag 1 empty: zeros in both modes, a repeated "
        "index). Static input shapes [9], [4], [9]: with dynamic ones (ov.convert_model's default) the "
        "CPU plugin 2026.4.1 fails to compile the sum bag with per_sample_weights ('to_shape was called on "
        "a dynamic shape'). Sums of at most 5 products: the corpus default tolerance.",
        static=True,
    )


# -- 2. STFT / ISTFT ---------------------------------------------------------------------------
def mel_filters(n_mels: int, n_fft: int, rate: int) -> np.ndarray:
    """Triangular filters equally spaced on the HTK mel scale (what Whisper's filter bank is)."""
    bins = n_fft // 2 + 1
    mel = lambda f: 2595.0 * np.log10(1.0 + f / 700.0)  # noqa: E731
    hz = lambda m: 700.0 * (10.0 ** (m / 2595.0) - 1.0)  # noqa: E731
    edges = hz(np.linspace(mel(0.0), mel(rate / 2), n_mels + 2))
    freqs = np.linspace(0, rate / 2, bins)
    out = np.zeros((n_mels, bins))
    for m in range(n_mels):
        lo, mid, hi = edges[m : m + 3]
        out[m] = np.maximum(0, np.minimum((freqs - lo) / (mid - lo), (hi - freqs) / (hi - mid)))
    return out.astype(np.float32)


class LogMel(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("window", torch.hann_window(400))
        self.register_buffer("filters", torch.from_numpy(mel_filters(16, 400, 16000)))

    def forward(self, audio: torch.Tensor) -> torch.Tensor:
        spec = torch.stft(audio, 400, 160, window=self.window, return_complex=True)
        power = spec[..., :-1].abs() ** 2
        mel = self.filters @ power
        log = torch.clamp(mel, min=1e-10).log10()
        log = torch.maximum(log, log.amax(dim=(-2, -1), keepdim=True) - 8.0)
        return (log + 4.0) / 4.0


def _audio(seed: int, batch: int, samples: int) -> np.ndarray:
    rng = _rng(seed)
    t = np.arange(samples) / 16000.0
    tones = sum(np.sin(2 * np.pi * f * t + rng.uniform(0, 6)) * a for f, a in ((220, 0.5), (1300, 0.2)))
    return (
        tones[None, :] * rng.uniform(0.5, 1.0, (batch, 1)) + rng.normal(0, 0.05, (batch, samples))
    ).astype(np.float32)


def whisper_log_mel() -> Spec:
    return Spec(
        LogMel(),
        ("audio",),
        {"typical": (_audio(2, 1, 3200),), "batch2": (_audio(3, 2, 4000),)},
        "Whisper-style log-mel features (torch.stft n_fft 400, hop 160, Hann window, return_complex, "
        "abs()**2, 16 mel filters, log10, dynamic range 8) by ov.convert_model (tracing): STFT-15",
        "Cases: typical (1 x 3200 samples: 21 STFT frames, the last dropped as Whisper does), batch2 "
        "(2 x 4000). Power spectra go through log10: the outputs are of order 1 (0.86..1.85); the CPU plugin's STFT (an FFT) and the reference's "
        "DFT sum in other orders, atol 1e-5 on log-mel values.",
        atol=1e-5,
    )


class StftIstft(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("window", torch.hann_window(64))

    def forward(self, signal: torch.Tensor) -> Any:
        spec = torch.stft(signal, 64, 16, window=self.window, return_complex=True)
        back = torch.istft(spec, 64, 16, window=self.window, length=signal.shape[-1])
        return back, torch.view_as_real(spec)


def stft_istft_roundtrip() -> Spec:
    rng = _rng(4)
    return Spec(
        StftIstft(),
        ("signal",),
        {
            "typical": (rng.normal(0, 1, (1, 256)).astype(np.float32),),
            "batch2": (rng.normal(0, 1, (2, 200)).astype(np.float32),),
        },
        "torch.istft(torch.stft(x, n_fft 64, hop 16, Hann window, return_complex), length=len(x)) by "
        "ov.convert_model (tracing): STFT-15 then ISTFT-16; outputs the round trip and the spectrum",
        "Cases: typical (1 x 256), batch2 (2 x 200: a length not a multiple of the hop). The round "
        "trip restores x (|x| < 3.2) to 5e-7; spectrum entries up to 20: atol 1e-5 rtol 1e-5.",
        atol=1e-5,
    )


# -- 3. searchsorted / bucketize ---------------------------------------------------------------
class Search(nn.Module):
    def forward(self, boundaries: torch.Tensor, values: torch.Tensor) -> Any:
        return (
            torch.searchsorted(boundaries, values),
            torch.searchsorted(boundaries, values, right=True),
            torch.bucketize(values, boundaries[0], right=False),
        )


def searchsorted_bucketize() -> Spec:
    rng = _rng(5)
    bounds = np.sort(rng.choice(np.arange(-10, 11), (3, 8)), axis=1).astype(np.float32) / 2
    values = rng.choice(np.arange(-12, 13), (3, 6)).astype(np.float32) / 2  # many equal to a boundary
    bounds2 = np.sort(rng.normal(0, 1, (2, 5)), axis=1).astype(np.float32)
    values2 = np.concatenate([bounds2[:, :2], rng.normal(0, 2, (2, 4))], axis=1).astype(np.float32)
    return Spec(
        Search(),
        ("boundaries", "values"),
        {"ties": (bounds, values), "typical": (bounds2, values2)},
        "torch.searchsorted(sorted, values) left and right, torch.bucketize(values, sorted[0]) by "
        "ov.convert_model (tracing): SearchSorted-15, Bucketize-3",
        "Cases: ties (half-integer boundaries with repeats, values equal to boundaries), typical. Integer "
        "outputs: exact.",
    )


# -- 4. slice_scatter / index_put --------------------------------------------------------------
class Scatter(nn.Module):
    def forward(
        self, x: torch.Tensor, src: torch.Tensor, idx: torch.Tensor, rows: torch.Tensor, acc_idx: torch.Tensor
    ) -> Any:
        a = torch.slice_scatter(x, src, dim=1, start=1, end=6, step=2)
        b = torch.index_put(x, (idx,), rows)
        c = torch.index_put(x, (acc_idx,), rows, accumulate=True)
        return a, b, c


def slice_scatter_index_put() -> Spec:
    rng = _rng(6)
    x = rng.normal(0, 1, (5, 7)).astype(np.float32)
    src = rng.normal(0, 1, (5, 3)).astype(np.float32)
    rows = rng.normal(0, 1, (3, 7)).astype(np.float32)
    return Spec(
        Scatter(),
        ("x", "src", "idx", "rows", "acc_idx"),
        {
            "typical": (x, src, np.array([0, 3, 4], np.int64), rows, np.array([2, 2, 0], np.int64)),
            "negative_index": (x, src, np.array([-1, 1, 2], np.int64), rows, np.array([-1, 4, -1], np.int64)),
        },
        "torch.slice_scatter(dim 1, 1:6:2), torch.index_put (x[idx] = v) and index_put(accumulate=True) "
        "by torch.export then ov.convert_model: ScatterNDUpdate-4 and ScatterNDUpdate-15 (sum)",
        "OpenVINO's PyTorch frontend lowers slice_scatter to Range/Slice indices + ScatterNDUpdate (no "
        "SliceScatter-15 in the IR) and has no rule for the functional ops under tracing (hence "
        "torch.export). Cases: typical, negative_index (-1 wraps); the plain index_put gets distinct "
        "indices (with repeats the surviving write is unspecified), the accumulating one repeated indices "
        "(both rows added). Sums of at most 3 terms: the corpus default tolerance.",
        export=True,
    )


# -- 5. erfinv ---------------------------------------------------------------------------------
class Gaussianize(nn.Module):
    def forward(self, p: torch.Tensor) -> torch.Tensor:
        return math.sqrt(2.0) * torch.erfinv(2.0 * p - 1.0)


def _erfinv_f64(model: Any, arrays: tuple[np.ndarray, ...]) -> list[np.ndarray]:
    x = torch.from_numpy(arrays[0]) * 2.0 - 1.0  # f32, as the IR's Multiply and Add
    y = torch.erfinv(x.double()).float()
    return [(y * math.sqrt(2.0)).numpy()]


def erfinv_gaussian() -> Spec:
    rng = _rng(7)
    p = rng.uniform(0, 1, (4, 8)).astype(np.float32)
    edges = np.array([[0.0, 1.0, 0.5, 1e-6, 1 - 1e-6, -0.25, 1.5, 0.999]], np.float32)
    return Spec(
        Gaussianize(),
        ("p",),
        {"typical": (p,), "edges": (edges,)},
        "sqrt(2) * torch.erfinv(2p - 1) (the Gaussian quantile) by ov.convert_model (tracing): ErfInv-17",
        "Cases: typical (uniform p), edges (p = 0 and 1: -inf/+inf; p outside [0, 1]: NaN; p near 0 and "
        "1: |x| ~ 4.75 where erfinv is steep). Expected from the framework: the IR's f32 Multiply/Add "
        "as PyTorch computes them, erfinv in float64 (torch.erfinv on the f32 value widened) rounded to "
        "f32. ErfInv-17 has no reference kernel and the CPU plugin's f32 approximation deviates (docs/"
        "openvino-behaviour.md, 'opset17, ErfInv and nf4'): rtol 1e-6 is a few f32 ulps.",
        atol=1e-6,
        rtol=1e-6,
        expected_from="framework",
        expected=_erfinv_f64,
    )


# -- 6. adaptive pooling -----------------------------------------------------------------------
class Adaptive(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conv = nn.Conv2d(2, 4, 3, padding=1)

    def forward(self, image: torch.Tensor) -> Any:
        y = torch.relu(self.conv(image))
        avg = F.adaptive_avg_pool2d(y, (3, 4))
        mx, idx = F.adaptive_max_pool2d(y, (3, 4), return_indices=True)
        row = F.adaptive_avg_pool1d(y.mean(dim=2), 4)
        return avg, mx, idx, row


def adaptive_pool() -> Spec:
    rng = _rng(8)
    return Spec(
        Adaptive(),
        ("image",),
        {
            "typical": (rng.normal(0, 1, (1, 2, 7, 9)).astype(np.float32),),
            "other_size": (rng.normal(0, 1, (2, 2, 10, 13)).astype(np.float32),),
        },
        "Conv2d -> adaptive_avg_pool2d / adaptive_max_pool2d(return_indices) to 3 x 4, adaptive_avg_pool1d "
        "to 4, by ov.convert_model (tracing): AdaptiveAvgPool-8, AdaptiveMaxPool-8 (i64 indices)",
        "Cases: typical (7 x 9 -> 3 x 4: overlapping, unequal bins), other_size (2 x 10 x 13, same IR). "
        "Conv of 18 terms then averages: the corpus default tolerance; indices exact (ReLU zeros could tie: "
        "the inputs make ties unlikely, and the generator checks the CPU's indices against PyTorch's).",
    )


# -- 7. pixel shuffle --------------------------------------------------------------------------
class Shuffle(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conv = nn.Conv2d(3, 12, 3, padding=1)

    def forward(self, image: torch.Tensor) -> Any:
        up = F.pixel_shuffle(self.conv(image), 2)
        return up, F.pixel_unshuffle(up, 2), F.pixel_unshuffle(image, 2)


def pixel_shuffle() -> Spec:
    rng = _rng(9)
    return Spec(
        Shuffle(),
        ("image",),
        {
            "typical": (rng.normal(0, 1, (1, 3, 4, 6)).astype(np.float32),),
            "batch2": (rng.normal(0, 1, (2, 3, 6, 8)).astype(np.float32),),
        },
        "Conv2d -> pixel_shuffle(2) (sub-pixel upsampling), pixel_unshuffle(2) by ov.convert_model "
        "(tracing): Reshape/Transpose on ShapeOf arithmetic",
        "Cases: typical (1 x 3 x 4 x 6), batch2 (2 x 3 x 6 x 8, same IR). Pure data movement after a "
        "27-term conv: the corpus default tolerance.",
    )


# -- 8. MoE through _grouped_mm ----------------------------------------------------------------
class MoE(nn.Module):
    """Top-1 routing; tokens sorted by expert, experts' up/down projections as grouped GEMMs over the
    per-expert offsets, the result unsorted and scaled by the gate probability."""

    def __init__(self, experts: int = 4, dim: int = 8, hidden: int = 16) -> None:
        super().__init__()
        self.experts = experts
        self.router = nn.Linear(dim, experts, bias=False)
        self.up = nn.Parameter(torch.randn(experts, dim, hidden) / math.sqrt(dim))
        self.down = nn.Parameter(torch.randn(experts, hidden, dim) / math.sqrt(hidden))

    def forward(self, tokens: torch.Tensor) -> Any:
        probs = torch.softmax(self.router(tokens), dim=-1)
        gate, expert = probs.max(dim=-1)
        order = torch.argsort(expert, stable=True)
        counts = F.one_hot(expert, self.experts).sum(dim=0)
        offs = torch.cumsum(counts, dim=0).to(torch.int32)
        h = F.gelu(torch._grouped_mm(tokens[order], self.up, offs=offs))
        y = torch._grouped_mm(h, self.down, offs=offs)
        out = torch.zeros_like(y).index_copy(0, order, y)
        return out * gate[:, None], expert


def moe_grouped_mm() -> Spec:
    rng = _rng(10)
    return Spec(
        MoE(),
        ("tokens",),
        {
            "typical": (rng.normal(0, 1, (10, 8)).astype(np.float32),),
            "few_tokens": (rng.normal(0, 1, (3, 8)).astype(np.float32),),
        },
        "a top-1 MoE layer (router softmax, tokens sorted by expert, experts as torch._grouped_mm with "
        "offsets from a one-hot count cumsum, GELU) by ov.convert_model (tracing): GroupedMatMul-17",
        "Cases: typical (10 tokens, 4 experts), few_tokens (3 tokens: some experts get none, empty "
        "groups). GEMMs of 8 and 16 terms: the corpus default tolerance; the chosen expert (i64) exact.",
    )


# -- 9. multinomial ----------------------------------------------------------------------------
class Sampler(nn.Module):
    def forward(self, logits: torch.Tensor) -> Any:
        probs = torch.softmax(logits / 0.7, dim=-1)
        return torch.multinomial(probs, 6, replacement=True), torch.multinomial(probs, 3)


def _seed_multinomials(model: Any) -> None:
    """Give each Multinomial fixed non-zero seeds (the frontend writes 0/0)."""
    from openvino import opset13 as ops

    seed = 0
    for node in model.get_ordered_ops():
        if node.get_type_name() != "Multinomial":
            continue
        seed += 1
        attrs = node.get_attributes()
        new = ops.multinomial(
            node.input_value(0),
            node.input_value(1),
            convert_type=attrs["convert_type"],
            with_replacement=attrs["with_replacement"],
            log_probs=attrs["log_probs"],
            global_seed=1234,
            op_seed=seed,
        )
        new.set_friendly_name(node.get_friendly_name())
        node.output(0).replace(new.output(0))
    model.validate_nodes_and_infer_types()


def _ov_evaluate(node: Any, arrays: list[np.ndarray]) -> np.ndarray:
    import openvino as ov

    outs = [ov.Tensor(node.get_output_element_type(0), ov.Shape([0]))]
    if not node.evaluate(outs, [ov.Tensor(np.ascontiguousarray(a)) for a in arrays]):
        raise RuntimeError(f"no reference kernel for {node.get_type_name()}")
    return np.array(outs[0].data, copy=True)


def _multinomial_reference(model: Any, arrays: tuple[np.ndarray, ...]) -> list[np.ndarray]:
    """reference/multinomial.hpp from OpenVINO's kernels (see tests/test_ops_multinomial.py)."""
    import openvino as ov
    from openvino import opset8 as o8
    from openvino import opset13 as o13

    nodes = [r.input_value(0).get_node() for r in model.get_results()]
    assert all(n.get_type_name() == "Multinomial" for n in nodes), "every output is a Multinomial"
    probe = ov.Model([n.input_value(k) for n in nodes for k in (0, 1)], list(model.get_parameters()))
    feeds = [ov.Tensor(np.ascontiguousarray(a)) for a in arrays]
    outs = [ov.Tensor(o.get_element_type(), ov.Shape([0])) for o in probe.outputs]
    if not probe.evaluate(outs, feeds):
        raise RuntimeError("the reference cannot evaluate the probabilities")
    results = []
    for k, node in enumerate(nodes):
        probs = np.array(outs[2 * k].data, copy=True)
        count = int(np.array(outs[2 * k + 1].data).reshape(-1)[0])
        attrs = node.get_attributes()
        assert not attrs["log_probs"] and probs.dtype == np.float32
        p = o13.parameter(list(probs.shape), np.float32)
        axis = o13.parameter([], np.int64)
        cdf = _ov_evaluate(o13.cumsum(p, axis), [probs, np.array(1, np.int64)])
        q = o13.parameter([probs.shape[0], 1], np.float32)
        cdf = _ov_evaluate(o13.divide(o13.parameter(list(probs.shape), np.float32), q), [cdf, cdf[:, -1:]])
        bounds = [np.array([probs.shape[0], count], np.int64), np.float32(0), np.float32(1)]
        draw = o8.random_uniform(
            *(o13.constant(b) for b in bounds), "f32", int(attrs["global_seed"]), int(attrs["op_seed"])
        )
        draws = _ov_evaluate(draw, bounds)
        out = np.zeros((probs.shape[0], count), np.int64 if attrs["convert_type"] == "i64" else np.int32)
        with np.errstate(all="ignore"):
            _select(out, cdf, draws, bool(attrs["with_replacement"]))
        results.append(out)
    return results


def _select(out: np.ndarray, cdf: np.ndarray, draws: np.ndarray, replace: bool) -> None:
    """The reference's selection loop, plainly, in f32."""
    t = np.float32
    for b in range(out.shape[0]):
        row = [t(v) for v in cdf[b]]
        for j in range(out.shape[1]):
            chosen = next((k for k, v in enumerate(row) if draws[b, j] <= v), None)
            out[b, j] = 0 if chosen is None else chosen
            if replace or chosen is None:
                continue
            p = t(row[chosen] - row[chosen - 1]) if chosen else row[0]
            divisor = t(t(1) - p)
            row = [t(t(v - p) if k >= chosen else v) for k, v in enumerate(row)]
            row = [t(v / divisor) for v in row]


def multinomial_sampling() -> Spec:
    rng = _rng(11)
    return Spec(
        Sampler(),
        ("logits",),
        {
            "typical": (rng.normal(0, 1, (2, 7)).astype(np.float32),),
            "peaked": (np.array([[4.0, 0.0, -1.0, 0.5, -3.0, 1.0, 0.0]] * 3, np.float32),),
        },
        "torch.multinomial(softmax(logits / 0.7), 6, replacement=True) and (…, 3) without replacement by "
        "ov.convert_model (tracing): Multinomial-13, seeds set to global 1234 / op 1, 2 after conversion",
        "The frontend writes global_seed=0, op_seed=0 (a fresh seed per run); the generator rewrites the "
        "two Multinomial nodes with fixed seeds. Expected from OpenVINO's reference algorithm "
        "(reference/multinomial.hpp) composed from its kernels by Node.evaluate, as tests/"
        "test_ops_multinomial.py does: the probs by Model.evaluate of the Divide/Softmax, the draws by "
        "RandomUniform-8 (the same seeds, tensorflow Philox), CumSum and Divide for the CDF, the selection "
        "loop in f32. Multinomial-13 has no evaluate, and the CPU plugin draws with another generator "
        "(other samples for the same seeds: docs/openvino-behaviour.md); PyTorch draws others too. "
        "Integer outputs: exact.",
        edit=_seed_multinomials,
        compare_torch=False,
        expected_from="reference",
        expected=_multinomial_reference,
    )


MODELS: dict[str, Callable[[], Spec]] = {
    "embedding_bag": embedding_bag,
    "whisper_log_mel": whisper_log_mel,
    "stft_istft_roundtrip": stft_istft_roundtrip,
    "searchsorted_bucketize": searchsorted_bucketize,
    "slice_scatter_index_put": slice_scatter_index_put,
    "erfinv_gaussian": erfinv_gaussian,
    "adaptive_pool": adaptive_pool,
    "pixel_shuffle": pixel_shuffle,
    "moe_grouped_mm": moe_grouped_mm,
    "multinomial_sampling": multinomial_sampling,
}


def _torch_outputs(module: nn.Module, arrays: tuple[np.ndarray, ...]) -> list[np.ndarray]:
    with torch.no_grad():
        out = module(*(torch.from_numpy(a.copy()) for a in arrays))
    out = out if isinstance(out, tuple) else (out,)
    return [o.numpy() for o in out]


def generate(name: str, make: Callable[[], Spec]) -> None:
    import openvino as ov

    torch.manual_seed(0)
    spec = make()
    module = spec.module.eval()
    example = tuple(torch.from_numpy(a.copy()) for a in next(iter(spec.cases.values())))
    with torch.no_grad(), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if spec.export:
            model = ov.convert_model(torch.export.export(module, example))
        else:
            shapes = [ov.PartialShape(list(t.shape)) for t in example] if spec.static else None
            model = ov.convert_model(module, example_input=example, input=shapes)
    for param, pname in zip(model.inputs, spec.names, strict=True):
        param.get_tensor().set_names({pname})
        param.get_node().set_friendly_name(pname)
    if spec.edit is not None:
        spec.edit(model)
    folder = Folder(GROUP, name, GENERATOR)
    folder.save(model, compress_to_fp16=False)
    worst = 0.0
    saved = ov.Core().read_model(str(folder.xml))
    cpu_worst = 0.0
    int_differ = 0
    for case, arrays in spec.cases.items():
        feeds = dict(zip(spec.names, arrays, strict=True))
        out = folder.cpu_case(case, feeds)
        if spec.expected is not None:
            cpu = out
            out = dict(zip(cpu, spec.expected(saved, arrays), strict=True))
            folder.case(case, feeds, out)
            cpu_worst = max(cpu_worst, max_diff(dict(enumerate(cpu.values())), dict(enumerate(out.values()))))
            for c, e in zip(cpu.values(), out.values(), strict=True):
                if c.dtype.kind in "iu":
                    int_differ += int(np.sum(c != e))
        if spec.compare_torch:
            ref = _torch_outputs(module, arrays)
            got = list(out.values())
            for k, (g, r) in enumerate(zip(got, ref, strict=True)):
                if g.dtype.kind in "iu" and not np.array_equal(g, r):
                    print(f"  {name}:{case}: output {k} (integer) differs from PyTorch", flush=True)
            worst = max(worst, max_diff(dict(enumerate(got)), dict(enumerate(ref))))
    torch_note = f" |CPU - PyTorch| at generation: <= {worst:.2g}." if spec.compare_torch else ""
    if spec.expected is not None:
        torch_note = (
            f" |CPU plugin - expected| at generation: <= {cpu_worst:.2g} (float outputs), "
            f"{int_differ} integer elements differ."
        )
    folder.meta(
        source=spec.source,
        expected_from=spec.expected_from,
        atol=spec.atol,
        rtol=spec.rtol,
        notes=spec.notes + torch_note,
        per_output=spec.per_output or None,
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--only", default="")
    args = parser.parse_args()
    for name, make in MODELS.items():
        if re.search(args.only, name):
            try:
                generate(name, make)
            except Exception as exc:  # noqa: BLE001  # one model failing must not stop the others
                print(f"{name}: FAILED {type(exc).__name__}: {str(exc)[:400]}", flush=True)


if __name__ == "__main__":
    main()
