#!/usr/bin/env python3
"""The database-restart variant of chaos.py (docs/ha.md): three `budcore platform serve` replicas
on one PostgreSQL database while the database itself is stopped (fast or immediate, in turn) and
started again, several times, and a client keeps submitting jobs with idempotency keys, cancelling
and reprioritising. A submit that was not acknowledged (the database was down, or went down
mid-call) is retried later with the same key; an acknowledged one must exist exactly once.

At the end, the checks of chaos.py from the store, and also:
- no replica process exited;
- after every restart, a replica holds a live lease again, by itself;
- after the last restart, every job submitted reaches a terminal state and no request is left.

Usage: db_restart.py --budcore BIN --work DIR [--restarts N] [--down-seconds S] [--seed N]
Exit 0 when every check holds; the report is printed as JSON.
"""
import argparse
import json
import random
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import chaos  # noqa: E402  (the store, the replicas and the checks)

FIXTURE = chaos.ROOT / "tests/backends/pg_fixture.sh"
OPEN = "('pending', 'queued', 'scheduled', 'running', 'preempted')"


def fixture(cmd, store, *extra):
    subprocess.run(["bash", str(FIXTURE), cmd, str(store.state), *extra], check=True)


def live_leader(store):
    """The lease's holder when a replica holds an unexpired lease, else None."""
    try:
        rows = store.rows("SELECT holder FROM leader_lease WHERE name = 'platform' AND "
                          "expires_ns > CAST(EXTRACT(EPOCH FROM clock_timestamp()) * 1000000 AS BIGINT) * 1000")
    except subprocess.CalledProcessError:
        return None  # the database is down
    return rows[0][0] if rows else None


class Client(threading.Thread):
    """Submits until stopped; an unacknowledged key is retried with the same key and document."""

    def __init__(self, budcore, cfg, work):
        super().__init__(daemon=True)
        self.budcore, self.cfg, self.work = budcore, cfg, work
        self.acked, self.unacked = {}, {}  # key -> (tenant, job id) / (tenant, document)
        self.next, self.errors = 0, 0
        self.stop = threading.Event()

    def submit(self, key, tenant, doc):
        f = self.work / "client-job.json"
        f.write_text(doc)
        try:
            rc, out = chaos.cli(self.budcore, self.cfg, "submit", str(f), "--tenant", tenant, "--key", key)
        except subprocess.TimeoutExpired:
            rc, out = 1, ""
        if rc != 0:
            self.errors += 1
            self.unacked[key] = (tenant, doc)
            return None
        jid = json.loads(out)["job"]["id"]
        self.unacked.pop(key, None)
        self.acked[key] = (tenant, jid)
        return jid

    def one(self):
        if self.unacked and random.random() < 0.5:
            key = random.choice(sorted(self.unacked))
            tenant, doc = self.unacked[key]
        else:
            key, tenant, doc = f"k{self.next}", random.choice(chaos.TENANTS), chaos.job_doc(self.next)
            self.next += 1
        jid = self.submit(key, tenant, doc)
        if jid is None:
            time.sleep(0.2)
            return
        r = random.random()
        if r < 0.1:
            chaos.cli(self.budcore, self.cfg, "cancel", jid, "--tenant", tenant)
        elif r < 0.2:
            chaos.cli(self.budcore, self.cfg, "priority", jid, random.choice(["high", "low"]), "--tenant", tenant)

    def run(self):
        while not self.stop.is_set():
            self.one()
            time.sleep(0.2)  # about what the cluster completes, so that the queue drains

    def settle(self, deadline):
        """Retries every unacknowledged key until acknowledged (the database is up now)."""
        while self.unacked and time.monotonic() < deadline:
            for key, (tenant, doc) in sorted(self.unacked.items()):
                self.submit(key, tenant, doc)


def wait_for_leader(store, seconds):
    t0 = time.monotonic()
    while time.monotonic() - t0 < seconds:
        if live_leader(store):
            return round(time.monotonic() - t0, 3)
        time.sleep(0.05)
    return None


def run(args):
    random.seed(args.seed)
    work = Path(args.work)
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    store = chaos.Store("postgres", work)
    cfg = chaos.config(store, work)
    reps = chaos.Replicas(args.budcore, cfg, work)
    client = Client(args.budcore, cfg, work)
    report = {"restarts": 0, "recoveries": [], "problems": []}
    problems = report["problems"]
    try:
        if wait_for_leader(store, 4 * chaos.LEASE + 10) is None:
            problems.append("no replica leads at the start")
        client.start()
        for i in range(args.restarts):
            time.sleep(random.uniform(1.5, 3.0))  # under load
            fixture("down", store, random.choice(["fast", "immediate"]))
            # In turn longer than the lease (the leader must stop acting, another may lead) and
            # shorter (the leader keeps its lease across the restart).
            time.sleep(args.down_seconds if i % 2 == 0 else chaos.LEASE / 4)
            fixture("up", store)
            report["restarts"] += 1
            took = wait_for_leader(store, 4 * chaos.LEASE + 20)
            if took is None:
                problems.append(f"restart {i + 1}: no replica leads again")
            else:
                report["recoveries"].append(took)
        time.sleep(2.0)
        client.stop.set()
        client.join()
        client.settle(time.monotonic() + 30)
        for key in sorted(client.unacked):
            problems.append(f"submit {key} was never acknowledged with the database up")
        if not drained(store, time.monotonic() + args.drain_seconds):
            problems.append("jobs or requests left open: " + json.dumps(open_work(store)))
        for rid, p in sorted(reps.procs.items()):
            if p.poll() is not None:
                problems.append(f"replica {rid} exited with {p.returncode}")
    finally:
        client.stop.set()
        reps.stop_all()
    problems += chaos.check(store, {"acked": client.acked}, args)
    report.update(acknowledged=len(client.acked), client_errors=client.errors, problems=problems[:50],
                  ok=not problems)
    store.close()
    print(json.dumps(report))
    return 0 if not problems else 1


def open_work(store):
    jobs = store.rows(f"SELECT status, COUNT(*) FROM jobs WHERE status IN {OPEN} GROUP BY status")
    requests = store.rows("SELECT COUNT(*) FROM platform_requests")
    return {"jobs": dict(jobs), "requests": int(requests[0][0])}


def drained(store, deadline):
    while time.monotonic() < deadline:
        w = open_work(store)
        if not w["jobs"] and w["requests"] == 0:
            return True
        time.sleep(0.5)
    return False


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--budcore", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--restarts", type=int, default=5)
    ap.add_argument("--down-seconds", type=float, default=3.0)
    ap.add_argument("--drain-seconds", type=float, default=60.0)
    ap.add_argument("--seed", type=int, default=1)
    sys.exit(run(ap.parse_args()))


if __name__ == "__main__":
    main()
