#!/usr/bin/env bash
# Sample: one-hot encode six class labels with ovonehot and check the result against OpenVINO's.
#
#   bash samples/onehot_labels/run.sh
#
# model.xml (OneHot-16, normalize mode, depth 10), labels.npz and expected.npz were written by
# make_sample.py with OpenVINO alone; expected.npz is OpenVINO's output (CPU plugin and core
# reference, which agree). Uses $PYTHON if set, else the repository's .venv, else python3.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
if [[ -z "${PYTHON:-}" ]]; then
    if [[ -x "$root/.venv/bin/python" ]]; then PYTHON="$root/.venv/bin/python"; else PYTHON=python3; fi
fi
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
"$PYTHON" -m ovonehot run "$here/model.xml" --inputs "$here/labels.npz" --output "$out/onehot.npz"
"$PYTHON" "$here/compare.py" "$out/onehot.npz" "$here/expected.npz"
