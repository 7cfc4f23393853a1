#!/usr/bin/env python3
"""Chaos for replicas on one store (docs/ha.md): three `budcore platform serve` processes share a
SQLite file or a PostgreSQL database; clients (one-shot CLI processes, which never lead) submit
jobs with idempotency keys, cancel them and change their priorities, while the leader is killed
with -9 again and again and paused past its lease (SIGSTOP, then SIGCONT). At the end, read from
the store itself:

- every acknowledged submit took effect exactly once (its key names one job);
- every job's transitions form one legal, unbroken chain;
- at no instant of the event log do admitted runs hold more A100 GPUs than the cluster has, and
  no run is admitted while it is admitted;
- the leaders' epochs never go back along the event log (no write with a stale epoch);
- the audit chains verify.

Usage: chaos.py --budcore BIN --store sqlite|postgres --work DIR [--kills N] [--pauses N]
Exit 0 when every check holds; the report is printed as JSON.
"""
import argparse
import json
import os
import random
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TENANTS = ["00000000-0000-4000-8000-0000000000c1", "00000000-0000-4000-8000-0000000000c2"]
A100_GPUS = 16  # the embedded inventory: 2 nodes of 8
LEASE, RENEW, RETRY = 2.0, 0.5, 0.2

LEGAL = {
    ("pending", "queued"), ("queued", "scheduled"), ("scheduled", "running"), ("running", "completed"),
    ("running", "failed"), ("scheduled", "failed"), ("queued", "failed"), ("failed", "queued"),
    ("scheduled", "preempted"), ("running", "preempted"), ("preempted", "queued"), ("preempted", "cancelled"),
    ("pending", "cancelled"), ("queued", "cancelled"), ("scheduled", "cancelled"), ("running", "cancelled"),
    ("pending", "failed"),
}


class Store:
    def __init__(self, kind, work):
        self.kind = kind
        self.work = work
        if kind == "sqlite":
            self.path = work / "chaos.db"
            self.uri = "sqlite://" + str(self.path)
        else:
            state = work / "pg"
            subprocess.run(["bash", str(ROOT / "tests/backends/pg_fixture.sh"), "start", str(state)], check=True)
            self.state = state
            self.uri = subprocess.run(["bash", str(ROOT / "tests/backends/pg_fixture.sh"), "schema", str(state), "chaos"],
                                      check=True, capture_output=True, text=True).stdout.strip()

    def rows(self, sql):
        if self.kind == "sqlite":
            con = sqlite3.connect(self.path, timeout=30)
            try:
                return con.execute(sql).fetchall()
            finally:
                con.close()
        out = subprocess.run(["psql", "-X", "-At", "-F", "\t", self.uri.split("?")[0] + "?options=-csearch_path%3Dchaos",
                              "-c", sql], check=True, capture_output=True, text=True).stdout
        return [tuple(line.split("\t")) for line in out.splitlines() if line]

    def close(self):
        if self.kind == "postgres":
            subprocess.run(["bash", str(ROOT / "tests/backends/pg_fixture.sh"), "stop", str(self.state)], check=False)


def config(store, work):
    text = f"""store: {{uri: '{store.uri}', durable: false}}
clock: system
ha: {{replica: r0, lease_seconds: {LEASE}, renew_seconds: {RENEW}, retry_seconds: {RETRY}}}
"""
    path = work / "platform.yaml"
    path.write_text(text)
    return path


class Replicas:
    def __init__(self, budcore, cfg, work, n=3):
        self.budcore, self.cfg, self.work = budcore, cfg, work
        self.procs = {}
        for i in range(n):
            self.start(f"r{i + 1}")

    def start(self, rid):
        log = open(self.work / f"{rid}.log", "a")
        self.procs[rid] = subprocess.Popen([self.budcore, "platform", "serve", "--config", str(self.cfg), "--replica", rid],
                                           stdout=log, stderr=log)

    def stop_all(self):
        for p in self.procs.values():
            if p.poll() is None:
                os.kill(p.pid, signal.SIGCONT)
                p.terminate()
        for p in self.procs.values():
            try:
                p.wait(timeout=20)
            except subprocess.TimeoutExpired:
                p.kill()


def replica_of(holder):
    """The replica id of a lease holder `<replica>#<token>` (a process, not a name)."""
    return holder.split("#")[0] if holder else None


def leader(store):
    rows = store.rows("SELECT holder, epoch FROM leader_lease WHERE name = 'platform'")
    return (rows[0][0], int(rows[0][1])) if rows else (None, 0)


DIAGNOSE = []  # what to print when a client hangs: the store's own view of its sessions


def cli(budcore, cfg, *args):
    try:
        r = subprocess.run([budcore, "platform", *args, "--config", str(cfg)], capture_output=True, text=True,
                           timeout=60)
    except subprocess.TimeoutExpired:
        for diagnose in DIAGNOSE:
            print("a client hung; the store's sessions:", diagnose(), file=sys.stderr)
        raise
    return r.returncode, r.stdout


def job_doc(i):
    return json.dumps({"name": f"j{i}", "job_type": "batch", "deployment_type": "docker",
                       "gpu_type": "nvidia-a100-80gb", "gpu_count": random.choice([1, 2, 4]),
                       "estimated_duration_seconds": random.choice([1, 2, 3])})


def clients_round(budcore, cfg, work, state, n):
    for _ in range(n):
        i = state["next"]
        state["next"] += 1
        tenant = random.choice(TENANTS)
        key = f"k{i}"
        f = work / "job.json"
        f.write_text(job_doc(i))
        rc, out = cli(budcore, cfg, "submit", str(f), "--tenant", tenant, "--key", key)
        if rc == 0:
            job = json.loads(out)["job"]
            state["acked"][key] = (tenant, job["id"])
            # Sometimes cancel or reprioritise what was just acknowledged.
            r = random.random()
            if r < 0.1:
                cli(budcore, cfg, "cancel", job["id"], "--tenant", tenant)
            elif r < 0.2:
                cli(budcore, cfg, "priority", job["id"], random.choice(["high", "low"]), "--tenant", tenant)


def chaos(args):
    random.seed(args.seed)
    work = Path(args.work)
    shutil.rmtree(work, ignore_errors=True)  # every run starts from an empty store
    work.mkdir(parents=True)
    store = Store(args.store, work)
    if args.store == "postgres":
        DIAGNOSE.append(lambda: store.rows(
            "SELECT pid, state, wait_event_type, wait_event, now() - xact_start, left(query, 120) "
            "FROM pg_stat_activity WHERE datname IS NOT NULL"))
    cfg = config(store, work)
    reps = Replicas(args.budcore, cfg, work)
    state = {"next": 0, "acked": {}}
    report = {"store": args.store, "kills": 0, "pauses": 0, "failovers": []}
    try:
        time.sleep(LEASE + 1)
        actions = ["kill"] * args.kills + ["pause"] * args.pauses
        random.shuffle(actions)
        for action in actions:
            clients_round(args.budcore, cfg, work, state, 3)
            holder, epoch = leader(store)
            rid = replica_of(holder)
            proc = reps.procs.get(rid)
            if proc is None or proc.poll() is not None:
                time.sleep(LEASE)
                continue
            t0 = time.monotonic()
            if action == "kill":
                os.kill(proc.pid, signal.SIGKILL)
                proc.wait()
                report["kills"] += 1
            else:
                os.kill(proc.pid, signal.SIGSTOP)
                report["pauses"] += 1
            # Wait for another replica to lead at a higher epoch.
            while time.monotonic() - t0 < 4 * LEASE + 10:
                h, e = leader(store)
                if e > epoch and h != holder:
                    report["failovers"].append(round(time.monotonic() - t0, 3))
                    break
                time.sleep(0.05)
            clients_round(args.budcore, cfg, work, state, 2)
            if action == "kill" and "killed_shown_as" not in report:
                # The replicas view never shows a killed leader as leading.
                code, out = cli(args.budcore, cfg, "replicas")
                roles = {r["replica"]: r["role"] for r in json.loads(out)["replicas"]} if code == 0 else {}
                report["killed_shown_as"] = roles.get(rid)
            if action == "kill":
                # An id whose process reported within the lease is refused as in use.
                time.sleep(max(0.0, LEASE + 0.2 - (time.monotonic() - t0)))
                reps.start(rid)
            else:
                os.kill(proc.pid, signal.SIGCONT)  # wakes deposed: its writes must fail
        # Let every job end.
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            open_jobs = store.rows("SELECT COUNT(*) FROM jobs WHERE status IN "
                                   "('pending', 'queued', 'scheduled', 'running', 'preempted')")
            pending_requests = store.rows("SELECT COUNT(*) FROM platform_requests")
            if int(open_jobs[0][0]) == 0 and int(pending_requests[0][0]) == 0:
                break
            time.sleep(0.5)
    finally:
        reps.stop_all()
    problems = check(store, state, args)
    if report.get("killed_shown_as") not in (None, "unresponsive", "deposed"):
        problems.append(f"`platform replicas` showed a killed leader as {report['killed_shown_as']}")
    if report["kills"] + report["pauses"] < (args.kills + args.pauses) // 2:
        problems.append(f"only {report['kills']} kills and {report['pauses']} pauses of {args.kills + args.pauses}: "
                        "the leader was not found among the replicas")
    report.update(acknowledged=len(state["acked"]), problems=problems[:50], ok=not problems)
    if report["failovers"]:
        f = sorted(report["failovers"])
        report["failover_p50_s"] = f[len(f) // 2]
        report["failover_p99_s"] = f[min(len(f) - 1, int(len(f) * 0.99))]
    store.close()
    print(json.dumps(report))
    return 0 if not problems else 1


def check(store, state, args):
    problems = []
    # 1. Every acknowledged submit took effect exactly once.
    keys = {}
    for tenant, key, jid in store.rows("SELECT tenant_id, idempotency_key, id FROM jobs WHERE idempotency_key IS NOT NULL"):
        keys.setdefault((tenant, key), []).append(jid)
    for key, (tenant, jid) in state["acked"].items():
        ids = keys.get((tenant, key), [])
        if ids != [jid]:
            problems.append(f"acknowledged {key} ({jid}) has jobs {ids}")
    # 2-4. Transitions, capacity, epochs, from the event log in commit order.
    sizes = {row[0]: int(row[1]) for row in store.rows("SELECT id, gpu_count FROM jobs")}
    events = store.rows("SELECT seq, object_id, doc FROM platform_events WHERE type = 'job.transition' ORDER BY seq")
    last, admitted, held, epoch = {}, set(), 0, 0
    for seq, jid, doc in events:
        d = json.loads(doc)
        frm, to, run = d["from"], d["to"], d.get("run", 1)
        if last.get(jid, "pending") != frm:
            problems.append(f"event {seq}: job {jid} moves from {frm} but was {last.get(jid, 'pending')}")
        if (frm, to) not in LEGAL:
            problems.append(f"event {seq}: job {jid} {frm} -> {to} is not a legal transition")
        last[jid] = to
        e = d.get("epoch")
        if e is not None:
            if e < epoch:
                problems.append(f"event {seq}: written at epoch {e} after epoch {epoch}")
            epoch = max(epoch, e)
        if to == "scheduled":
            if (jid, run) in admitted:
                problems.append(f"event {seq}: run {run} of job {jid} admitted twice")
            admitted.add((jid, run))
            held += sizes.get(jid, 0)
            if held > A100_GPUS:
                problems.append(f"event {seq}: admitted runs hold {held} A100 GPUs, the cluster has {A100_GPUS}")
        elif frm in ("scheduled", "running") and to in ("completed", "failed", "cancelled", "preempted"):
            admitted.discard((jid, run))
            held -= sizes.get(jid, 0)
    # 5. The audit chains.
    r = subprocess.run([args.budcore, "audit", "verify", store.uri], capture_output=True, text=True)
    if r.returncode != 0:
        problems.append("audit verify: " + (r.stdout or r.stderr)[:500])
    return problems


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--budcore", required=True)
    ap.add_argument("--store", choices=["sqlite", "postgres"], required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--kills", type=int, default=30)
    ap.add_argument("--pauses", type=int, default=10)
    ap.add_argument("--seed", type=int, default=1)
    sys.exit(chaos(ap.parse_args()))


if __name__ == "__main__":
    main()
