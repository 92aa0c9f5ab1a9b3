"""Run one conformance case: OpenVINO's expected values, then every kernel variant of the spec.

Expected values: the one-op model is built with ovonehot's builder, written with its writer
(Parameters declared with the fed shapes: the values do not depend on the declaration, and a
dynamic output shape makes ``Node.evaluate`` of MVN-6 corrupt its heap, FACTS.md), read by
OpenVINO and computed by its core reference (``Node.evaluate`` node by node) in a child process
(:class:`ovonehot.oracle.process.IsolatedOracle`: a crash costs one case).  Where the reference
has no kernel, the CPU plugin (deterministic configuration) stands in when the case lies in its
exact envelope (integer/boolean or copied outputs, or an op whose float outputs the table says
it computes exactly, and only the plugin's exact types); else the case has no oracle, with
the reason.

bf16: OpenVINO's reference rounds f32 to bf16 its own way where ovonehot rounds to nearest even
(the named deviation ``bf16-reference-rounding``, docs/openvino-behaviour.md).  Against the
reference, bf16 outputs are compared with ovonehot reproducing that rounding
(:func:`ovonehot.ops.common.bf16.bf16_rounding`), and ovonehot's own outputs must differ from
OpenVINO's only as the deviation predicts (Convert to bf16 is also checked against ml_dtypes'
IEEE cast).

Kernels: ``evaluate`` must give OpenVINO's bytes (NaN equals NaN, -0.0 is not +0.0, within the
op's stated ulp), or refuse with ovonehot's own error where OpenVINO refuses at run time.  Every
kernel ``specialize`` makes -- for the infos a plan may give it (declared partial shapes; static
shapes with inputs unfolded and folded) and each mode (exact; fast; an output buffer offered;
fresh variables) -- is run: exact ones give ``evaluate``'s bytes, fast ones the same bytes for
every plan and within a bound derived from the data (tests/test_fast_mode.py's summation
bound); a kernel offered a matching buffer that takes it writes into it.  Every output must be an ``np.ndarray`` (never a NumPy scalar) of the
inferred element type's dtype, with a shape the inferred partial shape accepts.

The verdict records which variants really ran (``Outcome.variants``) so a test can insist that
every variant a spec has is exercised by some case.
"""

from __future__ import annotations

import contextlib
import enum
import math
import tempfile
import traceback
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import ml_dtypes
import numpy as np

from ovonehot.errors import Error, OpenVINOError, OracleRefusal
from ovonehot.infer import infer
from ovonehot.ir.builder import GraphBuilder, Out
from ovonehot.ir.writer import write_ir
from ovonehot.ops import OpSpec, TensorInfo, elementwise
from ovonehot.ops.common.bf16 import Bf16Rounding, bf16_rounding
from ovonehot.ops.common.numeric import is_narrow_float
from ovonehot.ops.common.spec import RunMode, Variables
from ovonehot.oracle.process import IsolatedOracle
from ovonehot.types import ElementType
from tests.conformance.generate import Case
from tests.conformance.table import entry
from tests.exact import assert_bf16_rounding_only, assert_same

# The CPU plugin equals the reference only on these types (FACTS.md, tests/exact.py).
WIDE_INTS = frozenset((ElementType.i64, ElementType.u32, ElementType.u64))
INT32 = (-(2**31), 2**31 - 1)
CPU_TYPES = frozenset(
    ElementType(t) for t in ("f32", "f16", "bf16", "i8", "u8", "i16", "u16", "i32", "boolean")
)


_BF16 = np.dtype(ml_dtypes.bfloat16)
BF16_DEVIATION = "the reference's rounding (bf16-reference-rounding)"
# Sources whose values f32 holds exactly (ml_dtypes converts wider ones through f32: two roundings).
_EXACT_IN_F32 = frozenset(
    np.dtype(t) for t in (np.float32, np.float16, np.int8, np.uint8, np.int16, np.uint16, np.bool_)
)


class Verdict(enum.Enum):
    PASSED = "passed"  # every kernel gave OpenVINO's values (or its refusal)
    REFUSED = "refused"  # OpenVINO refused at run time, and so did ovonehot
    NO_ORACLE = "no oracle"  # nothing to compare the values with (reason given); kernels still checked
    FAILED = "failed"


@dataclass(frozen=True, slots=True)
class Outcome:
    case: Case
    verdict: Verdict
    detail: str  # the failure, the refusal or the missing oracle's reason
    oracle: str  # "reference", "cpu" or ""
    variants: frozenset[str]  # the kernel variants that ran on this case


class Harness:
    """Runs cases against one OpenVINO child process; ``close`` it when done."""

    def __init__(self) -> None:
        self._oracle = IsolatedOracle()
        self._dir = tempfile.TemporaryDirectory(prefix="ovonehot-conformance-")
        self._xml = Path(self._dir.name) / "case.xml"
        self._memo: dict[tuple[str, str], tuple[list[np.ndarray] | None, str, str]] = {}

    def close(self) -> None:
        self._oracle.close()
        self._dir.cleanup()

    def kernels(self, case: Case, spec: OpSpec[Any] | None = None) -> Outcome:
        """Every kernel variant on ``case`` without an oracle (their structure, and the variants
        against each other): what the coverage test asks of each spec, with no OpenVINO run."""
        checker = _Checker(case, case.spec if spec is None else spec, None)
        try:
            with np.errstate(all="ignore"):
                checker.check(refused="")
        except AssertionError as exc:
            return Outcome(case, Verdict.FAILED, _first_lines(str(exc)), "", frozenset(checker.ran))
        except Exception:  # noqa: BLE001 - a kernel crashed: the case's verdict
            return Outcome(case, Verdict.FAILED, _crash(), "", frozenset(checker.ran))
        return Outcome(case, Verdict.NO_ORACLE, "kernels only", "", frozenset(checker.ran))

    def run(self, case: Case, spec: OpSpec[Any] | None = None) -> Outcome:
        """The verdict on ``case``, whose kernels are ``spec``'s (default: the case's own spec;
        a planted copy of it in the regression tests)."""
        spec = case.spec if spec is None else spec
        try:
            expected, oracle, why = (
                (None, "", entry(case.spec).no_oracle) if entry(case.spec).no_oracle else self._expected(case)
            )
        except OpenVINOError as exc:
            return Outcome(
                case, Verdict.FAILED, f"OpenVINO refuses the model ovonehot accepts: {exc}", "", frozenset()
            )
        checker = _Checker(case, spec, expected)
        # The reference rounds to bf16 its own way (the named deviation bf16-reference-rounding):
        # its bf16 outputs are compared with ovonehot reproducing that rounding, and ovonehot's
        # own (nearest-even) outputs must differ from them only as the deviation predicts.
        as_reference = oracle == "reference" and any(e.dtype == _BF16 for e in expected or ())
        rounding = (
            bf16_rounding(Bf16Rounding.OPENVINO_REFERENCE) if as_reference else contextlib.nullcontext()
        )
        try:
            with np.errstate(all="ignore"):
                with rounding:
                    checker.check(refused=why if oracle == "refused" else "")
                if as_reference and checker.refusal == "":
                    checker.rounding_only()
        except AssertionError as exc:
            return Outcome(case, Verdict.FAILED, _first_lines(str(exc)), oracle, frozenset(checker.ran))
        except Exception:  # noqa: BLE001 - a kernel crashed: the case's verdict, with where
            return Outcome(case, Verdict.FAILED, _crash(), oracle, frozenset(checker.ran))
        ran = frozenset(checker.ran)
        if oracle == "refused":
            return Outcome(case, Verdict.REFUSED, why, "reference", ran)
        if expected is None:
            refusal = f" (ovonehot refuses: {checker.refusal})" if checker.refusal else ""
            return Outcome(case, Verdict.NO_ORACLE, why + refusal, "", ran)
        detail = f"bf16 compared under {BF16_DEVIATION}" if as_reference else ""
        return Outcome(case, Verdict.PASSED, detail, oracle, ran)

    def _expected(self, case: Case) -> tuple[list[np.ndarray] | None, str, str]:
        """(OpenVINO's outputs or None, which oracle, why none / why refused), once per case."""
        key = (case.spec.name, case.label)
        if key not in self._memo:
            self._memo[key] = self._compute(case)
        return self._memo[key]

    def _compute(self, case: Case) -> tuple[list[np.ndarray] | None, str, str]:
        self._write(case)
        feeds = {f"in{k}": i.value for k, i in enumerate(case.inputs) if not i.const}
        try:
            got = self._oracle.run("reference", self._xml, feeds)
            return list(got.values()), "reference", ""
        except OracleRefusal as exc:
            if exc.cause == "failed":
                return None, "refused", f"OpenVINO's reference refuses: {_short(str(exc))}"
            if exc.cause != "no-evaluate":
                return None, "", f"reference {exc.cause}: {_short(str(exc))}"
            reason = (
                f"the reference has no evaluate for {case.spec.name} on ({', '.join(map(str, case.types))})"
            )
        outside = _outside_cpu_envelope(case)
        if outside:
            return None, "", f"{reason}; CPU plugin not exact here: {outside}"
        try:
            got = self._oracle.run("cpu", self._xml, feeds)
        except OracleRefusal as exc:
            return None, "", f"{reason}; CPU plugin {exc.cause}: {_short(str(exc))}"
        return list(got.values()), "cpu", ""

    def _write(self, case: Case) -> None:
        b = GraphBuilder("conformance")
        ins: list[Out] = []
        for k, i in enumerate(case.inputs):
            if i.const:
                ins.append(b.constant(i.element_type, i.value, f"in{k}"))
            else:
                ins.append(b.parameter(f"in{k}", i.element_type, i.info(static=True).shape))
        outs = b.ops(case.spec.type, f"opset{case.spec.since}", ins, dict(case.attrs), _outputs(case), "op")
        for k, o in enumerate(outs):
            b.result(o, f"out{k}", f"result{k}")
        graph = b.build()
        try:
            inference = infer(graph)
        except Error as exc:
            raise AssertionError(f"ovonehot's infer refuses the one-op model: {exc}") from None
        write_ir(graph, self._xml, inference=inference)


def _outputs(case: Case) -> int:
    spec = case.spec
    return len(spec.infer(spec.parse(case.node()), [i.info(static=True) for i in case.inputs]))


def _outside_cpu_envelope(case: Case) -> str:
    spec = case.spec
    infos = spec.infer(spec.parse(case.node()), [i.info(static=True) for i in case.inputs])
    for i in case.inputs:  # (i64/u32/u64 inputs within int32, as FACTS.md measured: converted exactly)
        t = i.element_type
        if t in WIDE_INTS and (not i.value.size or (i.value.min() >= INT32[0] and i.value.max() <= INT32[1])):
            continue
        if t not in CPU_TYPES:
            return f"{t} input (the plugin converts it)"
    for t in (o.element_type for o in infos):
        if t not in CPU_TYPES:
            return f"{t} output (the plugin converts it)"
    if case.values == "boundary" and not spec.copies_values and not entry(spec).cpu_exact:
        return "type-limit values (the plugin saturates some: Negative of i8 -128 gives 127)"
    reals = any(t.is_real for t in (*case.types, *(o.element_type for o in infos)))
    if reals and not spec.copies_values and not entry(spec).cpu_exact:
        return "float arithmetic (the plugin's own order and precision)"
    return ""


class _Checker:
    """Every kernel variant of ``spec`` on one case (``ran`` records which ran)."""

    def __init__(self, case: Case, spec: OpSpec[Any], expected: list[np.ndarray] | None) -> None:
        self.case = case
        self.spec = spec
        self.expected = expected
        self.ran: set[str] = set()
        self.attrs = spec.parse(case.node())
        self.inputs = [i.value for i in case.inputs]
        self.declared = list(spec.infer(self.attrs, [i.info() for i in case.inputs]))
        self.static = list(spec.infer(self.attrs, [i.info(static=True) for i in case.inputs]))
        self.ulp = entry(case.spec).ulp
        self.refusal = ""  # ovonehot's error, when evaluate refused the case

    def check(self, refused: str) -> None:
        exact = self._evaluate(refused)
        if exact is None:  # refused, as OpenVINO did: what specialize makes must not compute
            self._specialized_refuse()
            return
        self._specialized(RunMode(), exact, "exact")
        fast = self._specialized(RunMode(exact=False), None, "fast")
        for k, (f, e) in enumerate(zip(fast or (), exact, strict=False)):
            assert_within_fast(f, e, self.inputs, f"specialize (fast) output {k}")
        self._into(exact)
        self._specialized(RunMode(variables=Variables()), exact, "variables")
        self._blocked(exact)
        self._unused(exact, fast)

    def _unused(self, exact: list[np.ndarray], fast: list[np.ndarray] | None) -> None:
        """An op of several outputs specialized with every output but the first unread
        (``RunMode.unused``, a plan without hooks): the first output's bytes as before (exact's;
        fast's first kernel's), the others of their inferred shape and type (a placeholder)."""
        if self.spec.specialize is None or len(exact) < 2:
            return
        unused = frozenset(range(1, len(exact)))
        for mode, want, how in (
            (RunMode(unused=unused), exact, "unused, exact"),
            (RunMode(exact=False, unused=unused), fast, "unused, fast"),
        ):
            for name, got in self._kernel_runs(mode, how, "specialize/unused"):
                if want is not None:
                    assert_same(got[0], want[0], f"{name} output 0")
                for k in unused:
                    assert (got[k].shape, got[k].dtype) == (exact[k].shape, exact[k].dtype), (
                        f"{name} output {k}: {got[k].dtype}{got[k].shape}"
                    )

    def _blocked(self, exact: list[np.ndarray]) -> None:
        """Narrow-float element-wise ops compute large operands in blocks (``NARROW_BLOCK``
        elements, 1M): run evaluate and the exact kernels again with blocks of three elements,
        which must give the unblocked bytes (so every generated case reaches the blocked path)."""
        if self.spec.type not in elementwise.IN_BLOCKS or not any(
            is_narrow_float(x.dtype) for x in self.inputs
        ):
            return
        assert self.spec.evaluate is not None
        saved = elementwise.NARROW_BLOCK
        elementwise.NARROW_BLOCK = 3
        try:
            got = self._outputs("evaluate (blocked)", self.spec.evaluate(self.attrs, self.inputs))
            for k, (g, e) in enumerate(zip(got, exact, strict=True)):
                assert_same(g, e, f"evaluate in blocks of 3 elements, output {k}, vs one pass")
            self.ran.add("evaluate/blocked")
            self._specialized(RunMode(), exact, "exact, blocked")
        finally:
            elementwise.NARROW_BLOCK = saved

    def _evaluate(self, refused: str) -> list[np.ndarray] | None:
        spec = self.spec
        self.ran.add("evaluate")
        try:
            assert spec.evaluate is not None
            raw = spec.evaluate(self.attrs, self.inputs)
        except Error as exc:
            if refused or self.expected is None:  # (no oracle: a refusal nobody contradicts)
                self.refusal = f"{type(exc).__name__}: {exc}"
                return None
            raise AssertionError(
                f"evaluate refuses what OpenVINO computes: {type(exc).__name__}: {exc}"
            ) from None
        assert not refused, f"evaluate computes what OpenVINO refuses ({refused})"
        got = self._outputs("evaluate", raw)
        if self.expected is not None:
            assert len(got) == len(self.expected), f"{len(got)} outputs, OpenVINO {len(self.expected)}"
            for k, (g, e) in enumerate(zip(got, self.expected, strict=True)):
                assert g.shape == e.shape, f"evaluate output {k}: shape {g.shape} != OpenVINO's {e.shape}"
                assert_expected(g, e, f"evaluate output {k}", self._ulp(g))
        return got

    def rounding_only(self) -> None:
        """``evaluate`` with ovonehot's own bf16 rounding differs from OpenVINO's bf16 outputs only
        where rounding to nearest even and the reference's rounding part ways on one f32 value:
        the reference truncated to an even last bit that nearest-even rounds up by one, or the
        value is a NaN (which the reference may turn into inf or a zero)."""
        assert self.spec.evaluate is not None and self.expected is not None
        ours = self.spec.evaluate(self.attrs, self.inputs)
        for k, (o, e) in enumerate(zip(ours, self.expected, strict=True)):
            if e.dtype != _BF16:
                continue
            if self.spec.type == "Convert" and self.inputs[0].dtype in _EXACT_IN_F32:
                # an independent oracle too: ml_dtypes' cast (IEEE nearest-even; its NaN is canonical)
                with np.errstate(all="ignore"):
                    ieee = self.inputs[0].astype(np.float32).astype(_BF16).reshape(-1).view(np.uint16)
                a = o.reshape(-1).view(np.uint16)
                wrong = np.flatnonzero((a != ieee) & ~np.isnan(o.reshape(-1)))
                assert not wrong.size, f"Convert to bf16 is not nearest-even at flat element {wrong[0]}"
            if not entry(self.case.spec).bf16_steps:
                assert_bf16_rounding_only(o, e, f"evaluate output {k} (nearest-even)")

    def _ulp(self, value: np.ndarray) -> int:
        return self.ulp if value.dtype.kind == "f" or value.dtype in _ML_FLOATS else 0

    def _outputs(self, name: str, raw: Sequence[Any]) -> list[np.ndarray]:
        """The outputs, each checked: an ndarray, the inferred dtype, a shape inference accepts."""
        assert len(raw) == len(self.static), f"{name}: {len(raw)} outputs, inferred {len(self.static)}"
        for k, value in enumerate(raw):
            where = f"{name} output {k}"
            assert isinstance(value, np.ndarray), f"{where} is a {type(value).__name__}, not an np.ndarray"
            dtype = self.static[k].element_type.numpy_dtype
            assert dtype is None or value.dtype == dtype, (
                f"{where} is {value.dtype}, inferred {self.static[k].element_type}"
            )
            for info, how in ((self.declared[k], "declared"), (self.static[k], "static")):
                assert info.shape.accepts(value.shape), (
                    f"{where} has shape {list(value.shape)}, inferred {info.shape} from the {how} inputs"
                )
        return list(raw)

    def _plans(self) -> list[tuple[str, list[TensorInfo], list[TensorInfo]]]:
        """The infos a plan may hand ``specialize``: the declared (partial) shapes, unfolded (a
        signature's first plan); the static shapes with inputs unfolded and folded."""
        declared_outs = [TensorInfo(t.element_type, t.shape) for t in self.declared]
        static_outs = [TensorInfo(t.element_type, t.shape) for t in self.static]
        return [
            ("declared", [i.info() for i in self.case.inputs], declared_outs),
            ("unfolded", self._infos(False), static_outs),
            ("folded", self._infos(True), static_outs),
        ]

    def _specialized(
        self, mode: RunMode, expected: list[np.ndarray] | None, how: str
    ) -> list[np.ndarray] | None:
        """Every kernel ``specialize`` makes for ``mode``, on each plan's infos: ``expected``'s
        bytes when given (exact modes), else all the same bytes (a fast run's values do not
        depend on its plan).  The first kernel's outputs (None when it made none)."""
        if self.spec.specialize is None:
            return None
        first: list[np.ndarray] | None = None
        for name, got in self._kernel_runs(mode, how, f"specialize/{how}"):
            want = expected if expected is not None else first
            for k, (g, e) in enumerate(zip(got, want or got, strict=True)):
                assert_same(
                    g, e, f"{name} output {k} vs {'evaluate' if expected is not None else 'the first'}"
                )
            first = first or got
        return first

    def _kernel_runs(self, mode: RunMode, how: str, variant: str) -> Iterator[tuple[str, list[np.ndarray]]]:
        """Each kernel ``specialize`` makes for ``mode`` on each plan's infos, run on the case
        (recorded as ``variant``): its name and checked outputs.  A kernel that raises an Error
        refuses what evaluate computes (a failure); any other exception is not the kernel's to
        decide (a plan runs evaluate then)."""
        assert self.spec.specialize is not None
        for plan, ins, outs in self._plans():
            kernel = self.spec.specialize(self.attrs, ins, outs, mode)
            if kernel is None:
                continue
            try:
                raw = kernel(self.inputs)
            except Error:
                raise AssertionError(f"specialize ({how}, {plan}) refuses what evaluate computes") from None
            except Exception:  # noqa: BLE001, S112 - not decided by the kernel: a plan runs evaluate
                continue
            self.ran.add(variant)
            name = f"specialize ({how}, {plan})"
            yield name, self._outputs(name, raw)

    def _infos(self, folded: bool) -> list[TensorInfo]:
        return [
            TensorInfo(i.element_type, i.info(static=True).shape, i.value if folded or i.const else None)
            for i in self.case.inputs
        ]

    def _into(self, exact: list[np.ndarray]) -> None:
        """``specialize`` offered output buffers (``share_outputs``): ``evaluate``'s bytes with no
        buffer, a matching one (a kernel that takes it must write into it) and a mismatching one."""
        if self.spec.specialize is None:
            return
        first = exact[0]
        matching = np.empty_like(first)
        if matching.size and matching.dtype.kind in "biuf":
            matching.reshape(-1).view(np.uint8)[...] = 0xA5  # (garbage the kernel must overwrite)
        mismatching = np.empty((first.size + 1,), first.dtype)
        _, ins, outs = self._plans()[1]
        for buffer, how in ((matching, "a matching buffer"), (mismatching, "a mismatching buffer")):
            mode = RunMode(out=(buffer,) + (None,) * (len(exact) - 1))
            kernel = self.spec.specialize(self.attrs, ins, outs, mode)
            if kernel is None:
                continue
            try:
                raw = kernel(self.inputs)
            except Exception:  # noqa: BLE001, S112 - not decided by the kernel: a plan runs evaluate
                continue
            got = self._outputs(f"specialize ({how})", raw)
            assert_same(got[0], first, f"specialize ({how}) vs evaluate")
            if buffer is matching and got[0] is matching:
                self.ran.add("specialize/out")
            if buffer is mismatching:
                assert got[0] is not mismatching, "specialize returned a buffer of the wrong shape"

    def _specialized_refuse(self) -> None:
        """Where ``evaluate`` refuses, a kernel ``specialize`` makes may raise anything (the plan
        then runs ``evaluate``, which refuses) but must not compute."""
        if self.spec.specialize is None:
            return
        for mode, how in ((RunMode(), "exact"), (RunMode(exact=False), "fast")):
            for plan, ins, outs in self._plans():
                kernel = self.spec.specialize(self.attrs, ins, outs, mode)
                if kernel is None:
                    continue
                self.ran.add(f"specialize/{how}")
                try:
                    kernel(self.inputs)
                except Exception:  # noqa: BLE001, S112 - any refusal: the plan defers to evaluate
                    continue
                raise AssertionError(f"specialize ({how}, {plan}) computes what evaluate and OpenVINO refuse")


_ML_FLOATS = frozenset(
    np.dtype(t)
    for t in (ml_dtypes.bfloat16, ml_dtypes.float8_e4m3fn, ml_dtypes.float8_e5m2, ml_dtypes.float8_e8m0fnu)
)


def assert_expected(ours: np.ndarray, theirs: np.ndarray, where: str, ulp: int) -> None:
    """Bits equal (NaN = any NaN, -0.0 != +0.0), or within ``ulp``; bf16 and f8 compared as the f32
    values they widen to exactly (so their NaNs are NaNs), an ulp of theirs scaled to f32's."""
    assert ours.dtype == theirs.dtype, f"{where}: dtype {ours.dtype} != OpenVINO's {theirs.dtype}"
    if ours.dtype in _ML_FLOATS:
        scale = 2 ** (23 - int(ml_dtypes.finfo(ours.dtype).nmant))
        ours, theirs, ulp = ours.astype(np.float32), theirs.astype(np.float32), ulp * scale
    assert_same(ours, theirs, where, ulp=ulp, any_nan=True)


def assert_within_fast(fast: np.ndarray, exact: np.ndarray, inputs: Sequence[np.ndarray], where: str) -> None:
    """A fast kernel against ``evaluate``: same dtype and shape; integers and booleans bit for
    bit; floats within the summation bound of tests/test_fast_mode.py, taken over every input
    element as one sum of products: ``(2n + 1) * eps * n * (1 + max|x|)^2`` plus both results'
    rounding, where that sum is finite; non-finite values where the exact ones are."""
    assert fast.dtype == exact.dtype and fast.shape == exact.shape, (
        f"{where}: {fast.dtype}{fast.shape} != {exact.dtype}{exact.shape}"
    )
    if fast.dtype.kind != "f" and fast.dtype not in _ML_FLOATS:
        assert_same(fast, exact, where)
        return
    e = exact.astype(np.float64)
    f = fast.astype(np.float64)
    floats = [
        np.abs(np.asarray(x, np.float64)) for x in inputs if x.dtype.kind == "f" or x.dtype in _ML_FLOATS
    ]
    n = sum(x.size for x in floats) + 1
    big = max((float(x[np.isfinite(x)].max(initial=0.0)) for x in floats), default=0.0)
    if big > 1e100:  # (a square would overflow: not bounded, as below)
        return
    terms = n * (1.0 + big) ** 2
    eps = float(np.finfo(np.float64 if exact.dtype == np.float64 else np.float32).eps)
    info = ml_dtypes.finfo(exact.dtype)
    if not math.isfinite(terms) or terms > float(info.max) or not all(np.isfinite(x).all() for x in floats):
        return  # overflow or non-finite inputs: the order decides inf vs NaN vs finite; not bounded
    bound = (
        (2 * n + 1) * eps * terms + float(info.eps) * (np.abs(e) + np.abs(f)) + float(info.smallest_subnormal)
    )
    both = np.isfinite(e) & np.isfinite(f)
    assert (np.isfinite(e) == np.isfinite(f)).all(), f"{where}: non-finite values differ from evaluate's"
    diff = np.abs(np.where(both, f - e, 0.0))
    over = both & ~(diff <= bound)  # (the bound is NaN where a result is)
    assert not over.any(), f"{where}: |fast - exact| up to {diff[over].max()} > bound"


def _short(text: str) -> str:
    return " ".join(text.split())[:300]


def _first_lines(text: str) -> str:
    return "\n".join(text.splitlines()[:6])[:1500]


def _crash() -> str:
    lines = traceback.format_exc().strip().splitlines()
    return "kernel crashed: " + " | ".join(lines[-3:])[:800]
