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
