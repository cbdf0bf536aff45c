"""Side-by-side check of segview's ``nrss`` detector against the ``extrap`` package (issue #4).

Not part of CI (needs network access for pip and a few minutes):

    python tests/benchmarks/compare_extrap.py [--count 1000] [--seed 0] [--out DIR]

1. Writes ``count`` seeded synthetic experiments as Extra-P text files (the paper's generator, spec
   nrss.md §10): 6-10 points, x = k*(1..N) with k in {1, 2, 4, 8, 16} or consecutive powers of two,
   half of them segmented (each segment >= 3 points), functions c0 + c1*x^i*log2(x)^j with the
   exponents inside Extra-P's search space or random (outside), multiplicative noise
   y*(1+u), u ~ U[-x, x], x in {0, 1, ..., 15} %.
2. Creates a virtualenv of its own (extrap 4.2.5 pins numpy < 2, so it cannot live in segview's) and
   installs ``extrap`` without its GUI dependencies (spec §8).
3. Runs Extra-P's ``SegmentedModeler`` on every file there, and segview's ``nrss`` here.
4. Prints agreement (segmented or not; change point) and each tool's accuracy against the truth.
"""
from __future__ import annotations

import argparse
import json
import logging
import math
import subprocess
import sys
import time
import venv
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[2]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

import segview  # noqa: E402
from segview.core.detectors._pmnf import EXPONENTS  # noqa: E402
from segview.core.io import extrap_text  # noqa: E402

log = logging.getLogger("compare_extrap")

EXTRAP_DEPS = ["numpy<2", "scipy", "marshmallow~=3.7", "tqdm", "matplotlib", "packaging",
               "scikit-learn", "pycubexr>=1.2.3,<3,!=2.0.0"]

RUNNER = r'''
import json, sys, math, warnings
warnings.simplefilter("ignore")
from extrap.fileio.file_reader.text_file_reader import TextFileReader
from extrap.modelers.single_parameter.segmented import SegmentedModeler
from extrap.entities.model import SegmentedModel
out = []
for path in sys.argv[2:]:
    exp = TextFileReader().read_experiment(path)
    (key, meas), = exp.measurements.items()
    try:
        model = SegmentedModeler().model([meas])[0]
    except Exception as err:  # report, do not stop the batch
        out.append({"file": path, "error": repr(err)})
        continue
    rec = {"file": path, "segmented": isinstance(model, SegmentedModel)}
    if rec["segmented"]:
        rec["change_x"] = [float(m.coordinate[0]) for m in model.changing_points]
        rec["models"] = [m.hypothesis.function.to_string("p") for m in model.segment_models]
    else:
        rec["models"] = [model.hypothesis.function.to_string("p")]
    out.append(rec)
with open(sys.argv[1], "w") as fh:
    json.dump(out, fh)
'''


def _random_function(rng: np.random.Generator, inside: bool) -> tuple[float, float, float, int]:
    if inside:
        i, j = EXPONENTS[rng.integers(len(EXPONENTS))]
        i = float(i)
    else:
        i, j = float(rng.uniform(0, 3)), int(rng.integers(0, 3))
    return float(rng.uniform(0, 100)), float(rng.uniform(0.1, 10)), i, j


def _evaluate(f: tuple[float, float, float, int], x: np.ndarray) -> np.ndarray:
    c0, c1, i, j = f
    return c0 + c1 * x ** i * np.log2(x) ** j


def generate(count: int, seed: int) -> list[dict]:
    """Seeded synthetic experiments with their truth."""
    rng = np.random.default_rng(seed)
    sets = []
    for k in range(count):
        n = int(rng.integers(6, 11))
        if rng.random() < 0.5:
            x = float(rng.choice([1, 2, 4, 8, 16])) * np.arange(1, n + 1)
        else:
            x = 2.0 ** (int(rng.integers(0, 5)) + np.arange(n))
        inside = bool(rng.random() < 0.5)
        segmented = bool(rng.random() < 0.5)
        f1 = _random_function(rng, inside)
        y = _evaluate(f1, x)
        split = None
        if segmented:
            split = int(rng.integers(3, n - 2))  # first index of segment 2; both >= 3 points
            f2 = _random_function(rng, inside)
            y[split:] = _evaluate(f2, x[split:])
        noise = int(rng.integers(0, 16)) / 100.0
        y = y * (1 + rng.uniform(-noise, noise, n))
        sets.append({"id": f"d{k:05d}", "x": x.tolist(), "y": y.tolist(), "segmented": segmented,
                     "change_x": float(x[split]) if split is not None else None,
                     "noise": noise, "inside": inside, "n": n})
    return sets


def write_text(d: dict, path: Path) -> None:
    lines = ["PARAMETER p", "POINTS " + " ".join(f"( {v:.17g} )" for v in d["x"]),
             "REGION main", "METRIC time"]
    lines += [f"DATA {v:.17g}" for v in d["y"]]
    path.write_text("\n".join(lines) + "\n")


def ensure_venv(path: Path, version: str) -> Path:
    py = path / ("Scripts/python.exe" if sys.platform == "win32" else "bin/python")
    if not py.exists():
        log.info("creating virtualenv %s", path)
        venv.EnvBuilder(with_pip=True, clear=True).create(path)
    check = subprocess.run([str(py), "-c", "import extrap, numpy; print(extrap.__version__)"],
                           capture_output=True, text=True)
    if check.returncode != 0:
        spec = f"extrap=={version}" if version else "extrap"
        subprocess.run([str(py), "-m", "pip", "install", "-q", *EXTRAP_DEPS], check=True)
        subprocess.run([str(py), "-m", "pip", "install", "-q", "--no-deps", spec], check=True)
    return py


def run_extrap(py: Path, files: list[Path], out: Path, batch: int = 250) -> list[dict]:
    runner = out / "run_extrap.py"
    runner.write_text(RUNNER)
    results: list[dict] = []
    for b in range(0, len(files), batch):
        part = out / f"extrap_{b:06d}.json"
        subprocess.run([str(py), str(runner), str(part), *map(str, files[b:b + batch])],
                       check=True)
        results.extend(json.loads(part.read_text()))
    return results


def run_segview(files: list[Path], compat: str = "extrap") -> list[dict]:
    out = []
    for f in files:
        (s,) = extrap_text.read(f)
        r = segview.detect(s, "nrss", compat=compat)
        out.append({"file": str(f), "segmented": bool(r.stats["segmented"]),
                    "change_x": r.stats.get("change_x"), "models": r.stats["models"]})
    return out


def _first_new(change_x: list[float] | None) -> float | None:
    """x of the first point of the new segment (the shared point, or the right one of two)."""
    return None if not change_x else float(change_x[-1])


def compare(sets: list[dict], ours: list[dict], theirs: list[dict]) -> dict[str, float]:
    n = len(sets)
    flag_agree = cp_agree = both_seg = errors = 0
    ours_ok = theirs_ok = ours_cp = theirs_cp = truth_seg = 0
    for d, a, b in zip(sets, ours, theirs):
        if "error" in b:
            errors += 1
            continue
        if a["segmented"] == b["segmented"]:
            flag_agree += 1
            if a["segmented"]:
                both_seg += 1
                same = [round(v, 9) for v in a["change_x"]] == [round(v, 9) for v in b["change_x"]]
                cp_agree += same
        ours_ok += a["segmented"] == d["segmented"]
        theirs_ok += b["segmented"] == d["segmented"]
        if d["segmented"]:
            truth_seg += 1
            ours_cp += a["segmented"] and _first_new(a["change_x"]) == d["change_x"]
            theirs_cp += b["segmented"] and _first_new(b["change_x"]) == d["change_x"]
    det_ok = [a["segmented"] and _first_new(a["change_x"]) == d["change_x"]
              for d, a in zip(sets, ours) if d["segmented"] and a["segmented"]]
    low_noise_neg = [a["segmented"] for d, a in zip(sets, ours)
                     if not d["segmented"] and d["noise"] <= 0.05]
    full = sum(1 for a, b in zip(ours, theirs) if "error" not in b and a["segmented"] ==
               b["segmented"] and (not a["segmented"] or [round(v, 9) for v in a["change_x"]] ==
                                   [round(v, 9) for v in b["change_x"]]))
    valid = n - errors
    return {"datasets": n, "extrap_errors": errors,
            "agree_segmented_flag": flag_agree / max(valid, 1),
            "agree_change_point_given_both_segmented": cp_agree / max(both_seg, 1),
            "agree_flag_and_change_point": full / max(valid, 1),
            "segview_accuracy_segmented_flag": ours_ok / max(valid, 1),
            "extrap_accuracy_segmented_flag": theirs_ok / max(valid, 1),
            "segview_change_point_correct_of_true_segmented": ours_cp / max(truth_seg, 1),
            "extrap_change_point_correct_of_true_segmented": theirs_cp / max(truth_seg, 1),
            "segview_change_point_correct_given_detected": float(np.mean(det_ok)) if det_ok
            else math.nan,
            "segview_false_positive_rate_noise_le_5pct": float(np.mean(low_noise_neg))
            if low_noise_neg else math.nan}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--count", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", type=Path, default=Path("/tmp/segview_extrap_compare"))
    ap.add_argument("--venv", type=Path, default=None, help="default: OUT/venv")
    ap.add_argument("--extrap-version", default="4.2.5")
    ap.add_argument("--paper", action="store_true",
                    help="also score segview's compat=paper rule against the truth")
    ap.add_argument("--reuse", action="store_true",
                    help="reuse segview.json / extrap.json of a previous run in OUT")
    args = ap.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    out = args.out
    data = out / "data"
    data.mkdir(parents=True, exist_ok=True)
    sets = generate(args.count, args.seed)
    files = []
    for d in sets:
        path = data / f"{d['id']}.txt"
        write_text(d, path)
        files.append(path)
    (out / "truth.json").write_text(json.dumps(sets))
    cached = args.reuse and (out / "segview.json").exists() and (out / "extrap.json").exists()
    t_ours = t_theirs = math.nan
    if cached:
        ours = json.loads((out / "segview.json").read_text())
        theirs = json.loads((out / "extrap.json").read_text())
    else:
        t = time.perf_counter()
        ours = run_segview(files)
        t_ours = time.perf_counter() - t
        py = ensure_venv(args.venv or out / "venv", args.extrap_version)
        t = time.perf_counter()
        theirs = run_extrap(py, files, out)
        t_theirs = time.perf_counter() - t
        (out / "segview.json").write_text(json.dumps(ours))
        (out / "extrap.json").write_text(json.dumps(theirs))
    summary = compare(sets, ours, theirs)
    summary.update(segview_seconds=t_ours, extrap_seconds=t_theirs)
    disagree = [(d["id"], a, b) for d, a, b in zip(sets, ours, theirs)
                if "error" not in b and (a["segmented"] != b["segmented"] or (
                    a["segmented"] and a["change_x"] != b["change_x"]))]
    (out / "disagreements.json").write_text(json.dumps(disagree, indent=1))
    (out / "summary.json").write_text(json.dumps(summary, indent=1))
    if args.paper:
        paper = run_segview(files, "paper")
        pap = compare(sets, paper, paper)
        summary.update({f"paper_rule_{k}": pap[k] for k in (
            "segview_accuracy_segmented_flag", "segview_change_point_correct_of_true_segmented",
            "segview_change_point_correct_given_detected",
            "segview_false_positive_rate_noise_le_5pct")})
    for k, v in summary.items():
        print(f"{k:>50}: {v:.4f}" if isinstance(v, float) and not math.isnan(v) else f"{k:>50}: {v}")


if __name__ == "__main__":
    main()
