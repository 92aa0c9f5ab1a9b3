"""The core paths never import openvino: load, infer, run, validate and inspect work without it.

A child interpreter blocks the import (``sys.modules["openvino"] = None`` makes every
``import openvino`` fail) and runs the commands on the corpus; ``fuzz`` says in one line
that OpenVINO is missing.  (``tests/`` as a whole also runs in a venv without openvino:
every test that needs it skips with a reason.)
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MODEL = ROOT / "ir" / "onehot" / "v1_axis-1_i64_f32.xml"
EXPORT = next(iter(sorted((ROOT / "ir" / "exports").glob("**/*.xml"))))

_BLOCKED = textwrap.dedent("""
    import contextlib, io, json, sys
    sys.modules["openvino"] = None  # import openvino now raises ImportError
    import numpy as np
    import ovonehot
    from ovonehot.cli import main

    model, inputs, export = sys.argv[1:4]
    codes = {}
    for argv in (["run", model, "--inputs", inputs], ["validate", model], ["inspect", model],
                 ["validate", export], ["fuzz", "--cases", "1"]):
        err = io.StringIO()
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
            codes[argv[0] + ":" + argv[1]] = [main(argv), err.getvalue()]
    m = ovonehot.load(model)
    out = m.run({"indices": np.array([[0, 1, 2, 3]] * 3, np.int64)})
    print(json.dumps({"codes": codes, "shape": list(out["onehot"].shape),
                      "blocked": sys.modules["openvino"] is None,
                      "loaded": sorted(k for k in sys.modules if k.startswith("openvino."))}))
""")


def test_core_commands_run_with_openvino_blocked() -> None:
    done = subprocess.run(
        [sys.executable, "-c", _BLOCKED, str(MODEL), str(MODEL.with_suffix(".npz")), str(EXPORT)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout.splitlines()[-1])
    codes = result["codes"]
    assert codes.pop("fuzz:--cases") == [
        4,
        "error: OpenVINO is not installed; fuzz diffs against it: pip install 'openvino>=2026.4,<2026.5'\n",
    ]
    assert codes == {
        "run:" + str(MODEL): [0, ""],
        "validate:" + str(MODEL): [0, ""],
        "inspect:" + str(MODEL): [0, ""],
        "validate:" + str(EXPORT): [0, ""],
    }
    assert result["shape"] == [3, 4, 5]
    assert result["blocked"] and result["loaded"] == []
