"""OpenVINO's exception text turned into structured complaints: the ONE place ovonehot reads it.

OpenVINO's Python API raises a bare ``RuntimeError`` (or ``openvino.Exception``) whose
only content is text: the CPU plugin's compile errors, a reference ``evaluate`` failing.
Nothing else in ovonehot matches that text.  :func:`complaints` recognises the
messages ovonehot knows a meaning for and turns each into a :class:`Complaint` (a
stable ``kind`` and its arguments), which travels on
:class:`~ovonehot.errors.OracleRefusal` / :class:`~ovonehot.oracle.common.Refusal` as
``complaints``; callers branch on those (``differential.deviations`` names the known
deviation behind a refusal from them, together with the model's properties).

Each pattern below is OpenVINO's message as OpenVINO 2026.4 words it (the plugin source
file is named); a new OpenVINO release that rewords one shows up here, in one table.

>>> complaints("Unsupported operation of type: Convert name: conv 1\\nDetails: ... cpu_convert can't "
...            "convert from: f8e8m0 precision to: i32")
(Complaint(kind='unsupported-operation', args=('Convert', 'conv 1')), Complaint(kind='cpu-convert', args=('f8e8m0', 'i32')))
>>> complaints("OneHot node with name 'oh' Only const 'on_value' input is supported")
(Complaint(kind='const-input-only', args=('on_value',)),)
"""

from __future__ import annotations

import re

from .common import Complaint

# kind -> (pattern over OpenVINO's message, where OpenVINO says it); the pattern's groups are the args.
KINDS: dict[str, tuple[re.Pattern[str], str]] = {
    # intel_cpu/src/nodes/one_hot.cpp: OneHot indices other than i32
    "only-i32-indices": (re.compile(r"Only I32 is supported"), "nodes/one_hot.cpp"),
    # intel_cpu/src/nodes/one_hot.cpp: scalar indices with a dynamic output
    "dimension-count": (re.compile(r"incorrect number of input/output dimensions"), "nodes/one_hot.cpp"),
    # intel_cpu/src/nodes/one_hot.cpp: on_value / off_value not constant
    "const-input-only": (re.compile(r"Only const '(\w+)' input is supported"), "nodes/one_hot.cpp"),
    # core one_hot shape inference, reached by the reference's evaluate
    "invalid-axis": (re.compile(r"Invalid axis value"), "core/src/validation_util.cpp"),
    # intel_cpu/src/nodes/input.cpp: sub-byte Parameters
    "input-format-unsupported": (
        re.compile(r"Input image format (\S+) is not supported"),
        "nodes/input.cpp",
    ),
    # intel_cpu: a Parameter of dynamic rank
    "dynamic-rank": (re.compile(r"dynamic rank", re.IGNORECASE), "intel_cpu graph"),
    # intel_cpu/src/node.cpp: a node with no implementation (the name runs to the end of its line)
    "unsupported-operation": (
        re.compile(r"Unsupported operation of type: (\S+) name: ([^\n]*)"),
        "intel_cpu/src/node.cpp",
    ),
    # intel_cpu/src/nodes/common/cpu_convert.cpp: a precision pair it cannot convert
    "cpu-convert": (
        re.compile(r"cpu_convert can't convert from: (\S+) precision to: (\S+)"),
        "nodes/common/cpu_convert.cpp",
    ),
    # core/src/op/read_value.cpp: ReadValue evaluated outside an inference request (the
    # reference's Node.evaluate of a stateful model)
    "variable-context": (re.compile(r"VariableContext not found"), "core/src/op/read_value.cpp"),
    # intel_cpu/src/nodes/common/cpu_convert.cpp: a source precision it cannot convert to boolean
    "unsupported-src-precision": (
        re.compile(r"unsupported src_prc: (\S+)"),
        "nodes/common/cpu_convert.cpp",
    ),
}


def complaints(message: str) -> tuple[Complaint, ...]:
    """Every complaint :data:`KINDS` recognises in OpenVINO's ``message`` (its whole text, line
    breaks kept: a layer name runs to the end of its line), in table order."""
    return tuple(
        Complaint(kind, tuple(match.groups()))
        for kind, (pattern, _) in KINDS.items()
        for match in pattern.finditer(message)
    )
