"""budcore: the control-plane core of a GPU platform (jobs, quantities, money, quotas,
pipelines, templates, storage), from C++.

One submodule per layer: ``budcore.jobs`` (Job, Quantity, Money), ``budcore.templates``,
``budcore.pipeline``, ``budcore.quota``, ``budcore.store``, ``budcore.cost``,
``budcore.schedule``, ``budcore.usecases``, ``budcore.platform``, ``budcore.gpu``,
``budcore.serverless``, ``budcore.results`` (the one result style: frozen dataclasses and
``Rows``), ``budcore.enums`` (job status, priority, ... as str enums), ``budcore.documents``
(JSON/YAML) and ``budcore.errors``. Every public name of theirs
that the library implements is also at the top level (``budcore.Job`` is
``budcore.jobs.Job``), as before the submodules existed.

Every type here is implemented in the C++ library (the ``_core`` extension); this package only
re-exports it (``budcore.quota``, ``budcore.cost`` and ``budcore.usecases`` add pure-Python
helpers; pandas and matplotlib are imported only by the functions that return frames or
charts). Errors raised by budcore derive from :class:`budcore.Error` and carry ``.code``,
``.field`` (the path of the offending input), ``.value`` and ``.message``.
"""

# Every name from its layer's submodule (each lists it in its __all__): the top level is the
# alias of each, as it was before the submodules existed.
from ._core import AdmissionEngine, PriceBook, QuotaConfig, ScheduleTimeline, UsecaseRegistry, __version__, version_info
from .documents import *  # noqa: F401,F403  load_document, parse_json, to_json
from .enums import *  # noqa: F401,F403  JobStatus, Priority, JobType, ... (str enums)
from .errors import *  # noqa: F401,F403  Error and its subclasses
from .jobs import *  # noqa: F401,F403  Job, Money, Quantity
from .pipeline import *  # noqa: F401,F403  Pipeline, PipelineIssue
from .store import *  # noqa: F401,F403  Store, StoredJob, check_store, latest_schema_version, open_store
from .templates import *  # noqa: F401,F403  render, render_native, Template and its errors
from . import cost, documents, enums, errors, jobs, pipeline, quota, results, store, templates
from . import schedule
from . import usecases
from . import platform
from . import gpu, kueue, serverless
from .platform import Platform, simulate

# The top level: every name of the layers' submodules that the library implements, the
# submodules themselves, and the platform's two entry points.
_SUBMODULES = ("cost", "documents", "enums", "errors", "gpu", "jobs", "pipeline", "platform", "quota", "results", "schedule",
               "serverless", "store", "templates", "usecases")
__all__ = sorted(
    {"AdmissionEngine", "PriceBook", "QuotaConfig", "ScheduleTimeline", "UsecaseRegistry", "Platform", "simulate",
     "__version__", "version_info", *_SUBMODULES}
    | {name for module in (documents, enums, errors, jobs, pipeline, store, templates) for name in module.__all__}
)
