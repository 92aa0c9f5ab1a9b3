"""The reader's fast paths read exactly what its checked reader reads.

For a file of 256 KiB or more (any size here), ``read_ir`` tries two fast readers before
the checked tree reader (``_build``, which reads the whole parsed tree step by step and
gives every error message):

* ``_read_repeated`` (files of 1 MiB or more; any size here): a layer written byte for byte
  like an earlier one but for its id and name is not parsed again;
* ``_read_streaming``: each top-level layer and edge is read at its end tag and dropped.

Either gives up (None) on anything unusual, and any error sends the file to the checked
reader.  The oracle here is that checked reader, run on the same file: graphs must be
equal field by field (payloads byte for byte), errors equal message for message.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from ovonehot.errors import Error
from ovonehot.graph import Graph
from ovonehot.ir import reader
from ovonehot.ir.reader import _parse_path, _read_repeated, _read_streaming, read_ir, read_ir_tree

DECL = '<?xml version="1.0"?>\n'


@pytest.fixture(autouse=True)
def _repeats_in_small_files(monkeypatch: pytest.MonkeyPatch) -> None:
    """The repeated-layer reader takes files of any size here (it skips small ones)."""
    monkeypatch.setattr(reader, "_REPEATED_MIN_SIZE", 0)
    monkeypatch.setattr(reader, "_STREAM_MIN_SIZE", 0)


PARAM = """<layer id="{id}" name="{name}" type="Parameter" version="opset1">
<data shape="2,3" element_type="f32" />
<output><port id="0" precision="FP32" names="x"><dim>2</dim><dim>3</dim></port></output></layer>"""
CONST = """<layer id="{id}" name="{name}" type="Const" version="opset1">
<data element_type="f32" shape="" offset="{offset}" size="4" />
<output><port id="0" precision="FP32" /></output></layer>"""
ADD = """<layer id="{id}" name="{name}" type="Add" version="opset1"><data auto_broadcast="numpy" />
<input><port id="0" precision="FP32"><dim>2</dim><dim>3</dim></port><port id="1" precision="FP32" /></input>
<output><port id="2" precision="FP32"{names}><dim>2</dim><dim>3</dim></port></output></layer>"""
RESULT = """<layer id="{id}" name="{name}" type="Result" version="opset1">
<input><port id="0" precision="FP32"><dim>2</dim><dim>3</dim></port></input></layer>"""
WEIGHTS = np.array([0.5, -2.0], np.float32).tobytes()


def chain(blocks: int = 4, names: list[str] | None = None, tensor_names: bool = False) -> tuple[str, str]:
    """Parameter -> blocks x (Const, Add) -> Result: layers and edges, as OpenVINO writes them."""
    layers = [PARAM.format(id=0, name="x")]
    edges = []
    prev = 0
    for k in range(blocks):
        c, a = 1 + 2 * k, 2 + 2 * k
        name = names[k] if names else f"Add_{k}"
        layers.append(CONST.format(id=c, name=f"Constant_{k}", offset=4 * (k % 2)))
        layers.append(ADD.format(id=a, name=name, names=f' names="t{k}"' if tensor_names else ""))
        edges += [(prev, 2 if prev else 0, a, 0), (c, 0, a, 1)]
        prev = a
    r = 2 * blocks + 1
    layers.append(RESULT.format(id=r, name="out"))
    edges.append((prev, 2, r, 0))
    edge_text = "\n".join(
        f'<edge from-layer="{a}" from-port="{b}" to-layer="{c}" to-port="{d}" />' for a, b, c, d in edges
    )
    return "\n".join(layers), edge_text


def document(layers: str, edges: str, decl: str = DECL, tail: str = "</net>\n") -> str:
    return f'{decl}<net name="m" version="11">\n<layers>\n{layers}\n</layers>\n<edges>\n{edges}\n</edges>\n{tail}'


def write(tmp_path: Path, text: str | bytes) -> Path:
    path = tmp_path / "m.xml"
    path.write_bytes(text.encode() if isinstance(text, str) else text)
    path.with_suffix(".bin").write_bytes(WEIGHTS)
    return path


def checked(path: Path) -> Graph:
    """The checked tree reader, on its own."""
    return read_ir_tree(_parse_path(path), path.with_suffix(".bin"), source=str(path))


def dump(graph: Graph) -> tuple[object, ...]:
    nodes = []
    for n in graph.nodes:
        payload = None if n.payload is None else (n.payload.dtype.str, n.payload.shape, n.payload.tobytes())
        bodies = tuple((tag, dump(body)) for tag, body in n.bodies)
        nodes.append((n, payload, bodies, n.extras))
    return (graph.name, graph.ir_version, tuple(nodes), graph.sources, graph.document_order)


def same_as_checked(path: Path) -> None:
    try:
        expected: object = dump(checked(path))
    except Error as exc:
        expected = (type(exc), str(exc))
    try:
        got: object = dump(read_ir(path))
    except Error as exc:
        got = (type(exc), str(exc))
    assert got == expected


def fast(path: Path) -> str:
    """Which fast reader reads ``path`` (or "checked": neither)."""
    bin_path = path.with_suffix(".bin")
    if _read_repeated(path, bin_path) is not None:
        return "repeated"
    return "streaming" if _read_streaming(path, bin_path) is not None else "checked"


# Files read by a fast path: each must be read as the checked reader reads it.
READ = {
    "repeated layers": (document(*chain(6)), "repeated"),
    "declaration with encoding": (
        document(*chain(3), decl='<?xml version="1.0" encoding="UTF-8"?>\n'),
        "repeated",
    ),
    "no declaration": (document(*chain(3), decl=""), "repeated"),
    "tensor names differ": (document(*chain(3, tensor_names=True)), "repeated"),
    "nothing repeats": (document(*chain(1)), "streaming"),
    "names with spaces and quotes": (document(*chain(3, names=["a b", "c'd", "e>f"])), "repeated"),
    "name with an entity": (document(*chain(3, names=["a&amp;b", "x", "y"])), "streaming"),
    "name with a character reference": (document(*chain(3, names=["a&#233;", "x", "y"])), "streaming"),
    "name with a tab reference": (document(*chain(3, names=["a&#9;b", "x", "y"])), "streaming"),
    "non-ASCII name": (document(*chain(3, names=["é", "x", "y"])), "streaming"),
    "a comment between layers": (
        document(chain(3)[0].replace("</layer>\n", "</layer>\n<!-- c -->\n", 1), chain(3)[1]),
        "streaming",
    ),
    "a processing instruction": (document(*chain(3), tail="<?pi x?></net>\n"), "streaming"),
    "an element between layers": (
        document(chain(3)[0].replace("</layer>\n", "</layer>\n<note/>\n", 1), chain(3)[1]),
        "streaming",
    ),
    "name before id": (
        document(
            chain(3)[0].replace('<layer id="4" name="Add_1"', '<layer name="Add_1" id="4"'), chain(3)[1]
        ),
        "repeated",
    ),
    "a second <edges> after the first": (document(*chain(3), tail="<edges/></net>\n"), "repeated"),
    "CRLF line ends": (document(*chain(3)).replace("\n", "\r\n"), "streaming"),
    "a second <layers>": (document(*chain(3)).replace("</layers>", "</layers><layers/>"), "streaming"),
}

# Files the checked reader refuses: the same error, word for word.
REFUSED = {
    "duplicate id in a repeat": document(
        chain(3)[0].replace('id="4" name="Add_1"', 'id="2" name="Add_1"'), chain(3)[1]
    ),
    "not well-formed at the end": document(*chain(3), tail=""),
    "repeat with a missing edge": document(chain(3)[0], chain(3)[1].rsplit("\n", 2)[0]),
    "edge to a missing port": document(chain(3)[0], chain(3)[1].replace('to-port="1"', 'to-port="7"', 1)),
    "a DTD": document(*chain(3), decl='<?xml version="1.0"?>\n<!DOCTYPE net>\n'),
    "root is not net": document(*chain(3)).replace("<net ", "<nett ").replace("</net>", "</nett>"),
    "IR version 12": document(*chain(3)).replace('version="11"', 'version="12"'),
    # (scripts/reader_paths_campaign.py) a repeat's name is never parsed: a character XML
    # refuses there must send the file to the checked reader
    "control character in a repeat's name": document(*chain(3, names=["x", "a\x01b", "y"])),
    "form feed in a repeat's name": document(*chain(3, names=["x", "a\x0cb", "y"])),
    "unit separator in a repeat's name": document(*chain(3, names=["x", "a\x1fb", "y"])),
    "NUL in a repeat's name": document(*chain(3, names=["x", "a\x00b", "y"])),
}


@pytest.mark.parametrize("case", READ, ids=list(READ))
def test_fast_paths_read_as_the_checked_reader(tmp_path: Path, case: str) -> None:
    text, path_used = READ[case]
    path = write(tmp_path, text)
    checked(path)  # (a file the checked reader reads)
    assert fast(path) == path_used
    same_as_checked(path)


@pytest.mark.parametrize("case", REFUSED, ids=list(REFUSED))
def test_fast_paths_refuse_as_the_checked_reader(tmp_path: Path, case: str) -> None:
    path = write(tmp_path, REFUSED[case])
    with pytest.raises(Error):
        checked(path)
    same_as_checked(path)


def test_repeats_get_their_own_payload(tmp_path: Path) -> None:
    """Repeated Consts (same offset) are decoded each, not shared."""
    graph = read_ir(write(tmp_path, document(*chain(6))))
    payloads = [n.payload for n in graph.nodes if n.type == "Const"]
    assert len(payloads) == 6 and len({id(p) for p in payloads}) == 6
    assert [float(p) for p in payloads] == [0.5, -2.0] * 3
