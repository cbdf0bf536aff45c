#!/bin/sh
# Real JVM and PyPy multi-process warm-up data (issue 26): NBody.java and nbody.py (beside this
# script) each run as PEXECS fresh processes of ITERS in-process iterations; every iteration's time
# in seconds is written in warmup_stats' CSV format
#     process_exec_idx,bench_name,0,1,...,ITERS-1
# (warmup_stats README "CSV format"; bin/csv_to_krun_json), one file per VM, and the same
# measurements as a Krun results file (krun/README.md "Krun results files", krun/results.py
# Results.write_to_file: bz2 of json.dumps(indent=1, sort_keys=True)); Krun itself cannot run
# here (Python 2, reboots the machine between process executions).
# Needs: openjdk-17-jdk-headless, pypy3, python3. Takes about 15 s.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
PEXECS=${PEXECS:-5}
ITERS=${ITERS:-200}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
javac -d "$tmp" "$here/NBody.java"
i=0
while [ "$i" -lt "$PEXECS" ]; do
    s=$(date +%s.%N); java -cp "$tmp" NBody "$ITERS" 500 > "$tmp/hotspot.$i" 2>/dev/null
    e=$(date +%s.%N); echo "$s $e" > "$tmp/hotspot.$i.wall"
    s=$(date +%s.%N); pypy3 "$here/nbody.py" "$ITERS" 1000 > "$tmp/pypy.$i" 2>/dev/null
    e=$(date +%s.%N); echo "$s $e" > "$tmp/pypy.$i.wall"
    i=$((i + 1))
done
java -version 2> "$tmp/java.version"
pypy3 --version > "$tmp/pypy.version" 2>&1
python3 - "$tmp" "$here" "$PEXECS" "$ITERS" <<'PY'
import bz2, json, os, platform, subprocess, sys
tmp, here, pexecs, iters = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
runs = {"hotspot": ("nbody-hotspot", "nbody:Hotspot:default-java"),
        "pypy": ("nbody-pypy", "nbody:PyPy:default-python")}
krun = {"wallclock_times": {}, "pexec_flags": {}, "eta_estimates": {}}
for vm, (bench, key) in runs.items():
    rows = []
    krun["wallclock_times"][key], krun["pexec_flags"][key], krun["eta_estimates"][key] = [], [], []
    for p in range(pexecs):
        with open(os.path.join(tmp, f"{vm}.{p}")) as fh:
            times = fh.read().split()
        assert len(times) == iters, (vm, p, len(times))
        rows.append(",".join([str(p), bench] + times))
        krun["wallclock_times"][key].append([float(t) for t in times])
        krun["pexec_flags"][key].append("C")
        with open(os.path.join(tmp, f"{vm}.{p}.wall")) as fh:
            s, e = map(float, fh.read().split())
        krun["eta_estimates"][key].append(round(e - s, 3))
    header = ",".join(["process_exec_idx", "bench_name"] + [str(k) for k in range(iters)])
    with open(os.path.join(here, "warmup_stats", f"{vm}_nbody.csv"), "w") as fh:
        fh.write("\n".join([header] + rows) + "\n")
cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "")
versions = open(os.path.join(tmp, "java.version")).read() + open(os.path.join(tmp, "pypy.version")).read()
krun.update({
    "audit": {"uname": " ".join(platform.uname()), "cpuinfo": f"model name\t: {cpu}",
              "packages": versions},
    "config": ("# Krun-style configuration of the runs above (made by make_warmup_stats.sh)\n"
               f"N_EXECUTIONS = {pexecs}\n"
               "VMS = {'Hotspot': {'vm_def': JavaVMDef('/usr/bin/java'), 'variants': ['default-java'],\n"
               f"                   'n_iterations': {iters}}},\n"
               "       'PyPy': {'vm_def': PyPyVMDef('/usr/bin/pypy3'), 'variants': ['default-python'],\n"
               f"                'n_iterations': {iters}}}}}\n"
               "BENCHMARKS = {'nbody': 500}\n"),
    "error_flag": False, "reboots": 0, "starting_temperatures": {}})
with bz2.open(os.path.join(here, "krun", "nbody_results.json.bz2"), "wb") as fh:
    fh.write(json.dumps(krun, indent=1, sort_keys=True).encode("utf-8"))
PY
ls -l "$here/warmup_stats" "$here/krun"
