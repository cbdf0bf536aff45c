#!/usr/bin/env python3
"""Write tests/data/harness/jmh/run.log: JMH console output, built line by line from JMH's own
printing code because JMH cannot run here (no Maven Central, so no jmh-core jar):

* run header, "# Benchmark:", "# Parameters:", "# Warmup Iteration %3d: ", "Iteration %3d: " and
  the secondary-result lines: openjdk/jmh jmh-core/.../runner/format/TextReportFormat.java
* "# Run progress: %.2f%% complete, ETA %s", "# Run complete. Total time: %s": BaseRunner.java
* "# Fork: i of k", "# Warmup Fork: i of w": Runner.java
* "%.3f" scores: util/ScoreFormatter.java (precision 3), "≈ 0" for scores below 0.0005.

The values are pseudo-random (seeded) with a warm-up decay in the first iterations of each fork;
they are not measurements. Usage: python3 make_jmh_log.py > jmh/run.log
"""
import math
import random

rng = random.Random(26)


def fmt(score):
    if score < 0.0005:
        p = round(math.log10(score)) if score > 0 else 0
        return "\u2248 " + ("0" if p == 0 else "10" + str(p).translate(str.maketrans("-0123456789", "\u207b\u2070\u00b9\u00b2\u00b3\u2074\u2075\u2076\u2077\u2078\u2079")))
    return "%.3f" % score


def header(mode, bench, params, warmup, measurement):
    out = ["# JMH version: 1.37",
           "# VM version: JDK 17.0.15, OpenJDK 64-Bit Server VM, 17.0.15+6-Debian-1deb12u1",
           "# VM invoker: /usr/lib/jvm/java-17-openjdk-amd64/bin/java",
           "# VM options: -Xmx1g",
           "# Blackhole mode: compiler (auto-detected, use -Djmh.blackhole.autoDetect=false to disable)",
           f"# Warmup: {warmup} iterations, 1 s each",
           f"# Measurement: {measurement} iterations, 1 s each",
           "# Timeout: 10 min per iteration",
           "# Threads: 1 thread, will synchronize iterations",
           f"# Benchmark mode: {mode}",
           f"# Benchmark: {bench}"]
    if params:
        out.append("# Parameters: (" + ", ".join(f"{k} = {v}" for k, v in params) + ")")
    return out + [""]


def fork_lines(label, base, warm_extra, warmup, measurement, rate, secondary):
    out = [label]
    for i in range(1, warmup + 1):
        v = base * (1 + warm_extra * math.exp(-(i - 1) / 1.5)) * (1 + rng.gauss(0, 0.01))
        v = base * base / v if rate else v  # throughput rises as the JIT warms up
        out.append("# Warmup Iteration %3d: %s %s" % (i, fmt(v), "ops/ms" if rate else "us/op"))
    for i in range(1, measurement + 1):
        v = base * (1 + rng.gauss(0, 0.01))
        line = "Iteration %3d: %s %s" % (i, fmt(v), "ops/ms" if rate else "us/op")
        if secondary:
            prefix = len("Iteration %3d: " % i)
            sec = [("\u00b7gc.alloc.rate", "%s MB/sec" % fmt(812.5 * v / base)),
                   ("\u00b7gc.alloc.rate.norm", "%s B/op" % fmt(1048.0)),
                   ("\u00b7gc.count", "%s counts" % fmt(3.0 + i % 2)),
                   ("\u00b7gc.time", "%s ms" % fmt(2.0))]
            width = max(len(k) for k, _ in sec) + 1
            line += "\n" + "".join(" " * prefix + ("  %-" + str(width) + "s %s") % (k + ":", s) + "\n"
                                   for k, s in sec)
        out.append(line)
    return out + [""]


def main():
    lines = []
    done, total = 0, 3 + 3

    def progress():
        lines.append("# Run progress: %.2f%% complete, ETA 00:%02d:%02d"
                     % (100 * done / total, (total - done) * 10 // 60, (total - done) * 10 % 60))

    # 1: average time with a parameter, 3 forks
    lines += header("Average time, time/op", "org.sample.FibBench.fib", [("n", 20)], 5, 5)
    for f in range(1, 4):
        progress()
        lines += fork_lines(f"# Fork: {f} of 3", 25.4, 0.9, 5, 5, False, False)
        done += 1
    lines += ['Result "org.sample.FibBench.fib":', "  25.402 \u00b1(99.9%) 0.232 us/op [Average]",
              "  (min, avg, max) = (24.917, 25.402, 25.903), stdev = 0.217",
              "  CI (99.9%): [25.170, 25.634] (assumes normal distribution)", "", ""]
    # 2: throughput, two parameters, one warm-up fork and two forks, -prof gc secondaries
    lines += header("Throughput, ops/time", "org.sample.ListBench.add",
                    [("kind", "array"), ("size", 100)], 4, 6)
    for f, label in enumerate(["# Warmup Fork: 1 of 1", "# Fork: 1 of 2", "# Fork: 2 of 2"]):
        progress()
        lines += fork_lines(label, 1832.0, 0.6, 4, 6, True, True)
        done += 1
    lines += ['Result "org.sample.ListBench.add":', "  1830.114 \u00b1(99.9%) 27.301 ops/ms [Average]",
              "  (min, avg, max) = (1791.204, 1830.114, 1868.470), stdev = 23.115",
              "  CI (99.9%): [1802.813, 1857.415] (assumes normal distribution)", "", ""]
    lines += ["# Run complete. Total time: 00:01:04", "",
              "REMEMBER: The numbers below are just data. To gain reusable insights, you need to follow up on",
              "why the numbers are the way they are. Use profilers (see -prof, -lprof), design factorial",
              "experiments, perform baseline and negative tests that provide experimental control, make sure",
              "the benchmarking environment is safe on JVM/OS/HW level, ask for reviews from the domain experts.",
              "Do not assume the numbers tell you what you want them to tell.", "",
              "Benchmark                        (kind)  (n)  (size)   Mode  Cnt     Score    Error   Units",
              "FibBench.fib                        N/A   20     N/A   avgt   15    25.402 \u00b1  0.232   us/op",
              "ListBench.add                     array  N/A     100  thrpt   12  1830.114 \u00b1 27.301  ops/ms",
              "ListBench.add:\u00b7gc.alloc.rate     array  N/A     100  thrpt   12   811.733 \u00b1 12.104  MB/sec"]
    print("\n".join(lines))


if __name__ == "__main__":
    main()
