"""Registration of the readers that ship with segview (imported by ``readers.all_readers``)."""
from __future__ import annotations

from . import csv_series, extrap_text, jmh_json, jmh_log, tcpd_json
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
