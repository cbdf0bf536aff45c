#!/usr/bin/env python3
"""Write tests/data/harness/renaissance/run.json and run.csv: the --json and --csv files of one
Renaissance run (java -jar renaissance-gpl-0.16.1.jar --json run.json --csv run.csv -r 12
scrabble future-genetic), built from renaissance-harness/.../ResultWriter.scala (JsonWriter
format_version 6 and CsvWriter of the main branch, commit 76d0733) because Renaissance cannot run
here (its jar comes from Maven Central / GitHub releases). One file = one JVM = one process
execution; one entry/row per repetition. The JSON's top-level keys are written in the source's
order (the JVM's hash-map order may differ; segview does not depend on it). Durations are
pseudo-random (seeded) with a warm-up decay over the first repetitions; they are not measurements.
Usage: python3 make_renaissance.py (writes beside itself, in renaissance/).
"""
import json
import math
import os
import random

rng = random.Random(2626)
here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "renaissance")
VM_START_MS, VM_START_NS = 1764150000123, 40123456789
REPS = 12
benchmarks = {"scrabble": 178_000_000, "future-genetic": 1_210_000_000}
data, rows = {}, []
for name, base in benchmarks.items():
    results, uptime = [], 1_043_126_473 if name == "scrabble" else 4_902_331_870
    for i in range(REPS):
        d = int(base * (1 + 1.8 * math.exp(-i / 1.7)) * (1 + rng.gauss(0, 0.02)))
        results.append({"duration_ns": d, "uptime_ns": uptime})
        uptime += d + rng.randrange(2_000_000, 9_000_000)
    data[name] = {"results": results, "termination": "normal"}
    rows += [f"{name},{r['duration_ns']},{r['uptime_ns']},{VM_START_MS},{VM_START_NS}" for r in results]
doc = {
    "format_version": 6,
    "benchmarks": list(benchmarks),
    "environment": {
        "os": {"name": "Linux", "arch": "amd64", "version": "6.1.0-28-amd64",
               "available_processors": 2, "phys_mem_total": 8331202560, "phys_mem_free": 5105614848,
               "virt_mem_committed": 4016320512, "swap_space_total": 0, "swap_space_free": 0,
               "max_fd_count": 1048576, "open_fd_count": 12},
        "vm": {"name": "OpenJDK 64-Bit Server VM", "vendor": "Debian", "version": "17.0.15+6-Debian-1deb12u1",
               "spec_name": "Java Virtual Machine Specification", "spec_vendor": "Oracle Corporation",
               "spec_version": "17", "mode": "mixed mode, sharing", "compressed_oops_mode": "Zero based",
               "args": ["-Xms2g", "-Xmx2g"], "termination": "normal", "start_unix_ms": VM_START_MS,
               "start_ns": VM_START_NS, "start_iso": "2025-11-26T09:40:00.123Z", "uptime_ms": 23710,
               "collectors": [{"name": "G1 Young Generation", "collection_count": 41, "collection_time_ms": 233},
                              {"name": "G1 Old Generation", "collection_count": 0, "collection_time_ms": 0}],
               "compiler": {"name": "HotSpot 64-Bit Tiered Compilers", "compilation_time_ms": 11032},
               "classloading": {"class_count": 9121, "classes_total": 9150},
               "memory": {"heap_usage": {"init": 2147483648, "used": 412109312, "committed": 2147483648, "max": 2147483648},
                          "nonheap_usage": {"init": 7667712, "used": 61234176, "committed": 66256896, "max": -1},
                          "pending_finalization_count": 0},
               "pools": [], "threads": {"thread_count": 14, "thread_count_max": 19,
                                        "daemon_thread_count": 12, "threads_total": 31}},
        "jre": {"name": "OpenJDK Runtime Environment", "version": "17.0.15+6-Debian-1deb12u1",
                "java_vendor": "Debian", "java_version": "17.0.15",
                "spec_name": "Java Platform API Specification", "spec_vendor": "Oracle Corporation",
                "spec_version": "17", "home": "/usr/lib/jvm/java-17-openjdk-amd64",
                "library_path": ["/usr/java/packages/lib", "/usr/lib/x86_64-linux-gnu/jni"],
                "class_path": ["renaissance-gpl-0.16.1.jar"]}},
    "suite": {"git": {"commit_hash": "76d0733d", "commit_date": "2026-06-23T13:07:35+02:00", "dirty": "false"},
              "name": "Renaissance Benchmark Suite", "version": "0.16.1-32-g76d0733d"},
    "data": data,
}
with open(os.path.join(here, "run.json"), "w") as fh:
    fh.write(json.dumps(doc, indent=2) + "\n")
with open(os.path.join(here, "run.csv"), "w") as fh:
    fh.write("benchmark,duration_ns,uptime_ns,vm_start_unix_ms,vm_start_ns\n" + "\n".join(rows) + "\n")
