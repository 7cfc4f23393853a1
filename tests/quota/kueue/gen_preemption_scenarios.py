#!/usr/bin/env python3
"""Scenarios translated from kubernetes-sigs/kueue pkg/scheduler/preemption/preemption_test.go
(TestPreemption, @ ff69552e): admitted workloads, an incoming workload "in" queued to the target
ClusterQueue; one cycle; expected = the victims Kueue's GetTargets chooses, "in" pending.
Kueue's test hands GetTargets a fixed flavor assignment; cases whose assignment the flavor
assigner would not choose (e.g. "only preempt workloads using the chosen flavor", and "no workloads borrowing", where
the incoming workload simply fits by borrowing) are left out.
Workloads live in namespace "default", one LocalQueue per ClusterQueue named after it."""
from gen_scheduler_scenarios import cq, rg, fq, rq, lq, wl, emit

FLAVORS = [{"name": "default"}, {"name": "alpha"}, {"name": "beta"}]
CQS = [
    cq("standalone", rg(fq("default", rq("cpu", "6"))), rg(fq("alpha", rq("memory", "3Gi")), fq("beta", rq("memory", "3Gi"))), within="LowerPriority"),
    cq("c1", rg(fq("default", rq("cpu", "6", "6"), rq("memory", "3Gi", "3Gi"))), cohort="cohort", within="LowerPriority", reclaim="LowerPriority"),
    cq("c2", rg(fq("default", rq("cpu", "6", "6"), rq("memory", "3Gi", "3Gi"))), cohort="cohort", within="Never", reclaim="Any"),
    cq("d1", rg(fq("default", rq("cpu", "6"), rq("memory", "3Gi"))), cohort="cohort-no-limits", within="LowerPriority", reclaim="LowerPriority"),
    cq("d2", rg(fq("default", rq("cpu", "6"), rq("memory", "3Gi"))), cohort="cohort-no-limits", within="Never", reclaim="Any"),
    cq("l1", rg(fq("default", rq("cpu", "6", "12"), rq("memory", "3Gi", "6Gi"))), cohort="legion", within="LowerPriority", reclaim="LowerPriority"),
    cq("preventStarvation", rg(fq("default", rq("cpu", "6"))), within="LowerOrNewerEqualPriority"),
]
LQS = [lq("default", q["name"], q["name"]) for q in CQS]
CASES = []


def case(title, admitted, target, incoming_req, prio=0, preempted=()):
    wls = [wl("default/" + n, cqn, req, prio=p, adm=(cqn, "default" if "cpu" in req else None)) for n, cqn, req, p in admitted]
    for w, (n, cqn, req, p) in zip(wls, admitted):
        w["admitted"]["flavors"] = {"main": {r: "default" for r in req}}
    wls.append(wl("default/in", target, incoming_req, prio=prio))
    CASES.append(dict(title=title, workloads=wls, admitted={}, preempted=["default/" + p for p in preempted],
                      pending=["default/in"], cqs=[], lqs=[], cohorts=[], cycles=1))


C = lambda v: {"cpu": v}
case("preempt lowest priority", [("low", "standalone", C("2"), -1), ("mid", "standalone", C("2"), 0), ("high", "standalone", C("2"), 1)],
     "standalone", C("2"), 1, ["low"])
case("preempt multiple", [("low", "standalone", C("2"), -1), ("mid", "standalone", C("2"), 0), ("high", "standalone", C("2"), 1)],
     "standalone", C("3"), 1, ["low", "mid"])
case("no preemption for low priority", [("low", "standalone", C("3"), -1), ("mid", "standalone", C("3"), 0)], "standalone", C("1"), -1)
case("not enough low priority workloads", [("low", "standalone", C("3"), -1), ("mid", "standalone", C("3"), 0)], "standalone", C("4"), 0)
case("some free quota, preempt low priority", [("low", "standalone", C("1"), -1), ("mid", "standalone", C("1"), 0), ("high", "standalone", C("3"), 1)],
     "standalone", C("2"), 1, ["low"])
case("minimal set excludes low priority", [("low", "standalone", C("1"), -1), ("mid", "standalone", C("2"), 0), ("high", "standalone", C("3"), 1)],
     "standalone", C("2"), 1, ["mid"])
case("reclaim quota from borrower", [("c1-low", "c1", C("3"), -1), ("c2-mid", "c2", C("3"), 0), ("c2-high", "c2", C("6"), 1)],
     "c1", C("3"), 1, ["c2-mid"])
case("reclaim quota if workload requests 0 resources for a resource at nominal quota",
     [("c1-low", "c1", {"cpu": "3", "memory": "3Gi"}, -1), ("c2-mid", "c2", C("3"), 0), ("c2-high", "c2", C("6"), 1)],
     "c1", {"cpu": "3", "memory": "0"}, 1, ["c2-mid"])
case("not enough workloads borrowing", [("c1-high", "c1", C("4"), 1), ("c2-low-1", "c2", C("4"), -1), ("c2-low-2", "c2", C("4"), -1)],
     "c1", C("4"), 1)
case("preempting locally and borrowing other resources in cohort, without cohort candidates",
     [("c1-low", "c1", C("4"), -1), ("c2-low-1", "c2", C("4"), -1), ("c2-high-2", "c2", C("4"), 1)],
     "c1", {"cpu": "4", "memory": "5Gi"}, 1, ["c1-low"])
case("preempting locally and borrowing same resource in cohort",
     [("c1-med", "c1", C("4"), 0), ("c1-low", "c1", C("4"), -1), ("c2-low-1", "c2", C("4"), -1)], "c1", C("4"), 1, ["c1-low"])
case("preempting locally and borrowing same resource in cohort; no borrowing limit in the cohort",
     [("d1-med", "d1", C("4"), 0), ("d1-low", "d1", C("4"), -1), ("d2-low-1", "d2", C("4"), -1)], "d1", C("4"), 1, ["d1-low"])
case("preempting locally and borrowing other resources in cohort, with cohort candidates",
     [("c1-med", "c1", C("4"), 0), ("c2-low-1", "c2", C("5"), -1), ("c2-low-2", "c2", C("1"), -1), ("c2-low-3", "c2", C("1"), -1)],
     "c1", {"cpu": "2", "memory": "5Gi"}, 1, ["c1-med"])

if __name__ == "__main__":
    emit("preempt", CASES, FLAVORS, CQS, LQS)
    print(len(CASES), "preemption scenarios")
