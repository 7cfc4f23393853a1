#!/usr/bin/env python3
"""Scenarios translated from kubernetes-sigs/kueue pkg/scheduler/preemption/preemption_test.go
(TestPreemption, @ ff69552e): admitted workloads, an incoming workload "in" queued to the target
ClusterQueue; one cycle; expected = the victims Kueue's GetTargets chooses, "in" pending.
Kueue's test hands GetTargets a fixed flavor assignment; cases whose assignment the flavor
assigner would not choose (e.g. "only preempt workloads using the chosen flavor", and "no workloads borrowing", where
the incoming workload simply fits by borrowing, and "can't preempt workloads in ClusterQueue for
withinClusterQueue=Never", which fits by borrowing too) are left out.
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
    cq("a_standard", rg(fq("default", rq("cpu", "1", "12"))), cohort="with_shared_cq", within="Never", reclaim="LowerPriority",
       bwc="LowerPriority", bwc_max=0),
    cq("b_standard", rg(fq("default", rq("cpu", "1", "12"))), cohort="with_shared_cq", within="LowerPriority", reclaim="Any",
       bwc="LowerPriority", bwc_max=0),
    cq("a_best_effort", rg(fq("default", rq("cpu", "1", "12"))), cohort="with_shared_cq", within="Never", reclaim="LowerPriority",
       bwc="LowerPriority", bwc_max=0),
    cq("b_best_effort", rg(fq("default", rq("cpu", "0", "13"))), cohort="with_shared_cq", within="Never", reclaim="LowerPriority",
       bwc="LowerPriority", bwc_max=0),
    cq("shared", rg(fq("default", rq("cpu", "10"))), cohort="with_shared_cq"),
    cq("lend1", rg(fq("default", rq("cpu", "6", None, "4"))), cohort="cohort-lend", within="LowerPriority", reclaim="LowerPriority"),
    cq("lend2", rg(fq("default", rq("cpu", "6", None, "2"))), cohort="cohort-lend", within="LowerPriority", reclaim="LowerPriority"),
    cq("a", rg(fq("default", rq("cpu", "2"), rq("memory", "2"))), cohort="cohort-three", within="LowerPriority", reclaim="Any"),
    cq("b", rg(fq("default", rq("cpu", "2"), rq("memory", "2"))), cohort="cohort-three"),
    cq("c", rg(fq("default", rq("cpu", "2"), rq("memory", "2"))), cohort="cohort-three"),
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

# Cases with their own shapes (priorities, reservation order, pod sets, queues); see gcase.
from gen_scheduler_scenarios import ps, cohort
HCASES = []


def A(name, q, req, prio=0, flavor="default", rseq=0, seq=None):
    w = wl("default/" + name, q, req, prio=prio, adm=(q, flavor), seq=seq)
    w["admitted"]["reservation_seq"] = rseq
    return w


def gcase(title, admitted, target, req=None, prio=0, preempted=(), pod_sets=None, seq=None, cqs=None, cohorts=(), into=None):
    wls = list(admitted) + [wl("default/in", target, req, prio=prio, pod_sets=pod_sets, seq=seq)]
    own = list(cqs or [])
    (CASES if into is None else into).append(dict(
        title=title, workloads=wls, admitted={}, preempted=["default/" + p for p in preempted], pending=["default/in"],
        cqs=own, lqs=[lq("default", q["name"], q["name"]) for q in own], cohorts=list(cohorts), cycles=1))


gcase("preempting locally and not borrowing same resource in 1-queue cohort",
      [A("l1-med", "l1", C("4")), A("l1-low", "l1", C("2"), -1)], "l1", C("4"), 1, ["l1-med"])
gcase("do not reclaim borrowed quota from same priority for withinCohort=ReclaimFromLowerPriority",
      [A("c1", "c1", C("2")), A("c2-1", "c2", C("4")), A("c2-2", "c2", C("4"))], "c1", C("4"))
gcase("reclaim borrowed quota from same priority for withinCohort=ReclaimFromAny",
      [A("c1-1", "c1", C("4")), A("c1-2", "c1", C("4"), 1), A("c2", "c2", C("2"))], "c2", C("4"), 0, ["c1-1"])
gcase("preempt from all ClusterQueues in cohort",
      [A("c1-low", "c1", C("3"), -1), A("c1-mid", "c1", C("2")), A("c2-low", "c2", C("3"), -1), A("c2-mid", "c2", C("4"))],
      "c1", C("4"), 0, ["c1-low", "c2-low"])
gcase("each podset preempts a different flavor",
      [A("low-alpha", "standalone", {"memory": "2Gi"}, -1, "alpha"), A("low-beta", "standalone", {"memory": "2Gi"}, -1, "beta")],
      "standalone", preempted=["low-alpha", "low-beta"],
      pod_sets=[ps("launcher", 1, {"memory": "2Gi"}), ps("workers", 2, {"memory": "1Gi"})])
# wl2 and wl3 were created after "in" (creation order 10 vs 0); wl2 reserved quota last.
gcase("preempt newer workloads with the same priority",
      [A("wl1", "preventStarvation", C("2"), 2), A("wl2", "preventStarvation", C("2"), 1, rseq=1, seq=10),
       A("wl3", "preventStarvation", C("2"), 1, seq=10)],
      "preventStarvation", prio=1, preempted=["wl2"], pod_sets=[ps("launcher", 1, C("2"))], seq=0)
gcase("use BorrowWithinCohort; allow preempting a lower-priority workload from another ClusterQueue while borrowing",
      [A("a_best_effort_low", "a_best_effort", C("10"), -1), A("b_best_effort_low", "b_best_effort", C("1"), -1)],
      "a_standard", C("10"), 0, ["a_best_effort_low"])
gcase("use BorrowWithinCohort; don't allow preempting a lower-priority workload with priority above MaxPriorityThreshold, "
      "if borrowing is required even after the preemption",
      [A("b_standard", "b_standard", C("10"), 1)], "a_standard", C("10"), 2)
gcase("use BorrowWithinCohort; allow preempting a lower-priority workload with priority above MaxPriorityThreshold, "
      "if borrowing is not required after the preemption",
      [A("b_standard", "b_standard", C("13"), 1)], "a_standard", C("1"), 2, ["b_standard"])
gcase("use BorrowWithinCohort; don't allow for preemption of lower-priority workload from the same ClusterQueue",
      [A("a_standard", "a_standard", C("13"), 1)], "a_standard", C("1"), 2)
gcase("use BorrowWithinCohort; only preempt from CQ if no workloads below threshold and already above nominal",
      [A("a_standard_1", "a_standard", C("10"), 1), A("a_standard_2", "a_standard", C("1"), 1),
       A("b_standard_1", "b_standard", C("1"), 1), A("b_standard_2", "b_standard", C("1"), 2)],
      "b_standard", C("1"), 3, ["b_standard_1"])
gcase("use BorrowWithinCohort; preempt from CQ and from other CQs with workloads below threshold",
      [A("b_standard_high", "b_standard", C("10"), 2), A("b_standard_mid", "b_standard", C("1"), 1),
       A("a_best_effort_low", "a_best_effort", C("1"), -1), A("a_best_effort_lower", "a_best_effort", C("1"), -2)],
      "b_standard", C("2"), 2, ["a_best_effort_lower", "b_standard_mid"])
gcase("reclaim quota from lender",
      [A("lend1-low", "lend1", C("3"), -1), A("lend2-mid", "lend2", C("3")), A("lend2-high", "lend2", C("4"), 1)],
      "lend1", C("3"), 1, ["lend2-mid"])
gcase("preempt from all ClusterQueues in cohort-lend",
      [A("lend1-low", "lend1", C("3"), -1), A("lend1-mid", "lend1", C("2")), A("lend2-low", "lend2", C("3"), -1),
       A("lend2-mid", "lend2", C("4"))], "lend1", C("4"), 0, ["lend1-low", "lend2-low"])
gcase("cannot preempt from other ClusterQueues if exceeds requestable quota including lending limit",
      [A("lend2-low", "lend2", C("10"), -1)], "lend1", C("9"))
THREE = [("a1", "a", -2), ("a2", "a", -2), ("a3", "a", -1), ("b1", "b", 0), ("b2", "b", 0), ("b3", "b", 0)]
CM = {"cpu": "1", "memory": "1"}
gcase("preemptions from cq when target queue is exhausted for the single requested resource",
      [A(n, q, C("1"), p) for n, q, p in THREE], "a", C("2"), 0, ["a1", "a2"])
gcase("preemptions from cq when target queue is exhausted for two requested resources",
      [A(n, q, CM, p) for n, q, p in THREE], "a", {"cpu": "2", "memory": "2"}, 0, ["a1", "a2"])
gcase("preemptions from cq when target queue is exhausted for one requested resource, but not the other",
      [A(n, q, C("1"), p) for n, q, p in THREE], "a", {"cpu": "2", "memory": "2"}, 0, ["a1", "a2"])
gcase("allow preemption from other cluster queues if target cq is not exhausted for the requested resource",
      [A("a1", "a", C("1"), -1)] + [A("b%d" % i, "b", C("1")) for i in range(1, 5)] + [A("b5", "b", C("1"), -1)],
      "a", C("2"), 0, ["a1", "b5"])
gcase("long range preemption", [A("to-be-preempted", "cq-right", C("5"))], "cq-left", C("8"), 0, ["to-be-preempted"],
      cqs=[cq("cq-left", rg(fq("default", rq("cpu", "10"))), cohort="cohort-left", reclaim="Any"),
           cq("cq-right", rg(fq("default", rq("cpu", "0"))), cohort="cohort-right")],
      cohorts=[cohort("cohort-left", "root"), cohort("cohort-right", "root")])

# preemption_hierarchical_test.go (TestHierarchicalPreemptions). A ClusterQueue listed there with a flavor and no
# resources (or no resource group) gets cpu (and memory where used) with nominal 0, the same quota.
# "prefer to preempt evicted workloads" needs an in-flight eviction and is left out.
ANY = dict(within="LowerPriority", reclaim="Any")
BWC = dict(within="LowerPriority", reclaim="Any", bwc="LowerPriority", bwc_max=0)


def hq(name, parent, cpu="0", mem=None, ll=None, **pre):
    res = [rq("cpu", cpu, None, ll)] + ([rq("memory", mem)] if mem is not None else [])
    return cq(name, rg(fq("default", *res)), cohort=parent, **pre)


def hc(name, parent=None, cpu=None, mem=None):
    if cpu is None: return cohort(name, parent)
    res = [rq("cpu", cpu)] + ([rq("memory", mem)] if mem is not None else [])
    return cohort(name, parent, rg(fq("default", *res)))


R_C2 = [hc("r"), hc("c", "r", "2")]
gcase("preempt with hierarchical advantage", [A("admitted2", "q_borrowing", C("2"))], "q", C("2"), 0, ["admitted2"],
      cqs=[hq("q", "c", **ANY), hq("q_borrowing", "r", **ANY)], cohorts=R_C2, into=HCASES)
gcase("avoid queues within nominal quota", [A("admitted1", "q_nominal", C("2"), -10), A("admitted2", "q_borrowing", C("2"))],
      "q", C("2"), 0, ["admitted2"],
      cqs=[hq("q_nominal", "r", "2", **ANY), hq("q", "c", **ANY), hq("q_borrowing", "r", **ANY)], cohorts=R_C2, into=HCASES)
gcase("preempt multiple with hierarchical advantage",
      [A("admitted1", "q_borrowing", C("1"), 1), A("admitted2", "q_borrowing", C("1"), 2)], "q", C("2"), 0, ["admitted1", "admitted2"],
      cqs=[hq("q", "c", **ANY), hq("q_borrowing", "r", **ANY)], cohorts=R_C2, into=HCASES)
gcase("preempt in cohort and own CQ",
      [A("admitted_not_preemptible", "q_same_cohort", C("1"), 1), A("admitted_preemptible", "q_same_cohort", C("1"), 0),
       A("admitted_own_queue", "q", C("1"), -1)], "q", C("2"), 1, ["admitted_own_queue", "admitted_preemptible"],
      cqs=[hq("q", "c", **BWC), hq("q_same_cohort", "c", **ANY)], cohorts=[hc("r"), hc("c", "r", "3")], into=HCASES)
gcase("prefer to preempt hierarchical candidate",
      [A("admitted_borrowing", "q_borrowing", C("1"), 1), A("admitted_same_queue", "q", C("1"), -2)], "q", C("1"), 0,
      ["admitted_borrowing"], cqs=[hq("q", "c", **ANY), hq("q_borrowing", "r", **ANY)], cohorts=R_C2, into=HCASES)
gcase("forced to preempt priority candidate",
      [A("admitted_nominal", "q_nominal", C("2"), -10), A("admitted_same_cohort", "q_same_cohort", C("2"), -1)], "q", C("2"), 0,
      ["admitted_same_cohort"], cqs=[hq("q", "c", **BWC), hq("q_nominal", "r", "2", **ANY), hq("q_same_cohort", "c", **ANY)],
      cohorts=R_C2, into=HCASES)
gcase("incoming workload fits in CQ nominal quota",
      [A("admitted_borrowing", "q_borrowing", C("3"), 10), A("admitted_same_cohort", "q_same_cohort", C("3"), 10)], "q", C("4"), 0,
      ["admitted_borrowing", "admitted_same_cohort"],
      cqs=[hq("q", "c", "4", **ANY), hq("q_borrowing", "r", **ANY), hq("q_same_cohort", "c", **ANY)], cohorts=R_C2, into=HCASES)
R1_C4 = [hc("r", None, "1"), hc("c", "r", "4")]
HQ3 = [hq("q", "c", within="LowerPriority", reclaim="LowerPriority", bwc="LowerPriority", bwc_max=0),
       hq("q_borrowing", "r", **ANY), hq("q_same_cohort", "c", **ANY)]
gcase("preempt hierarchical and priority candidates",
      [A("admitted_borrowing", "q_borrowing", C("2"), -1), A("admitted_same_cohort_preemptible", "q_same_cohort", C("1"), -1),
       A("admitted_borrowing_not_preemptible", "q_borrowing", C("2"), 1)], "q", C("3"), 0,
      ["admitted_borrowing", "admitted_same_cohort_preemptible"], cqs=HQ3, cohorts=R1_C4, into=HCASES)
gcase("preempt hierarchical candidates and inside CQ",
      [A("admitted_borrowing", "q_borrowing", C("2"), -1), A("admitted_same_queue_preemptible", "q", C("1"), -1),
       A("admitted_borrowing_not_preemptible", "q_borrowing", C("2"), 1)], "q", C("3"), 0,
      ["admitted_borrowing", "admitted_same_queue_preemptible"], cqs=HQ3, cohorts=R1_C4, into=HCASES)
gcase("reclaim nominal quota from lowest priority workload, excluding non-borrowing",
      [A("admitted_borrowing_prio_8", "q_borrowing", C("1"), 8), A("admitted_borrowing_prio_9", "q_borrowing", C("1"), 9),
       A("admitted_borrowing_prio_10", "q_borrowing", C("1"), 9), A("admitted_nominal", "q_nominal", C("2"), -2)], "q", C("1"), 0,
      ["admitted_borrowing_prio_8"], cqs=[hq("q", "c", **ANY), hq("q_borrowing", "r", **ANY), hq("q_nominal", "r", "2", **ANY)],
      cohorts=[hc("r"), hc("c", "r", "3")], into=HCASES)
gcase("infeasible preemption all available workloads in pruned subtrees",
      [A("admitted_other_1", "q_other", C("1"), -10), A("admitted_other_2", "q_other", C("1"), -10),
       A("admitted_same_cohort", "q_same_cohort", C("2"))], "q", C("2"), 0, [],
      cqs=[hq("q_other", "c_other", **ANY), hq("q", "c", **ANY), hq("q_same_cohort", "c", **ANY)],
      cohorts=[hc("r"), hc("c", "r", "2"), hc("c_other", "r", "2")], into=HCASES)
gcase("hiearchical preemption with multiple resources",
      [A("admitted_borrowing", "q_borrowing", {"cpu": "3", "memory": "1Gi"}), A("admitted_same_cohort", "q_same_cohort",
                                                                                 {"cpu": "1", "memory": "3Gi"}, -2)],
      "q", {"cpu": "2", "memory": "1Gi"}, -2, ["admitted_borrowing"],
      cqs=[hq("q", "c", mem="0", **ANY), hq("q_borrowing", "r", mem="0", **ANY), hq("q_same_cohort", "c", mem="0", **ANY)],
      cohorts=[hc("r", None, "3", "0"), hc("c", "r", "4", "4Gi")], into=HCASES)
gcase("respect lending limits", [A("admitted_borrowing", "q_borrowing", C("4"))], "q", C("5"), -2, ["admitted_borrowing"],
      cqs=[hq("q", "c", "3", ll="2", **ANY), hq("q_borrowing", "r", **ANY)], cohorts=R_C2, into=HCASES)
gcase("reclaim in complex hierarchy",
      [A("admitted_borrowing_1", "q1", C("4"), -6), A("admitted_borrowing_2", "q1", C("4"), -5),
       A("admitted_borrowing_3", "q2", C("4"), -9), A("admitted_borrowing_4", "q2", C("4"), -10),
       A("admitted_borrowing_5", "q3", C("4"), -4), A("admitted_borrowing_6", "q3", C("3"), -3),
       A("admitted_borrowing_7", "q4", C("2"), 4), A("admitted_borrowing_8", "q4", C("3"), 2)],
      "q5", C("7"), -2, ["admitted_borrowing_1", "admitted_borrowing_4"],
      cqs=[hq(n, p, **ANY) for n, p in [("q1", "c12"), ("q2", "c23"), ("q3", "c22"), ("q4", "c32"), ("q5", "c31")]],
      cohorts=[hc("r")] + [hc(n, p, "4") for n, p in [("c11", "r"), ("c12", "r"), ("c21", "c11"), ("c22", "c11"), ("c23", "c11"),
                                                     ("c31", "c21"), ("c32", "c21")]], into=HCASES)

if __name__ == "__main__":
    emit("preempt", CASES, FLAVORS, CQS, LQS)
    emit("hpreempt", HCASES, FLAVORS[:1], [], [])
    print(len(CASES) + len(HCASES), "preemption scenarios")
