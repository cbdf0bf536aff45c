"""``segview warmup``: summary, JSON, CSV, LaTeX and HTML report on the real JVM/PyPy fixtures;
they agree with each other; bad input named, the rest produced; exit codes like ``detect``."""
from __future__ import annotations

import csv
import json
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pytest

from segview.cli.main import main

DATA = Path(__file__).resolve().parents[1] / "data" / "harness" / "warmup_stats"
FIXTURES = [str(DATA / "hotspot_nbody.csv"), str(DATA / "pypy_nbody.csv")]


class SummaryTable(HTMLParser):
    """Rows of the report's ``<table id="summary">``: per row {data-key: data-value or text}."""

    def __init__(self):
        super().__init__()
        self.rows, self._in, self._key, self._row = [], False, None, None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "table" and a.get("id") == "summary":
            self._in = True
        elif self._in and tag == "tr" and "data-benchmark" in a:
            self._row = {"benchmark": a["data-benchmark"]}
            self.rows.append(self._row)
        elif self._in and tag == "td" and self._row is not None:
            self._key = a.get("data-key")
            if "data-value" in a:
                self._row[self._key] = a["data-value"]
                self._key = None

    def handle_endtag(self, tag):
        if tag == "table" and self._in:
            self._in = False
        if tag == "td":
            self._key = None

    def handle_data(self, data):
        if self._key and self._key not in self._row:
            self._row[self._key] = data


@pytest.fixture(scope="module")
def outputs(tmp_path_factory):
    out = tmp_path_factory.mktemp("warmup")
    paths = {k: out / f"o.{ext}" for k, ext in
             (("json", "json"), ("csv", "csv"), ("latex", "tex"), ("report", "html"))}
    argv = ["warmup", *FIXTURES, "--seed", "7"]
    for k, p in paths.items():
        argv += [f"--{k}", str(p)]
    rc = main(argv)
    return rc, paths


def test_exit_zero_and_every_output_written(outputs):
    rc, paths = outputs
    assert rc == 0
    assert all(p.is_file() and p.stat().st_size for p in paths.values())


def test_json_has_issue_27_fields(outputs):
    doc = json.loads(outputs[1]["json"].read_text())
    names = [b["name"] for b in doc["benchmarks"]]
    assert names == ["nbody-hotspot", "nbody-pypy"]
    for b in doc["benchmarks"]:
        assert {"name", "classification", "steady_iteration", "steady_performance",
                "executions"} <= set(b)
        assert len(b["executions"]) == 5                      # the fixture's 5 processes
        for e in b["executions"]:
            assert {"index", "classification", "changepoints", "outliers",
                    "segment_means"} <= set(e)
            assert all(0 <= c < 200 for c in e["changepoints"])   # 0-based, 200 iterations
            assert len(e["segment_means"]) == len(e["changepoints"]) + 1


def test_report_json_and_csv_agree_on_the_real_fixtures(outputs):
    paths = outputs[1]
    doc = {b["name"]: b for b in json.loads(paths["json"].read_text())["benchmarks"]}
    with open(paths["csv"], newline="") as fh:
        rows = {r["benchmark"]: r for r in csv.DictReader(fh)}
    parser = SummaryTable()
    parser.feed(paths["report"].read_text())
    html = {r["benchmark"]: r for r in parser.rows}
    assert set(doc) == set(rows) == set(html)
    for name, b in doc.items():
        c, h = rows[name], html[name]
        assert b["classification"] == c["classification"] == h["classification"]
        for k in ("flat", "warmup", "slowdown"):
            assert int(c[k]) == b["counts"][k]
        assert int(c["no_steady_state"]) == b["counts"]["no steady state"]
        assert h["counts"] == f"{len(b['executions'])}/{len(b['executions'])}"
        it, perf = b["steady_iteration"], b["steady_performance"]
        expected = {"steady_state_iteration": it["median"],
                    "steady_state_iteration_q1": it["iqr"][0],
                    "steady_state_iteration_q3": it["iqr"][1],
                    "steady_state_time_to_reach_secs": b["time_to_steady"]["median"],
                    "steady_perf_mean": perf["mean"], "steady_perf_ci_low": perf["ci"][0],
                    "steady_perf_ci_high": perf["ci"][1]}
        for key, value in expected.items():
            assert float(c[key]) == value, key                     # CSV: full precision
            assert float(h[key]) == value, key                     # HTML: data-value
        assert float(c["steady_perf_median"]) == perf["median"]
        assert float(c["steady_state_time"]) == perf["warmup_stats"]["median"]
        assert float(c["steady_state_time_ci"]) == perf["warmup_stats"]["ci"]


def test_fixture_classes_follow_the_per_execution_rule(outputs):
    """The benchmark verdict in the outputs follows summary_statistics.py's rule applied to the
    per-execution classes written next to it."""
    doc = json.loads(outputs[1]["json"].read_text())
    for b in doc["benchmarks"]:
        classes = {e["classification"] for e in b["executions"]}
        if len(classes) == 1:
            assert b["classification"] == classes.pop()
        elif classes == {"flat", "warmup"}:
            assert b["classification"] == "good inconsistent"
        else:
            assert b["classification"] == "bad inconsistent"


def test_report_is_self_contained_with_small_multiples(outputs):
    text = outputs[1]["report"].read_text()
    assert text.startswith("<!DOCTYPE html>")
    for banned in ("<script", "src=", "href=\"http", "@import", "url("):
        assert banned not in text
    doc = json.loads(outputs[1]["json"].read_text())
    n_exec = sum(len(b["executions"]) for b in doc["benchmarks"])
    assert text.count('<svg class="exec"') == n_exec
    n_cps = sum(len(e["changepoints"]) for b in doc["benchmarks"] for e in b["executions"])
    assert text.count('class="cp"') == n_cps
    n_out = sum(len(e["outliers"]) for b in doc["benchmarks"] for e in b["executions"])
    assert text.count('class="outlier"') == n_out
    n_steady = sum(1 for b in doc["benchmarks"] for e in b["executions"]
                   if e["steady_iteration"] is not None)
    assert text.count('class="steady"') == n_steady


def test_latex_table_structure(outputs):
    tex = outputs[1]["latex"].read_text()
    assert tex.count("\\begin{document}") == 1 and tex.rstrip().endswith("\\end{document}")
    assert tex.count("\\begin{longtable}") == tex.count("\\end{longtable}") == 1
    body = tex.split("\\endhead", 1)[1].split("\\end{longtable}", 1)[0]
    rows = [line for line in body.splitlines() if line.endswith("\\\\")]
    assert [r.split(" & ")[0] for r in rows] == ["nbody-hotspot", "nbody-pypy"]
    assert "\\goodinconsistent" in rows[0] and "\\warmup" in rows[1]
    assert all(r.count(" & ") == 5 for r in rows)
    assert tex.count("{") == tex.count("}")


@pytest.mark.skipif(shutil.which("pdflatex") is None, reason="pdflatex not installed")
def test_latex_compiles(outputs, tmp_path):
    tex = outputs[1]["latex"]
    shutil.copy(tex, tmp_path / "t.tex")
    r = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "t.tex"],
                       cwd=tmp_path, capture_output=True, text=True, timeout=120, check=False)
    assert r.returncode == 0, r.stdout[-2000:]
    assert (tmp_path / "t.pdf").stat().st_size > 0


def test_latex_escapes_names():
    from segview.core.warmup.report import tex_escape
    assert tex_escape("a_b&c%d#e$f{g}") == r"a\_b\&c\%d\#e\$f\{g\}"


def test_summary_on_stdout(capsys):
    assert main(["warmup", *FIXTURES, "--resamples", "500"]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert lines[0].split()[:3] == ["benchmark", "sym", "class"]
    assert lines[1].startswith("nbody-hotspot") and "good inconsistent" in lines[1]
    assert lines[2].startswith("nbody-pypy") and "5 warmup" in lines[2]


def _fork_list(path, forks):
    path.write_text(json.dumps([[float(v) for v in f] for f in forks]))


def test_bad_input_named_and_rest_produced(tmp_path, capsys):
    rng = np.random.default_rng(1)
    d = tmp_path / "in"
    d.mkdir()
    _fork_list(d / "difflen.json", [1 + 0.01 * rng.standard_normal(60),
                                    1 + 0.01 * rng.standard_normal(80)])
    _fork_list(d / "one.json", [1 + 0.01 * rng.standard_normal(60)])
    _fork_list(d / "equal.json", [np.ones(60), np.ones(60)])
    rows = ["process_exec_idx,bench_name," + ",".join(str(i) for i in range(40))]
    rows += [f"{k},crashy," + ",".join(f"{v:.6f}" for v in 0.01 + 1e-4 * rng.standard_normal(40))
             for k in range(2)]
    rows.append("2,crashy" + "," * 40)                      # a crashed process: empty row
    (d / "ws.csv").write_text("\n".join(rows) + "\n")
    out = tmp_path / "o.json"
    rc = main(["warmup", str(d), "--json", str(out), "--resamples", "200"])
    err = capsys.readouterr().err
    assert rc == 1                                          # the crashed execution failed
    assert "crashed" in err and "'crashy'" in err
    assert "executions of different lengths" in err and "'difflen'" in err
    assert "one execution only" in err and "'one'" in err
    doc = {b["name"]: b for b in json.loads(out.read_text())["benchmarks"]}
    assert set(doc) == {"difflen", "one", "equal", "crashy"}
    assert doc["equal"]["classification"] == "flat"          # all-equal values: flat
    assert len(doc["crashy"]["executions"]) == 2
    assert any("crashed" in w for w in doc["crashy"]["warnings"])


def test_mixed_units_named(tmp_path, capsys):
    rng = np.random.default_rng(2)

    def jmh(unit, mode, m):
        return {"benchmark": "org.B.mixed", "mode": mode, "params": {},
                "primaryMetric": {"scoreUnit": unit, "rawData": [
                    list(m + 0.01 * m * rng.standard_normal(40)) for _ in range(2)]}}

    (tmp_path / "a.json").write_text(json.dumps([jmh("us/op", "avgt", 5.0)]))
    (tmp_path / "b.json").write_text(json.dumps([jmh("ops/s", "thrpt", 2e5)]))
    rc = main(["warmup", str(tmp_path), "--resamples", "200"])
    err = capsys.readouterr().err
    assert rc == 0
    assert "different units" in err and "org.B.mixed" in err


def test_existing_output_needs_force_and_nothing_is_written(tmp_path, capsys):
    js, html = tmp_path / "o.json", tmp_path / "o.html"
    js.write_text("keep")
    assert main(["warmup", FIXTURES[1], "--json", str(js), "--report", str(html)]) == 2
    assert "--force" in capsys.readouterr().err
    assert js.read_text() == "keep" and not html.exists()
    assert main(["warmup", FIXTURES[1], "--json", str(js), "--force", "--resamples", "200",
                 "-q"]) == 0
    assert json.loads(js.read_text())["benchmarks"][0]["name"] == "nbody-pypy"


def test_usage_errors_exit_two(tmp_path, capsys):
    assert main(["warmup", FIXTURES[1], "--method", "no_such_method"]) == 2
    assert main(["warmup", FIXTURES[1], "--confidence", "2"]) == 2
    assert main(["warmup", FIXTURES[1], "--json", str(tmp_path / "nope" / "o.json")]) == 2
    assert main(["warmup", FIXTURES[1], "--delta-percent"]) == 2
    err = capsys.readouterr().err
    assert "no_such_method" in err and "--confidence" in err and "nope" in err


def test_missing_file_is_an_input_error_like_detect(tmp_path, capsys):
    rc = main(["warmup", FIXTURES[1], str(tmp_path / "missing.csv"), "--resamples", "200", "-q"])
    assert rc == 2
    assert "missing.csv" in capsys.readouterr().err


def test_delta_and_seed_reach_the_analysis(tmp_path):
    out = tmp_path / "o.json"
    assert main(["warmup", FIXTURES[1], "--delta", "0.00005", "--seed", "3", "--json", str(out),
                 "--resamples", "300", "-q"]) == 0
    b = json.loads(out.read_text())["benchmarks"][0]
    assert b["params"]["delta"] == 0.00005 and b["params"]["seed"] == 3


def test_report_escapes_names_and_warnings():
    """A benchmark name is data, never markup, in the HTML and the LaTeX."""
    from segview.core.benchmark import execution, group
    from segview.core.warmup import analyse_benchmark
    from segview.core.warmup.report import format_latex, render_html, summary_rows

    rng = np.random.default_rng(4)
    name = "<script>alert(1)</script>&_%"
    b = group([execution(1 + 0.01 * rng.standard_normal(40), benchmark=name, index=i,
                         harness="t", unit="s") for i in range(2)])
    r = [analyse_benchmark(b[0], resamples=100, ws_resamples=0)]
    page = render_html(r, b)
    assert "<script>" not in page and "&lt;script&gt;alert(1)&lt;/script&gt;&amp;_%" in page
    tex = format_latex(summary_rows(r))
    assert "\\&\\_\\%" in tex and "<script>" in tex     # LaTeX has no markup to fear
