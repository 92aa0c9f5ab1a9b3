"""A child's stderr is captured, not left on the user's terminal: what a dying child printed
becomes part of how it ended (issue 21: the reference child's glibc abort reached the terminal)."""

from __future__ import annotations

import pytest

from ovonehot import child


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
