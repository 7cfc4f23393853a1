"""budcore.pipeline: pipeline documents (the Pipeline/Step schema), their
problems, plans and rehearsed runs (docs/pipelines.md).

    p = budcore.pipeline.Pipeline.load("rag-pipeline.json")
    p.validate()                # [PipelineIssue(...)] , empty when valid
    p.plan().to_pandas()        # a row per step

The same objects are also at the top level (``budcore.Pipeline``).
"""

from ._core import Pipeline, PipelineIssue

__all__ = ["Pipeline", "PipelineIssue"]
