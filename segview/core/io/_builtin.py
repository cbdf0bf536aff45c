"""Registration of the readers that ship with segview (imported by ``readers.all_readers``)."""
from __future__ import annotations

from . import (benchmarkdotnet, csv_series, extrap_text, jmh_json, jmh_log, krun_json, renaissance,
               tcpd_json, warmup_stats_csv)
from .readers import Reader, register_reader

register_reader(Reader("jmh", "JMH fork list / JMH results (*.json)", (".json",), jmh_json.sniff,
                       jmh_json.read, priority=10))
register_reader(Reader("csv", "CSV, wide or long (*.csv *.tsv *.txt)", (".csv", ".tsv"),
                       csv_series.sniff, csv_series.read))
register_reader(Reader("extrap", "Extra-P text experiment (*.txt)", (".txt",), extrap_text.sniff,
                       extrap_text.read, priority=5))
register_reader(Reader("tcpd", "TCPD (*.json)", (".json",), tcpd_json.sniff, tcpd_json.read,
                       options=("fill_missing",)))
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
