"""A child's stderr is captured, not left on the user's terminal: what a dying child printed
becomes part of how it ended (issue 21: the reference child's glibc abort reached the terminal)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from ovonehot import child
from ovonehot.differential import engines


def test_a_dying_childs_last_words_are_in_its_death_and_not_on_the_terminal(
    capfd: pytest.CaptureFixture[str],
) -> None:
    # ``os.abort(conn)`` is a TypeError in the child: Python prints a traceback and exits 1.
    worker = child.start("os", "abort")
    death = worker.death()
    assert death.startswith("exit status 1 (it printed: ")
    assert "TypeError" in death and "abort" in death
    assert len(death) < child.LAST_WORDS + 100
    out, err = capfd.readouterr()
    assert "TypeError" not in err and "Traceback" not in err and not out


def test_a_childs_output_for_an_answered_request_is_handed_over_then_forgotten() -> None:
    worker = child.start("os", "abort")
    worker.proc.wait(timeout=30)
    assert worker.last_words()
    assert "TypeError" in worker.answered()
    assert worker.last_words() == ""
    assert worker.death() == "exit status 1"


def test_what_a_worker_prints_for_an_item_joins_its_result_and_not_the_terminal(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    """(The corpus and fuzz results show it: their JSON ``stderr``, a text line.)"""
    (tmp_path / "noisy_handler.py").write_text(
        "import sys\n\n"
        "def handle(settings, work, item):\n"
        "    print(f'warning: item {item} is noisy', file=sys.stderr)\n"
        "    return {'item': item}\n\n"
        "def crashed(settings, work, item, returncode, death):\n"
        "    return {'item': item, 'death': death}\n"
    )
    monkeypatch.setenv(
        "PYTHONPATH", os.pathsep.join(p for p in (str(tmp_path), os.environ.get("PYTHONPATH")) if p)
    )
    job = engines.Job("noisy_handler:handle", "noisy_handler:crashed", None)
    results = sorted(engines.ProcessPool(1).run(job, iter([1, 2]), lambda: True), key=lambda r: r[0])
    assert [data for _, data in results] == [
        {"item": 1, "stderr": "warning: item 1 is noisy"},
        {"item": 2, "stderr": "warning: item 2 is noisy"},
    ]
    assert "noisy" not in capfd.readouterr().err
