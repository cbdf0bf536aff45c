"""Makes tests/data/harness/influx/iterations.lp with the real InfluxDB Python client.

Run with a Python that has influxdb-client (``pip install influxdb-client``), from the repository
root. A timing loop of two tiny benchmarks writes one point per iteration with
``Point.to_line_protocol()`` (nanosecond timestamps): an integer field, a float field, and a
string and a boolean field that are not measurements; one tag value holds a space (escaped).
"""
import time

from influxdb_client import Point, WritePrecision

work = {"fib": lambda: sum(range(20000)), "sort list": lambda: sorted(range(30000, 0, -1))}
lines = []
for i in range(10):
    for name, fn in work.items():
        t = time.perf_counter_ns()
        fn()
        dt = time.perf_counter_ns() - t
        p = (Point("bench_iteration").tag("benchmark", name).tag("host", "debian")
             .field("duration_ns", dt).field("ops_per_s", round(1e9 / dt, 3))
             .field("phase", "warmup" if i < 2 else "measure").field("ok", True)
             .time(time.time_ns(), WritePrecision.NS))
        lines.append(p.to_line_protocol())
with open("tests/data/harness/influx/iterations.lp", "w") as out:
    out.write("\n".join(lines) + "\n")
