"""Differential fuzz campaign of the IR reader's fast paths against its checked path, on LARGE inputs.

``read_ir`` reads files of 256 KiB or more while lxml parses them (``_read_streaming``) and files
of 1 MiB or more whose layers repeat by skipping the repeats (``_read_repeated``); anything
unusual is supposed to fall back to the checked tree reader.  The unit mutants
(tests/test_mutation.py, scripts/mutation_campaign.py) are small files that never reach these
paths.  This campaign mutates large bases:

* ``chain10k``: the 10k-layer chain of ``benchmarks/bench_models.py::make_chain`` (4 MB; the
  repeated path),
* ``chain10k-named``: the same chain with a tensor name on every output port (no layer repeats:
  the streamed path),
* ``mixtral``/``t5``: ir/exports/transformers/tiny_mixtral.xml and tiny_t5.xml (streamed),

with ``ovonehot.ir.mutate`` (tree and byte kinds; the declaration kept as written) and byte edits
aimed at the fast paths' assumptions (the layer head regex, ids, ``<data>``, ports, dims,
precisions, edges, truncation, whitespace, comments/PIs/CDATA, namespaces, DTDs, BOM, UTF-16,
gzip, the .bin resized).  Oracle, per mutant, in a worker process with a time and memory limit:
``read_ir`` as shipped vs ``read_ir`` with both size thresholds set out of reach (the fast paths
off).  They must both raise the same error class with the same message, or give graphs equal
in every field (payload bytes and sub-graphs included); then ``infer`` must agree too (its
result or its error).  A crash, hang or non-``ovonehot.Error`` exception is a finding as well.

    .venv/bin/python scripts/reader_paths_campaign.py --seed 1 --count 2000 --jobs 2
    .venv/bin/python scripts/reader_paths_campaign.py --seed 1 --only 17 --keep /tmp/m17

Deterministic: mutant ``i`` of seed ``s`` is the same bytes every run (bases are cached in
``--cache``; the chain is generated with OpenVINO once).
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import gzip
import hashlib
import multiprocessing as mp
import random
import re
import resource
import sys
import tempfile
import time
import typing
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

BASES = ("chain10k", "chain10k-named", "mixtral", "t5")
BIG = 1 << 62


# -- bases -------------------------------------------------------------------------------------
def bases(cache: Path) -> dict[str, tuple[bytes, bytes]]:
    cache.mkdir(parents=True, exist_ok=True)
    chain = cache / "chain_10000.xml"
    if not chain.is_file():
        from bench_models import make_chain  # (OpenVINO writes it: a script may import it)

        make_chain(cache, 10000)
    xml = chain.read_bytes()
    weights = chain.with_suffix(".bin").read_bytes()
    counter = iter(range(1 << 30))
    named = re.sub(
        rb'(<output>\s*<port id="\d+" precision="\w+")(?! names=)',
        lambda m: m.group(1) + b' names="t%d"' % next(counter),
        xml,
    )
    exports = ROOT / "ir" / "exports" / "transformers"
    out = {"chain10k": (xml, weights), "chain10k-named": (named, weights)}
    for key, stem in (("mixtral", "tiny_mixtral"), ("t5", "tiny_t5")):
        out[key] = ((exports / f"{stem}.xml").read_bytes(), (exports / f"{stem}.bin").read_bytes())
    return out


# -- byte mutations aimed at the fast paths ------------------------------------------------------
LAYER_START = re.compile(rb"<layer ")


def _layer_span(rng: random.Random, xml: bytes) -> tuple[int, int] | None:
    """A top-level-ish layer's [start, end) (late layers likelier: repeats are late)."""
    starts = [m.start() for m in LAYER_START.finditer(xml)]
    if not starts:
        return None
    k = int(len(starts) * (rng.random() ** 0.5))
    k = min(k, len(starts) - 1)
    start = starts[k]
    end = xml.find(b"</layer>", start)
    nxt = xml.find(b"<layer ", start + 1)
    if end < 0 or (0 <= nxt < end):  # (self-closed, or holds sub-graph layers: its start tag only)
        end = xml.find(b">", start) + 1
    else:
        end += len(b"</layer>")
    return start, end


def _head(layer: bytes) -> tuple[int, int]:
    return 0, layer.find(b">") + 1


NAME_VALUES = (
    b"a b",
    b"a>b",
    b"a'b",
    b"",
    b"x" * 4096,
    b"x" * 4097,
    b"x" * 100_000,
    b"a\tb",
    b"a\nb",
    b"a\rb",
    b"a\x01b",
    b"a\x0bb",
    b"a\x0cb",
    b"a\x1fb",
    b"a\x00b",
    b"a\x7fb",
    "é".encode(),
    b"a\xffb",
    b"a\xc3b",
    b"a&amp;b",
    b"a&#9;b",
    b"a&#x41;b",
    b"a&#0;b",
    b"a&lt;b",
    b"a&quot;b",
    b"a&nbsp;b",
    b"a&b",
    b"a<b",
    b"a]]>b",
    "\u0663".encode(),
)
ID_VALUES = (
    b"007",
    b"+7",
    b"-1",
    b" 7",
    b"7 ",
    b"",
    b"1" * 19,
    b"9" * 20,
    b"9" * 64,
    b"9" * 65,
    "\u0663".encode(),
    b"1_0",
    b"0x10",
    b"7.0",
    b"0",
)


def head_edit(rng: random.Random, xml: bytes) -> tuple[bytes, str]:  # noqa: C901 - a flat table of mutation kinds
    span = _layer_span(rng, xml)
    if span is None:
        return xml, "no layer"
    s, e = span
    layer = xml[s:e]
    hs, he = _head(layer)
    head = layer[hs:he]
    kind = rng.choice(
        ("name", "name", "name", "id", "id", "order", "quotes", "space", "extra-attr", "dup-attr", "dup-id")
    )
    if kind == "name":
        value = rng.choice(NAME_VALUES)
        new = re.sub(rb'name="[^"]*"', lambda m: b'name="' + value + b'"', head, count=1)
        what = f"name={value[:20]!r}"
    elif kind == "id":
        value = rng.choice(ID_VALUES)
        new = re.sub(rb'id="[^"]*"', lambda m: b'id="' + value + b'"', head, count=1)
        what = f"id={value[:20]!r}"
    elif kind == "dup-id":
        other = re.findall(rb'<layer id="(\d+)"', xml)
        value = rng.choice(other) if other else b"0"
        new = re.sub(rb'id="[^"]*"', lambda m: b'id="' + value + b'"', head, count=1)
        what = f"id of another layer {value!r}"
    elif kind == "order":
        m = re.match(rb'<layer id="([^"]*)" name="([^"]*)"', head)
        if m is None:
            return xml, "order: no plain head"
        attrs = [b'id="' + m.group(1) + b'"', b'name="' + m.group(2) + b'"']
        rest = head[m.end() :]
        tm = re.match(rb'(\s+type="[^"]*")(.*)', rest, re.DOTALL)
        if tm and rng.random() < 0.5:
            new = b"<layer " + tm.group(1).strip() + b" " + b" ".join(attrs) + tm.group(2)
            what = "type first"
        else:
            new = b"<layer " + attrs[1] + b" " + attrs[0] + rest
            what = "name before id"
    elif kind == "quotes":
        which = rng.choice((b"id", b"name", b"type"))
        new = re.sub(which + rb'="([^"\']*)"', lambda m: which + b"='" + m.group(1) + b"'", head, count=1)
        what = f"{which.decode()} in single quotes"
    elif kind == "space":
        ws = rng.choice((b"  ", b"\t", b"\n", b"\r\n", b"\r", b" \n\t "))
        where = rng.choice(("after <layer", "around =", "before >"))
        if where == "after <layer":
            new = b"<layer" + ws + head[len(b"<layer ") :]
        elif where == "around =":
            new = head.replace(b'id="', b"id" + ws + b"=" + ws + b'"', 1)
        else:
            new = head[:-1] + ws + b">" if not head.endswith(b"/>") else head[:-2] + ws + b"/>"
        what = f"whitespace {ws!r} {where}"
    elif kind == "extra-attr":
        new = b'<layer foo="1" ' + head[len(b"<layer ") :]
        what = "an attribute before id"
    else:
        new = head.replace(b'name="', b'name="dup" name="', 1)
        what = "name twice"
    return xml[: s + hs] + new + xml[s + he :], f"head {what}"


def layer_body_edit(rng: random.Random, xml: bytes) -> tuple[bytes, str]:  # noqa: C901 - a flat table of mutation kinds
    span = _layer_span(rng, xml)
    if span is None:
        return xml, "no layer"
    s, e = span
    layer = xml[s:e]
    kind = rng.choice(
        (
            "data",
            "data",
            "port",
            "dims",
            "dims",
            "precision",
            "comment",
            "pi",
            "cdata",
            "whitespace",
            "ns",
            "selfclose",
            "close-tag",
            "entity",
        )
    )
    what = kind
    if kind in ("data", "port"):
        edited = (_data_edit if kind == "data" else _port_edit)(rng, layer)
        if edited is None:
            return xml, f"no {kind}"
        layer, what = edited
    elif kind == "dims":
        dims = list(re.finditer(rb"<dim>([^<]*)</dim>", layer))
        if not dims:
            return xml, "no dim"
        d = rng.choice(dims)
        value = rng.choice(
            (
                b"",
                b" 16 ",
                b"-1",
                b"-2",
                b"+16",
                b"016",
                b"1e3",
                b"16\n",
                b"\xd9\xa3",
                b"9" * 20,
                b"1_6",
                b"<!--c-->16",
                b"1<!--c-->6",
            )
        )
        new = b"" if rng.random() < 0.2 else b"<dim>" + value + b"</dim>"
        layer = layer[: d.start()] + new + layer[d.end() :]
        what = f"dim {value[:12]!r}" if new else "dim dropped"
    elif kind == "precision":
        value = rng.choice(
            (b"fp32", b"f32", b"F32", b"", b"FP16", b"I64", b"i4", b"u1", b"BOOL", b"nf4", b"xx")
        )
        layer = re.sub(rb'precision="[^"]*"', lambda _: b'precision="' + value + b'"', layer, count=1)
        what = f"precision {value!r}"
    elif kind in ("comment", "pi", "cdata", "whitespace"):
        insert = {
            "comment": b"<!-- c -->",
            "pi": b"<?pi x?>",
            "cdata": b"<![CDATA[ ]]>",
            "whitespace": rng.choice((b"\n\n\t ", b"\r\n", b"\r", b" ")),
        }[kind]
        cuts = [m.end() for m in re.finditer(rb">", layer)][:-1]
        if not cuts:
            return xml, "no place"
        at = rng.choice(cuts)
        layer = layer[:at] + insert + layer[at:]
        what = f"{kind} inside a layer"
    elif kind == "ns":
        layer, what = _namespace_edit(rng, layer)
    elif kind == "selfclose":
        head_end = layer.find(b">")
        layer = layer[:head_end].rstrip(b"/") + b"/>"
        what = "layer self-closed"
    elif kind == "close-tag":
        if layer.endswith(b"</layer>"):
            layer = layer[: -len(b"</layer>")] + rng.choice((b"</layer >", b"</layer\n>", b"</layer\t>"))
        what = "close tag with whitespace"
    else:
        layer = layer.replace(b'type="', b'type="&#x41;', 1)
        what = "type with a character reference"
    return xml[:s] + layer + xml[e:], f"layer {what}"


def _data_edit(rng: random.Random, layer: bytes) -> tuple[bytes, str] | None:
    """The layer's <data> with an attribute's value changed, one added, dropped, duplicated..."""
    m = re.search(rb"<data ([^>]*?)\s*/?>", layer)
    if m is None:
        return None
    attrs = re.findall(rb'(\w+)="([^"]*)"', m.group(1))
    op = rng.choice(("value", "add", "drop", "reorder", "dup", "entity"))
    if op == "value" and attrs:
        k = rng.randrange(len(attrs))
        attrs[k] = (
            attrs[k][0],
            rng.choice((b"", b" 1", b"+1", b"-0", b"1,2", b"\xc3\xa9", b"a&amp;b", b"9" * 30)),
        )
    elif op == "add":
        attrs.append((b"extra", b"1"))
    elif op == "drop" and attrs:
        attrs.pop(rng.randrange(len(attrs)))
    elif op == "reorder":
        rng.shuffle(attrs)
    elif op == "dup" and attrs:
        attrs.append(attrs[0])
    elif op == "entity" and attrs:
        attrs[0] = (attrs[0][0], attrs[0][1] + b"&#32;")
    new = b"<data " + b" ".join(a + b'="' + v + b'"' for a, v in attrs) + b"/>"
    closing = m.group(0).endswith(b"/>")
    if not closing:
        new = new[:-2] + b">"
    return layer[: m.start()] + new + layer[m.end() :], f"data {op}"


def _port_edit(rng: random.Random, layer: bytes) -> tuple[bytes, str] | None:
    """A port of the layer dropped, duplicated, or with another id or names."""
    ports = list(re.finditer(rb"<port [^>]*?(/>|>.*?</port>)", layer, re.DOTALL))
    if not ports:
        return None
    p = rng.choice(ports)
    op = rng.choice(("drop", "dup", "id", "names"))
    text = p.group(0)
    if op == "drop":
        text = b""
    elif op == "dup":
        text = text + text
    elif op == "id":
        text = re.sub(
            rb'id="[^"]*"',
            lambda _: b'id="' + rng.choice((b"7", b"07", b"+1", b"0", b"-1", b"")) + b'"',
            text,
            count=1,
        )
    else:
        text = text.replace(
            b"<port ",
            b'<port names="' + rng.choice((b"a,b", b"a\\,b", b" , ", b"x", b"\xc3\xa9")) + b'" ',
            1,
        )
    return layer[: p.start()] + text + layer[p.end() :], f"port {op}"


def _namespace_edit(rng: random.Random, layer: bytes) -> tuple[bytes, str]:
    """A namespace declared, used on an attribute or an element, or used undeclared."""
    op = rng.choice(("decl", "prefixed-attr", "prefixed-elem", "undeclared"))
    if op == "decl":
        layer = layer.replace(b"<layer ", b'<layer xmlns:a="urn:a" ', 1)
    elif op == "prefixed-attr":
        layer = layer.replace(b"<layer ", b'<layer xmlns:a="urn:a" a:x="1" ', 1)
    elif op == "prefixed-elem":
        layer = layer.replace(b"<data ", b'<a:data xmlns:a="urn:a" ', 1).replace(b"</data>", b"</a:data>", 1)
    else:
        layer = layer.replace(b"<layer ", b'<layer a:x="1" ', 1)
    return layer, f"namespace {op}"


EDGE = re.compile(rb"<edge [^>]*/>")


def edge_edit(rng: random.Random, xml: bytes) -> tuple[bytes, str]:
    edges = list(EDGE.finditer(xml))
    if not edges:
        return xml, "no edge"
    kind = rng.choice(("drop", "dup", "swap", "reverse", "self", "attr", "dangling", "move"))
    k = rng.randrange(len(edges))
    e = edges[k]
    text = e.group(0)
    if kind == "drop":
        return xml[: e.start()] + xml[e.end() :], f"edge {k} dropped"
    if kind == "dup":
        return xml[: e.end()] + b"\n" + text + xml[e.end() :], f"edge {k} duplicated"
    if kind in ("swap", "reverse"):
        a, b = edges[0].start(), edges[-1].end()
        block = [m.group(0) for m in edges]
        if kind == "swap":
            j = rng.randrange(len(edges))
            block[k], block[j] = block[j], block[k]
        else:
            block.reverse()
        return xml[:a] + b"\n".join(block) + xml[b:], f"edges {kind}"
    if kind == "self":
        fl = re.search(rb'from-layer="([^"]*)"', text)
        new = re.sub(
            rb'to-layer="[^"]*"', lambda _: b'to-layer="' + (fl.group(1) if fl else b"0") + b'"', text
        )
        return xml[: e.start()] + new + xml[e.end() :], f"edge {k} self-loop"
    if kind == "attr":
        which = rng.choice((b"from-layer", b"from-port", b"to-layer", b"to-port"))
        value = rng.choice((b"+1", b"01", b" 1", b"", b"-1", b"9" * 30, b"\xd9\xa3"))
        new = re.sub(which + rb'="[^"]*"', lambda _: which + b'="' + value + b'"', text)
        if rng.random() < 0.2:
            new = new.replace(b" " + which + b'="' + value + b'"', b"")
        return xml[: e.start()] + new + xml[e.end() :], f"edge {k} {which.decode()}={value!r}"
    if kind == "dangling":
        new = re.sub(rb'from-layer="[^"]*"', b'from-layer="987654"', text)
        return xml[: e.start()] + new + xml[e.end() :], f"edge {k} dangling"
    # an edge moved into <layers> or out of <edges>
    without = xml[: e.start()] + xml[e.end() :]
    at = without.find(b"</layers>")
    if at < 0:
        return xml, "no layers"
    return without[:at] + text + without[at:], f"edge {k} moved into <layers>"


def document_edit(rng: random.Random, xml: bytes, weights: bytes) -> tuple[bytes, bytes, str]:  # noqa: C901 - a flat table of mutation kinds
    kind = rng.choice(
        (
            "bom",
            "utf16",
            "gzip",
            "doctype",
            "decl",
            "ns-root",
            "truncate",
            "truncate-layers",
            "layers-tag",
            "comment-between",
            "pi",
            "bin",
            "bin",
            "swap-layers",
            "layer-outside",
            "latin1",
        )
    )
    decl_end = xml.find(b"?>") + 2 if xml.startswith(b"<?xml") else 0
    body = xml[decl_end:]
    if kind == "bom":
        return b"\xef\xbb\xbf" + xml, weights, "UTF-8 BOM"
    if kind == "utf16":
        codec = rng.choice(("utf-16", "utf-16-le", "utf-16-be"))
        text = xml.decode("utf-8", "replace")
        if text.startswith("<?xml"):
            text = '<?xml version="1.0" encoding="UTF-16"?>' + text[text.find("?>") + 2 :]
        return text.encode(codec), weights, codec
    if kind == "gzip":
        level = rng.choice((0, 0, 1, 9))
        return gzip.compress(xml, compresslevel=level, mtime=0), weights, f"gzip level {level}"
    if kind == "doctype":
        dtd = rng.choice(
            (
                b"<!DOCTYPE net>",
                b'<!DOCTYPE net [<!ATTLIST layer extra CDATA "x">]>',
                b'<!DOCTYPE net [<!ENTITY e "v">]>',
            )
        )
        return xml[:decl_end] + b"\n" + dtd + body, weights, f"doctype {dtd[:30]!r}"
    if kind == "decl":
        decl = rng.choice(
            (
                b"<?xml version='1.0'?>",
                b'<?xml version="1.0" encoding="ASCII"?>',
                b'<?xml version="1.0" encoding="ISO-8859-1"?>',
                b'<?xml version="1.0" standalone="yes"?>',
                b'<?xml version="1.1"?>',
                b' <?xml version="1.0"?>',
                b'<?xml version="1.0" ?>',
                b'<?xml version="1.0"\t?>',
                b"",
            )
        )
        return decl + body, weights, f"declaration {decl!r}"
    if kind == "latin1":
        new = re.sub(
            rb'name="([^"]*)"', lambda m: b'name="' + m.group(1) + b'\xe9"', body, count=rng.randrange(1, 50)
        )
        return b'<?xml version="1.0" encoding="ISO-8859-1"?>' + new, weights, "latin-1 names"
    if kind == "ns-root":
        ns = rng.choice((b' xmlns="urn:x"', b' xmlns:a="urn:a"', b' xmlns:a="urn:a" a:b="1"'))
        return xml.replace(b"<net ", b"<net" + ns + b" ", 1), weights, f"root namespace {ns!r}"
    if kind == "truncate":
        cut = rng.randrange(len(xml) + 1)
        return xml[:cut], weights, f"cut at {cut}"
    if kind == "truncate-layers":
        end = xml.find(b"</layers>")
        cut = rng.randrange(max(end, 1))
        return xml[:cut] + xml[end:], weights, f"layers cut from {cut}"
    if kind == "layers-tag":
        op = rng.choice(
            (
                b"<layers >",
                b"<layers\n>",
                b"<layers/><layers>",
                b"<layers></layers><layers>",
                b"<layers a='1'>",
            )
        )
        return xml.replace(b"<layers>", op, 1), weights, f"<layers> as {op!r}"
    if kind == "comment-between":
        span = _layer_span(rng, xml)
        at = span[1] if span else len(xml) // 2
        return (
            xml[:at] + rng.choice((b"<!--</layer>-->", b"<![CDATA[x]]>", b"text", b"<note/>")) + xml[at:],
            weights,
            "between layers",
        )
    if kind == "pi":
        at = xml.find(b"<layers>")
        return xml[:at] + b"<?pi x?>" + xml[at:], weights, "a PI before <layers>"
    if kind == "bin":
        op = rng.choice(("truncate", "extend", "empty", "flip"))
        if op == "truncate" and weights:
            cut = rng.randrange(len(weights))
            return xml, weights[:cut], f"bin cut at {cut}"
        if op == "extend":
            return xml, weights + b"\x01" * rng.choice((1, 7, 4096)), "bin extended"
        if op == "flip" and weights:
            data = bytearray(weights)
            data[rng.randrange(len(data))] ^= 0xFF
            return xml, bytes(data), "bin byte flipped"
        return xml, b"", "bin emptied"
    if kind == "swap-layers":
        a, b = _layer_span(rng, xml), _layer_span(rng, xml)
        if a is None or b is None or a == b:
            return xml, weights, "no swap"
        (s1, e1), (s2, e2) = sorted((a, b))
        if e1 > s2:
            return xml, weights, "no swap"
        return xml[:s1] + xml[s2:e2] + xml[e1:s2] + xml[s1:e1] + xml[e2:], weights, "two layers swapped"
    span = _layer_span(rng, xml)
    if span is None:
        return xml, weights, "no layer"
    s, e = span
    layer = xml[s:e]
    at = xml.find(b"</layers>") + len(b"</layers>")
    return xml[:s] + xml[e:at] + layer + xml[at:], weights, "a layer after </layers>"


def mutant(
    base_items: dict[str, tuple[bytes, bytes]], seed: int, index: int
) -> tuple[str, bytes, bytes, list[str]]:
    """Mutant ``index`` of ``seed``: (base, xml, bin, what was done)."""
    from ovonehot.ir import mutate as mutate_module

    rng = random.Random(f"reader-paths:{seed}:{index}")
    base = rng.choice(BASES)
    xml, weights = base_items[base]
    done: list[str] = []
    n = rng.choice((1, 1, 1, 2, 2, 3))
    for _ in range(n):
        family = rng.choices(("mutate", "head", "body", "edge", "document"), weights=(3, 4, 4, 2, 3))[0]
        if family == "mutate":
            decl_end = xml.find(b"?>") + 2 if xml.startswith(b"<?xml") else 0
            light = [k for k in mutate_module.KIND_NAMES if k not in mutate_module.HEAVY_KINDS]
            kinds = light if rng.random() < 0.97 else list(mutate_module.KIND_NAMES)
            new, weights, what = mutate_module.mutate(xml, weights, rng, kinds)
            if new.startswith(b"<?xml version='1.0' encoding='utf-8'?>") and decl_end:
                new = xml[:decl_end] + new[len(b"<?xml version='1.0' encoding='utf-8'?>") :]
            xml = new
            done += [f"mutate {w}" for w in what]
        elif family == "head":
            xml, what_s = head_edit(rng, xml)
            done.append(what_s)
        elif family == "body":
            xml, what_s = layer_body_edit(rng, xml)
            done.append(what_s)
        elif family == "edge":
            xml, what_s = edge_edit(rng, xml)
            done.append(what_s)
        else:
            xml, weights, what_s = document_edit(rng, xml, weights)
            done.append(what_s)
    return base, xml, weights, done


# -- the oracle (in a worker) ------------------------------------------------------------------
def _canon(graph: object) -> object:
    """Every field of a graph, payload bytes and sub-graphs included, as comparable data."""
    nodes = []
    for n in graph.nodes:  # type: ignore[attr-defined]
        payload = None
        if n.payload is not None:
            payload = (n.payload.dtype.str, n.payload.shape, hashlib.sha256(n.payload.tobytes()).hexdigest())
        nodes.append(
            (
                n.id,
                n.name,
                n.type,
                n.version,
                n.attrs,
                n.inputs,
                n.outputs,
                payload,
                n.output_names,
                n.decompression,
                tuple((tag, _canon(body)) for tag, body in n.bodies),
                n.extras,
                n.value_unknown,
            )
        )
    return (graph.name, graph.ir_version, tuple(nodes), graph.sources, graph.document_order)  # type: ignore[attr-defined]


def _outcome(fn: object) -> tuple[str, object]:
    from ovonehot.errors import Error

    try:
        return "ok", fn()  # type: ignore[operator]
    except Error as exc:
        return "error", (type(exc).__name__, str(exc))
    except Exception as exc:  # noqa: BLE001  (a finding: no traceback is allowed)
        return "crash", (type(exc).__name__, str(exc)[:300])


def judge(xml_path: Path, infer_too: bool) -> tuple[str, str, str]:
    """(verdict, detail, reader used): "agree-graph", "agree-error", or a divergence/crash kind;
    and which reader gave the shipped result ("repeated", "streamed", "checked")."""
    from ovonehot.ir import reader

    def read(fast: bool) -> tuple[str, object]:
        saved = reader._STREAM_MIN_SIZE, reader._REPEATED_MIN_SIZE
        if not fast:
            reader._STREAM_MIN_SIZE = reader._REPEATED_MIN_SIZE = BIG
        try:
            return _outcome(lambda: reader.read_ir(xml_path))
        finally:
            reader._STREAM_MIN_SIZE, reader._REPEATED_MIN_SIZE = saved

    # Which reader gave the shipped result: the repeated, the streamed, or the checked one.
    used: list[str] = []
    real_repeated, real_streaming, real_tree = (
        reader._read_repeated,
        reader._read_streaming,
        reader.read_ir_tree,
    )

    def spy(name: str, fn: typing.Callable[..., typing.Any]) -> typing.Callable[..., typing.Any]:
        def call(*a: typing.Any, **k: typing.Any) -> typing.Any:
            result = fn(*a, **k)
            if result is not None:
                used.append(name)
            return result

        return call

    reader._read_repeated = spy("repeated", real_repeated)
    reader._read_streaming = spy("streamed", real_streaming)
    reader.read_ir_tree = spy("checked", real_tree)
    try:
        shipped = read(True)
    finally:
        reader._read_repeated, reader._read_streaming, reader.read_ir_tree = (
            real_repeated,
            real_streaming,
            real_tree,
        )
    read_by = used[0] if used else "checked"
    checked = read(False)
    verdict, detail = _compare(shipped, checked, infer_too)
    return verdict, detail, read_by


def _compare(shipped: tuple[str, object], checked: tuple[str, object], infer_too: bool) -> tuple[str, str]:
    from ovonehot.infer import infer

    if shipped[0] == "crash" or checked[0] == "crash":
        return (
            "crash",
            f"shipped={shipped[0]}:{shipped[1] if shipped[0] != 'ok' else ''} checked={checked[0]}:{checked[1] if checked[0] != 'ok' else ''}",
        )
    if shipped[0] != checked[0]:
        detail = shipped[1] if shipped[0] == "error" else checked[1]
        return f"divergence:{shipped[0]}-vs-{checked[0]}", str(detail)[:400]
    if shipped[0] == "error":
        if shipped[1] != checked[1]:
            return "divergence:error-message", f"shipped={shipped[1]!r}\nchecked={checked[1]!r}"[:800]
        return "agree-error", ""
    a, b = _canon(shipped[1]), _canon(checked[1])
    if a != b:
        return "divergence:graph", _first_difference(a, b)
    if infer_too:
        ia = _outcome(lambda: repr(infer(shipped[1]).outputs))  # type: ignore[arg-type]
        ib = _outcome(lambda: repr(infer(checked[1]).outputs))  # type: ignore[arg-type]
        if ia[0] == "crash" or ib[0] == "crash":
            return "crash:infer", f"{ia[0]}:{ia[1] if ia[0] != 'ok' else ''}"[:400]
        if ia != ib:
            return "divergence:infer", f"{ia[0]} vs {ib[0]}"
    return "agree-graph", ""


def _first_difference(a: object, b: object) -> str:
    if isinstance(a, tuple) and isinstance(b, tuple) and len(a) == len(b):
        for k, (x, y) in enumerate(zip(a, b, strict=True)):
            if x != y:
                return f"[{k}]" + _first_difference(x, y)
    return f": {str(a)[:200]} != {str(b)[:200]}"


def _worker(conn: object, cache: str, memory: int, infer_every: int) -> None:
    resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    base_items = bases(Path(cache))
    work = Path(tempfile.mkdtemp(prefix="reader-paths-"))
    while True:
        job = conn.recv()  # type: ignore[attr-defined]
        if job is None:
            return
        seed, index = job
        base, xml, weights, done = mutant(base_items, seed, index)
        path = work / "model.xml"
        path.write_bytes(xml)
        path.with_suffix(".bin").write_bytes(weights)
        verdict, detail, read_by = judge(path, infer_every > 0 and index % infer_every == 0)
        conn.send((index, base, read_by, done, verdict, detail))  # type: ignore[attr-defined]


def _keep_mutants(
    base_items: dict[str, tuple[bytes, bytes]], seed: int, indices: list[int], keep: Path
) -> None:
    """--keep: write each mutant of ``indices`` into ``keep``/INDEX/model.xml and .bin."""
    for index in indices:
        base, xml, weights, done = mutant(base_items, seed, index)
        out = keep / str(index)
        out.mkdir(parents=True, exist_ok=True)
        (out / "model.xml").write_bytes(xml)
        (out / "model.bin").write_bytes(weights)
        print(index, base, done, out)


def _lost_job(proc: typing.Any, job: int, since: float, timeout: float) -> tuple[str, str] | None:
    """(verdict, finding) when the worker running ``job`` died or overran ``timeout`` (then it is
    killed); None while it is still working."""
    if not proc.is_alive():
        return "crash:worker-died", f"#{job} worker died (exit {proc.exitcode})"
    if time.monotonic() - since > timeout:
        proc.kill()
        return "hang", f"#{job} hang (over {timeout:.0f} s)"
    return None


def main() -> int:  # noqa: C901 - the worker pool's event loop, one branch per worker state
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--start", type=int, default=0)
    parser.add_argument("--count", type=int, default=200)
    parser.add_argument("--only", type=int, nargs="*", help="run just these mutant indices")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds per mutant")
    parser.add_argument("--memory", type=int, default=3 << 30, help="address-space limit per worker")
    parser.add_argument("--infer-every", type=int, default=4, help="infer every n-th mutant (0: never)")
    parser.add_argument(
        "--cache",
        default=str(Path(tempfile.gettempdir()) / "reader_paths_campaign"),
        help="where the bases are kept",
    )
    parser.add_argument("--keep", help="write the mutants of --only into this directory")
    parser.add_argument("--budget", type=float, default=0, help="stop after this many seconds (0: none)")
    args = parser.parse_args()

    base_items = bases(Path(args.cache))
    indices = args.only or list(range(args.start, args.start + args.count))
    if args.keep:
        _keep_mutants(base_items, args.seed, indices, Path(args.keep))
    ctx = mp.get_context("fork")
    workers: list[tuple[object, object, int | None, float]] = []

    def spawn() -> tuple[object, object, int | None, float]:
        here, there = ctx.Pipe()
        proc = ctx.Process(
            target=_worker, args=(there, args.cache, args.memory, args.infer_every), daemon=True
        )
        proc.start()
        return proc, here, None, 0.0

    workers = [spawn() for _ in range(min(args.jobs, len(indices)))]
    pending = collections.deque(indices)
    verdicts: collections.Counter[str] = collections.Counter()
    paths: collections.Counter[str] = collections.Counter()
    findings: list[str] = []
    started = time.monotonic()
    ran = 0
    while pending or any(w[2] is not None for w in workers):
        if args.budget and time.monotonic() - started > args.budget:
            pending.clear()
        for k, (proc, conn, job, since) in enumerate(workers):
            if job is None and pending:
                job = pending.popleft()
                conn.send((args.seed, job))  # type: ignore[attr-defined]
                workers[k] = (proc, conn, job, time.monotonic())
            elif job is not None and conn.poll(0.01):  # type: ignore[attr-defined]
                try:
                    index, base, size_path, done, verdict, detail = conn.recv()  # type: ignore[attr-defined]
                except EOFError:
                    verdict, detail, base, size_path, done, index = "crash:worker-died", "", "?", "?", [], job
                    workers[k] = spawn()
                else:
                    workers[k] = (proc, conn, None, 0.0)
                ran += 1
                verdicts[verdict] += 1
                paths[size_path] += 1
                if not verdict.startswith("agree"):
                    line = f"#{index} [{base}] {verdict}: {'; '.join(done)}\n    {detail}"
                    findings.append(line)
                    print(line, flush=True)
            elif job is not None and (lost := _lost_job(proc, job, since, args.timeout)) is not None:
                ran += 1
                verdicts[lost[0]] += 1
                findings.append(lost[1])
                print(findings[-1], flush=True)
                workers[k] = spawn()
        time.sleep(0.002)
    for proc, conn, _, _ in workers:
        with contextlib.suppress(BrokenPipeError, OSError):
            conn.send(None)  # type: ignore[attr-defined]
        proc.join(5)  # type: ignore[attr-defined]
    elapsed = time.monotonic() - started
    agreements = sum(v for k, v in verdicts.items() if k.startswith("agree"))
    print(
        f"\nseed {args.seed}: {ran} mutants in {elapsed:.0f} s; {agreements} agreements, {ran - agreements} findings"
    )
    print("  shipped result read by: " + ", ".join(f"{k} {v}" for k, v in sorted(paths.items())))
    for verdict, count in sorted(verdicts.items()):
        print(f"  {verdict}: {count}")
    return 1 if ran - agreements else 0


if __name__ == "__main__":
    sys.exit(main())
