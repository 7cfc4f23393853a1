"""
The C++ library behind the budcore package: quantities, money, jobs, quotas and admission, pipelines, templates, stores, cost, schedules, use cases, the platform, GPU placement and serverless endpoints
"""
from __future__ import annotations
from budcore import AlreadyExistsError
from budcore import ArithmeticOverflowError
from budcore import BudgetExceededError
from budcore import ConflictError
from budcore import Error
from budcore import GoneError
from budcore import InternalError
from budcore import IoError
from budcore import NotFoundError
from budcore import NotLeaderError
from budcore import QuotaExceededError
from budcore import RateLimitedError
from budcore import SecurityError
from budcore import TemplateAssertionError
from budcore import TemplateError
from budcore import TemplateRuntimeError
from budcore import TemplateSecurityError
from budcore import TemplateSyntaxError
from budcore import TemplateTypeError
from budcore import TemplateValueError
from budcore import TemplateZeroDivisionError
from budcore import UndefinedError
from budcore import UnsupportedError
from budcore import ValidationError
import budcore.enums
import budcore.results
import budcore.types
import builtins
import collections.abc
import datetime
import decimal
import numpy
import numpy.typing
import os
import typing
import uuid
__all__: list[str] = ['AdmissionEngine', 'AlreadyExistsError', 'ArithmeticOverflowError', 'BudgetExceededError', 'ConflictError', 'Error', 'GoneError', 'InternalError', 'IoError', 'Job', 'KueueCompanionHandle', 'Money', 'NotFoundError', 'NotLeaderError', 'Pipeline', 'PipelineIssue', 'PlatformHandle', 'PriceBook', 'Quantity', 'QuotaConfig', 'QuotaExceededError', 'RateLimitedError', 'SERVERLESS_POLICY_NAMES', 'ScheduleSnapshot', 'ScheduleTimeline', 'SecurityError', 'ServerlessEndpointHandle', 'Store', 'StoredJob', 'Template', 'TemplateAssertionError', 'TemplateError', 'TemplateRuntimeError', 'TemplateSecurityError', 'TemplateSyntaxError', 'TemplateTypeError', 'TemplateValueError', 'TemplateZeroDivisionError', 'UndefinedError', 'UnsupportedError', 'UsecaseRegistry', 'ValidationError', 'check_store', 'cost_admit_job', 'cost_budget_status', 'cost_cheapest_gpu', 'cost_check_admission', 'cost_compare_tiers', 'cost_estimate', 'cost_forecast', 'cost_job_cost', 'cost_load_usage', 'cost_meter', 'cost_record_usage', 'cost_report', 'cost_rollup_arrays', 'cost_serverless_report', 'cost_usage', 'gpu_defrag', 'gpu_place_mig', 'gpu_policy_names', 'gpu_replay', 'kueue_companion_decide', 'kueue_companion_open', 'kueue_companion_summary', 'latest_schema_version', 'load_document', 'open_store', 'parse_json', 'platform_open', 'platform_open_embedded', 'platform_simulate', 'quota_simulate', 'render', 'render_native', 'schedule_replay', 'serverless_endpoint_name', 'serverless_queue_claim', 'serverless_queue_enqueue', 'serverless_queue_finish', 'serverless_queue_list', 'serverless_queue_status', 'serverless_simulate', 'to_json', 'version_info']
class Quantity:
    """
    A Kubernetes resource quantity ('500m', '2Gi', '1e3'), exact to 1n.
    """
    @staticmethod
    def from_int(units: typing.SupportsInt | typing.SupportsIndex) -> Quantity:
        """
        A quantity of `units` whole units.
        """
    @staticmethod
    def from_milli(milli: typing.SupportsInt | typing.SupportsIndex) -> Quantity:
        """
        A quantity of `milli` thousandths of a unit.
        """
    @staticmethod
    def parse(text: str) -> Quantity:
        """
        Parses a Kubernetes quantity ('500m', '2Gi', '1e3'); ValidationError names the text.
        """
    def __add__(self, arg0: Quantity) -> Quantity:
        ...
    def __bool__(self) -> bool:
        ...
    def __eq__(self, arg0: Quantity) -> bool:
        ...
    def __ge__(self, arg0: Quantity) -> bool:
        ...
    def __getstate__(self) -> tuple[str]:
        ...
    def __gt__(self, arg0: Quantity) -> bool:
        ...
    def __hash__(self) -> int:
        ...
    def __init__(self, value: str | int | Quantity = '0') -> None:
        """
        A quantity from text ('500m', '2Gi'), an int (units) or another Quantity.
        """
    def __le__(self, arg0: Quantity) -> bool:
        ...
    def __lt__(self, arg0: Quantity) -> bool:
        ...
    def __mul__(self, arg0: typing.SupportsInt | typing.SupportsIndex) -> Quantity:
        ...
    def __ne__(self, arg0: Quantity) -> bool:
        ...
    def __neg__(self) -> Quantity:
        ...
    def __repr__(self) -> str:
        ...
    def __rmul__(self, arg0: typing.SupportsInt | typing.SupportsIndex) -> Quantity:
        ...
    def __setstate__(self, arg0: tuple) -> None:
        ...
    def __str__(self) -> str:
        ...
    def __sub__(self, arg0: Quantity) -> Quantity:
        ...
    @property
    def format(self) -> budcore.enums.QuantityFormat:
        """
        How the text was written, a budcore.QuantityFormat: 'DecimalSI', 'BinarySI' or 'DecimalExponent'.
        """
    @property
    def is_zero(self) -> bool:
        """
        True for a zero quantity.
        """
    @property
    def milli_value(self) -> int:
        """
        Milli-units, rounded up (Kubernetes MilliValue()).
        """
    @property
    def nano(self) -> int:
        """
        The exact amount in nano-units.
        """
    @property
    def sign(self) -> int:
        """
        -1, 0 or 1.
        """
    @property
    def value(self) -> int:
        """
        Whole units, rounded up (Kubernetes Value()).
        """
class Money:
    """
    An exact amount of an ISO 4217 currency (fixed point, 12 decimals). Never a float.
    """
    @staticmethod
    def parse(text: str) -> Money:
        """
        Parses '12.50 USD'; ValidationError names the text.
        """
    @staticmethod
    def zero(currency: str) -> Money:
        """
        Zero in `currency`.
        """
    def __add__(self, arg0: Money) -> Money:
        ...
    def __bool__(self) -> bool:
        ...
    def __eq__(self, arg0: Money) -> bool:
        ...
    def __ge__(self, arg0: Money) -> bool:
        ...
    def __getstate__(self) -> tuple[str, str]:
        ...
    def __gt__(self, arg0: Money) -> bool:
        ...
    def __hash__(self) -> int:
        ...
    def __init__(self, amount: str | int | decimal.Decimal, currency: str | None = None) -> None:
        """
        Money from an amount (str, int or Decimal) and an ISO 4217 currency ('USD' when omitted).
        """
    def __le__(self, arg0: Money) -> bool:
        ...
    def __lt__(self, arg0: Money) -> bool:
        ...
    @typing.overload
    def __mul__(self, arg0: typing.SupportsInt | typing.SupportsIndex) -> Money:
        ...
    @typing.overload
    def __mul__(self, arg0: Quantity) -> Money:
        ...
    def __ne__(self, arg0: Money) -> bool:
        ...
    def __neg__(self) -> Money:
        ...
    def __repr__(self) -> str:
        ...
    @typing.overload
    def __rmul__(self, arg0: typing.SupportsInt | typing.SupportsIndex) -> Money:
        ...
    @typing.overload
    def __rmul__(self, arg0: Quantity) -> Money:
        ...
    def __setstate__(self, arg0: tuple) -> None:
        ...
    def __str__(self) -> str:
        ...
    def __sub__(self, arg0: Money) -> Money:
        ...
    def amount_string(self, min_decimals: typing.SupportsInt | typing.SupportsIndex = 0) -> str:
        """
        The amount as decimal text with at least `min_decimals` decimals ('12.5', '12.50').
        """
    def round(self, decimals: typing.SupportsInt | typing.SupportsIndex) -> Money:
        """
        Rounds half-to-even to `decimals` places (0..12).
        """
    def to_decimal(self) -> decimal.Decimal:
        """
        The amount as a decimal.Decimal, exactly.
        """
    @property
    def amount(self) -> str:
        """
        The exact decimal amount as a str ('12.5').
        """
    @property
    def currency(self) -> str:
        """
        The ISO 4217 currency code.
        """
    @property
    def is_zero(self) -> bool:
        """
        True for a zero amount.
        """
    @property
    def units(self) -> int:
        """
        The amount in 10^-12 of the currency unit.
        """
class Job:
    """
    A job (the atomic scheduling unit). Build one from a dict or JSON; invalid input raises ValidationError whose .field names the offending key.
    """
    __hash__: typing.ClassVar[None] = None
    @staticmethod
    @typing.overload
    def check(document: dict) -> list[dict]:
        """
        Every problem of a job document (a dict), without raising: [] when Job.from_dict would accept it, else the list from_dict's ValidationError.errors holds ({'code', 'message', 'path', 'value'}, the first first).
        """
    @staticmethod
    @typing.overload
    def check(document: str) -> list[dict]:
        """
        The same for JSON text (what Job.from_json reads).
        """
    @staticmethod
    def from_dict(data: dict[str, builtins.object]) -> Job:
        """
        A job from a dict of the Job schema. ValidationError names the first problem; its .errors lists every one ({'code', 'message', 'path', 'value'}).
        """
    @staticmethod
    def from_json(text: str) -> Job:
        """
        A job from JSON text of the Job schema. ValidationError names the first problem; its .errors lists every one.
        """
    def __eq__(self, arg0: Job) -> bool:
        ...
    def __getattr__(self, arg0: str) -> budcore.types.JsonValue:
        ...
    def __getstate__(self) -> tuple[str]:
        ...
    def __init__(self, **kwargs) -> None:
        """
        Job(name=..., job_type=..., ...): the same keys as from_dict.
        """
    def __ne__(self, arg0: Job) -> bool:
        ...
    def __repr__(self) -> str:
        ...
    def __setstate__(self, arg0: tuple) -> None:
        ...
    def _repr_html_(self) -> str:
        ...
    def to_dict(self) -> dict[str, budcore.types.JsonValue]:
        """
        Every wire field, absent optionals as None, in schema order.
        """
    def to_json(self, indent: typing.SupportsInt | typing.SupportsIndex | None = None) -> str:
        """
        The job as JSON text (compact, or indented by `indent` spaces).
        """
    def validate(self) -> None:
        """
        Raises ValidationError for the first rule the job breaks.
        """
    def validate_all(self) -> list[Error]:
        """
        Every rule violation, as ValidationError instances (not raised).
        """
    @property
    def actual_cost(self) -> Money | None:
        """
        The metered cost so far as a Money, or None.
        """
    @property
    def budget_limit(self) -> Money | None:
        """
        The most this job may cost, as a Money, or None.
        """
    @property
    def cluster_id(self) -> str | None:
        """
        The cluster's UUID, as a string, or None.
        """
    @property
    def cpu_cores(self) -> Quantity:
        """
        CPU cores asked for, as a Quantity.
        """
    @property
    def currency(self) -> str:
        """
        The currency of the cost fields.
        """
    @property
    def deployment_type(self) -> budcore.enums.DeploymentType:
        """
        How the job is deployed, a budcore.DeploymentType: 'helm', 'docker' or 'model'.
        """
    @property
    def effectively_preemptible(self) -> bool:
        """
        Whether the job can be preempted once its priority's default applies.
        """
    @property
    def estimated_cost(self) -> Money | None:
        """
        The estimated cost as a Money, or None.
        """
    @property
    def estimated_duration_seconds(self) -> int | None:
        """
        The submitter's estimate of the run time, or None.
        """
    @property
    def gpu_count(self) -> int:
        """
        GPUs per job.
        """
    @property
    def gpu_resource_name(self) -> str:
        """
        The Kubernetes resource its GPUs are asked as ('nvidia.com/gpu').
        """
    @property
    def gpu_type(self) -> str | None:
        """
        The GPU type asked for ('nvidia-a100-80gb'), or None.
        """
    @property
    def id(self) -> str | None:
        """
        The job's UUID, as a string.
        """
    @property
    def job_type(self) -> budcore.enums.JobType:
        """
        A budcore.JobType: 'service', 'batch' or 'training'.
        """
    @property
    def max_duration_seconds(self) -> int | None:
        """
        The run time after which the job is stopped, or None.
        """
    @property
    def max_retries(self) -> int:
        """
        How many times a failed run is started again.
        """
    @property
    def memory_gb(self) -> Quantity:
        """
        Memory asked for in GiB, as a Quantity.
        """
    @property
    def name(self) -> str:
        """
        The job's name.
        """
    @property
    def outputs(self) -> dict[str, budcore.types.JsonValue]:
        """
        What the job produced (plain Python values).
        """
    @property
    def preemptible(self) -> bool:
        """
        Whether the job may be preempted (see effectively_preemptible for its priority's default).
        """
    @property
    def preempts_others(self) -> bool:
        """
        Whether the job may preempt lower-priority jobs.
        """
    @property
    def priority(self) -> budcore.enums.Priority:
        """
        A budcore.Priority: 'critical', 'high', 'normal', 'low' or 'spot'.
        """
    @property
    def project_id(self) -> str | None:
        """
        The project's UUID, as a string, or None.
        """
    @property
    def retry_count(self) -> int:
        """
        Runs started again after a failure.
        """
    @property
    def source(self) -> budcore.enums.JobSource:
        """
        What created the job, a budcore.JobSource: 'direct', 'pipeline' or 'usecase'.
        """
    @property
    def spec(self) -> dict[str, budcore.types.JsonValue]:
        """
        The job's free-form spec (image, args, env, ...), as plain Python values.
        """
    @property
    def status(self) -> budcore.enums.JobStatus:
        """
        The job's status, a budcore.JobStatus ('pending', 'queued', 'scheduled', 'running', 'completed', 'failed', 'cancelled', ...).
        """
    @property
    def status_message(self) -> str | None:
        """
        Why the job is in its status, or None.
        """
    @property
    def storage_gb(self) -> int | None:
        """
        Storage asked for in GiB, or None.
        """
    @property
    def tenant_id(self) -> str | None:
        """
        The owning tenant's UUID, as a string.
        """
class Template:
    """
    A compiled Jinja2-compatible template (strict undefined, sandboxed). Compile once, render many times; rendering releases the GIL.
    """
    def __init__(self, source: str) -> None:
        """
        Compiles a Jinja2-compatible template; TemplateSyntaxError names the line and column.
        """
    def references(self) -> list[str]:
        """
        Context paths the template reads, e.g. ['steps.step-1.outputs.config'].
        """
    def render(self, *args, **kwargs) -> str:
        """
        render(context=None, /, **kwargs) -> str
        
        Render to text exactly as Jinja2 would. Context variables come as a dict, as keyword arguments, or both (keywords win); `context` is positional-only, so any name can be a variable.
        """
    def render_many(self, contexts: collections.abc.Iterable[dict[str, budcore.types.JsonValue]], native: bool = False) -> list:
        """
        Render once per context (a batch, without the GIL); raises on the first failure.
        """
    def render_native(self, *args, **kwargs) -> typing.Any:
        """
        render_native(context=None, /, **kwargs)
        
        Evaluate like NativeEnvironment: typed result.
        """
    @property
    def is_single_expression(self) -> bool:
        """
        True when the template is one '{{ expression }}' (render_native returns its value).
        """
class QuotaConfig:
    """
    A validated Kueue configuration: resource flavors, cohorts, cluster queues, local queues and priority classes (the keys of docs/cli.md contract 2).
    """
    @staticmethod
    def from_dict(data: dict[str, builtins.object]) -> QuotaConfig:
        """
        From a dict in the `quota simulate` shape (workloads, if any, are ignored).
        """
    @staticmethod
    def from_json(text: str) -> QuotaConfig:
        """
        A quota configuration from JSON text; ValidationError names the bad field.
        """
    @staticmethod
    def from_kueue(documents: list[dict[str, budcore.types.JsonValue]]) -> QuotaConfig:
        """
        Kueue objects as dicts.
        """
    @staticmethod
    def from_kueue_yaml(text: str) -> QuotaConfig:
        """
        Kueue objects (multi-document YAML or JSON), v1beta1 or v1beta2.
        """
    @staticmethod
    def load(path: str | os.PathLike[str]) -> QuotaConfig:
        """
        A budcore quota configuration (or scenario) file, JSON or YAML.
        """
    @staticmethod
    def load_kueue(path: str | os.PathLike[str]) -> QuotaConfig:
        """
        A Kueue YAML file or a directory of them.
        """
    def __init__(self, document: dict[str, builtins.object] | str | None = None, /, **kwargs) -> None:
        """
        QuotaConfig(document) from a dict or JSON text in the `quota simulate` shape, or QuotaConfig(resource_flavors=[...], cohorts=[...], cluster_queues=[...], local_queues=[...], priority_classes=[...]); ValidationError names the bad field. QuotaConfig() is empty.
        """
    def __repr__(self) -> str:
        ...
    def to_dict(self) -> dict[str, budcore.types.JsonValue]:
        """
        The configuration as a dict (the document from_dict reads).
        """
    def to_json(self, indent: typing.SupportsInt | typing.SupportsIndex = 2) -> str:
        """
        The configuration as JSON text, indented by `indent` spaces.
        """
    def to_kueue(self, version: str = 'v1beta2') -> list[dict[str, budcore.types.JsonValue]]:
        """
        The configuration as Kueue objects (ResourceFlavor, Cohort, ClusterQueue, LocalQueue dicts) of API `version`.
        """
    def to_kueue_yaml(self, version: str = 'v1beta2') -> str:
        """
        The configuration as a multi-document Kueue YAML of API `version`.
        """
    @property
    def cluster_queues(self) -> list[str]:
        """
        Names of the ClusterQueues.
        """
    @property
    def cohorts(self) -> list[str]:
        """
        Names of the Cohorts.
        """
    @property
    def local_queues(self) -> list[str]:
        """
        The LocalQueues as 'namespace/name'.
        """
    @property
    def resource_flavors(self) -> list[str]:
        """
        Names of the ResourceFlavors.
        """
    @property
    def warnings(self) -> list[str]:
        """
        What a Kueue import skipped or defaulted.
        """
class AdmissionEngine:
    """
    Kueue's scheduler in-process over a QuotaConfig. Workloads are dicts in the `quota simulate` shape; keys are 'namespace/name'. Thread-safe; cycles release the GIL.
    """
    def __init__(self, config: QuotaConfig, fair_sharing: bool = False, fair_sharing_strategies: collections.abc.Sequence[str] = []) -> None:
        """
        An admission engine over `config` with Kueue's semantics (fair sharing when asked).
        """
    def add_workload(self, workload: dict[str, builtins.object]) -> None:
        """
        Adds a workload (a dict: name, namespace, queue, priority, pod_sets, ...) to its queue.
        """
    def finish(self, key: str) -> None:
        """
        A workload ends: its quota is released and its cohort tree's waiting workloads are requeued.
        """
    def run_cycle(self) -> dict[str, budcore.types.JsonValue]:
        """
        Runs one scheduling cycle; returns {'admitted', 'preempted', 'released', 'changed'}.
        """
    def run_until_quiescent(self, max_cycles: typing.SupportsInt | typing.SupportsIndex = 1000000) -> int:
        """
        Runs cycles until one changes nothing (at most `max_cycles`); returns the number run.
        """
    def status(self, key: str) -> dict[str, budcore.types.JsonValue] | None:
        """
        A workload's status: state, cluster queue, flavors, pending reason.
        """
    def statuses(self) -> list[dict[str, budcore.types.JsonValue]]:
        """
        Every workload's status, in key order.
        """
    def try_reserve(self, workload: dict[str, builtins.object]) -> dict[str, budcore.types.JsonValue]:
        """
        Admit now if it fits without preemption; else QuotaExceededError with the reason.
        """
    def usage(self, view: str = 'cluster_queue') -> dict[str, dict[str, dict[str, dict[str, Quantity]]]]:
        """
        view -> flavor -> resource -> {nominal, used, borrowed, lent, available} (Quantity).
        """
    def usage_rows(self, view: str = 'cluster_queue') -> list[tuple[str, str, str, int, int, int, int, int]]:
        """
        (node, flavor, resource, nominal, used, borrowed, lent, available) in milli-units.
        """
class PipelineIssue:
    """
    One validation problem: a contract-3 code, a message and a path.
    """
    def __eq__(self, arg0: PipelineIssue) -> bool:
        ...
    def __hash__(self) -> int:
        ...
    def __init__(self, code: str, message: str, path: str = '') -> None:
        """
        A pipeline problem: a code ('cycle', 'unknown_dependency', ...), a message and the path it is at.
        """
    def __repr__(self) -> str:
        ...
    def to_dict(self) -> dict[str, str]:
        """
        {'code', 'message', 'path'}.
        """
    @property
    def code(self) -> str:
        """
        What kind of problem ('cycle', 'unknown_dependency', 'duplicate_id', ...).
        """
    @property
    def message(self) -> str:
        """
        The problem in words.
        """
    @property
    def path(self) -> str:
        """
        Where in the document ('steps[2].depends_on[0]').
        """
class Pipeline:
    """
    A pipeline document ({'pipeline': {...}, 'steps': [...]}). validate() lists every problem; plan() gives the contract-3 plan. Immutable.
    """
    @staticmethod
    def from_dict(data: dict[str, builtins.object]) -> Pipeline:
        """
        A pipeline from a dict of the Pipeline/Step schema (docs/pipelines.md); ValidationError names the bad field.
        """
    @staticmethod
    def from_text(text: str) -> Pipeline:
        """
        JSON or YAML text.
        """
    @staticmethod
    def load(path: str | os.PathLike[str]) -> Pipeline:
        """
        A JSON or YAML file.
        """
    def __init__(self, document: dict[str, builtins.object] | str | None = None, /, **kwargs) -> None:
        """
        Pipeline(document) from a dict or JSON/YAML text, or Pipeline(id=..., name=..., steps=[...]) from fields; like from_dict, it is checked by validate(), not here.
        """
    def __len__(self) -> int:
        ...
    def __repr__(self) -> str:
        ...
    def plan(self) -> budcore.results.Plan:
        """
        The contract-3 plan as a budcore.results.Plan (a dict): {'valid': True, 'order', 'levels', 'critical_path', 'critical_path_seconds', 'job_steps'} or {'valid': False, 'errors': [...]}; .to_pandas() gives a row per step.
        """
    def run(self, params: dict[str, builtins.object] | None = None, functions: dict[str, collections.abc.Callable[..., builtins.object]] | None = None, fail: list[str] | tuple[str, ...] | set[str] | frozenset[str] | dict[str, int | bool] | None = None, slow: dict[str, float] | None = None, timeout: list[str] | tuple[str, ...] | set[str] | frozenset[str] | None = None, reject: list[str] | tuple[str, ...] | set[str] | frozenset[str] | None = None, run_id: str = 'run') -> budcore.results.RunResult:
        """
        Rehearses a run on a virtual clock (as `budcore pipeline run`): JOB, API_CALL and NOTIFICATION steps are simulated, FUNCTION steps call functions[name](args) (with step_id= and attempt= when the callable accepts them). Returns {'status', 'done', 'elapsed_seconds', 'failure_reason', 'steps', 'outputs', 'messages', 'transitions'}.
        """
    def to_dict(self) -> dict[str, budcore.types.JsonValue]:
        """
        The pipeline as a dict (the document from_dict reads).
        """
    def validate(self) -> list[PipelineIssue]:
        """
        Every problem (empty when valid), ordered by step then field; cycles last.
        """
    def warnings(self) -> list[PipelineIssue]:
        """
        Soft references (e.g. a step read through `| default`), which are allowed.
        """
    @property
    def id(self) -> str:
        """
        The pipeline's id.
        """
    @property
    def is_valid(self) -> bool:
        """
        True when the pipeline has no issues (see validate()).
        """
    @property
    def name(self) -> str:
        """
        The pipeline's name.
        """
    @property
    def step_ids(self) -> list[str]:
        """
        The step ids, in document order.
        """
class StoredJob:
    """
    A job as the store holds it.
    """
    def __repr__(self) -> str:
        ...
    def _repr_html_(self) -> str:
        ...
    def to_dict(self) -> dict[str, budcore.types.JsonValue]:
        """
        {'version', 'idempotency_key', 'job'}.
        """
    @property
    def created(self) -> bool:
        """
        True when submit_job created it (False: the idempotency key named an existing job).
        """
    @property
    def id(self) -> str:
        """
        The job's UUID, as a string.
        """
    @property
    def idempotency_key(self) -> str | None:
        """
        The key the job was submitted with, or None.
        """
    @property
    def job(self) -> Job:
        """
        The job as stored.
        """
    @property
    def version(self) -> int:
        """
        The record's version: it moves on every change (optimistic concurrency).
        """
class Store:
    """
    A durable, tenant-scoped store (budcore.open_store). Use as a context manager or call close().
    """
    def __enter__(self) -> Store:
        ...
    def __exit__(self, *args) -> None:
        ...
    def __repr__(self) -> str:
        ...
    def close(self) -> None:
        """
        Closes the store; later calls raise.
        """
    def get_job(self, tenant: str | uuid.UUID, id: str | uuid.UUID) -> StoredJob:
        """
        A tenant's job by id; NotFoundError for another tenant's or an unknown id.
        """
    def list_jobs(self, tenant: str | uuid.UUID, **kwargs) -> budcore.results.JobPage:
        """
        Newest first, as a budcore.results.JobPage (a dict {'items': [...], 'next_cursor': str}; .to_pandas() gives a row per job). Keyword filters: status (str or list), project_id, cluster_id, pipeline_id, job_type, source, created_from, created_to, limit, after (a next_cursor), view ('summary' or 'full').
        """
    def schema_version(self) -> int:
        """
        The schema version of the open database.
        """
    def submit_job(self, tenant: str | uuid.UUID, job: Job | dict[str, builtins.object], idempotency_key: str | None = None) -> StoredJob:
        """
        Validate and store a job (budcore.Job or dict) for the tenant; a repeated idempotency key returns the first job with created=False.
        """
    def transition_job(self, tenant: str | uuid.UUID, id: str | uuid.UUID, expected_version: typing.SupportsInt | typing.SupportsIndex, to: str, message: str = '') -> StoredJob:
        """
        Compare-and-set status change along the job state machine (ConflictError otherwise).
        """
    @property
    def backend(self) -> str:
        """
        'sqlite' or 'postgresql'.
        """
    @property
    def closed(self) -> bool:
        """
        True after close().
        """
    @property
    def uri(self) -> str:
        """
        The URI the store was opened with.
        """
class ScheduleTimeline:
    """
    Estimated start and end of every job under the quota rules (docs/cli.md contract 6). Built from a scenario dict or JSON; events revise it. Not thread-safe.
    """
    def __init__(self, scenario: dict[str, builtins.object] | str) -> None:
        """
        A live schedule timeline from a scenario dict (quota config, jobs, now, horizon).
        """
    def apply(self, event: dict[str, builtins.object] | str) -> None:
        """
        Apply a live event: {type: started|finished|failed|preempted|cancelled|submitted|advance, name, at, ...}.
        """
    def html(self, title: str = 'budcore schedule') -> str:
        """
        One self-contained HTML page.
        """
    def lanes(self) -> list[dict[str, budcore.types.JsonValue]]:
        """
        Device lanes (one per GPU, MIG slice or CPU pool): [{name, flavor, resource, blocks}].
        """
    def result(self, details: bool = True) -> dict[str, budcore.types.JsonValue]:
        """
        {jobs, never, makespan} (with details: wait reasons, warnings, utilization).
        """
    @property
    def trees_simulated(self) -> int:
        """
        Cohort trees simulated again by the last update.
        """
class ScheduleSnapshot:
    """
    A timeline's result as the platform computed it (Platform.schedule): the same reads and pictures as ScheduleTimeline; events are refused.
    """
    def apply(self, event: dict[str, builtins.object] | str) -> None:
        """
        Refused (UnsupportedError): the platform revises its timeline.
        """
    def html(self, title: str = 'budcore schedule') -> str:
        """
        One self-contained HTML page.
        """
    def lanes(self) -> list[dict[str, budcore.types.JsonValue]]:
        """
        Device lanes (one per GPU, MIG slice or CPU pool): [{name, flavor, resource, blocks}].
        """
    def result(self, details: bool = True) -> dict[str, budcore.types.JsonValue]:
        """
        {jobs, never, makespan} (with details: wait reasons, warnings, utilization).
        """
    @property
    def trees_simulated(self) -> int:
        """
        0: nothing is simulated again here.
        """
class ServerlessEndpointHandle:
    """
    The C++ ServerlessEndpoint; use budcore.serverless.PlatformEndpoint.
    """
    def enqueue(self, submissions: list[dict[str, builtins.object]]) -> dict[str, budcore.types.JsonValue]:
        """
        Admits submissions and places what can run now: {'results', 'assignments'}.
        """
    def finish(self, request: typing.SupportsInt | typing.SupportsIndex, reason: str = '') -> dict[str, budcore.types.JsonValue]:
        """
        Ends a request (a failed attempt with a reason); places what can run now.
        """
    def meter(self) -> list[dict[str, budcore.types.JsonValue]]:
        """
        Writes the workers' GPU time since their last rows as usage rows; returns them.
        """
    def scale(self, desired: typing.SupportsInt | typing.SupportsIndex | None) -> dict[str, budcore.types.JsonValue]:
        """
        Reads the workers' jobs, then scales to `desired` (None: only reads); returns the status.
        """
class PlatformHandle:
    """
    The C++ Platform; use budcore.Platform.
    """
    def act(self, tenant: str | uuid.UUID, principal: str, request_id: str, verb: str, id: str | uuid.UUID, arg: str) -> StoredJob:
        """
        Applies `verb` ('cancel', 'retry', 'priority', 'preempt') to a job with `arg` (reason or priority).
        """
    def audit(self, tenant: str | uuid.UUID, principal: str, request_id: str, query: dict[str, builtins.object] | None) -> dict[str, budcore.types.JsonValue]:
        """
        A page of the tenant's audit log: {'items', 'next_cursor'}.
        """
    def bind_role(self, tenant: str | uuid.UUID, principal: str, request_id: str, binding: dict[str, builtins.object], grant: bool) -> dict[str, budcore.types.JsonValue] | None:
        """
        Grants (or with grant=False revokes) a role binding; returns the binding.
        """
    def check(self) -> None:
        """
        Checks the platform's invariants against its store and cluster; raises on a violation.
        """
    def close(self) -> None:
        """
        Closes the platform and its store; later calls raise.
        """
    def cluster(self) -> dict[str, budcore.types.JsonValue]:
        """
        What the cluster holds and the quota it uses (an operator call).
        """
    def cluster_view(self, tenant: str | uuid.UUID, principal: str, request_id: str) -> dict[str, budcore.types.JsonValue]:
        """
        The cluster as the caller sees it: its tenant's runs by id, other tenants' runs hidden.
        """
    def compact(self, tenant: str | uuid.UUID, principal: str, request_id: str) -> dict[str, budcore.types.JsonValue]:
        """
        Compacts the store now by the config's retention: {'events_removed', 'audit_removed', 'usage_removed', 'checkpoints'}.
        """
    def deploy_usecase(self, tenant: str | uuid.UUID, principal: str, request_id: str, template: str | dict[str, builtins.object], params: dict[str, builtins.object] | None) -> dict[str, budcore.types.JsonValue]:
        """
        Deploys a use-case template (id, id@version or a template dict) with parameters.
        """
    def events(self, tenant: str | uuid.UUID, principal: str, request_id: str, since: typing.SupportsInt | typing.SupportsIndex, limit: typing.SupportsInt | typing.SupportsIndex) -> dict[str, budcore.types.JsonValue]:
        """
        The caller's events after `since`, at most `limit`: {'events', 'last_seq'}.
        """
    def get(self, tenant: str | uuid.UUID, principal: str, request_id: str, id: str | uuid.UUID) -> StoredJob:
        """
        The caller's job by id; NotFoundError for another tenant's.
        """
    def gpu_defrag(self, tenant: str | uuid.UUID, principal: str, request_id: str, id: str | uuid.UUID) -> dict[str, budcore.types.JsonValue]:
        """
        The cheapest defragmentation plan for a job of the caller's that waits for placement (advice): {'plan', 'applied'}.
        """
    def gpu_defrag_apply(self, tenant: str | uuid.UUID, principal: str, request_id: str, id: str | uuid.UUID, plan: dict[str, builtins.object] | None) -> dict[str, budcore.types.JsonValue]:
        """
        Applies the defragmentation plan for a job of the caller's that waits for placement (the plan given, refused when stale, or None: the plan made now): {'plan', 'applied': True}.
        """
    def ha_status(self) -> dict[str, budcore.types.JsonValue]:
        """
        This replica's view of the election: {'role', 'replica', 'epoch', 'lease', 'replicas'}.
        """
    def jobs(self, tenant: str | uuid.UUID, principal: str, request_id: str, query: dict) -> dict[str, budcore.types.JsonValue]:
        """
        A page of the caller's jobs: {'items', 'next_cursor'}.
        """
    def metrics(self) -> str:
        """
        Prometheus text exposition of the platform's metrics (an operator call).
        """
    def now(self) -> str:
        """
        The platform clock's time, RFC 3339.
        """
    def pipeline_run(self, tenant: str | uuid.UUID, principal: str, request_id: str, id: str | uuid.UUID, cancel: bool, reason: str) -> dict[str, budcore.types.JsonValue]:
        """
        A pipeline run of the caller's (cancelled first when `cancel`).
        """
    def pump(self) -> None:
        """
        Acts on everything due now (cluster events, retries, pipeline steps).
        """
    def role_bindings(self, tenant: str | uuid.UUID, principal: str, request_id: str, of: str | None) -> dict[str, budcore.types.JsonValue]:
        """
        The tenant's role bindings (of one principal when `of`).
        """
    def run(self, seconds: typing.SupportsFloat | typing.SupportsIndex | None) -> str:
        """
        Moves a virtual clock `seconds` forward (None: until idle); returns the new time.
        """
    def run_pipeline(self, tenant: str | uuid.UUID, principal: str, request_id: str, document: dict[str, builtins.object], params: dict[str, builtins.object] | None) -> dict[str, budcore.types.JsonValue]:
        """
        Starts a pipeline run for the caller; returns the run record.
        """
    def schedule(self, tenant: str | uuid.UUID, principal: str, request_id: str) -> ScheduleSnapshot:
        """
        The timeline of the caller's waiting and running jobs (a ScheduleSnapshot; job names are job ids).
        """
    def serverless_endpoint(self, tenant: str | uuid.UUID, principal: str, request_id: str, endpoint: dict[str, builtins.object] | str, worker_priority: str = 'high', image: str = '') -> ServerlessEndpointHandle:
        """
        Opens a serverless endpoint whose warm workers are the tenant's SERVICE jobs.
        """
    def submit(self, tenant: str | uuid.UUID, principal: str, request_id: str, job: Job | dict[str, builtins.object], idempotency_key: str | None) -> StoredJob:
        """
        Submits a job for the caller (tenant, principal, request id); returns the StoredJob.
        """
    def submit_batch(self, tenant: str | uuid.UUID, principal: str, request_id: str, jobs: list[Job | dict[str, builtins.object] | tuple[Job | dict[str, builtins.object], str | None]]) -> list[StoredJob]:
        """
        Submits jobs as one batch, all or none; returns their StoredJobs.
        """
    def usecase_deployment(self, tenant: str | uuid.UUID, principal: str, request_id: str, id: str | uuid.UUID, teardown: bool) -> dict[str, budcore.types.JsonValue]:
        """
        A deployment record of the caller's (torn down first when `teardown`).
        """
    def usecase_deployments(self, tenant: str | uuid.UUID, principal: str, request_id: str) -> list[dict[str, budcore.types.JsonValue]]:
        """
        The caller tenant's deployment records, oldest first.
        """
    def verify_audit(self, tenant: str | uuid.UUID, principal: str, request_id: str, anchors: collections.abc.Sequence[str] = []) -> dict[str, budcore.types.JsonValue]:
        """
        Checks every tenant's audit chain, and that each anchor (an entry hash kept outside the store) is still chained: {'ok', 'entries', 'head_hash', 'heads', 'problems', ...}.
        """
    @property
    def closed(self) -> bool:
        """
        True after close().
        """
class PriceBook:
    """
    Prices per GPU type and tier, CPU core-hour, memory GiB-hour and storage GiB-month.
    """
    __hash__: typing.ClassVar[None] = None
    @staticmethod
    def from_dict(document: dict) -> PriceBook:
        """
        A price book from a dict (currency, gpu_types with hourly prices per tier, ...).
        """
    @staticmethod
    def from_text(text: str) -> PriceBook:
        """
        A price book from YAML or JSON text.
        """
    @staticmethod
    def load(path: str | os.PathLike[str]) -> PriceBook:
        """
        A price book file (YAML or JSON).
        """
    def __eq__(self, arg0: PriceBook) -> bool:
        ...
    def __repr__(self) -> str:
        ...
    def to_dict(self) -> dict[str, budcore.types.JsonValue]:
        """
        The price book as a dict (the document from_dict reads).
        """
    @property
    def currency(self) -> str:
        """
        The currency of every price.
        """
    @property
    def gpu_types(self) -> list[str]:
        """
        The GPU types priced.
        """
    @property
    def minimum_billable_seconds(self) -> int:
        """
        The least time a run is billed for.
        """
class UsecaseRegistry:
    """
    Components and use-case templates in memory: the shipped ones and/or your own.
    """
    def __init__(self, builtin: bool = True) -> None:
        """
        A registry of use-case templates and components (the shipped ones when `builtin`).
        """
    def add_components(self, components: dict[str, builtins.object] | list[dict[str, builtins.object]] | str) -> None:
        """
        One component or a list (dicts, or YAML/JSON text); all or nothing.
        """
    def add_template(self, template: dict[str, builtins.object] | str) -> str:
        """
        A template (dict, or YAML/JSON text); replaces one of the same id. Returns its id.
        """
    def components(self) -> list[dict[str, budcore.types.JsonValue]]:
        """
        Every component as a dict (the component schema: id, name, category, version, deployment_type, ...).
        """
    def list(self) -> list[dict[str, budcore.types.JsonValue]]:
        """
        Alias of template_summaries() under its former name, kept so that existing code runs.
        """
    def load(self, components: str | os.PathLike[str] | None = None, templates: str | os.PathLike[str] | None = None) -> None:
        """
        Component and template files (a file or a directory each); all or nothing.
        """
    def plan_deployment(self, template_id: str, parameters: dict[str, builtins.object] | None = None, overrides: dict[str, builtins.object] | None = None, name: str | None = None, tenant_id: str | uuid.UUID | None = None, project_id: str | uuid.UUID | None = None, cluster_id: str | uuid.UUID | None = None, deployment_id: str | uuid.UUID | None = None) -> dict[str, budcore.types.JsonValue]:
        """
        The jobs that deploy the resolved stack, in dependency order, with the teardown order and the deployment record: {'deployment_id', 'jobs', 'levels', 'teardown_order', 'pipeline', 'record'}.
        """
    def render(self, template_id: str, parameters: dict[str, builtins.object] | None = None, overrides: dict[str, builtins.object] | None = None, name: str | None = None) -> dict[str, budcore.types.JsonValue]:
        """
        Resolves a template (docs/cli.md contract 4): the contract-4 dict. ValidationError.errors lists every problem.
        """
    def show(self, template_id: str) -> dict[str, budcore.types.JsonValue]:
        """
        One template as a dict.
        """
    def template_ids(self) -> list[str]:
        """
        The ids of the templates.
        """
    def template_summaries(self) -> list[dict[str, budcore.types.JsonValue]]:
        """
        A summary of every template (id, name, version, category, complexity, description, tags, parameters).
        """
class KueueCompanionHandle:
    """
    The C++ companion controller; use budcore.kueue.Companion.
    """
    def close(self) -> None:
        """
        Closes the controller's client and store; later calls raise.
        """
    def run(self, on_event: collections.abc.Callable[[dict[str, budcore.types.JsonValue]], bool] | None = None) -> None:
        """
        Runs until stop() (another thread), on_event returning False, or a signal (Ctrl-C raises).
        """
    def stop(self) -> None:
        """
        Asks a running run() to return; safe from any thread.
        """
    def sync_once(self) -> dict[str, budcore.types.JsonValue]:
        """
        One pass: returns {leader, identity?, admission_checks, written, retrying}.
        """
    @property
    def closed(self) -> bool:
        """
        True after close().
        """
def check_store(uri: str | os.PathLike[str]) -> dict[str, budcore.types.JsonValue]:
    """
    Integrity check: {'ok', 'schema_version', ..., 'problems'}.
    """
def cost_admit_job(store: Store, budgets: dict[str, builtins.object] | str, prices: PriceBook, job: Job, now: datetime.datetime | str | None = None) -> dict[str, budcore.types.JsonValue]:
    """
    Checks a job against the stored budgets and usage, as the platform's cost gate does.
    """
def cost_budget_status(budgets: dict[str, builtins.object] | str, usage: list[dict[str, builtins.object]] | str, prices: PriceBook, now: datetime.datetime | str | None = None) -> list[dict[str, budcore.types.JsonValue]]:
    """
    Each budget's spend, remaining amount and alert levels reached.
    """
def cost_cheapest_gpu(prices: PriceBook, requirement: dict) -> dict[str, budcore.types.JsonValue]:
    """
    The cheapest GPU type meeting a requirement (memory, count, tier).
    """
def cost_check_admission(budgets: dict[str, builtins.object] | str, usage: list[dict[str, builtins.object]] | str, prices: PriceBook, tenant: str | uuid.UUID, project: str | uuid.UUID | None, estimate: str, job: str = '', now: datetime.datetime | str | None = None) -> dict[str, budcore.types.JsonValue]:
    """
    Whether a job's estimate fits its tenant's and project's budgets (BudgetExceededError if not).
    """
def cost_compare_tiers(prices: PriceBook, spec: dict[str, builtins.object] | str) -> dict[str, budcore.types.JsonValue]:
    """
    A job spec's cost at every tier, cheapest first.
    """
def cost_estimate(prices: PriceBook, spec: dict[str, builtins.object] | str, tier: str | None = None) -> dict[str, budcore.types.JsonValue]:
    """
    The estimated cost of a job spec at a tier (on_demand, spot, reserved).
    """
def cost_forecast(usage: list[dict[str, builtins.object]] | str, now: datetime.datetime | str | None = None, prices: PriceBook | None = None) -> dict[str, budcore.types.JsonValue]:
    """
    Projects month-end spend from usage so far.
    """
def cost_job_cost(store: Store, tenant: str | uuid.UUID, job_id: str | uuid.UUID) -> dict[str, budcore.types.JsonValue]:
    """
    A job's metered cost from the store.
    """
def cost_load_usage(store: Store, tenant: str | uuid.UUID, from_: datetime.datetime | str | None = None, to: datetime.datetime | str | None = None) -> list[dict[str, budcore.types.JsonValue]]:
    """
    A tenant's stored usage records between `from_` and `to`.
    """
def cost_meter(prices: PriceBook, interval: dict[str, builtins.object] | str) -> dict[str, budcore.types.JsonValue]:
    """
    The cost of one usage interval, with its line items.
    """
def cost_record_usage(store: Store, prices: PriceBook, interval: dict[str, builtins.object] | str) -> dict[str, budcore.types.JsonValue]:
    """
    Meters a usage interval and stores it.
    """
def cost_report(usage: list[dict[str, builtins.object]] | str, query: dict[str, builtins.object] | str | None = None, prices: PriceBook | None = None) -> dict[str, budcore.types.JsonValue]:
    """
    A cost report over usage records, grouped and filtered by `query`.
    """
def cost_rollup_arrays(start_seconds: typing.Annotated[numpy.typing.ArrayLike, numpy.int64], tenant: typing.Annotated[numpy.typing.ArrayLike, numpy.int32], gpu_type: typing.Annotated[numpy.typing.ArrayLike, numpy.int32], gpu_nanos: typing.Annotated[numpy.typing.ArrayLike, numpy.int64], cost_pico: typing.Annotated[numpy.typing.ArrayLike, numpy.int64], granularity: str = 'hour', threads: typing.SupportsInt | typing.SupportsIndex = 0) -> dict[str, numpy.ndarray]:
    """
    Sums costs by day and tenant over columnar arrays (numpy), without Python loops.
    """
def cost_serverless_report(usage: list[dict[str, builtins.object]] | str, query: dict[str, builtins.object] | str | None = None, prices: PriceBook | None = None) -> dict[str, budcore.types.JsonValue]:
    """
    Serverless spend per endpoint and time bucket (hour by default) over the usage records labelled serverless_endpoint.
    """
def cost_usage(usage: list[dict[str, builtins.object]] | str, prices: PriceBook | None = None) -> list[dict[str, budcore.types.JsonValue]]:
    """
    Usage records as dicts (intervals priced with prices).
    """
def gpu_defrag(problem_json: str) -> dict[str, budcore.types.JsonValue]:
    """
    The cheapest defragmentation plan for a pending request (the problem document of docs/gpu.md, JSON): {plan, applied[, workloads]}, as `budcore gpu defrag`.
    """
def gpu_place_mig(problem_json: str) -> dict[str, budcore.types.JsonValue]:
    """
    MIG-aware placement of the problem's request.mig_profile (a free instance, else a new one a GPU's layout admits, re-partitioning it): {placement, applied[, workloads]}, as `budcore gpu place-mig`.
    """
def gpu_policy_names() -> list[str]:
    """
    The placement policies gpu_replay knows, in the order 'all' runs them.
    """
def gpu_replay(nodes_csv: str, pods_csv: str, policies: str = 'all', seed: typing.SupportsInt | typing.SupportsIndex = 1, max_load: typing.SupportsFloat | typing.SupportsIndex = 1.3, step: typing.SupportsFloat | typing.SupportsIndex = 0.05, nodes_source: str = 'nodes', pods_source: str = 'pods') -> dict[str, budcore.types.JsonValue]:
    """
    Replay the Alibaba GPU trace (openb node and pod CSV text) with placement policies ('all', a name, or names separated by commas): {nodes, gpus, tasks, seed, results}, as `budcore gpu replay --format json`.
    """
def kueue_companion_decide(config: dict[str, builtins.object] | str, request: dict[str, builtins.object], base_dir: str = '.') -> dict[str, budcore.types.JsonValue]:
    """
    The budget and window checks for one Workload: request {'workload', 'owner_annotations'?, 'spent'?, 'now'}; returns {'tenant_id'?, 'price' | 'price_error', 'budget', 'window'}.
    """
def kueue_companion_open(config: dict[str, builtins.object] | str, kubeconfig: str = '', store: str = '', base_dir: str = '.') -> KueueCompanionHandle:
    """
    Opens the companion controller: configuration (text or dict), kubeconfig file and store URI ('' for the configuration's or the defaults). ValidationError names a bad input.
    """
def kueue_companion_summary(config: dict[str, builtins.object] | str, base_dir: str = '.') -> dict[str, budcore.types.JsonValue]:
    """
    Validates a companion configuration (text or dict) and returns its summary: controllers, cluster_queues, tenants, budgets, currency. ValidationError names the field.
    """
def latest_schema_version() -> int:
    """
    The schema version this library writes and migrates to.
    """
def load_document(path: str | os.PathLike[str]) -> budcore.types.JsonValue:
    """
    A JSON or YAML file (JSON when it starts with '{' or '[') as Python objects.
    """
def open_store(uri: str | os.PathLike[str], *, migrate: bool = True, durable: bool = True) -> Store:
    """
    Open (and migrate) a store: 'sqlite:///abs/path.db', 'sqlite:path.db', 'sqlite::memory:', 'postgresql://...'. A bare ':memory:' or file path means SQLite.
    """
def parse_json(text: str) -> budcore.types.JsonValue:
    """
    Parses JSON; integers stay int, key order is kept.
    """
def platform_open(config: dict[str, builtins.object] | str) -> PlatformHandle:
    """
    Open a platform from a config (dict, YAML or JSON text).
    """
def platform_open_embedded(dir: str) -> PlatformHandle:
    """
    Open the embedded platform in a directory.
    """
def platform_simulate(scenario: dict[str, builtins.object] | str, base_dir: str = '') -> dict[str, budcore.types.JsonValue]:
    """
    Run a what-if scenario (dict or YAML/JSON text); returns the outcome as a dict.
    """
def quota_simulate(scenario: dict[str, builtins.object] | str) -> dict[str, budcore.types.JsonValue]:
    """
    Run a contract-2 scenario (dict or JSON text); returns the contract-2 output dict.
    """
def render(*args, **kwargs) -> str:
    """
    render(text, context=None, /, **kwargs) -> str
    
    Compile and render a template to text in one call (see Template.render).
    """
def render_native(*args, **kwargs) -> typing.Any:
    """
    render_native(text, context=None, /, **kwargs)
    
    Compile and evaluate a template like NativeEnvironment in one call (see Template.render_native).
    """
def schedule_replay(config: dict[str, builtins.object] | str = 'baseline') -> dict[str, budcore.types.JsonValue]:
    """
    Replay Kueue's scheduler-performance configuration ('baseline' or a generator dict) and score it.
    """
def serverless_endpoint_name(endpoint: dict[str, builtins.object] | str) -> str:
    """
    The name of an endpoint (dict or JSON/YAML text), after checking the whole document.
    """
def serverless_queue_claim(store: Store, tenant: str | uuid.UUID, endpoint: str, worker: str, max: typing.SupportsInt | typing.SupportsIndex, lease_seconds: typing.SupportsFloat | typing.SupportsIndex) -> list[dict[str, budcore.types.JsonValue]]:
    """
    Claim up to max pending requests of the endpoint (by name) for worker, by score, each leased: a list of requests.
    """
def serverless_queue_enqueue(store: Store, tenant: str | uuid.UUID, endpoint: dict[str, builtins.object] | str, submissions: list[dict[str, builtins.object]]) -> list[dict[str, budcore.types.JsonValue]]:
    """
    Admit, score and store a list of submissions ({tenant, payload_hash, payload_size_bytes, estimated_compute_seconds, priority}) for an endpoint (dict or JSON/YAML text) in one transaction: a list of {id, deduplicated} or {id: 0, refusal, error}.
    """
def serverless_queue_finish(store: Store, tenant: str | uuid.UUID, reports: list[dict[str, builtins.object]]) -> list[dict[str, budcore.types.JsonValue]]:
    """
    Apply reports ({id, claim, outcome: start|renew|complete|fail, reason, lease_seconds}) in one transaction: a list of {id, ok, status}.
    """
def serverless_queue_list(store: Store, tenant: str | uuid.UUID, endpoint: str, statuses: collections.abc.Sequence[str] = [], after: typing.SupportsInt | typing.SupportsIndex = 0, limit: typing.SupportsInt | typing.SupportsIndex = 1000) -> list[dict[str, budcore.types.JsonValue]]:
    """
    The endpoint's requests by id (of the given statuses; any when empty).
    """
def serverless_queue_status(store: Store, tenant: str | uuid.UUID, endpoint: str) -> dict[str, budcore.types.JsonValue]:
    """
    The endpoint's counts: {pending, in_flight, completed, failed, timeout, tenant_active}.
    """
def serverless_simulate(endpoint: dict[str, builtins.object] | str, trace_csv: str, policies: str = 'queue_depth', trace_source: str = 'trace', until_scaled_down: bool = False) -> dict[str, budcore.types.JsonValue]:
    """
    Replay a request trace (Azure LLM inference CSV text) through an endpoint (dict or JSON/YAML text) under autoscaling policies ('all', a name, or names separated by commas): {reports}, as `budcore serverless simulate --format json`; until_scaled_down runs on after the last request until the pool is down to its minimum.
    """
def to_json(obj: builtins.object, indent: typing.SupportsInt | typing.SupportsIndex | None = None, ensure_ascii: bool = False) -> str:
    """
    Serialises None/bool/int/float/str/list/tuple/dict to JSON, keeping key order.
    """
SERVERLESS_POLICY_NAMES: tuple = ('queue_depth', 'kpa', 'ray_serve', 'predictive', 'budget')
__version__: str = '0.1.0'
version_info: tuple = (0, 1, 0)
