"""Registration of the readers that ship with segview (imported by ``readers.all_readers``)."""
from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..model import Series
from . import (benchmarkdotnet, csv_series, extrap_text, jmh_json, jmh_log, krun_json, renaissance,
               tcpd_json, warmup_stats_csv)
from .readers import Reader, register_reader

register_reader(Reader("jmh", "JMH fork list / JMH results (*.json)", (".json",), jmh_json.sniff,
                       jmh_json.read, priority=10, options=("ctx",), harness="jmh",
                       checked="JMH 1.37 -rf json (primaryMetric.rawData); fork lists of the "
                               "steady-state studies",
                       example='[[1.52, 1.49, 1.47], [1.61, 1.50, 1.48]]\n'
                               'or, JMH -rf json:\n'
                               '[{"jmhVersion": "1.37", "benchmark": "org.sample.Fib.run",\n'
                               '  "mode": "avgt", "forks": 2, "params": {"n": "20"},\n'
                               '  "primaryMetric": {"score": 1.21, "scoreUnit": "ns/op",\n'
                               '    "rawData": [[1.22, 1.20, 1.21], [1.21, 1.22, 1.20]]}}]'))
register_reader(Reader("csv", "CSV, wide or long (*.csv *.tsv *.txt)", (".csv", ".tsv"),
                       csv_series.sniff, csv_series.read, options=("ctx",),
                       checked="segview's CSV layouts (wide: a column per series; long: "
                               "series_id,index,value)",
                       example="x,fib,sort\n1,1.52,0.81\n2,1.49,0.80\n3,1.47,0.80"))
register_reader(Reader("extrap", "Extra-P text experiment (*.txt)", (".txt",), extrap_text.sniff,
                       extrap_text.read, priority=5, harness="extra-p",
                       checked="Extra-P 4.2.5 text input format",
                       example="PARAMETER p\nPOINTS (2) (4) (8)\nREGION main\nMETRIC time\n"
                               "DATA 1.1 1.0 1.2\nDATA 2.1 2.0 2.2\nDATA 4.1 4.0 4.2"))
register_reader(Reader("tcpd", "TCPD (*.json)", (".json",), tcpd_json.sniff, tcpd_json.read,
                       options=("fill_missing",), harness="tcpd",
                       checked="Turing Change Point Dataset (TCPD) dataset files",
                       example='{"name": "bank", "longname": "Bank", "n_obs": 3, "n_dim": 1,\n'
                               ' "time": {"index": [0, 1, 2]},\n'
                               ' "series": [{"label": "V1", "type": "float", '
                               '"raw": [1.0, 1.2, 0.9]}]}'))
register_reader(Reader(
    "jmh-log", "JMH console output / -o log (*.log *.out *.txt)", (".log", ".out", ".txt"),
    jmh_log.sniff, jmh_log.read, priority=4, harness="jmh",
    example=("# Benchmark: org.sample.Fib.run\n# Parameters: (n = 20)\n# Fork: 1 of 2\n"
             "# Warmup Iteration   1: 1523.417 ns/op\nIteration   1: 1498.221 ns/op"),
    checked="JMH 1.37 (TextReportFormat of openjdk/jmh 1.38-SNAPSHOT)"))
register_reader(Reader(
    "krun", "Krun results (*.json.bz2)", (".bz2",), krun_json.sniff, krun_json.read, priority=20,
    harness="krun",
    example=('{"audit": {"uname": "Linux ..."}, "config": "...",\n "pexec_flags": '
             '{"nbody:PyPy:default-python": ["C", "C"]},\n "wallclock_times": '
             '{"nbody:PyPy:default-python": [[0.0123, 0.0021, ...], [0.0119, ...]]}}'),
    checked="Krun a0c8e5b (2021), warmup_stats 41212e0"))
register_reader(Reader(
    "warmup-stats", "warmup_stats CSV (*.csv)", (".csv",), warmup_stats_csv.sniff,
    warmup_stats_csv.read, priority=5, harness="warmup_stats",
    example="process_exec_idx,bench_name,0,1,2\n0,nbody-pypy,0.0123,0.0021,0.0020\n"
            "1,nbody-pypy,0.0119,0.0023,0.0020",
    checked="warmup_stats 41212e0 (README 'CSV format')"))
register_reader(Reader(
    "renaissance-json", "Renaissance --json results (*.json)", (".json",), renaissance.sniff_json,
    renaissance.read_json_results, priority=20, harness="renaissance",
    example=('{"format_version": 6, "benchmarks": ["scrabble"], "environment": {...},\n "data": '
             '{"scrabble": {"results": [{"duration_ns": 178413937, "uptime_ns": 1043126473}],\n'
             '  "termination": "normal"}}}'),
    checked="Renaissance 0.16.1 (format_version 5) and main 76d0733 (format_version 6)"))
register_reader(Reader(
    "renaissance-csv", "Renaissance --csv results (*.csv)", (".csv",), renaissance.sniff_csv,
    renaissance.read_csv_results, priority=6, harness="renaissance",
    example="benchmark,duration_ns,uptime_ns,vm_start_unix_ms,vm_start_ns\n"
            "scrabble,178413937,1043126473,1718000000000,29118200",
    checked="Renaissance 0.16.1 and main 76d0733"))
register_reader(Reader(
    "bdn-json", "BenchmarkDotNet full JSON export (*.json)", (".json",), benchmarkdotnet.sniff_json,
    benchmarkdotnet.read_json_export, priority=20, harness="benchmarkdotnet",
    example=('{"Title": "...", "HostEnvironmentInfo": {"BenchmarkDotNetVersion": "0.15.8"},\n '
             '"Benchmarks": [{"Type": "IntroBasic", "Method": "Sleep", "Measurements": [\n  '
             '{"IterationMode": "Workload", "IterationStage": "Actual", "LaunchIndex": 1,\n   '
             '"IterationIndex": 1, "Operations": 16, "Nanoseconds": 1601234.5}]}]}'),
    checked="BenchmarkDotNet 0.15.8 (and the 0.10 layout)"))
register_reader(Reader(
    "bdn-csv", "BenchmarkDotNet measurements CSV (*-measurements.csv)", (".csv",),
    benchmarkdotnet.sniff_csv, benchmarkdotnet.read_csv_export, priority=7,
    harness="benchmarkdotnet",
    example=("Target,Target_Namespace,...,Params,Measurement_LaunchIndex,Measurement_IterationMode,"
             "Measurement_IterationStage,Measurement_IterationIndex,Measurement_Nanoseconds,"
             "Measurement_Operations,Measurement_Value\nIntroBasic.Sleep,...,1,Workload,Actual,1,"
             "160123456.7,16,10007716.04"),
    checked="BenchmarkDotNet 0.15.8"))

# Benchmark harnesses (issue 26). Detected by content; priorities above jmh (10) so a specific
# sniff wins over the generic JSON/CSV readers.
from . import criterion_rs, gbench, hyperfine_json, pyperf_json, pytest_benchmark_json  # noqa: E402


def _harness(name: str, label: str, extensions: tuple[str, ...], sniff: Callable[[str], bool],
             read: Callable[[Path], list[Series]], **kwargs: Any) -> Reader:
    """A harness reader: found by its specific sniff only, never the fallback for its extension."""
    return Reader(name, label, extensions, sniff, read, fallback=False, **kwargs)


register_reader(_harness(
    "pyperf", "pyperf results (*.json *.json.gz)", (".json", ".gz"), pyperf_json.sniff,
    pyperf_json.read, priority=20, harness="pyperf", checked="pyperf 2.11.0 (format 1.0)",
    example='{"benchmarks":[{"runs":[{"metadata":{"date":"2026-11-26 13:53:03"},\n'
            '  "values":[1.479e-06,1.754e-05,1.560e-06],"warmups":[[1000,1.357e-06]]}, ...]}],\n'
            ' "metadata":{"loops":1000,"name":"timeit","unit":"second"},"version":"1.0"}'))
register_reader(_harness(
    "pytest-benchmark", "pytest-benchmark --benchmark-json (*.json)", (".json",),
    pytest_benchmark_json.sniff, pytest_benchmark_json.read, priority=20,
    harness="pytest-benchmark", checked="pytest-benchmark 5.3.1",
    example='{"machine_info": {"node": "vm", ...}, "commit_info": {...},\n'
            ' "benchmarks": [{"name": "test_sum", "fullname": "test_tiny.py::test_sum",\n'
            '   "params": null, "stats": {"rounds": 8, "iterations": 10,\n'
            '   "data": [1.786e-06, 1.757e-06, 4.683e-06, ...]}}], "version": "5.3.1"}'))
register_reader(_harness(
    "hyperfine", "hyperfine --export-json (*.json)", (".json",), hyperfine_json.sniff,
    hyperfine_json.read, priority=20, harness="hyperfine", checked="hyperfine 1.15.0",
    example='{"results": [{"command": "sleep 0.001", "mean": 0.0057, "stddev": 0.0030,\n'
            '  "times": [0.01388, 0.00599, ...], "exit_codes": [0, 0, ...]}]}'))
register_reader(_harness(
    "hyperfine-csv", "hyperfine --export-csv summaries (*.csv; not loadable: use --export-json)",
    (".csv",), hyperfine_json.sniff_csv, hyperfine_json.read_csv, priority=20,
    harness="hyperfine", checked="hyperfine 1.15.0",
    example="command,mean,stddev,median,user,system,min,max\n"
            "true,0.00442,0.00440,0.00297,0.00084,0.0000389,0.000753,0.0164"))
register_reader(_harness(
    "gbench", "Google Benchmark JSON (*.json)", (".json",), gbench.sniff, gbench.read,
    priority=20, options=("time",), harness="gbench", checked="libbenchmark 1.7.1",
    example='{"context": {"host_name": "vm", "num_cpus": 2, ...},\n'
            ' "benchmarks": [{"name": "BM_Sum", "run_name": "BM_Sum", "run_type": "iteration",\n'
            '   "repetitions": 10, "repetition_index": 0, "threads": 1, "iterations": 174491,\n'
            '   "real_time": 252.79, "cpu_time": 79.43, "time_unit": "ns"}, ...]}'))
register_reader(_harness(
    "gbench-csv", "Google Benchmark CSV (*.csv)", (".csv",), gbench.sniff_csv, gbench.read_csv,
    priority=20, options=("time",), harness="gbench", checked="libbenchmark 1.7.1",
    example="name,iterations,real_time,cpu_time,time_unit,bytes_per_second,items_per_second,"
            "label,error_occurred,error_message\n"
            '"BM_Sum",184418,296.418,76.5495,ns,,,,,'))
register_reader(_harness(
    "criterion", "Criterion.rs sample.json (*.json)", (".json",), criterion_rs.sniff,
    criterion_rs.read, priority=20, harness="criterion", checked="criterion 0.3.6",
    example='{"sampling_mode":"Linear","iters":[11.0,22.0,33.0,...],\n'
            ' "times":[2517.0,4818.0,7171.0,...]}'))
register_reader(_harness(
    "criterion-csv", "Criterion.rs raw.csv (*.csv)", (".csv",), criterion_rs.sniff_csv,
    criterion_rs.read_csv, priority=20, harness="criterion", checked="criterion 0.3.6",
    example="group,function,value,throughput_num,throughput_type,sample_measured_value,unit,"
            "iteration_count\nsum,,10,,,2517.0,ns,11"))
register_reader(_harness(
    "criterion-summary", "Criterion.rs summaries (benchmark/estimates/tukey.json; skipped)",
    (".json",), criterion_rs.sniff_companion, criterion_rs.read_companion, priority=15,
    harness="criterion", checked="criterion 0.3.6",
    example='{"group_id":"sum","function_id":null,"value_str":"10","throughput":null,\n'
            ' "full_id":"sum/10","directory_name":"sum/10","title":"sum/10"}'))

# Tables and monitoring formats (issue 26): each sniffed by content, ahead of the generic CSV reader
# (priority 0) and Extra-P text (5) on the extensions they share.
from . import influx_line, perf_stat, perfherder_csv, prometheus_text  # noqa: E402

register_reader(Reader("perfherder", "Mozilla Perfherder data (*.csv)", (".csv",),
                       perfherder_csv.sniff, perfherder_csv.read, priority=3,
                       harness="perfherder", example=perfherder_csv.EXAMPLE,
                       checked="Treeherder REST API performance/data (treeherder dc3080dd, 2026-08)"))
register_reader(Reader("perf-stat", "perf stat -x, output (*.csv *.txt)", (".csv", ".txt"),
                       perf_stat.sniff, perf_stat.read, priority=6, harness="perf",
                       example=perf_stat.EXAMPLE, checked="perf 6.1.192"))
register_reader(Reader("prometheus", "Prometheus text exposition (*.prom *.txt *.metrics)",
                       (".prom", ".metrics", ".txt"), prometheus_text.sniff, prometheus_text.read,
                       priority=6, harness="prometheus", example=prometheus_text.EXAMPLE,
                       checked="text format 0.0.4 (prometheus_client 0.26.0)"))
register_reader(Reader("influx", "InfluxDB line protocol (*.lp *.line *.txt)",
                       (".lp", ".line", ".influx", ".txt"), influx_line.sniff, influx_line.read,
                       priority=6, harness="influx", example=influx_line.EXAMPLE,
                       checked="line protocol v2 (influxdb-client 1.50.0)"))
