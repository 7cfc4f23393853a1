"""Quick start in Python: an embedded platform in a directory, one job, the virtual clock run
until idle, the job read back. Run: python3 quickstart.py (after `pip install .`)."""
import tempfile

import budcore

with budcore.Platform.embedded(tempfile.mkdtemp(), tenant="3f6b2a1e-8c4d-4e5f-9a0b-1c2d3e4f5a6b") as p:
    stored = p.submit({"name": "quickstart", "job_type": "batch", "deployment_type": "docker",
                       "gpu_type": "nvidia-a100-80gb", "gpu_count": 1, "estimated_duration_seconds": 600})
    p.run()  # the virtual clock runs until nothing is scheduled
    print(f"job {stored.id}: {p.get(stored.id).job.status}")
