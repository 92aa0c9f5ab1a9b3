"""``ovonehot run --dump-intermediates DIR``: every node's outputs, keyed ``"<layer name>:<port>"``.

The dumped intermediates of a real PyTorch export are checked against OpenVINO's CPU
plugin with every node output added as a model output (integers and booleans exact,
floats within 1e-5: the plugin's own kernels); the archive layout, name clashes,
partial dumps of failing runs and atomicity against the documented rules.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from ovonehot.cli import main
from ovonehot.cli.dump import ARCHIVE, INDEX

ROOT = Path(__file__).resolve().parent.parent
DICE = ROOT / "ir" / "exports" / "torch" / "dice_loss.xml"
DICE_INPUTS = ROOT / "ir" / "exports" / "torch" / "dice_loss.typical.inputs.npz"
FOUR_INPUTS = ROOT / "ir" / "onehot" / "v1_all_params_f32.xml"  # indices, depth, on, off: all Parameters

ov = pytest.importorskip("openvino", reason="expected values come from OpenVINO, which is not installed")


def _dump(
    tmp_path: Path, model: Path, inputs: list[str], capsys: pytest.CaptureFixture[str]
) -> tuple[int, str, str]:
    code = main(
        [
            "run",
            str(model),
            *(a for spec in inputs for a in ("--inputs", spec)),
            "--dump-intermediates",
            str(tmp_path / "dump"),
        ]
    )
    out, err = capsys.readouterr()
    return code, out, err


def _cpu_intermediates(model_path: Path, feeds: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Every computed node output of the model, from OpenVINO's CPU plugin, keyed like the dump."""
    core = ov.Core()
    model = core.read_model(str(model_path))
    wanted = [
        (op.get_friendly_name(), k, op.output(k))
        for op in model.get_ordered_ops()
        if op.get_type_name() not in ("Constant", "Result", "Parameter")
        for k in range(op.get_output_size())
    ]
    for j, (_, _, output) in enumerate(wanted):  # a name of its own for every wanted tensor
        output.get_tensor().add_names({f"wanted_{j}"})
    model.add_outputs([o for _, _, o in wanted])
    compiled = core.compile_model(
        model,
        "CPU",
        {"INFERENCE_PRECISION_HINT": "f32", "EXECUTION_MODE_HINT": "ACCURACY", "INFERENCE_NUM_THREADS": 1},
    )
    results = compiled(feeds)
    return {f"{name}:{k}": results[compiled.output(f"wanted_{j}")] for j, (name, k, _) in enumerate(wanted)}


@pytest.mark.skipif(not DICE.exists(), reason="the ir/exports corpus is not in this checkout")
def test_dump_matches_openvino_cpu_node_by_node(tmp_path, capsys):  # type: ignore[no-untyped-def]
    code, out, err = _dump(tmp_path, DICE, [str(DICE_INPUTS)], capsys)
    assert code == 0 and err == ""
    with np.load(tmp_path / "dump" / ARCHIVE) as archive:
        dumped = {k: archive[k] for k in archive.files}
    assert f"wrote {len(dumped)} intermediate(s)" in out
    with np.load(DICE_INPUTS) as z:
        feeds = {k: z[k] for k in z.files}
    expected = _cpu_intermediates(DICE, feeds)
    assert set(expected) <= set(dumped)
    constants = {
        f"{op.get_friendly_name()}:0": op.get_data()
        for op in ov.Core().read_model(str(DICE)).get_ordered_ops()
        if op.get_type_name() == "Constant"
    }
    assert set(dumped) - set(expected) == {"logits:0", "target:0"} | set(constants)  # Parameters, Constants
    for key, value in constants.items():
        assert dumped[key].shape == value.shape, key
        np.testing.assert_array_equal(
            dumped[key].reshape(-1).view(np.uint8), np.array(value).reshape(-1).view(np.uint8), err_msg=key
        )
    for name in ("logits", "target"):
        np.testing.assert_array_equal(dumped[f"{name}:0"], feeds[name])
    for key, want in expected.items():
        got = dumped[key]
        assert got.shape == want.shape, key
        if got.dtype.kind in "biu":
            np.testing.assert_array_equal(got.astype(np.int64), want.astype(np.int64), err_msg=key)
        else:
            np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6, err_msg=key)


@pytest.mark.skipif(not DICE.exists(), reason="the ir/exports corpus is not in this checkout")
def test_index_lists_every_key_in_run_order(tmp_path, capsys):  # type: ignore[no-untyped-def]
    _dump(tmp_path, DICE, [str(DICE_INPUTS)], capsys)
    rows = (tmp_path / "dump" / INDEX).read_text().splitlines()
    assert rows[0] == "key\tlayer_id\ttype\tshape\tmember"
    with np.load(tmp_path / "dump" / ARCHIVE) as archive:
        assert [r.split("\t")[0] for r in rows[1:]] == archive.files
        onehot = next(r.split("\t") for r in rows[1:] if r.startswith("aten::one_hot/OneHot:"))
        assert onehot[2] == "OneHot-opset1"
        assert onehot[3] == str(list(archive["aten::one_hot/OneHot:0"].shape))


def _two_layers_named_alike(tmp_path: Path) -> Path:
    ops = pytest.importorskip("openvino.opset15")
    x = ops.parameter([3], ov.Type.i64, name="x")
    first = ops.add(x, ops.constant(np.array(1, np.int64)))
    first.set_friendly_name("same/name:1")
    second = ops.multiply(first, ops.constant(np.array(3, np.int64)))
    second.set_friendly_name("same/name:1")
    split = ops.split(second, ops.constant(np.int64(0)), 3)
    split.set_friendly_name("split")
    path = tmp_path / "alike.xml"
    ov.save_model(ov.Model(split.outputs(), [x]), str(path))
    return path


def test_keys_for_clashing_names_and_multiple_ports(tmp_path, capsys):  # type: ignore[no-untyped-def]
    model = _two_layers_named_alike(tmp_path)
    np.save(tmp_path / "x.npy", np.array([1, 2, 3], np.int64))
    code, _, err = _dump(tmp_path, model, [str(tmp_path / "x.npy")], capsys)
    assert code == 0, err
    rows = [r.split("\t") for r in (tmp_path / "dump" / INDEX).read_text().splitlines()[1:]]
    second_id = next(r[1] for r in rows if r[2].startswith("Multiply"))
    with np.load(tmp_path / "dump" / ARCHIVE) as archive:
        computed = [k for k in archive.files if not k.startswith("Constant_")]
        assert computed == [
            "x:0",
            "same/name:1:0",
            f"same/name:1#{second_id}:0",
            "split:0",
            "split:1",
            "split:2",
        ]
        assert len(archive.files) - len(computed) == 3  # the three Constants
        np.testing.assert_array_equal(archive["same/name:1:0"], [2, 3, 4])
        np.testing.assert_array_equal(archive[f"same/name:1#{second_id}:0"], [6, 9, 12])
        assert [int(archive[f"split:{k}"][0]) for k in range(3)] == [6, 9, 12]


def test_failing_run_publishes_what_ran(tmp_path, capsys):  # type: ignore[no-untyped-def]
    with np.load(FOUR_INPUTS.with_suffix(".npz")) as z:
        feeds = {k: z[k] for k in z.files}
    depth_name = next(k for k in feeds if "depth" in k.lower())
    feeds[depth_name] = np.array(-1, feeds[depth_name].dtype)  # a negative depth fails at run time
    np.savez(tmp_path / "in.npz", **feeds)
    code, _, err = _dump(tmp_path, FOUR_INPUTS, [str(tmp_path / "in.npz")], capsys)
    assert code == 2
    lines = err.splitlines()
    assert lines[0].startswith("wrote 4 intermediate(s) of the failed run")
    assert lines[1].startswith("error: ") and "negative" in lines[1]
    with np.load(tmp_path / "dump" / ARCHIVE) as archive:
        assert len(archive.files) == 4 and all(k.endswith(":0") for k in archive.files)  # the four Parameters
    assert not [p for p in (tmp_path / "dump").iterdir() if p.name.endswith(".tmp")]


def test_nothing_is_written_when_no_node_ran(tmp_path, capsys):  # type: ignore[no-untyped-def]
    np.save(tmp_path / "x.npy", np.zeros(3, np.float32))  # wrong type for an i64 input
    model = _two_layers_named_alike(tmp_path)
    code, _, err = _dump(tmp_path, model, [str(tmp_path / "x.npy")], capsys)
    assert code == 2 and err.startswith("error: ")
    assert not (tmp_path / "dump").exists() or not any((tmp_path / "dump").iterdir())


def test_dump_directory_must_be_a_directory(tmp_path, capsys):  # type: ignore[no-untyped-def]
    model = _two_layers_named_alike(tmp_path)
    np.save(tmp_path / "x.npy", np.array([1, 2, 3], np.int64))
    (tmp_path / "dump").write_text("not a directory")
    code, _, err = _dump(tmp_path, model, [str(tmp_path / "x.npy")], capsys)
    assert code == 2
    assert err.count("\n") == 1 and "is not a directory" in err


def test_an_existing_archive_is_replaced_whole(tmp_path, capsys):  # type: ignore[no-untyped-def]
    model = _two_layers_named_alike(tmp_path)
    np.save(tmp_path / "x.npy", np.array([1, 2, 3], np.int64))
    (tmp_path / "dump").mkdir()
    np.savez(tmp_path / "dump" / ARCHIVE, stale=np.zeros(1))
    code, _, _ = _dump(tmp_path, model, [str(tmp_path / "x.npy")], capsys)
    assert code == 0
    with np.load(tmp_path / "dump" / ARCHIVE) as archive:
        assert "stale" not in archive.files and "x:0" in archive.files


def test_dump_includes_the_nodes_of_a_loop_body_per_iteration(tmp_path: Path) -> None:
    """``--dump-intermediates`` reaches sub-graph bodies: each body node's outputs per iteration,
    named ``<loop>/body0.iteration<k>/<node>``; the Loop's concatenation of a body Result is those
    iterations' values (torch.gcd's IR from the regression corpus, a Loop of Mod/Select)."""
    folder = Path(__file__).resolve().parents[1] / "ir" / "corpus" / "regressions" / "torch_gcd"
    out = tmp_path / "dump"
    code = main(
        [
            "run",
            str(folder / "model.xml"),
            "--inputs",
            str(folder / "with_zeros.inputs.npz"),
            "--dump-intermediates",
            str(out),
        ]
    )
    assert code == 0
    rows = [line.split("\t") for line in (out / INDEX).read_text().splitlines()[1:]]
    body = [r for r in rows if "/body0.iteration" in r[0]]
    iterations = {r[0].split("/body0.iteration")[1].split("/")[0] for r in body}
    assert body and iterations == {str(k) for k in range(len(iterations))}
    with np.load(out / ARCHIVE) as archive:
        for k in iterations:
            a = archive[next(r[4] for r in body if r[0].endswith(f"iteration{k}/Parameter_11:0"))]
            b = archive[next(r[4] for r in body if r[0].endswith(f"iteration{k}/Parameter_12:0"))]
            mod = archive[next(r[4] for r in body if r[0].endswith(f"iteration{k}/Mod_15:0"))]
            safe = b != 0  # (Mod by zero: the value the CPU plugin gives, tested elsewhere)
            np.testing.assert_array_equal(mod[safe], np.fmod(a[safe], b[safe]))
