import json
import pathlib

import pytest

SPECS = pathlib.Path(__file__).resolve().parents[2] / "examples" / "specs" / "jobs"


@pytest.fixture
def job_dict():
    """A complete, valid job document in the Job schema's field names."""
    return {
        "name": "train-llama",
        "tenant_id": "3f6b2a1e-8c4d-4e5f-9a0b-1c2d3e4f5a6b",
        "project_id": "7a8b9c0d-1e2f-4a3b-8c5d-6e7f8a9b0c1d",
        "job_type": "training",
        "deployment_type": "docker",
        "spec": {"image": "ghcr.io/example/trainer:2.0", "args": ["--epochs", 3]},
        "gpu_type": "nvidia-h100-sxm",
        "gpu_count": 4,
        "cpu_cores": "500m",
        "memory_gb": 64,
        "storage_gb": 100,
        "estimated_duration_seconds": 3600,
        "max_duration_seconds": 7200,
        "priority": "high",
        "preemptible": False,
        "max_retries": 2,
        "budget_limit": "120.50",
    }


@pytest.fixture
def endpoint_json():
    return (SPECS / "llm-endpoint.json").read_text()


@pytest.fixture
def endpoint_dict(endpoint_json):
    return json.loads(endpoint_json)


ROOT = pathlib.Path(__file__).resolve().parents[2]


PG_FIXTURE = ROOT / "tests" / "backends" / "pg_fixture.sh"


@pytest.fixture(scope="session")
def postgres_server(tmp_path_factory):
    """A throwaway PostgreSQL server for the session (tests/backends/pg_fixture.sh, as ctest's
    fixture); its state directory. Skips when the server binaries are not installed."""
    import subprocess

    state = tmp_path_factory.mktemp("pg")
    subprocess.run(["bash", str(PG_FIXTURE), "start", str(state)], check=True, capture_output=True)
    if not (state / "uri").exists():
        pytest.skip("PostgreSQL server binaries are not installed")
    try:
        yield state
    finally:
        subprocess.run(["bash", str(PG_FIXTURE), "stop", str(state)], check=False, capture_output=True)


@pytest.fixture(params=["sqlite", "postgres"])
def store_uri(request, tmp_path):
    """A fresh store URI of each backend: a SQLite file, or a schema of its own on the session's
    PostgreSQL server (`pg_fixture.sh schema`, as the C, Rust and Go tests make theirs)."""
    if request.param == "sqlite":
        return f"sqlite://{tmp_path}/store.db"
    import subprocess
    import uuid

    state = request.getfixturevalue("postgres_server")
    schema = "py_" + uuid.uuid4().hex[:12]
    out = subprocess.run(["bash", str(PG_FIXTURE), "schema", str(state), schema], check=True, capture_output=True, text=True)
    return out.stdout.strip()
