#!/usr/bin/env python3
"""Fair-sharing scenarios translated from kubernetes-sigs/kueue (@ ff69552e)
pkg/scheduler/preemption/preemption_fair_test.go (TestFairPreemptions). Each case: admitted
workloads, an incoming workload queued to the target ClusterQueue, fair sharing on, one cycle;
expected = the victims Kueue's fairPreemptions picks, the incoming workload pending.
Kueue's test gives every admitted workload the same reservation time, so candidates tie-break on
UID; here they share one reservation_seq and fall back to the name, as the Go test's UIDs do.
Workloads live in namespace "default", one LocalQueue per ClusterQueue named after it.
Writes tests/quota/data/kueue_fair_*.json; run from this directory."""
from gen_scheduler_scenarios import cq, rg, fq, rq, lq, wl, cohort, emit

FLAVORS = [{"name": "default"}]
BASE_PRE = dict(within="LowerPriority", reclaim="Any", bwc="LowerPriority", bwc_max=-3)


def cpu_cq(name, nominal, cohort_name="all", weight=None, **pre):
    q = cq(name, rg(fq("default", rq("cpu", nominal))), cohort=cohort_name, **pre)
    if weight is not None: q["fair_weight"] = weight
    return q


BASE_CQS = [cpu_cq("a", "3", **BASE_PRE), cpu_cq("b", "3", **BASE_PRE), cpu_cq("c", "3", **BASE_PRE), cpu_cq("preemptible", "0")]
CASES = []


def case(title, admitted, target, incoming, preempted=(), cqs=None, cohorts=(), strategies=None):
    """admitted: (name, cq, cpu, priority); incoming: (name, cpu, priority)."""
    queues = cqs or BASE_CQS
    wls = []
    for n, q, c, p in admitted:
        w = wl("default/" + n, q, {"cpu": c}, prio=p, adm=(q, "default"))
        wls.append(w)
    n, c, p = incoming
    wls.append(wl("default/" + n, target, {"cpu": c}, prio=p))
    fs = {"enable": True}
    if strategies: fs["preemption_strategies"] = strategies
    CASES.append(dict(title=title, workloads=wls, admitted={}, preempted=["default/" + v for v in preempted],
                      pending=["default/" + n], cqs=queues, lqs=[lq("default", q["name"], q["name"]) for q in queues],
                      cohorts=list(cohorts), cycles=1, fair_sharing=fs))


def units(prefix_counts, prio=0):
    out = []
    for q, k in prefix_counts:
        out += [(q + str(i), q, "1", prio) for i in range(1, k + 1)]
    return out


case("reclaim nominal from user using the most", units([("a", 3), ("b", 5), ("c", 1)]), "c", ("c_incoming", "1", 0), ["b1"])
case("can reclaim from queue using less, if taking the latest workload from user using the most isn't enough",
     [("a1", "a", "3", 0), ("a2", "a", "1", 0), ("b1", "b", "2", 0), ("b2", "b", "3", 0)], "c", ("c_incoming", "3", 0), ["a1"])
case("reclaim borrowable quota from user using the most", units([("a", 3), ("b", 5), ("c", 1)]), "a", ("a_incoming", "1", 0), ["b1"])
case("preempt one from each CQ borrowing",
     [("a1", "a", "0.5", 0), ("a2", "a", "0.5", 0), ("a3", "a", "3", 0), ("b1", "b", "0.5", 0), ("b2", "b", "0.5", 0), ("b3", "b", "3", 0)],
     "c", ("c_incoming", "2", 0), ["a1", "b1"])
case("can't preempt when everyone under nominal", units([("a", 3), ("b", 3), ("c", 3)]), "c", ("c_incoming", "1", 0))
case("can't preempt when it would switch the imbalance", units([("a", 3), ("b", 5)]), "a", ("a_incoming", "2", 0))
case("can preempt lower priority workloads from same CQ",
     [("a1_low", "a", "1", -1), ("a2_low", "a", "1", -1), ("a3", "a", "1", 0), ("a4", "a", "1", 0)] + units([("b", 5)]),
     "a", ("a_incoming", "2", 0), ["a1_low", "a2_low"])
case("can preempt a combination of same CQ and highest user",
     [("a_low", "a", "1", -1), ("a2", "a", "1", 0), ("a3", "a", "1", 0)] + units([("b", 6)]),
     "a", ("a_incoming", "2", 0), ["a_low", "b1"])
case("preempt huge workload if there is no other option, as long as the target CQ gets a lower share",
     [("b1", "b", "9", 0)], "a", ("a_incoming", "2", 0), ["b1"])
case("can't preempt huge workload if the incoming is also huge", [("a1", "a", "2", 0), ("b1", "b", "7", 0)], "a", ("a_incoming", "5", 0))
case("can't preempt 2 smaller workloads if the incoming is huge",
     [("b1", "b", "2", 0), ("b2", "b", "2", 0), ("b3", "b", "3", 0)], "a", ("a_incoming", "6", 0))
case("preempt from target and others even if over nominal",
     [("a1_low", "a", "2", -1), ("a2_low", "a", "1", -1), ("b1", "b", "3", 0), ("b2", "b", "3", 0)],
     "a", ("a_incoming", "4", 0), ["a1_low", "b1"])
case("prefer to preempt workloads that don't make the target CQ have the biggest share",
     [("b1", "b", "2", 0), ("b2", "b", "1", 0), ("b3", "b", "2", 0), ("c1", "c", "1", 0)], "a", ("a_incoming", "3.5", 0), ["b2"])
case("preempt from different cluster queues if the end result has a smaller max share",
     [("b1", "b", "2", 0), ("b2", "b", "2.5", 0), ("c1", "c", "2", 0), ("c2", "c", "2.5", 0)], "a", ("a_incoming", "3.5", 0), ["b1", "c1"])
case("scenario above does not flap", [("a1", "a", "3.5", 0), ("b2", "b", "2.5", 0), ("c2", "c", "2.5", 0)], "b", ("b_incoming", "2", 0))
case("cannot preempt if it would make the candidate CQ go under nominal after preempting one element",
     [("b1", "b", "3", 0), ("b2", "b", "3", 0), ("c1", "c", "3", 0)], "a", ("a_incoming", "4", 0))
case("workloads under priority threshold not capriciously preempted",
     units([("a", 3), ("b", 3)]) + units([("preemptible", 3)], prio=-3), "a", ("a_incoming", "2", 0))
case("preempt lower priority first, even if big", [("a1", "a", "3", 0), ("b_low", "b", "5", 0), ("b_high", "b", "1", 1)],
     "a", ("a_incoming", "1", 0), ["b_low"], strategies=["LessThanInitialShare"])
case("preempt workload that doesn't transfer the imbalance, even if high priority",
     [("a1", "a", "3", 0), ("b_low", "b", "5", 0), ("b_high", "b", "1", 1)],
     "a", ("a_incoming", "1", 0), ["b_high"], strategies=["LessThanOrEqualToFinalShare"])
SIMPLE = dict(within="LowerPriority", reclaim="Any")
case("CQ with higher weight can preempt more", units([("a", 3), ("b", 6)]), "a", ("a_incoming", "2", 0), ["b1", "b2"],
     cqs=[cpu_cq("a", "3", weight="2", **SIMPLE), cpu_cq("b", "3", **SIMPLE), cpu_cq("c", "3", **SIMPLE)])
case("can preempt anything borrowing from CQ with 0 weight", units([("a", 3), ("b", 6)]), "a", ("a_incoming", "3", 0), ["b1", "b2", "b3"],
     cqs=[cpu_cq("a", "3", **SIMPLE), cpu_cq("b", "3", weight="0", **SIMPLE), cpu_cq("c", "3", **SIMPLE)])
case("can't preempt nominal from CQ with 0 weight", units([("a", 3), ("b", 3)]), "a", ("a_incoming", "1", 0),
     cqs=[cpu_cq("a", "3", **SIMPLE), cpu_cq("b", "3", weight="0", **SIMPLE)])
right = cohort("right-cohort", "root", rg(fq("default", rq("cpu", "1"))))
right["fair_weight"] = "0"
case("can't preempt nominal from Cohort with 0 weight", [("right-1", "right-cq", "1", 0)], "left-cq", ("left-1", "1", 0),
     cqs=[cpu_cq("left-cq", "0", "root", reclaim="Any"), cpu_cq("right-cq", "0", "right-cohort", weight="0", reclaim="Any")], cohorts=[right])
case("can preempt within cluster queue when no cohort", [("a1", "a", "1", 0)], "a", ("a_incoming", "1", 1000), ["a1"],
     cqs=[cpu_cq("a", "1", None, within="LowerPriority")])
hier_cohorts = [cohort("ROOT", None, rg(fq("default", rq("cpu", "5")))), cohort("LEFT", "ROOT", rg(fq("default", rq("cpu", "5")))),
                cohort("RIGHT", "ROOT", rg(fq("default", rq("cpu", "5"))))]
hier_cohorts[1]["fair_weight"] = "2"
case("hierarchical preemption", [(q + str(i), q, "1", i) for q in "bcde" for i in range(1, 6)], "a", ("unit", "5", 0),
     ["b1", "b2", "c1", "c2", "e1"],
     cqs=[cpu_cq("a", "1", "LEFT", weight="2", reclaim="Any"), cpu_cq("b", "1", "LEFT"), cpu_cq("c", "1", "ROOT"),
          cpu_cq("d", "1", "RIGHT"), cpu_cq("e", "1", "RIGHT", weight="0.99")], cohorts=hier_cohorts)

# pkg/scheduler/scheduler_fs_test.go (TestScheduleForFairSharing), on TestSchedule's base queues.
import gen_scheduler_scenarios as sched
SCHED_CASES = []


def sched_case(title, workloads, admitted, pending=(), preempted=(), cqs=(), lqs=(), cohorts=()):
    SCHED_CASES.append(dict(title=title, workloads=workloads, admitted=admitted, preempted=list(preempted), pending=list(pending),
                            cqs=list(cqs), lqs=list(lqs), cohorts=list(cohorts), cycles=1, fair_sharing={"enable": True}))


sched_case("with fair sharing: schedule workload with lowest share first",
           [sched.wl("eng-alpha/all_nominal", "main", pod_sets=[sched.ps("one", 50, {"cpu": "1"})], adm=("eng-alpha", "on-demand")),
            sched.wl("eng-beta/borrowing", "main", pod_sets=[sched.ps("one", 55, {"cpu": "1"})], adm=("eng-beta", "on-demand")),
            sched.wl("eng-beta/older_new", "main", pod_sets=[sched.ps("one", 1, {"cpu": "1"})], seq=1),
            sched.wl("eng-alpha/new", "main", pod_sets=[sched.ps("one", 5, {"cpu": "1"})], seq=2)],
           {"eng-alpha/new": ("eng-alpha", {"one": {"cpu": "on-demand"}})}, pending=["eng-beta/older_new"],
           cqs=[cq("eng-shared", rg(fq("on-demand", rq("cpu", "10", "0"))), cohort="eng")])

if __name__ == "__main__":
    emit("fair", CASES, FLAVORS, [], [])
    emit("fairsched", SCHED_CASES, sched.FLAVORS, sched.BASE_CQS, sched.BASE_LQS)
    print(len(CASES), "fair sharing scenarios")
