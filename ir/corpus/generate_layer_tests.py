"""Write ir/corpus/layer_tests/: one case of OpenVINO's own layer tests per cause the harness found.

Each folder is one case of ``tests/layer_tests`` (PyTorch or TensorFlow) that ovonehot once
failed where the CPU plugin passed, exported by ``scripts/layer_tests.py export``: the module the
test builds, converted by ``ov.convert_model`` as the test converts it, its inputs, and the
framework's own output as the expectation (docs/layer_tests.md).  This script reruns those
exports; it needs the checkout of the layer tests (``--ov``, see docs/layer_tests.md) and runs
each export in the generator venv of its framework.

    python ir/corpus/generate_layer_tests.py --ov /tmp/ovlt [--only NAME]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "layer_tests.py"
VENVS = {"pytorch": "/work/gen/torch/bin/python", "tensorflow": "/work/gen/tf/bin/python"}

# (folder name, framework, the layer-test case)
CASES = (
    (
        "bitwise_not_0d_u8",
        "pytorch",
        "test_bitwise_ops.py::TestBitwiseOp::test_bitwise_mixed_dtypes[False-lhs_shape2-rhs_shape2-uint8-uint8-not]",
    ),
    (
        "div_trunc_int32_by_int64",
        "pytorch",
        "test_div.py::TestDivTypes::test_div_types[trunc-lhs_shape1-rhs_shape1-lhs_type0-rhs_type0]",
    ),
    ("gcd_loop_mod_by_zero", "pytorch", "test_gcd.py::TestGcd::test_gcd_tensor"),
    (
        "tf_resize_bilinear_linear_onnx_axes_1_2",
        "tensorflow",
        "test_tf_Resize.py::TestResize::test_resize_basic[params0]",
    ),
)


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--ov", required=True, help="the checkout holding tests/layer_tests")
    parser.add_argument("--only", help="one folder name")
    args = parser.parse_args()
    status = 0
    for name, framework, case in CASES:
        if args.only and name != args.only:
            continue
        command = [VENVS[framework], str(SCRIPT), "export", "--ov", args.ov, "--framework", framework]
        command += ["--case", case, "--name", name]
        print(" ".join(command), flush=True)
        status |= subprocess.run(command, check=False).returncode
    return 1 if status else 0


if __name__ == "__main__":
    sys.exit(main())
