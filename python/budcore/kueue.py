"""budcore.kueue: the Kueue companion's budget and window checks (docs/kueue-companion.md).

The companion answers Kueue AdmissionChecks beside any Kueue; these are its decisions as pure
functions, to try a configuration or a Workload before the controller runs it:

    summary = budcore.kueue.check_config(open("companion.yaml").read())
    d = budcore.kueue.decide(config, workload, spent={"team-a": "70.00 USD"},
                             now="2026-11-28T12:00:00Z")
    d["budget"]["state"]        # "Ready", "Retry" or "Rejected"
    d["window"]["message"]      # why not now, and the next opening

The controller itself runs as ``budcore kueue companion --config FILE``, or from Python:

    with budcore.kueue.Companion(config, kubeconfig="/etc/budcore/kubeconfig",
                                 store="sqlite:///var/lib/budcore/companion.db") as c:
        c.sync_once()                        # one pass, as --once
        c.run(on_event=print)                # until c.stop() from another thread, or Ctrl-C
"""

from __future__ import annotations

import datetime as _dt
from typing import Any, Callable, Mapping, Optional, Union

from ._core import kueue_companion_decide, kueue_companion_open, kueue_companion_summary

__all__ = ["Companion", "check_config", "decide"]

Config = Union[str, Mapping[str, Any]]


def check_config(config: Config, *, base_dir: str = ".") -> dict[str, Any]:
    """Validates a companion configuration (YAML/JSON text or a dict; file names in it are
    relative to ``base_dir``) and returns its summary: ``controllers`` (name and checks),
    ``cluster_queues``, ``tenants`` (how many rules), ``budgets`` (names) and ``currency``.
    An invalid one raises ValidationError naming the field."""
    return kueue_companion_summary(config if isinstance(config, str) else dict(config), base_dir)


def decide(config: Config, workload: Mapping[str, Any], *, spent: Optional[Mapping[str, str]] = None,
           now: Union[str, _dt.datetime, None] = None, owner_annotations: Optional[Mapping[str, str]] = None,
           base_dir: str = ".") -> dict[str, Any]:
    """The budget and window checks for one Workload (a ``kueue.x-k8s.io`` Workload object as a
    dict). ``spent`` is each budget's spend so far in its period (``{"team-a": "12.00 USD"}``),
    ``now`` the time of the decision (RFC 3339 text or an aware datetime; default: now, UTC).
    Returns ``{"tenant_id"?, "price" | "price_error", "budget", "window"}``; each decision has
    ``check``, ``state`` ("Ready", "Retry", "Rejected"), ``message`` and, for a Retry,
    ``requeue_after_seconds``."""
    if now is None:
        now = _dt.datetime.now(_dt.timezone.utc)
    if isinstance(now, _dt.datetime):
        if now.tzinfo is None:
            raise ValueError("now: a datetime with a time zone (naive times are ambiguous)")
        now = now.astimezone(_dt.timezone.utc).isoformat().replace("+00:00", "Z")
    request: dict[str, Any] = {"workload": dict(workload), "now": now}
    if spent is not None:
        request["spent"] = dict(spent)
    if owner_annotations is not None:
        request["owner_annotations"] = dict(owner_annotations)
    return kueue_companion_decide(config if isinstance(config, str) else dict(config), request, base_dir)


class Companion:
    """The companion controller on a cluster with a Store, as ``budcore kueue companion`` runs
    it. ``config`` is the configuration (YAML/JSON text or a dict; file names in it relative to
    ``base_dir``), ``kubeconfig`` a kubeconfig file (default: the configuration's, else
    ``$KUBECONFIG``, ``~/.kube/config``, in-cluster), ``store`` a store URI (default: the
    configuration's, else ``sqlite:budcore-companion.db``). A bad input raises ValidationError
    naming it (``kubeconfig``, ``store`` or the configuration's field) with the value and why.
    One thread drives it at a time; ``stop()`` may be called from any."""

    def __init__(self, config: Config, *, kubeconfig: Optional[str] = None, store: Optional[str] = None,
                 base_dir: str = ".") -> None:
        self._handle = kueue_companion_open(config if isinstance(config, str) else dict(config),
                                            kubeconfig or "", store or "", base_dir)

    def sync_once(self) -> dict[str, Any]:
        """One pass (``--once``): with leader election one attempt at the Lease, then the
        AdmissionChecks marked Active, every Workload listed, its runs metered and its pending
        checks answered, and the Lease released. Returns ``{"leader", "identity"?,
        "admission_checks", "written", "retrying"}``; ``leader`` is False (and nothing
        written) when another replica holds the Lease."""
        return self._handle.sync_once()

    def run(self, on_event: Optional[Callable[[dict[str, Any]], Any]] = None) -> None:
        """Runs until ``stop()`` (from another thread), ``on_event`` returning False, or a signal
        (Ctrl-C raises KeyboardInterrupt after the controller has stopped and released its
        Lease; an exception in ``on_event`` stops it the same way). ``on_event`` gets each event:
        ``{"event": "decision", "workload", "admission_check", "state", "message", ...}`` or
        ``{"event": "retrying", "error": {...}}``; a return of None counts as True."""
        callback = None if on_event is None else (lambda e: on_event(e) is not False)
        self._handle.run(callback)

    def stop(self) -> None:
        """Asks a running ``run()`` to return after its current pass; a later run returns at once."""
        self._handle.stop()

    def close(self) -> None:
        """Closes the controller's client and Store; later calls raise."""
        self._handle.close()

    def __enter__(self) -> "Companion":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
