"""Issue 30, item 4: crafted export manifests.

``metadata.json`` is input: a malformed one is a DataFormatError naming the manifest and the place
in it (never a traceback); every file it names stays inside the export folder (absolute paths,
``..`` and symbolic links out are refused, and a ``file_hashes`` entry outside is never opened nor
stat-ed, so its existence is not revealed); one bad export inside a folder is one entry of
``Dataset.problems`` and everything beside it loads. Through the library, ``segview detect`` and
``segview session import``.
"""
from __future__ import annotations

import builtins
import io
import json
import os
from pathlib import Path

import numpy as np
import pytest

import segview
from segview.cli.main import main
from segview.core import export as ex
from segview.core.annotation.session import AnnotationSession
from segview.core.annotation.store import Store
from segview.core.errors import DataFormatError


def _session(tmp: Path, name: str = "s") -> AnnotationSession:
    rng = np.random.default_rng(7)
    series = [segview.Series(rng.normal(size=40), id=f"e{k}") for k in range(3)]
    s = AnnotationSession.create(Store(tmp / f"{name}.sqlite"), name, series)
    j = s.judge("ann", create=True)
    for k, x in enumerate(series):
        s.record(j, x.id, steady=True, onset=5 + k)
    return s


@pytest.fixture
def export(tmp_path) -> Path:
    return ex.export_session(_session(tmp_path), tmp_path / "parent" / "exp", "csv")


@pytest.fixture
def outside(tmp_path) -> Path:
    """A readable series file outside every export folder (the 'secret')."""
    p = tmp_path / "secret" / "shadow.csv"
    p.parent.mkdir()
    p.write_text("series_id,index,value\ne0,0,1.0\n")
    return p


def _edit(folder: Path, change) -> None:
    path = folder / "metadata.json"
    meta = json.loads(path.read_text())
    change(meta)
    path.write_text(json.dumps(meta))


class _Touches:
    """Records every path opened or stat-ed (os.stat, os.lstat, open) while active."""

    def __init__(self, monkeypatch) -> None:
        self.paths: list[str] = []
        for mod, name in ((os, "stat"), (os, "lstat"), (builtins, "open"), (io, "open")):
            real = getattr(mod, name)

            def spy(path, *a, _real=real, **kw):
                self.paths.append(os.fsdecode(path) if isinstance(path, (str, bytes, os.PathLike))
                                  else str(path))
                return _real(path, *a, **kw)
            monkeypatch.setattr(mod, name, spy)

    def of(self, target: Path) -> list[str]:
        return [p for p in self.paths if target.name in p or str(target.parent) in p]


# ------------------------------------------------------------------ paths out of the folder

@pytest.mark.parametrize("how", ["absolute", "dotdot", "dotdot-inside", "backslash"])
def test_an_item_file_outside_the_folder_is_refused_unread(export, outside, monkeypatch, how):
    rel = {"absolute": str(outside), "dotdot": "../../secret/shadow.csv",
           "dotdot-inside": "sub/../../../secret/shadow.csv",
           "backslash": "..\\..\\secret\\shadow.csv"}[how]
    _edit(export, lambda m: m["items"][0].update(file=rel))
    touched = _Touches(monkeypatch)
    with pytest.raises(DataFormatError) as info:
        ex.read_export(export)
    monkeypatch.undo()
    assert info.value.source.endswith("metadata.json") and info.value.where == "items[0].file"
    assert "inside its folder" in str(info.value)
    assert touched.of(outside) == [], "the outside file was opened or stat-ed"


def test_a_file_hashes_entry_outside_is_never_touched_and_reveals_nothing(export, outside,
                                                                          monkeypatch):
    messages = []
    for target in (outside, outside.with_name("missing.csv")):
        _edit(export, lambda m, t=target: m["file_hashes"].update({str(t): "0" * 64}))
        touched = _Touches(monkeypatch)
        with pytest.raises(DataFormatError) as info:
            ex.read_export(export)
        monkeypatch.undo()
        assert touched.of(target) == [], f"{target} was opened or stat-ed"
        assert info.value.where == f"file_hashes[{str(target)!r}]"
        messages.append(str(info.value).replace(target.name, "NAME"))
        _edit(export, lambda m, t=target: m["file_hashes"].pop(str(t)))
    assert messages[0] == messages[1], "existing and missing outside files are told apart"


def test_a_symlink_out_of_the_folder_is_refused(export, outside):
    table = export / "series.csv"
    table.unlink()
    table.symlink_to(outside)
    with pytest.raises(DataFormatError, match="symbolic link out of the export folder"):
        ex.read_export(export)
    table.unlink()
    table.symlink_to(os.path.relpath(outside, export))  # relative: ../../secret/shadow.csv
    with pytest.raises(DataFormatError, match="leads out of the export folder"):
        ex.read_export(export)


def test_a_symlink_inside_the_folder_is_followed(export):
    (export / "data").mkdir()
    (export / "series.csv").rename(export / "data" / "real.csv")
    (export / "series.csv").symlink_to(Path("data") / "real.csv")
    back = ex.read_export(export)
    assert [s.id for s in back.series] == ["e0", "e1", "e2"]


# ------------------------------------------------------------------ schema

def _broken(text: str):
    return lambda folder: (folder / "metadata.json").write_text(text)


def _change(fn):
    return lambda folder: _edit(folder, fn)


CASES = {
    "broken JSON": (_broken('{"manifest": "segview labeled dataset", "items": ['), "line 1"),
    "not an object": (_broken('["segview labeled dataset"]'), None),
    "items missing": (_change(lambda m: m.pop("items")), "items"),
    "items not a list": (_change(lambda m: m.update(items={"a": 1})), "items"),
    "item not an object": (_change(lambda m: m["items"].__setitem__(1, "e1")), "items[1]"),
    "file missing": (_change(lambda m: m["items"][2].pop("file")), "items[2].file"),
    "file a number": (_change(lambda m: m["items"][0].update(file=5)), "items[0].file"),
    "file empty": (_change(lambda m: m["items"][0].update(file="")), "items[0].file"),
    "series_id missing": (_change(lambda m: m["items"][0].pop("series_id")), "items[0].series_id"),
    "series listed twice": (_change(lambda m: m["items"].append(m["items"][0])),
                            "items[3].series_id"),
    "content_hash null": (_change(lambda m: m["items"][0].update(content_hash=None)),
                          "items[0].content_hash"),
    "dims a string": (_change(lambda m: m["items"][0].update(dims="abc")), "items[0].dims"),
    "session missing": (_change(lambda m: m.pop("session")), "session"),
    "session a string": (_change(lambda m: m.update(session="s")), "session"),
    "protocol missing": (_change(lambda m: m["session"].pop("protocol")), "session.protocol"),
    "protocol unknown": (_change(lambda m: m["session"].update(protocol="x")), "session.protocol"),
    "format a number": (_change(lambda m: m.update(format=3)), "format"),
    "file_hashes a list": (_change(lambda m: m.update(file_hashes=["series.csv"])), "file_hashes"),
    "hash a number": (_change(lambda m: m["file_hashes"].update({"series.csv": 1})),
                      "file_hashes['series.csv']"),
    "judges an object": (_change(lambda m: m.update(judges={"ann": 1})), "judges"),
    "judge without name": (_change(lambda m: m["judges"][0].pop("name")), "judges[0].name"),
    "seed a string": (_change(lambda m: m["judges"][0].update(seed="x")), "judges[0].seed"),
}


@pytest.mark.parametrize("case", list(CASES))
def test_a_malformed_manifest_is_named_with_its_place(export, case):
    damage, where = CASES[case]
    damage(export)
    with pytest.raises(DataFormatError) as info:
        ex.read_export(export)
    assert info.value.source == str(export / "metadata.json"), str(info.value)
    if where:
        assert where in str(info.value)


@pytest.mark.parametrize("table, text", [
    ("judgments.csv", "series_id,role\ne0,judge\n"),
    ("labels.csv", "source\nx\n"),
])
def test_a_table_without_its_key_columns_is_a_named_error(export, table, text):
    (export / table).write_text(text)
    _edit(export, lambda m: m["file_hashes"].pop(table))
    with pytest.raises(DataFormatError) as info:
        ex.read_export(export)
    assert info.value.source == str(export / table) and info.value.where == "row 1"


# ------------------------------------------------------------------ folders and commands

def test_one_bad_export_in_a_folder_does_not_stop_the_rest(tmp_path, export):
    parent = export.parent
    good = ex.export_session(_session(tmp_path, "t"), parent / "good", "json")
    _edit(export, lambda m: m["items"][0].pop("file"))
    (parent / "loose.json").write_text(json.dumps([[1.0, 2.0, 3.0, 4.0]]))
    ds = segview.load(parent)
    assert sorted(s.id for s in ds) == ["e0", "e1", "e2", "loose"]
    assert [e.folder for e in ds.exports] == [good]
    assert len(ds.problems) == 1 and ds.problems[0].where == "items[0].file"
    with pytest.raises(DataFormatError, match="items"):  # named itself, it is the input
        segview.load(export)


def test_detect_reports_the_bad_export_and_processes_the_rest(tmp_path, export, capsys):
    _edit(export, lambda m: m.update(items="all"))
    (export.parent / "loose.json").write_text(json.dumps([[1.0, 2.0, 3.0, 4.0]]))
    out = tmp_path / "o.csv"
    assert main(["detect", str(export.parent), "-m", "zero", "-o", str(out)]) == 1
    err = capsys.readouterr().err
    assert "metadata.json (items)" in err and "Traceback" not in err
    assert [r.split(",")[0] for r in out.read_text().splitlines()[1:]] == ["loose"]
    assert main(["detect", str(export), "-m", "zero"]) == 2
    assert "metadata.json (items)" in capsys.readouterr().err


@pytest.mark.parametrize("damage, where", [
    (_broken("{"), "line 1"),
    (_change(lambda m: m.pop("session")), "session"),
    (_change(lambda m: m["items"][0].update(file="/etc/passwd")), "items[0].file"),
    (_change(lambda m: m["file_hashes"].update({"/etc/shadow": "0"})), "file_hashes"),
])
def test_session_import_of_a_crafted_export_is_refused(tmp_path, export, capsys, damage, where):
    db = tmp_path / "t.sqlite"
    _session(tmp_path, "t")  # the same series, in the session to import into
    damage(export)
    rc = main(["session", "import", "t", str(export), "--db", str(db)])
    err = capsys.readouterr().err
    assert rc == 2 and "Traceback" not in err, err
    assert "metadata.json" in err and where in err


def test_a_manifest_key_given_twice_is_refused_naming_it(export):
    # JSON leaves a repeated key undefined and Python keeps the last one: an export whose manifest
    # names "items" twice could be read with either list, so it is refused, naming the key
    path = export / "metadata.json"
    text = path.read_text(encoding="utf-8").rstrip()
    assert text.endswith("}")
    path.write_text(text[:-1] + ', "items": []}', encoding="utf-8")
    with pytest.raises(DataFormatError, match="'items' appears twice"):
        segview.load(export)
