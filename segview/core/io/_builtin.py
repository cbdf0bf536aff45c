"""Registration of the readers that ship with segview (imported by ``readers.all_readers``)."""
from __future__ import annotations

from . import csv_series, extrap_text, jmh_json, tcpd_json
from .readers import Reader, register_reader

register_reader(Reader("jmh", "JMH fork list / JMH results (*.json)", (".json",), jmh_json.sniff,
                       jmh_json.read, priority=10, harness="jmh",
                       checked="JMH 1.37 -rf json (primaryMetric.rawData); fork lists of the "
                               "steady-state studies",
                       example='[[1.52, 1.49, 1.47], [1.61, 1.50, 1.48]]\n'
                               'or, JMH -rf json:\n'
                               '[{"jmhVersion": "1.37", "benchmark": "org.sample.Fib.run",\n'
                               '  "mode": "avgt", "forks": 2, "params": {"n": "20"},\n'
                               '  "primaryMetric": {"score": 1.21, "scoreUnit": "ns/op",\n'
                               '    "rawData": [[1.22, 1.20, 1.21], [1.21, 1.22, 1.20]]}}]'))
register_reader(Reader("csv", "CSV, wide or long (*.csv *.tsv *.txt)", (".csv", ".tsv"),
                       csv_series.sniff, csv_series.read,
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
