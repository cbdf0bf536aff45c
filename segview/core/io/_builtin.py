"""Registration of the readers that ship with segview (imported by ``readers.all_readers``)."""
from __future__ import annotations

from . import csv_series, extrap_text, jmh_json, tcpd_json
from .readers import Reader, register_reader

register_reader(Reader("jmh", "JMH fork list / JMH results (*.json)", (".json",), jmh_json.sniff,
                       jmh_json.read, priority=10))
register_reader(Reader("csv", "CSV, wide or long (*.csv *.tsv *.txt)", (".csv", ".tsv"),
                       csv_series.sniff, csv_series.read))
register_reader(Reader("extrap", "Extra-P text experiment (*.txt)", (".txt",), extrap_text.sniff,
                       extrap_text.read, priority=5))
register_reader(Reader("tcpd", "TCPD (*.json)", (".json",), tcpd_json.sniff, tcpd_json.read,
                       options=("fill_missing",)))

# Benchmark harnesses (issue 26). Detected by content; priorities above jmh (10) so a specific
# sniff wins over the generic JSON/CSV readers.
from . import criterion_rs, gbench, hyperfine_json, pyperf_json, pytest_benchmark_json  # noqa: E402


def _harness(*args, **kwargs) -> Reader:  # type: ignore[no-untyped-def]
    """A harness reader: found by its specific sniff only, never the fallback for its extension."""
    return Reader(*args, fallback=False, **kwargs)


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
