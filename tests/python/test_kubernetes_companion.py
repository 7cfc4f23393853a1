"""budcore.kueue.Companion on the Kubernetes test bed: one pass with leader election on a Lease
of its own, then a run stopped from another thread. Needs the test bed (BUDCORE_K8S_STATE_DIR,
set by tests/k8s_surfaces.sh in `make test`); skipped without it."""

import os
import signal
import threading
import time

import pytest

import budcore

STATE = os.environ.get("BUDCORE_K8S_STATE_DIR")
pytestmark = pytest.mark.skipif(not STATE, reason="no Kubernetes test bed (BUDCORE_K8S_STATE_DIR unset)")


def test_one_pass_then_a_run_until_stopped(tmp_path):
    ident = f"py-{time.time_ns():x}"
    config = (f"controllers: [{{name: budcore.io/{ident}, checks: [budget]}}]\n"
              "price_book: {currency: USD}\nbudgets: {budgets: []}\n"
              f"leader_election: {{lease_name: {ident}, namespace: default, identity: {ident}}}\n")
    with budcore.kueue.Companion(config, kubeconfig=f"{STATE}/kubeconfig",
                                 store=f"sqlite:{tmp_path}/companion.db") as c:
        p = c.sync_once()
        assert p["leader"] is True and p["identity"] == ident
        assert p["admission_checks"] == [] and p["written"] == [] and p["retrying"] == []
        stopper = threading.Timer(1.5, c.stop)
        stopper.start()
        started = time.monotonic()
        c.run(on_event=lambda e: True)
        assert 1.0 < time.monotonic() - started < 30
        stopper.join()


def test_ctrl_c_stops_a_run_and_raises_once_it_has_returned(tmp_path):
    ident = f"py-{time.time_ns():x}"
    config = (f"controllers: [{{name: budcore.io/{ident}, checks: [budget]}}]\n"
              "price_book: {currency: USD}\nbudgets: {budgets: []}\n"
              f"leader_election: {{lease_name: {ident}, namespace: default, identity: {ident}}}\n")
    main = threading.get_ident()
    with budcore.kueue.Companion(config, kubeconfig=f"{STATE}/kubeconfig",
                                 store=f"sqlite:{tmp_path}/companion.db") as c:
        interrupter = threading.Timer(1.5, lambda: signal.pthread_kill(main, signal.SIGINT))
        interrupter.start()
        with pytest.raises(KeyboardInterrupt):
            c.run()
        interrupter.join()
        # The controller stopped cleanly and serves the next pass.
        assert c.sync_once()["leader"] is True
