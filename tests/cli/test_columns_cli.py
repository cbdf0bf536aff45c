"""``--columns`` on the commands that load series: read through the mapping, remembered per folder,
and a later run without it says on stderr that it used the remembered one."""
import csv
import io

import pytest

from segview.cli.main import build_parser, main
from segview.core.io import columns as cols
from tests.fakes import FAKE_ONSET, registered

TABLE = """name,proc,i,t_ns
fib,0,0,9
fib,0,1,1
fib,0,2,1
fib,0,3,1
fib,1,0,8
fib,1,1,1
fib,1,2,1
"""
SPEC = "bench=name,exec=proc,iter=i,value=t_ns"


@pytest.fixture
def config(tmp_path, monkeypatch):
    monkeypatch.setenv("SEGVIEW_CONFIG_DIR", str(tmp_path / "config"))
    return tmp_path / "config"


@pytest.fixture
def table(tmp_path):
    folder = tmp_path / "results"
    folder.mkdir()
    path = folder / "run1.csv"
    path.write_text(TABLE)
    return path


def ids(out):
    return [r["series_id"] for r in csv.DictReader(io.StringIO(out))]


def test_detect_with_columns_reads_executions_and_remembers(config, table, capsys):
    with registered(FAKE_ONSET):
        rc = main(["detect", str(table), "-m", "fake_onset", "--columns", SPEC])
    out, err = capsys.readouterr()
    assert rc == 0
    procs = sorted({r[1] for r in list(csv.reader(io.StringIO(TABLE)))[1:]})
    assert ids(out) == [f"fib/exec{k}" for k in range(len(procs))]
    assert "remembered for" in err
    assert cols.remembered_mapping(table, config_dir=config) == cols.parse_columns(SPEC)


def test_later_run_without_columns_uses_the_remembered_mapping_and_says_so(config, table, capsys):
    with registered(FAKE_ONSET):
        assert main(["detect", str(table), "-m", "fake_onset", "--columns", SPEC]) == 0
        capsys.readouterr()
        other = table.parent / "run2.csv"
        other.write_text(TABLE.replace("fib", "sort"))
        rc = main(["detect", str(other), "-m", "fake_onset"])
    out, err = capsys.readouterr()
    assert rc == 0
    assert ids(out) == ["sort/exec0", "sort/exec1"]
    assert f"{other}: read with the column mapping remembered for its folder ({SPEC})" in err


def test_without_a_remembered_mapping_the_table_fails_as_before(config, table, capsys):
    with registered(FAKE_ONSET):
        rc = main(["detect", str(table), "-m", "fake_onset"])
    assert rc == 2 and "'fib' is not a number" in capsys.readouterr().err


def test_unknown_key_and_missing_column_are_named_errors(config, table, capsys):
    with registered(FAKE_ONSET):
        rc = main(["detect", str(table), "-m", "fake_onset", "--columns", "bench=name,col=x,value=t"])
    assert rc == 2 and "unknown key 'col'" in capsys.readouterr().err
    with registered(FAKE_ONSET):
        rc = main(["detect", str(table), "-m", "fake_onset", "--columns", "bench=name,value=nope"])
    err = capsys.readouterr().err
    assert rc == 2 and f"{table} (line 1): no column 'nope'" in err
    assert cols.remembered_mapping(table, config_dir=config) is None  # a failed load remembers nothing


def test_bad_value_names_file_line_and_column(config, table, capsys):
    table.write_text(TABLE + "fib,1,3,oops\n")
    with registered(FAKE_ONSET):
        rc = main(["detect", str(table), "-m", "fake_onset", "--columns", SPEC])
    assert rc == 2
    assert f"{table} (line 9, column 't_ns'): 'oops' is not a number" in capsys.readouterr().err


def test_folder_with_columns_keeps_other_files(config, table, capsys):
    (table.parent / "plain.json").write_text("[[1, 2, 3, 4, 5]]")
    with registered(FAKE_ONSET):
        rc = main(["detect", str(table.parent), "-m", "fake_onset", "--columns", SPEC])
    out = capsys.readouterr().out
    assert rc == 0 and sorted(ids(out)) == ["fib/exec0", "fib/exec1", "plain"]


@pytest.mark.parametrize("command", [["detect"], ["evaluate"], ["sensitivity"], ["tune"], ["gui"],
                                     ["annotate"],
                                     ["session", "create"]])
def test_every_loading_command_has_the_option(command):
    parser = build_parser(only=command[0])
    sub = next(a for a in parser._actions if a.dest == "command").choices[command[0]]
    if len(command) > 1:
        sub = next(a for a in sub._actions if a.dest == "session_command").choices[command[1]]
    assert "--columns" in {o for a in sub._actions for o in a.option_strings}


def test_mapping_that_reads_no_table_is_not_remembered(config, tmp_path, capsys):
    (tmp_path / "a.json").write_text("[[1, 2, 3, 4, 5]]")
    with registered(FAKE_ONSET):
        rc = main(["detect", str(tmp_path), "-m", "fake_onset", "--columns", SPEC])
    assert rc == 0 and "no table was read with the column mapping" in capsys.readouterr().err
    assert cols.remembered_mapping(tmp_path, config_dir=config) is None


def test_gui_and_annotate_remember_the_mapping_for_the_window(config, table, capsys,
                                                              monkeypatch):
    from segview.cli import loading

    parser = build_parser(only="gui")
    args = parser.parse_args(["gui", str(table.parent), "--columns", SPEC])
    loading.remember_columns(args, args.paths)
    assert cols.remembered_mapping(table, config_dir=config) == cols.parse_columns(SPEC)
    assert "remembered for" in capsys.readouterr().err
    args = build_parser(only="annotate").parse_args(["annotate", str(table), "--columns",
                                                     "bench=name,value=nope"])
    with pytest.raises(Exception, match="no column 'nope'"):
        loading.remember_columns(args, args.paths)
