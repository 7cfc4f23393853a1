import json
import pathlib

import pytest

SPECS = pathlib.Path(__file__).resolve().parents[2] / "examples" / "specs" / "jobs"


@pytest.fixture
def job_dict():
    """A complete, valid job document in the source design's field names."""
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
