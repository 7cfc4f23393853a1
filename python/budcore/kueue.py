"""budcore.kueue: the Kueue companion's budget and window checks (docs/kueue-companion.md).

The companion answers Kueue AdmissionChecks beside any Kueue; these are its decisions as pure
functions, to try a configuration or a Workload before the controller runs it:

    summary = budcore.kueue.check_config(open("companion.yaml").read())
    d = budcore.kueue.decide(config, workload, spent={"team-a": "70.00 USD"},
                             now="2026-11-28T12:00:00Z")
    d["budget"]["state"]        # "Ready", "Retry" or "Rejected"
    d["window"]["message"]      # why not now, and the next opening

The controller itself runs as ``budcore kueue companion --config FILE``.
"""

from __future__ import annotations

import datetime as _dt
from typing import Any, Mapping, Optional, Union

from ._core import kueue_companion_decide, kueue_companion_summary

__all__ = ["check_config", "decide"]

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
