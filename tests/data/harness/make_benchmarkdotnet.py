#!/usr/bin/env python3
"""Write tests/data/harness/benchmarkdotnet/: the full-compressed JSON export
(Sorting.SortBench-report-full-compressed.json: JsonExporter.FullCompressed, BDN's default JSON
exporter) and the measurements CSV (Sorting.SortBench-measurements.csv: CsvMeasurementsExporter,
en-US, ",") of a run of [Params(1000, 10000)] SortBench.ArraySort with
Job LaunchCount=2, WarmupCount=5, IterationCount=10 (the CSV: of N=1000 only, to keep it small).

Built from BenchmarkDotNet's exporters and engine (dotnet/BenchmarkDotNet 5995bf6, 0.15.8:
Exporters/Json/JsonExporterBase.cs, Exporters/Csv/CsvMeasurementsExporter.cs,
Engines/EngineStage.cs for the stage order Jitting, Pilot, Overhead Warmup, Overhead Actual,
Workload Warmup, Workload Actual, Engines/RunResults.cs for the Result iterations: Workload Actual
minus the median Overhead Actual, upper outliers removed) because .NET and BenchmarkDotNet cannot
run here (no NuGet). The CSV's Job_ columns are a subset of BDN's (BDN writes one per job
characteristic). Times are pseudo-random (seeded) with a JIT warm-up; they are not measurements.
Usage: python3 make_benchmarkdotnet.py (writes beside itself, in benchmarkdotnet/).
"""
import csv
import io
import json
import math
import os
import random
import statistics

rng = random.Random(1126)
here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "benchmarkdotnet")


def launch(index, ns_per_op, ops):
    """All measurements of one launch, in the engine's order."""
    ms = []

    def add(mode, stage, i, n, per_op):
        ms.append({"IterationMode": mode, "IterationStage": stage, "LaunchIndex": index,
                   "IterationIndex": i, "Operations": n, "Nanoseconds": round(per_op * n, 1)})

    add("Overhead", "Jitting", 1, 1, 380.0 * (1 + rng.random()))
    add("Workload", "Jitting", 1, 1, ns_per_op * 6.5 * (1 + rng.gauss(0, 0.05)))
    for i, n in enumerate([max(1, ops // 16), max(1, ops // 4), ops], start=1):
        add("Workload", "Pilot", i, n, ns_per_op * (1.9 - 0.25 * i) * (1 + rng.gauss(0, 0.02)))
    for i in range(1, 6):
        add("Overhead", "Warmup", i, ops, 0.31 * (1 + rng.gauss(0, 0.05)))
    overhead = []
    for i in range(1, 11):
        v = 0.30 * (1 + rng.gauss(0, 0.03))
        overhead.append(v * ops)
        add("Overhead", "Actual", i, ops, v)
    for i in range(1, 6):
        add("Workload", "Warmup", i, ops, ns_per_op * (1 + 0.5 * math.exp(-i)) * (1 + rng.gauss(0, 0.01)))
    actual = []
    for i in range(1, 11):
        v = ns_per_op * (1 + rng.gauss(0, 0.01)) * (1.12 if i == 7 else 1)  # one upper outlier
        add("Workload", "Actual", i, ops, v)
        actual.append(ms[-1]["Nanoseconds"])
    med = statistics.median(overhead)
    q = statistics.quantiles(actual, n=4)
    upper = q[2] + 1.5 * (q[2] - q[0])
    for k, a in enumerate([a for a in actual if a <= upper], start=1):
        ms.append({"IterationMode": "Workload", "IterationStage": "Result", "LaunchIndex": index,
                   "IterationIndex": k, "Operations": ops, "Nanoseconds": round(max(0.0, a - med), 1)})
    return ms


def stats(values):
    return {"OriginalValues": values, "N": len(values), "Min": min(values),
            "Median": statistics.median(values), "Mean": statistics.fmean(values),
            "Max": max(values), "StandardDeviation": statistics.stdev(values)}


benches = []
runs = {}
for n, ns_per_op, ops in ((1000, 24_713.0, 32), (10000, 311_542.0, 4)):
    ms = launch(1, ns_per_op, ops) + launch(2, ns_per_op * 1.01, ops)
    # report.AllMeasurements: launch by launch, each its engine measurements then its Result ones
    runs[n] = ms
    result = [m["Nanoseconds"] / m["Operations"] for m in ms if m["IterationStage"] == "Result"]
    benches.append({
        "DisplayInfo": f"SortBench.ArraySort: Job-QXBPFT(IterationCount=10, LaunchCount=2, WarmupCount=5) [N={n}]",
        "Namespace": "Sorting", "Type": "SortBench", "Method": "ArraySort", "MethodTitle": "ArraySort",
        "Parameters": f"N={n}", "FullName": f"Sorting.SortBench.ArraySort(N: {n})",
        "HardwareIntrinsics": "AVX2,AES,BMI1,BMI2,FMA,LZCNT,PCLMUL,POPCNT VectorSize=256",
        "Statistics": stats(result), "Measurements": ms})
doc = {"Title": "Sorting.SortBench-20251126-094012",
       "HostEnvironmentInfo": {
           "BenchmarkDotNetCaption": "BenchmarkDotNet", "BenchmarkDotNetVersion": "0.15.8",
           "OsVersion": "Debian GNU/Linux 12 (bookworm)", "ProcessorName": "AMD EPYC",
           "PhysicalProcessorCount": 1, "PhysicalCoreCount": 2, "LogicalCoreCount": 2,
           "RuntimeVersion": ".NET 8.0.11 (8.0.1124.51707)", "Architecture": "X64",
           "HasAttachedDebugger": False, "HasRyuJit": True, "Configuration": "RELEASE",
           "DotNetCliVersion": "8.0.404", "ChronometerFrequency": {"Hertz": 1000000000},
           "HardwareTimerKind": "Unknown"},
       "Benchmarks": benches}
with open(os.path.join(here, "Sorting.SortBench-report-full-compressed.json"), "w") as fh:
    fh.write(json.dumps(doc, separators=(",", ":")) + "\n")

job = {"Job_Id": "Job-QXBPFT", "Job_Platform": "X64", "Job_Runtime": ".NET 8.0", "Job_Jit": "RyuJit",
       "Job_IterationCount": "10", "Job_LaunchCount": "2", "Job_WarmupCount": "5",
       "Job_UnrollFactor": "16", "Job_OutlierMode": "RemoveUpper"}
header = ["Target", "Target_Namespace", "Target_Type", "Target_Method", *job, "Job_Display", "Params",
          "Measurement_LaunchIndex", "Measurement_IterationMode", "Measurement_IterationStage",
          "Measurement_IterationIndex", "Measurement_Nanoseconds", "Measurement_Operations",
          "Measurement_Value"]


def num(x):  # .NET "0.##"
    s = ("%.2f" % x).rstrip("0").rstrip(".")
    return s


buf = io.StringIO()
out = csv.writer(buf, lineterminator="\n")  # BDN's CsvHelper.Escape quotes a cell holding the separator
out.writerow(header)
for m in runs[1000]:
    out.writerow(["SortBench.ArraySort", "Sorting", "SortBench", "ArraySort", *job.values(),
                           "IterationCount=10, LaunchCount=2, WarmupCount=5", "N=1000",
                           str(m["LaunchIndex"]), m["IterationMode"], m["IterationStage"],
                           str(m["IterationIndex"]), num(m["Nanoseconds"]), str(m["Operations"]),
                  num(m["Nanoseconds"] / m["Operations"])])
with open(os.path.join(here, "Sorting.SortBench-measurements.csv"), "w") as fh:
    fh.write(buf.getvalue())
