"""Retention from Python (docs/store.md "Retention"): compact() cuts the event log by the
config's retention; a watch from before the cut raises GoneError naming where to resume, and
the audit chains still verify."""
import pytest

import budcore

TENANT = "00000000-0000-4000-8000-0000000000c1"
JOB = {"name": "short", "job_type": "batch", "deployment_type": "docker",
       "gpu_type": "nvidia-a100-80gb", "gpu_count": 1, "estimated_duration_seconds": 60}


def test_compact_cuts_the_event_log_and_an_old_watch_is_gone(tmp_path):
    config = {"store": f"sqlite://{tmp_path / 'r.db'}",
              "retention": {"events": {"max_count": 3}, "audit": {"max_count": 2}}}
    with budcore.Platform.open(config, tenant=TENANT) as p:
        for i in range(3):
            p.submit(dict(JOB, name=f"j{i}"))
        p.run()
        head = list(p.watch())[-1].seq
        report = p.compact()
        assert report["events_removed"] == head - 3
        assert {c["log"] for c in report["checkpoints"]} >= {"events", "audit"}
        with pytest.raises(budcore.GoneError) as gone:
            list(p.watch(0))
        assert isinstance(gone.value, budcore.Error)
        assert gone.value.field == "since"
        assert int(gone.value.value) == head - 3
        rest = list(p.watch(int(gone.value.value)))
        assert [e.seq for e in rest] == list(range(head - 2, head + 1))
        assert p.verify_audit()["ok"]


def test_compact_without_a_retention_section_is_refused(tmp_path):
    with budcore.Platform.open({"store": f"sqlite://{tmp_path / 'n.db'}"}, tenant=TENANT) as p:
        with pytest.raises(budcore.ValidationError) as e:
            p.compact()
        assert e.value.field == "retention"
