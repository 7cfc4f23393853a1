"""budcore.serverless.DurableQueue: the durable request queue from Python on a SQLite file:
order by score, claim tokens that fence a stale worker, retries to dead letters, typed
refusals, and bad input that names the field and stores nothing."""

import pathlib

import pytest

import budcore
from budcore import serverless

DATA = pathlib.Path(__file__).resolve().parents[1] / "data" / "serverless"


def endpoint(**queue):
    return {"name": "chat", "model": "m", "queue": {"max_retries": 1, **queue}}


def test_enqueue_claim_complete(tmp_path):
    with budcore.open_store(tmp_path / "q.db") as s:
        q = serverless.DurableQueue(s, endpoint())
        out = q.enqueue([{"tenant": "acme", "priority": "batch"}, {"tenant": "acme", "priority": "premium"}])
        assert [r["deduplicated"] for r in out] == [False, False]
        claimed = q.claim("w1", max=5, lease_seconds=30)
        assert [r["id"] for r in claimed] == [out[1]["id"], out[0]["id"]]  # premium first
        assert all(r["status"] == "assigned" and r["claim"] == 1 for r in claimed)
        done = q.complete(claimed[0]["id"], claimed[0]["claim"])
        assert done == {"id": claimed[0]["id"], "ok": True, "status": "completed"}
        again = q.complete(claimed[0]["id"], claimed[0]["claim"])
        assert again["ok"] is False and again["status"] == "completed"
        stale = q.complete(claimed[1]["id"], 99)
        assert stale["ok"] is False and stale["status"] == "assigned"
        st = q.status()
        assert (st["completed"], st["in_flight"], st["pending"]) == (1, 1, 0)


def test_retries_then_dead_letter(tmp_path):
    with budcore.open_store(tmp_path / "q.db") as s:
        q = serverless.DurableQueue(s, endpoint())
        rid = q.enqueue([{"tenant": "acme"}])[0]["id"]
        for want in ("pending", "failed"):
            (r,) = q.claim("w", max=1)
            assert q.fail(rid, r["claim"], "oom")["status"] == want
        (dead,) = q.dead_letters()
        assert dead["id"] == rid and dead["attempts"] == 2 and dead["last_error"] == "oom"


def test_refusals_and_bad_input(tmp_path):
    with budcore.open_store(tmp_path / "q.db") as s:
        q = serverless.DurableQueue(s, endpoint(max_payload_bytes=10))
        (r,) = q.enqueue([{"tenant": "acme", "payload_size_bytes": 11}])
        assert r["id"] == 0 and r["refusal"] == "payload_too_large"
        with pytest.raises(budcore.ValidationError) as e:
            q.enqueue([{"tenant": "acme"}, {"tenant": "acme", "priority": "urgent"}])
        assert e.value.field == "submissions[1].priority"
        with pytest.raises(budcore.ValidationError) as e:
            q.finish([{"id": 1, "claim": 1, "outcome": "done"}])
        assert e.value.field == "reports[0].outcome"
        assert q.status()["pending"] == 0


def test_dedup_by_payload_hash(tmp_path):
    with budcore.open_store(tmp_path / "q.db") as s:
        q = serverless.DurableQueue(s, DATA / "endpoint.yaml")
        a, b = q.enqueue([{"tenant": "acme", "payload_hash": "h"}, {"tenant": "acme", "payload_hash": "h"}])
        assert b["deduplicated"] and b["id"] == a["id"]
        assert len(q.requests()) == 1
        assert q.list() == q.requests()  # the former name, kept as an alias
        assert "Alias of" in serverless.DurableQueue.list.__doc__
