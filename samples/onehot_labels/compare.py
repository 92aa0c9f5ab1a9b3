"""Compare two .npz files bit for bit: same keys in order, then per array shape, dtype, bytes.

python compare.py OURS.npz EXPECTED.npz      # exit 0 when identical, 1 when not
"""

from __future__ import annotations

import sys

import numpy as np


def main(ours_path: str, expected_path: str) -> int:
    with (
        np.load(ours_path, allow_pickle=False) as ours,
        np.load(expected_path, allow_pickle=False) as expected,
    ):
        if list(ours.files) != list(expected.files):
            print(f"outputs differ: {ours.files} vs expected {expected.files}")
            return 1
        for key in expected.files:
            a, b = ours[key], expected[key]
            if a.shape != b.shape or a.dtype != b.dtype or a.tobytes() != b.tobytes():
                print(f"{key}: differs (ours {a.dtype}{list(a.shape)}, expected {b.dtype}{list(b.shape)})")
                return 1
            print(f"{key}: identical to OpenVINO's output, bit for bit ({a.dtype}{list(a.shape)})")
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:3]))
