"""Generate ir/exports/torch/: PyTorch modules using ``F.one_hot``, converted by OpenVINO.

Each module is converted with OpenVINO's PyTorch frontend (``ov.convert_model(module,
example_input=...)``), saved with ``ov.save_model`` (f32 constants compressed to f16, the default,
except one plain ``compress_to_fp16=False`` model), and run on the CPU plugin compiled
deterministically (``corpus_io.CPU_CONFIG``) for every input case; inputs and OpenVINO's outputs
are stored as .npz beside the IR.  PyTorch itself is run too, as a sanity check of the export
(cases where PyTorch refuses the inputs, e.g. an index outside [0, C), are marked ``torch_runs=False``).

torch is needed by this script only, never by the tests or the runtime.

    python ir/exports/generate_torch.py
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

sys.path.insert(0, str(Path(__file__).resolve().parent))
from corpus_io import HERE, describe, input_names, save_ir, write_case

OUT = HERE / "torch"


# ---------------------------------------------------------------------------------------------
# The modules: what people write around F.one_hot.


class LabelSmoothingLoss(nn.Module):
    """Cross entropy against label-smoothed one-hot targets, with ignore_index and C from the logits."""

    def __init__(self, smoothing: float = 0.1, ignore_index: int = -100) -> None:
        super().__init__()
        self.smoothing = smoothing
        self.ignore_index = ignore_index

    def forward(self, logits: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
        classes = logits.size(-1)
        valid = target != self.ignore_index
        safe = torch.where(valid, target, torch.zeros_like(target))
        one_hot = F.one_hot(safe, classes).to(logits.dtype)
        soft = one_hot * (1.0 - self.smoothing) + self.smoothing / classes
        per_row = -(soft * F.log_softmax(logits, dim=-1)).sum(dim=-1)
        weight = valid.to(logits.dtype)
        return (per_row * weight).sum() / weight.sum().clamp(min=1.0)


class OneHotEmbedding(nn.Module):
    """Token embedding written as one-hot @ table (TPU-style), then a linear projection."""

    def __init__(self, vocab: int = 16, dim: int = 8, out: int = 4) -> None:
        super().__init__()
        g = torch.Generator().manual_seed(5)
        self.vocab = vocab
        self.table = nn.Parameter(torch.randn(vocab, dim, generator=g))
        self.proj = nn.Linear(dim, out)
        with torch.no_grad():
            self.proj.weight.copy_(torch.randn(out, dim, generator=g) * 0.5)
            self.proj.bias.copy_(torch.randn(out, generator=g) * 0.1)

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        one_hot = F.one_hot(ids, self.vocab).to(self.table.dtype)
        return self.proj(one_hot @ self.table)


class SegmentationMasks(nn.Module):
    """Label map [N,H,W] to per-class masks in NCHW, as a segmentation target."""

    def __init__(self, classes: int, dtype: torch.dtype = torch.float32) -> None:
        super().__init__()
        self.classes = classes
        self.dtype = dtype

    def forward(self, mask: torch.Tensor) -> torch.Tensor:
        return F.one_hot(mask.long(), self.classes).permute(0, 3, 1, 2).to(self.dtype)


class DataDepthOneHot(nn.Module):
    """``F.one_hot(x)`` without num_classes: the depth is max(x) + 1, known only at run time."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.one_hot(x)


class DiceLoss(nn.Module):
    """Soft multi-class Dice loss: softmax over channels vs one-hot targets permuted to NCHW."""

    def __init__(self, eps: float = 1.0) -> None:
        super().__init__()
        self.eps = eps

    def forward(self, logits: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
        classes = logits.shape[1]
        probs = F.softmax(logits, dim=1)
        one_hot = F.one_hot(target, classes).permute(0, 3, 1, 2).to(probs.dtype)
        inter = (probs * one_hot).sum(dim=(2, 3))
        union = probs.sum(dim=(2, 3)) + one_hot.sum(dim=(2, 3))
        dice = (2.0 * inter + self.eps) / (union + self.eps)
        return 1.0 - dice.mean()


class ClassHistogram(nn.Module):
    """Two outputs: int32 one-hot of a [B,S,T] batch of labels and the per-class counts over T."""

    def __init__(self, classes: int = 6) -> None:
        super().__init__()
        self.classes = classes

    def forward(self, labels: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        one_hot = F.one_hot(labels.long(), self.classes)
        return one_hot.to(torch.int32), one_hot.sum(dim=2)


class HashedBuckets(nn.Module):
    """Feature hashing: any (negative too) id goes to bucket id mod C; f16 one-hot, scaled."""

    def __init__(self, buckets: int = 7) -> None:
        super().__init__()
        self.buckets = buckets

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        one_hot = F.one_hot(torch.remainder(ids, self.buckets), self.buckets)
        return one_hot.to(torch.float16) * 0.5


class TabularFeatures(nn.Module):
    """Tabular model input: two categorical columns one-hot encoded (ids clamped into range),
    concatenated with the numeric columns, flattened to one feature row per sample."""

    def __init__(self, sizes: tuple[int, int] = (3, 5)) -> None:
        super().__init__()
        self.sizes = sizes

    def forward(self, categorical: torch.Tensor, numeric: torch.Tensor) -> torch.Tensor:
        columns = [
            F.one_hot(categorical[:, k].clamp(0, size - 1), size).to(numeric.dtype)
            for k, size in enumerate(self.sizes)
        ]
        features = torch.cat([*columns, numeric], dim=-1)
        return features.reshape(features.shape[0], -1)


class FocalLoss(nn.Module):
    """Multi-class focal loss (Lin et al.) on one-hot targets, plus an L1 calibration term."""

    def __init__(self, gamma: float = 2.0, alpha: float = 0.25) -> None:
        super().__init__()
        self.gamma = gamma
        self.alpha = alpha

    def forward(self, logits: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
        probs = torch.softmax(logits, dim=-1)
        one_hot = F.one_hot(target, logits.shape[-1]).to(logits.dtype)
        pt = (probs * one_hot).sum(dim=-1).clamp(min=1e-6)
        focal = -self.alpha * torch.pow(1.0 - pt, self.gamma) * torch.log(pt)
        calibration = torch.abs(probs - one_hot).sum(dim=-1)
        return (focal + 0.1 * torch.sqrt(calibration)).mean()


class PositionalOneHot(nn.Module):
    """Append a one-hot position code (arange over the sequence) to every token's features."""

    def __init__(self, max_len: int = 8) -> None:
        super().__init__()
        self.max_len = max_len

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        batch, length = x.shape[0], x.shape[1]
        positions = F.one_hot(torch.arange(length), self.max_len).to(x.dtype)
        positions = positions.unsqueeze(0).expand(batch, -1, -1)
        return torch.cat([x, positions], dim=-1)


class ForegroundMasks(nn.Module):
    """Per-class masks without the background class, split in two groups; the first tiled twice."""

    def __init__(self, classes: int = 5) -> None:
        super().__init__()
        self.classes = classes

    def forward(self, mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        one_hot = F.one_hot(mask, self.classes).permute(0, 3, 1, 2)[:, 1:]
        things, stuff = torch.split(one_hot, [1, self.classes - 2], dim=1)
        return things.repeat(1, 2, 1, 1).float(), stuff.to(torch.uint8)


class CharCNNGRU(nn.Module):
    """Character model: one-hot chars -> Conv1d -> ReLU -> MaxPool1d -> bidirectional GRU -> LayerNorm -> Linear."""

    def __init__(self, vocab: int = 12, channels: int = 8, hidden: int = 6, out: int = 3) -> None:
        super().__init__()
        self.vocab = vocab
        self.conv = nn.Conv1d(vocab, channels, 3, padding=1)
        self.gru = nn.GRU(channels, hidden, batch_first=True, bidirectional=True)
        self.norm = nn.LayerNorm(2 * hidden)
        self.head = nn.Linear(2 * hidden, out)
        g = torch.Generator().manual_seed(7)  # the same weights each time the module is built
        with torch.no_grad():
            for p in self.parameters():
                p.copy_(torch.randn(p.shape, generator=g) * 0.5)

    def forward(self, chars: torch.Tensor) -> torch.Tensor:
        x = F.one_hot(chars, self.vocab).float().transpose(1, 2)
        x = F.max_pool1d(F.relu(self.conv(x)), 2, ceil_mode=True)
        y, _ = self.gru(x.transpose(1, 2))
        return self.head(self.norm(y))


class ScatterTargets(nn.Module):
    """One-hot targets built by ``scatter_`` next to ``F.one_hot``, boolean masks with ``~``/``&``,
    ``any``/``all``, ``gather`` of the true-class logit and a top-2 hit mask."""

    def __init__(self, classes: int = 5) -> None:
        super().__init__()
        self.classes = classes

    def forward(self, logits: torch.Tensor, target: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        scattered = torch.zeros_like(logits).scatter_(1, target.unsqueeze(1), 1.0)
        hot = F.one_hot(target, self.classes).bool()
        top2 = F.one_hot(logits.topk(2, dim=1).indices, self.classes).sum(1).bool()
        hit = (hot & top2).any(1) & ~(hot & ~top2).all(1)
        true_logit = logits.gather(1, target.unsqueeze(1)).squeeze(1)
        margin = logits.masked_fill(hot, float("-inf")).amax(1)
        loss = (F.relu(1.0 + margin - true_logit) + (scattered - hot.float()).abs().sum(1)).mean()
        return loss, hit


# ---------------------------------------------------------------------------------------------
# The corpus: module, conversion, cases.

RNG = np.random.default_rng(20261121)


def ints(low: int, high: int, shape: tuple[int, ...], dtype: type = np.int64) -> np.ndarray:
    return RNG.integers(low, high, size=shape).astype(dtype)


def floats(shape: tuple[int, ...], scale: float = 2.0) -> np.ndarray:
    return (RNG.standard_normal(shape) * scale).astype(np.float32)


@dataclass(frozen=True)
class Case:
    name: str
    inputs: dict[str, np.ndarray]
    torch_runs: bool = True  # False: PyTorch refuses these inputs, only the IR's semantics apply
    # Outside the CPU plugin's exact envelope: the core reference (ov.Model.evaluate) is stored too.
    reference: bool = False


@dataclass(frozen=True)
class Export:
    name: str
    module: Callable[[], nn.Module]
    example: Callable[[], tuple[torch.Tensor, ...]]
    cases: Callable[[], list[Case]]
    static_shapes: bool = False  # convert with the example's shapes fixed (shape subgraphs fold)
    compress_to_fp16: bool = True
    extra: dict[str, object] = field(default_factory=dict)


def _targets_with_ignored(n: int, classes: int) -> np.ndarray:
    target = ints(0, classes, (n,))
    target[[1, n - 2]] = -100
    return target


EXPORTS = [
    Export(
        "label_smoothing_loss",
        lambda: LabelSmoothingLoss(0.1),
        lambda: (torch.randn(4, 5), torch.tensor([0, 1, 4, 2])),
        lambda: [
            Case("typical", {"logits": floats((8, 10)), "target": _targets_with_ignored(8, 10)}),
            Case("one_row", {"logits": floats((1, 3)), "target": np.array([2], dtype=np.int64)}),
            # Every row ignored: the loss is 0 / clamp(0, min=1) = 0.
            Case("all_ignored", {"logits": floats((3, 4)), "target": np.full(3, -100, dtype=np.int64)}),
        ],
    ),
    Export(
        "onehot_embedding",
        lambda: OneHotEmbedding(),
        lambda: (torch.tensor([[1, 2, 3], [4, 5, 6]]),),
        lambda: [
            Case("typical", {"ids": ints(0, 16, (3, 7))}),
            Case("edge_ids", {"ids": np.array([[0, 15, 15, 0]], dtype=np.int64)}),
            # An id outside [0, 16) has an all-zero one-hot row, so its embedding is just the bias.
            Case("out_of_range", {"ids": np.array([[3, 16, -1, 99]], dtype=np.int64)}, torch_runs=False),
        ],
    ),
    Export(
        "onehot_embedding_f32const",
        lambda: OneHotEmbedding(),
        lambda: (torch.tensor([[1, 2, 3], [4, 5, 6]]),),
        lambda: [Case("typical", {"ids": ints(0, 16, (2, 5))})],
        compress_to_fp16=False,
    ),
    Export(
        "segmentation_masks_nchw",
        lambda: SegmentationMasks(4),
        lambda: (torch.randint(0, 4, (2, 5, 6)),),
        lambda: [
            Case("typical", {"mask": ints(0, 4, (2, 5, 6))}),
            # 255 is the usual "void" label; OneHot leaves its pixels all-zero (PyTorch would raise).
            Case(
                "void_label",
                {"mask": np.where(RNG.random((1, 4, 4)) < 0.3, 255, ints(0, 4, (1, 4, 4)))},
                torch_runs=False,
            ),
        ],
    ),
    Export(
        "segmentation_masks_static_bool",
        lambda: SegmentationMasks(3, torch.bool),
        lambda: (torch.randint(0, 3, (2, 4, 5), dtype=torch.uint8),),
        lambda: [Case("typical", {"mask": ints(0, 3, (2, 4, 5), np.uint8)})],
        static_shapes=True,
    ),
    Export(
        "one_hot_data_depth",
        lambda: DataDepthOneHot(),
        lambda: (torch.tensor([[0, 3], [2, 1]]),),
        lambda: [
            Case("typical", {"x": ints(0, 9, (3, 4))}),
            Case("all_zero", {"x": np.zeros((2, 3), dtype=np.int64)}),  # depth 1
        ],
    ),
    Export(
        "dice_loss",
        lambda: DiceLoss(),
        lambda: (torch.randn(2, 3, 4, 4), torch.randint(0, 3, (2, 4, 4))),
        lambda: [
            Case("typical", {"logits": floats((2, 4, 6, 5)), "target": ints(0, 4, (2, 6, 5))}),
            Case("one_class_absent", {"logits": floats((1, 3, 4, 4)), "target": ints(0, 2, (1, 4, 4))}),
        ],
    ),
    Export(
        "class_histogram_int32",
        lambda: ClassHistogram(6),
        lambda: (torch.randint(0, 6, (2, 3, 4), dtype=torch.int32),),
        lambda: [Case("typical", {"labels": ints(0, 6, (2, 3, 5), np.int32)})],
    ),
    Export(
        "tabular_features",
        lambda: TabularFeatures((3, 5)),
        lambda: (torch.tensor([[0, 1], [2, 4]]), torch.randn(2, 3)),
        lambda: [
            # Ids outside a column's range are clamped into it (-4 -> 0, 9 -> 4).
            Case(
                "typical",
                {
                    "categorical": np.array([[0, 4], [2, 0], [1, 3], [-4, 9], [7, -1]]),
                    "numeric": floats((5, 3)),
                },
            ),
        ],
    ),
    Export(
        "focal_loss",
        lambda: FocalLoss(),
        lambda: (torch.randn(4, 5), torch.tensor([0, 1, 4, 2])),
        lambda: [
            Case("typical", {"logits": floats((8, 6)), "target": ints(0, 6, (8,))}),
            # A confident right answer: pt near 1, so (1 - pt)**gamma and log(pt) are tiny.
            Case(
                "confident",
                {
                    "logits": np.array([[12.0, -3.0, 0.0], [0.0, 0.1, -0.1]], np.float32),
                    "target": np.array([0, 2]),
                },
            ),
        ],
    ),
    Export(
        "positional_one_hot",
        lambda: PositionalOneHot(8),
        lambda: (torch.randn(2, 5, 3),),
        lambda: [
            Case("typical", {"x": floats((3, 6, 2))}),
            # Positions 8 and 9 are beyond max_len: their one-hot code is all zero (PyTorch raises).
            Case("longer_than_max_len", {"x": floats((1, 10, 1))}, torch_runs=False),
        ],
    ),
    Export(
        "foreground_masks",
        lambda: ForegroundMasks(5),
        lambda: (torch.randint(0, 5, (2, 4, 4)),),
        lambda: [Case("typical", {"mask": ints(0, 5, (2, 3, 4))})],
    ),
    Export(
        "hashed_buckets_f16",
        lambda: HashedBuckets(7),
        lambda: (torch.tensor([3, -4, 100]),),
        lambda: [
            Case(
                "typical",
                {"ids": np.array([0, 6, 7, -1, -7, -8, 123456, -98765, 2**24, -(2**24)], dtype=np.int64)},
            ),
            # The CPU plugin's FloorMod goes through f32 and is wrong beyond 2**24 (2**31 - 1 lands in
            # bucket 0, not 1): the core reference is the expectation for this case.  (The reference
            # itself computes i64 FloorMod through double, wrong beyond 2**53: keep below that.)
            Case(
                "large_ids",
                {
                    "ids": np.array(
                        [2**24 + 1, 2**24 + 3, 2**31 - 1, -(2**31), 2**40 + 3, -(2**45) - 2], dtype=np.int64
                    )
                },
                reference=True,
            ),
        ],
    ),
    Export(
        "char_cnn_gru",
        CharCNNGRU,
        lambda: (torch.randint(0, 12, (2, 9)),),
        lambda: [
            Case("typical", {"chars": ints(0, 12, (3, 11))}),
            # Two characters: one pooling window.  (One character is shorter than the pooling
            # kernel: OpenVINO's shape inference refuses that, although its CPU plugin runs it.)
            Case("two_chars", {"chars": np.array([[5, 11]], dtype=np.int64)}),
        ],
        compress_to_fp16=False,
    ),
    Export(
        "scatter_targets",
        ScatterTargets,
        lambda: (torch.randn(4, 5), torch.tensor([0, 1, 4, 2])),
        lambda: [
            Case("typical", {"logits": floats((6, 5)), "target": ints(0, 5, (6,))}),
            # Tied logits: OpenVINO's TopK takes the smaller index first, PyTorch's topk need not
            # (the 'hit' output differs from PyTorch's there; the IR's semantics is the expectation).
            Case(
                "ties",
                {
                    "logits": np.array([[1, 1, 0, 0, 1], [2, 0, 2, 0, 0]], np.float32),
                    "target": np.array([4, 2]),
                },
            ),
        ],
    ),
]


def convert(export: Export) -> object:
    import openvino as ov

    module = export.module().eval()
    example = export.example()
    if export.static_shapes:
        shapes = [ov.PartialShape(list(t.shape)) for t in example]
        return ov.convert_model(module, example_input=example, input=shapes)
    return ov.convert_model(module, example_input=example)


def run_torch(module: nn.Module, case: Case) -> list[np.ndarray]:
    with torch.no_grad():
        out = module(*(torch.from_numpy(v) for v in case.inputs.values()))
    outs = out if isinstance(out, tuple) else (out,)
    return [o.numpy() for o in outs]


def by_ir_names(names: list[str], case: Case) -> dict[str, np.ndarray]:
    """Key a case's inputs (forward-argument order) by the IR's input names.

    The PyTorch frontend keeps forward argument names unless the argument's first use is a cast
    (``mask.long()``): then the Parameter is named by TorchScript's value number, e.g. ``6``.
    Parameters keep the forward order, so positions decide; a name that is an argument name must
    sit at that argument's position.
    """
    args = list(case.inputs)
    if len(names) != len(args):
        raise ValueError(f"case {case.name!r} has {len(args)} inputs, the IR {len(names)}: {names}")
    for position, name in enumerate(names):
        if name in args and args.index(name) != position:
            raise ValueError(f"IR input {name!r} is at position {position}, the case has it elsewhere")
    return dict(zip(names, case.inputs.values(), strict=True))


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    torch.manual_seed(0)
    for export in EXPORTS:
        xml = OUT / f"{export.name}.xml"
        save_ir(convert(export), xml, compress_to_fp16=export.compress_to_fp16)
        print(f"{xml.relative_to(HERE)}: {describe(xml)}")
        module = export.module().eval()
        names = input_names(xml)
        for case in export.cases():
            inputs = by_ir_names(names, case)
            outputs = list(write_case(xml, case.name, inputs, reference=case.reference).values())
            oracle = "core reference" if case.reference else "openvino"
            note = "torch refuses these inputs"
            if case.torch_runs:
                expected = run_torch(module, case)
                diffs = [
                    float(np.max(np.abs(a.astype(np.float64) - e.astype(np.float64)), initial=0.0))
                    for a, e in zip(outputs, expected, strict=True)
                ]
                note = f"max |{oracle} - torch| = {max(diffs):.3g}"
            print(f"  case {case.name}: {note}")


if __name__ == "__main__":
    main()
