"""budcore.store: the durable store (a SQLite file or PostgreSQL; docs/store.md).

    with budcore.store.open_store("sqlite:///tmp/bud.db") as s:
        rec = s.submit_job(tenant, job)          # a StoredJob (version, idempotency_key, job)
        s.list_jobs(tenant).to_pandas()

The same objects are also at the top level (``budcore.open_store``, ``budcore.Store``).
"""

from ._core import Store, StoredJob, check_store, latest_schema_version, open_store

__all__ = ["Store", "StoredJob", "check_store", "latest_schema_version", "open_store"]
