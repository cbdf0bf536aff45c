"""Makes the Perfherder fixtures (tests/data/harness/perfherder/) from the documented columns.

Perfherder cannot run here (it is Mozilla's hosted Treeherder service). The two files follow:
* perfherder_api.csv: the fields of a point of Treeherder's REST API
  /api/project/{repo}/performance/data/ (treeherder/webapp/api/performance_data.py:
  id, signature_id, job_id, push_id, revision, push_timestamp in POSIX seconds, value rounded to 2
  places), one signature, as a script writes them to CSV;
* perfherder_signatures.csv: the column order of the Mozilla performance data set
  (mozilla/REALISE-Performance data/README.md, *_timeseries_data.csv: signature properties, then
  push_timestamp as ISO 8601, value, revision, push_id), two signatures (two platforms), rows of
  the two interleaved and one push retriggered (two values, one revision).
The values are made up (seeded), the layout is Perfherder's. Run from the repository root.
"""
import csv
import hashlib
import random
from datetime import datetime, timezone

rnd = random.Random(26)
out = "tests/data/harness/perfherder/"


def rev(i: int) -> str:
    return hashlib.sha1(f"push{i}".encode()).hexdigest()


with open(out + "perfherder_api.csv", "w", newline="") as fh:
    w = csv.writer(fh)
    w.writerow(["id", "signature_id", "job_id", "push_id", "revision", "push_timestamp", "value"])
    t = 1700016556
    for i in range(15):
        t += rnd.randint(3000, 20000)
        w.writerow([2000 + i, 4768977, 90000 + i, 1245770 + 3 * i, rev(i), t,
                    round(9.3 + rnd.gauss(0, 0.15) + (0.8 if i >= 9 else 0.0), 2)])

cols = ("repository_name,signature_id,framework_id,signature_hash,machine_platform,should_alert,"
        "has_subtests,extra_options,tags,option_collection_hash,test,suite,lower_is_better,name,"
        "parent_signature,repository_id,measurement_unit,application,job_id,entry_id,"
        "push_timestamp,value,revision,push_id").split(",")
sigs = [
    dict(signature_id=4768977, platform="windows10-64-shippable-qr", lib="True", unit="ms",
         test="custom.styleeditor.close.DAMP", suite="damp", base=9.4, fw=12),
    dict(signature_id=4769041, platform="linux1804-64-shippable-qr", lib="True", unit="ms",
         test="custom.styleeditor.close.DAMP", suite="damp", base=7.1, fw=12),
]
rows = []
t = 1700016556
for i in range(12):
    t += rnd.randint(3000, 20000)
    for s in sigs:
        reps = 2 if i == 5 else 1  # push 5 retriggered: two values, one revision
        for _ in range(reps):
            sh = hashlib.sha1(str(s["signature_id"]).encode()).hexdigest()
            rows.append({
                "repository_name": "autoland", "signature_id": s["signature_id"],
                "framework_id": s["fw"], "signature_hash": sh, "machine_platform": s["platform"],
                "should_alert": "True", "has_subtests": "False", "extra_options": "", "tags": "",
                "option_collection_hash": "102210fe594ee9b33d82058545b1ed14f4c8206e",
                "test": s["test"], "suite": s["suite"], "lower_is_better": s["lib"],
                "name": f"{s['suite']} {s['test']} opt e10s fission stylo webrender",
                "parent_signature": "", "repository_id": 77, "measurement_unit": s["unit"],
                "application": "firefox", "job_id": "", "entry_id": 1700000000 + len(rows),
                "push_timestamp": datetime.fromtimestamp(t, timezone.utc).strftime(
                    "%Y-%m-%dT%H:%M:%S"),
                "value": s["base"] + rnd.gauss(0, 0.2), "revision": rev(100 + i),
                "push_id": 1245770 + i})
with open(out + "perfherder_signatures.csv", "w", newline="") as fh:
    w = csv.DictWriter(fh, fieldnames=cols)
    w.writeheader()
    w.writerows(rows)
