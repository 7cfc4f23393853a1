"""Replicas from Python (docs/ha.md): two platforms on one SQLite file, one leads; a follower's
submit is carried out by the leader; closing the leader hands the lease over; NotLeaderError is
a budcore.Error."""
import time

import budcore

TENANT = "00000000-0000-4000-8000-0000000000c1"


def config(path, replica):
    return (f"store: 'sqlite://{path}'\nclock: system\n"
            f"ha: {{replica: {replica}, lease_seconds: 1, renew_seconds: 0.25, retry_seconds: 0.1}}\n")


def eventually(pred, seconds=10.0):
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if pred():
            return True
        time.sleep(0.02)
    return pred()


def test_a_follower_takes_requests_and_a_close_hands_the_lease_over(tmp_path):
    db = tmp_path / "p.db"
    r1 = budcore.Platform.open(config(db, "r1"), tenant=TENANT)
    r2 = budcore.Platform.open(config(db, "r2"), tenant=TENANT)
    try:
        assert r1.ha_status()["role"] == "leader"
        status = r2.ha_status()
        assert status["role"] == "follower"
        assert status["lease"]["holder"].startswith("r1#")
        assert {r["replica"] for r in status["replicas"]} == {"r1", "r2"}
        job = r2.submit({"name": "via-follower", "job_type": "batch", "deployment_type": "docker",
                         "gpu_type": "nvidia-a100-80gb", "gpu_count": 1, "estimated_duration_seconds": 1},
                        idempotency_key="k1")
        assert eventually(lambda: r2.get(job.id).job.status == "completed")
        r1.close()
        assert eventually(lambda: r2.ha_status()["role"] == "leader", 3)
        assert r2.ha_status()["epoch"] == 2
    finally:
        if not r1.closed:
            r1.close()
        r2.close()
    assert issubclass(budcore.NotLeaderError, budcore.Error)
