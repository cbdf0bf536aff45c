"""Makes tests/data/harness/prometheus/scrapes.prom with the real Prometheus Python client.

Run with a Python that has prometheus_client (``pip install prometheus-client``), from the
repository root. A timing loop of two tiny benchmarks sets gauges, a summary and a counter; after
each round the registry's exposition text (``generate_latest``, what an exporter serves on
/metrics) is appended to the file, as ``curl -s host/metrics >> scrapes.prom`` would.
"""
import time

import prometheus_client as pc

reg = pc.CollectorRegistry()
it = pc.Gauge("bench_iteration_seconds", "Time of the last benchmark iteration.", ["benchmark"],
              registry=reg)
rounds = pc.Counter("bench_rounds", "Benchmark rounds run.", registry=reg)
lat = pc.Summary("bench_call_seconds", "Time per call.", ["benchmark"], registry=reg)
work = {"fib": lambda: sum(range(20000)), "sort": lambda: sorted(range(30000, 0, -1))}
with open("tests/data/harness/prometheus/scrapes.prom", "wb") as out:
    for _ in range(8):
        for name, fn in work.items():
            t = time.perf_counter()
            fn()
            dt = time.perf_counter() - t
            it.labels(name).set(dt)
            lat.labels(name).observe(dt)
        rounds.inc()
        out.write(pc.generate_latest(reg))
print("prometheus_client", pc.__version__ if hasattr(pc, "__version__") else "?")
