"""A platform's timeline as a notebook shows it: jobs by name (two named "train" told apart by
the end of their ids), start and end as UTC clock times, the Gantt and the HTML page saved.
Run: python3 timeline.py [OUT_DIR] (after `pip install .[plot]`; without matplotlib, no PNG).
In Jupyter, `tl` alone displays the table and `tl.plot()` the Gantt."""
import pathlib
import sys
import tempfile

import budcore
from budcore.schedule import format_clock

TENANT = "3f6b2a1e-8c4d-4e5f-9a0b-1c2d3e4f5a6b"
out = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else tempfile.mkdtemp())


def job(name, gpus, minutes):
    return {"name": name, "job_type": "training", "deployment_type": "docker", "gpu_type": "nvidia-a100-80gb",
            "gpu_count": gpus, "estimated_duration_seconds": minutes * 60}


with budcore.Platform.embedded(out / "state", tenant=TENANT) as p:
    for name, gpus, minutes in [("train", 8, 90), ("train", 8, 45), ("eval", 4, 20), ("embed", 2, 30)]:
        p.submit(job(name, gpus, minutes))
    p.pump()  # the cluster admits what fits; the rest waits for quota
    tl = p.schedule()
    labels = tl.labels()  # {job id: "train (…5ce3e749)", ...}
    for j in tl.jobs:
        print(f"{labels[j.name]:<20} {format_clock(j.start, 3600)} to {format_clock(j.end, 3600)} UTC  {j.state}")
    tl.save_html(out / "timeline.html")
    try:
        import matplotlib
    except ImportError:
        print("no matplotlib: no timeline.png")
    else:
        matplotlib.use("Agg")
        tl.plot().figure.savefig(out / "timeline.png", dpi=100)
