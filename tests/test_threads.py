"""One thread setting for a run (ovonehot.threads): NumPy's BLAS is limited to it while a plan
with a BLAS op runs and put back after; OneHot's workers read the same number; never more than
the cores; bad settings are usage errors.  Read from threadpoolctl itself, inside the run."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest
from threadpoolctl import threadpool_info, threadpool_limits

from ovonehot import threads
from ovonehot.errors import UsageError
from ovonehot.infer import infer
from ovonehot.model import Model
from tests.graph_builder import GraphBuilder


def _blas_threads() -> list[int]:
    return [lib["num_threads"] for lib in threadpool_info() if lib["user_api"] == "blas"]


def _model(with_matmul: bool) -> Model:
    b = GraphBuilder()
    x = b.parameter("x", "f32", "[4,4]")
    y = b.op("MatMul", "opset1", [x, x]) if with_matmul else b.op("Relu", "opset1", [x])
    b.op("Result", "opset1", [y], outputs=0)
    graph = b.graph()
    return Model(graph, infer(graph))


@pytest.fixture
def blas_at_cores() -> Iterator[int]:
    """BLAS at one thread per core (OpenBLAS's own default) for the test, as a user may have it."""
    if not _blas_threads():
        pytest.skip("NumPy has no BLAS library threadpoolctl can see")
    with threadpool_limits(threads.cores(), user_api="blas"):
        yield threads.cores()


def _seen_in_run(model: Model, **options: object) -> tuple[list[int], int]:
    """BLAS's thread counts and ``threads.current()`` as a kernel sees them, mid-run."""
    seen: list[tuple[list[int], int]] = []
    x = np.eye(4, dtype=np.float32)
    model.run({"x": x}, observer=lambda *_: seen.append((_blas_threads(), threads.current())), **options)  # type: ignore[arg-type]
    return seen[-1]


@pytest.mark.parametrize("exact", [True, False], ids=["exact", "fast"])
def test_a_run_with_blas_limits_it_to_one_thread_by_default_and_restores_it(
    blas_at_cores: int, exact: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(threads.THREADS_ENV, raising=False)
    during, current = _seen_in_run(_model(with_matmul=True), exact=exact)
    assert set(during) == {1}
    assert current == 1
    assert set(_blas_threads()) == {blas_at_cores}  # put back when the run ends


def test_threads_given_are_used_up_to_the_cores(blas_at_cores: int) -> None:
    model = _model(with_matmul=True)
    during, current = _seen_in_run(model, threads=10_000)
    assert set(during) == {blas_at_cores} and current == blas_at_cores  # (never more than the cores)
    during, current = _seen_in_run(model, threads=1)
    assert set(during) == {1} and current == 1


def test_the_environment_sets_the_default(blas_at_cores: int, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(threads.THREADS_ENV, str(blas_at_cores))
    during, current = _seen_in_run(_model(with_matmul=True))
    assert set(during) == {blas_at_cores} and current == blas_at_cores


def test_a_run_without_blas_ops_leaves_blas_alone(blas_at_cores: int) -> None:
    during, current = _seen_in_run(_model(with_matmul=False))
    assert set(during) == {blas_at_cores}
    assert current == 1  # (OneHot's workers still follow the run's number)


@pytest.mark.parametrize("bad", [0, -1, 1.5, True, "2"])
def test_bad_thread_counts_are_usage_errors(bad: object) -> None:
    with pytest.raises(UsageError, match="threads="):
        _model(with_matmul=True).run({"x": np.eye(4, dtype=np.float32)}, threads=bad)  # type: ignore[arg-type]


@pytest.mark.parametrize("text", ["0", "two", "-3"])
def test_bad_environment_values_are_usage_errors(text: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(threads.THREADS_ENV, text)
    with pytest.raises(UsageError, match=threads.THREADS_ENV):
        _model(with_matmul=True).run({"x": np.eye(4, dtype=np.float32)})
