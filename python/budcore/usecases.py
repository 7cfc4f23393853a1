"""budcore.usecases: one-click RAG, chatbot and agent stacks from use-case templates.

A template plus a few parameters resolves into the components to deploy
and the pipeline that deploys them (docs/cli.md contract 4; docs/usecases.md)::

    from budcore import usecases
    usecases.templates().to_pandas()                       # the shipped templates
    stack = usecases.render("simple-rag-v1", model_id="meta-llama/Llama-3.1-8B-Instruct")
    stack.to_pandas()                                 # one row per component
    stack.pipeline                                    # the contract-3 pipeline document

    with budcore.Platform.embedded("state", tenant=t) as p:   # deploy it on a platform
        d = usecases.deploy(p, "simple-rag-v1", {"model_id": "...", "gpu_type": "nvidia-a100-80gb"})
        p.run(); usecases.deployment(p, d.id).status        # "running"
        usecases.teardown(p, d.id)                           # dependents first; status "deleted"

Templates are named by id (shipped or added to a registry), by a file path, or given as a
dict; components default to the shipped ones. An invalid template or parameters raise
budcore.ValidationError whose ``.errors`` lists every problem as {"code", "message", "path"}.
pandas is imported only by ``to_pandas()``.
"""

from __future__ import annotations

import builtins
import os
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable, Dict, List, Mapping, Optional, Sequence, TypedDict, Union, cast

from ._core import UsecaseRegistry
from .enums import DeploymentStatus, _member
from .results import Record, Rows, _cell_value
from .types import Document, JsonObject, JsonValue

if TYPE_CHECKING:  # names the annotations use
    import uuid

    from pandas import DataFrame

    from .platform import Platform

__all__ = [
    "ComponentDocument",
    "DeploymentComponent",
    "DeploymentPlan",
    "DeploymentRecord",
    "PlanDocument",
    "PlannedJobDocument",
    "StackDocument",
    "TemplateRef",
    "PlannedJob",
    "RenderedStack",
    "StackComponent",
    "TemplateList",
    "TemplateSummary",
    "UsecaseRegistry",
    "UsecaseTemplate",
    "components",
    "Deployment",
    "DeploymentList",
    "deploy",
    "deployment",
    "deployments",
    "plan_deployment",
    "registry",
    "render",
    "show",
    "teardown",
    "templates",
]

PathLike = Union[str, "os.PathLike[str]"]
TemplateArg = Union[str, "os.PathLike[str]", Document]
ComponentsArg = Union[None, PathLike, Document, Sequence[Document]]
IdLike = Union[str, "uuid.UUID"]  # a tenant, project, cluster or deployment id

# Templates, components, parameters, values and pipelines are documents whose keys are the
# template's or the user's: they are typed as JSON (budcore.types).


class DeploymentComponent(TypedDict):
    """A component of a deployment record: the stack instance, the job that deploys it (None
    until the run submits it) and that job's status, and the outputs it published."""

    instance_id: str
    component_ref: str
    depends_on: List[str]
    job_id: Optional[str]
    job_status: str
    outputs: JsonValue


class ComponentDocument(TypedDict):
    """A resolved component as the library writes it (contract 4's "components" entry)."""

    id: str
    component_ref: str
    deployment_type: str
    depends_on: List[str]
    values: JsonObject
    env: Dict[str, str]
    resources: JsonObject
    model_id: Optional[str]
    gpu_type: Optional[str]
    gpu_count: int
    component_version: str
    optimize_with_budsim: bool
    cpu_cores: Union[int, float]
    memory_gb: Union[int, float]
    outputs: List[str]
    deployment: JsonObject


class TemplateRef(TypedDict):
    """The template a stack was rendered from."""

    id: str
    version: str


class _StackDocumentBase(TypedDict):
    valid: bool
    template: TemplateRef
    parameters: JsonObject
    components: List[ComponentDocument]
    disabled: List[str]
    pipeline: JsonObject


class StackDocument(_StackDocumentBase, total=False):
    """Contract 4's output: the template, the parameters resolved, the enabled components,
    those disabled by their condition and the pipeline; ``routing`` and ``observability`` when
    the template has them."""

    routing: JsonObject
    observability: JsonObject


class PlannedJobDocument(TypedDict):
    """A job of a deployment plan document."""

    instance_id: str
    depends_on: List[str]
    job: JsonObject


class PlanDocument(TypedDict):
    """A deployment plan as the library writes it."""

    deployment_id: str
    jobs: List[PlannedJobDocument]
    levels: List[List[str]]
    teardown_order: List[str]
    pipeline: JsonObject
    record: JsonObject


class DeploymentRecord(TypedDict, total=False):
    """A use-case deployment record as the library writes it (what :class:`Deployment` reads)."""

    schema_version: int
    id: str
    tenant_id: Optional[str]
    project_id: Optional[str]
    cluster_id: Optional[str]
    name: str
    template_id: str
    template_version: str
    parameters: JsonObject
    status: str
    status_message: str
    teardown_requested: bool
    pipeline_run_id: Optional[str]
    components: List[DeploymentComponent]
    routing: JsonValue
    created_at: Optional[str]
    updated_at: Optional[str]


def _frame(rows: Sequence[Mapping[str, object]], columns: Sequence[str]) -> DataFrame:
    import pandas as pd  # imported here: pandas is optional

    return pd.DataFrame(rows, columns=builtins.list(columns))


# ---- templates ------------------------------------------------------------------------------


@dataclass(frozen=True)
class TemplateSummary(Record):
    """One line of ``usecases.templates()``."""

    ROW_COLUMNS = ("id", "name", "version", "category", "complexity", "parameters", "components", "tags")
    NOUN = "template"
    id: str
    name: str
    version: str
    category: str
    complexity: str
    description: str
    tags: tuple[str, ...]
    parameters: tuple[str, ...]
    components: tuple[str, ...]
    source_file: str

    @classmethod
    def _from(cls, d: JsonObject) -> "TemplateSummary":
        # The registry's summaries: str fields and lists of str (bindings/bind_usecase.cpp).
        f = cast(Dict[str, str], d)
        lists = cast(Dict[str, List[str]], d)
        return cls(f["id"], f["name"], f["version"], f["category"], f["complexity"], f["description"],
                   tuple(lists["tags"]), tuple(lists["parameters"]), tuple(lists["components"]), f["source_file"])



#: ``usecases.templates()``: a :class:`budcore.results.Rows` of :class:`TemplateSummary`
#: (``to_pandas()``: one row per template).
TemplateList = Rows[TemplateSummary]


@dataclass(frozen=True)
class UsecaseTemplate(Record):
    """A template document (docs/usecases.md "Writing a template") with its parts at hand."""

    id: str
    name: str
    version: str
    category: str
    complexity: str
    description: str
    parameters: tuple[JsonObject, ...]
    components: tuple[JsonObject, ...]
    document: JsonObject = field(repr=False, metadata={"document": True})

    @classmethod
    def _from(cls, d: JsonObject) -> "UsecaseTemplate":
        f = cast(Dict[str, str], d)
        parts = cast(Dict[str, List[JsonObject]], d)
        return cls(f["id"], f["name"], f["version"], f["category"], f["complexity"], f["description"],
                   tuple(parts["parameters"]), tuple(parts["components"]), d)

    def to_dict(self) -> JsonObject:
        """The template document as the library holds it."""
        return self.document

    def to_pandas(self) -> DataFrame:
        """The parameters: name, type, label, required, default, options, min, max."""
        cols = ("name", "type", "label", "required", "default", "options", "min", "max")
        return _frame([{c: p.get(c) for c in cols} for p in self.parameters], cols)


# ---- a rendered stack -------------------------------------------------------------------------


@dataclass(frozen=True)
class StackComponent(Record):
    """An enabled instance of a rendered stack (contract 4's "components" entry)."""

    id: str
    component_ref: str
    deployment_type: str
    depends_on: tuple[str, ...]
    values: JsonObject
    env: dict[str, str]
    resources: JsonObject
    model_id: Optional[str]
    gpu_type: Optional[str]
    gpu_count: int
    cpu_cores: Union[int, float]
    memory_gb: Union[int, float]
    optimize_with_budsim: bool
    component_version: str
    outputs: tuple[str, ...]
    deployment: JsonObject

    @classmethod
    def _from(cls, d: ComponentDocument) -> "StackComponent":
        return cls(d["id"], d["component_ref"], d["deployment_type"], tuple(d["depends_on"]), d["values"], d["env"],
                   d["resources"], d["model_id"], d["gpu_type"], d["gpu_count"], d["cpu_cores"], d["memory_gb"],
                   d["optimize_with_budsim"], d["component_version"], tuple(d["outputs"]), d["deployment"])


@dataclass(frozen=True)
class RenderedStack(Record):
    """A resolved template: its components, those disabled by their condition, and the
    pipeline (contract 3) whose JOB steps deploy the components."""

    template_id: str
    template_version: str
    parameters: JsonObject
    components: tuple[StackComponent, ...]
    disabled: tuple[str, ...]
    pipeline: JsonObject
    routing: Optional[JsonObject]
    observability: Optional[JsonObject]
    document: StackDocument = field(repr=False, metadata={"document": True})

    COLUMNS = ("id", "component_ref", "deployment_type", "depends_on", "model_id", "gpu_type", "gpu_count",
               "cpu_cores", "memory_gb", "optimize_with_budsim")

    @classmethod
    def _from(cls, d: StackDocument) -> "RenderedStack":
        return cls(d["template"]["id"], d["template"]["version"], d["parameters"],
                   tuple(StackComponent._from(c) for c in d["components"]), tuple(d["disabled"]), d["pipeline"],
                   d.get("routing"), d.get("observability"), d)

    def component(self, instance_id: str) -> StackComponent:
        """The resolved component of instance ``instance_id`` (KeyError when the stack has none)."""
        for c in self.components:
            if c.id == instance_id:
                return c
        raise KeyError(instance_id)

    # Typed by its keys: a StackDocument is the JSON object Record.to_dict promises.
    def to_dict(self) -> StackDocument:  # type: ignore[override]
        """Contract 4's output, as `budcore usecase render` prints it."""
        return self.document

    def rows(self) -> builtins.list[dict[str, object]]:
        """One dict per component: id, component_ref, deployment_type, depends_on, model_id,
        gpu_type, gpu_count, cpu_cores, memory_gb, optimize_with_budsim."""
        return [{c: _cell_value(getattr(comp, c)) for c in self.COLUMNS} for comp in self.components]

    def caption(self) -> str:
        """The template and how many components it resolved to."""
        return f"{self.template_id} {self.template_version}: {len(self.components)} components"


# ---- deployment ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class PlannedJob(Record):
    """One job of a DeploymentPlan: the stack instance it deploys (``instance_id``) and the
    instances it depends on, deployed before it (``depends_on``)."""

    instance_id: str
    depends_on: tuple[str, ...]
    job: JsonObject
    """The job document (a budcore.Job's fields) that deploys the instance."""


@dataclass(frozen=True)
class DeploymentPlan(Record):
    """The jobs that deploy a stack in dependency order, the order to tear them down, and the
    deployment record (what a platform stores as the usecase_deployments row)."""

    COLUMNS = ("instance_id", "depends_on", "deployment_type", "gpu_type", "gpu_count", "cpu_cores", "memory_gb",
               "usecase_deployment_id")
    deployment_id: str
    jobs: tuple[PlannedJob, ...]
    levels: tuple[tuple[str, ...], ...]
    teardown_order: tuple[str, ...]
    pipeline: JsonObject
    record: JsonObject

    @classmethod
    def _from(cls, d: PlanDocument) -> "DeploymentPlan":
        jobs = tuple(PlannedJob(j["instance_id"], tuple(j["depends_on"]), j["job"]) for j in d["jobs"])
        return cls(d["deployment_id"], jobs, tuple(tuple(lv) for lv in d["levels"]), tuple(d["teardown_order"]),
                   d["pipeline"], d["record"])

    def rows(self) -> builtins.list[dict[str, object]]:
        """One dict per job, in submission order: instance_id, depends_on, deployment_type,
        gpu_type, gpu_count, cpu_cores, memory_gb, usecase_deployment_id."""
        rows: builtins.list[dict[str, object]] = []
        for j in self.jobs:
            row: dict[str, object] = {"instance_id": j.instance_id, "depends_on": builtins.list(j.depends_on)}
            row.update({c: j.job.get(c) for c in self.COLUMNS[2:]})
            rows.append(row)
        return rows


# ---- functions ----------------------------------------------------------------------------------


def registry(builtin: bool = True, *, components: ComponentsArg = None,
             templates: Optional[PathLike] = None) -> UsecaseRegistry:
    """A registry: the shipped components and templates (builtin=True), plus components (a
    path, a dict or a list of dicts) and templates (a path) of your own."""
    reg = UsecaseRegistry(builtin)
    _add_components(reg, components)
    if templates is not None:
        reg.load(templates=os.fspath(templates))
    return reg


def _add_components(reg: UsecaseRegistry, components: ComponentsArg) -> None:
    if components is None:
        return
    if isinstance(components, (str, os.PathLike)):
        reg.load(components=os.fspath(components))
    else:
        # The extension converts dicts and lists of dicts; its stub names them dict[str, object].
        reg.add_components(cast("dict[str, object]", components) if isinstance(components, Mapping)
                           else cast("builtins.list[dict[str, object]]", builtins.list(components)))


def _registry_for(template: TemplateArg, components: ComponentsArg,
                  reg: Optional[UsecaseRegistry]) -> tuple[UsecaseRegistry, str]:
    """The registry to resolve in and the template's id there."""
    if reg is None:
        reg = UsecaseRegistry(components is None)
        _add_components(reg, components)
    elif components is not None:
        raise TypeError("give either registry= or components=, not both")
    if isinstance(template, Mapping):
        return reg, reg.add_template(dict(template))
    if isinstance(template, str):
        # A string is always an id, as in deploy(): a service may pass one a tenant chose, and
        # must never have it read (and echo) a file of the service's machine.
        return reg, template  # not found: render raises NotFoundError naming it
    with open(os.fspath(template), encoding="utf-8") as f:
        return reg, reg.add_template(f.read())


def templates(directory: Optional[PathLike] = None, *, registry: Optional[UsecaseRegistry] = None) -> TemplateList:
    """The use-case templates: the shipped ones, or those under ``directory``, or those in
    ``registry``, as a :class:`TemplateList` (one :class:`TemplateSummary` each; ``to_pandas()``).
    Formerly ``usecases.list``, which still works as an alias."""
    reg = registry if registry is not None else UsecaseRegistry(directory is None)
    if directory is not None:
        reg.load(templates=os.fspath(directory))
    # The stub's UsecaseRegistry keeps a method named `list` (the former name), which shadows the
    # builtin in its annotations: the summaries are typed here.
    summaries = cast("builtins.list[JsonObject]", reg.template_summaries())
    return Rows(TemplateSummary._from(d) for d in summaries)


_templates = templates  # for the alias below, whose parameter is named `templates`


def _list(templates: Optional[PathLike] = None, *, registry: Optional[UsecaseRegistry] = None) -> TemplateList:
    """Alias of :func:`templates` under its former name, ``usecases.list`` (which shadowed the
    builtin), kept so that existing code runs; ``templates`` here is the directory."""
    return _templates(templates, registry=registry)


_list.__name__ = _list.__qualname__ = "list"

# Former names that still work (module attributes only, so that nothing inside this module or a
# star import sees a shadowed builtin).
_ALIASES = {"list": _list}


def __getattr__(name: str) -> Callable[..., TemplateList]:
    try:
        return _ALIASES[name]
    except KeyError:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None


def show(template: TemplateArg, *, registry: Optional[UsecaseRegistry] = None) -> UsecaseTemplate:
    """A template by id (a str: shipped or in `registry`), from a file (a path object such as
    pathlib.Path; a str is never read as a file) or from a dict."""
    reg, tid = _registry_for(template, None, registry)
    return UsecaseTemplate._from(reg.show(tid))


def components(*, registry: Optional[UsecaseRegistry] = None) -> builtins.list[JsonObject]:
    """The components (docs/usecases.md "Writing a component") of `registry`, else the shipped ones."""
    return (registry if registry is not None else UsecaseRegistry(True)).components()


def render(template: TemplateArg, parameters: Optional[Document] = None, *,
           components: ComponentsArg = None, overrides: Optional[Document] = None,
           name: Optional[str] = None, registry: Optional[UsecaseRegistry] = None, **params: object) -> RenderedStack:
    """Resolves a template with parameters (a mapping and/or keywords, keywords winning) into
    a RenderedStack. `overrides` are per-instance user overrides ({"llm": {"gpu_count": 2}}),
    merged last; `name` is usecase.name in templates."""
    reg, tid = _registry_for(template, components, registry)
    merged = dict(parameters or {})
    merged.update(params)
    return RenderedStack._from(cast(StackDocument, reg.render(tid, merged, None if overrides is None else dict(overrides), name)))


def plan_deployment(template: TemplateArg, parameters: Optional[Document] = None, *,
                    components: ComponentsArg = None, overrides: Optional[Document] = None,
                    name: Optional[str] = None, tenant_id: Optional[IdLike] = None, project_id: Optional[IdLike] = None,
                    cluster_id: Optional[IdLike] = None, deployment_id: Optional[IdLike] = None,
                    registry: Optional[UsecaseRegistry] = None, **params: object) -> DeploymentPlan:
    """Renders the template and plans its deployment: validated jobs (source usecase, with the
    deployment id) in dependency order, the teardown order (dependents first) and the record."""
    reg, tid = _registry_for(template, components, registry)
    merged = dict(parameters or {})
    merged.update(params)
    d = reg.plan_deployment(tid, merged, None if overrides is None else dict(overrides), name, tenant_id, project_id,
                            cluster_id, deployment_id)
    return DeploymentPlan._from(cast(PlanDocument, d))


# ---- deployments on a platform (Platform::deploy_usecase) --------------------------------------


@dataclass(frozen=True)
class Deployment(Record):
    """A use-case deployment record: which template and parameters, the pipeline run that
    deploys it, each component's job, and the status its jobs imply (deploying, running,
    failed, tearing_down, deleted)."""

    COLUMNS = ("instance_id", "component_ref", "depends_on", "job_id", "job_status")
    ROW_COLUMNS = ("id", "template_id", "template_version", "status", "pipeline_run_id", "created_at", "updated_at")
    NOUN = "deployment"
    id: str
    tenant_id: str
    template_id: str
    template_version: str
    parameters: JsonObject
    status: DeploymentStatus = field(metadata={"enum": DeploymentStatus})
    status_message: str
    pipeline_run_id: Optional[str]
    teardown_requested: bool
    components: tuple[DeploymentComponent, ...]
    created_at: Optional[str]
    updated_at: Optional[str]
    record: DeploymentRecord = field(repr=False, metadata={"document": True})
    """The whole record as the C ABI writes it (what ``to_dict()`` returns)."""

    @classmethod
    def _from(cls, d: DeploymentRecord) -> "Deployment":
        return cls(d["id"], d.get("tenant_id") or "", d["template_id"], d.get("template_version") or "",
                   d.get("parameters") or {}, _member(DeploymentStatus, d["status"]), d.get("status_message") or "", d.get("pipeline_run_id"),
                   bool(d.get("teardown_requested")), tuple(d.get("components") or ()), d.get("created_at"),
                   d.get("updated_at"), d)

    @property
    def jobs(self) -> dict[str, Optional[str]]:
        """instance id -> the id of the job that deploys it (None until the run submits it)."""
        return {c["instance_id"]: c.get("job_id") for c in self.components}

    def rows(self) -> builtins.list[dict[str, object]]:
        """One dict per component in dependency order: instance_id, component_ref, depends_on,
        job_id, job_status."""
        return [{c: cast("dict[str, object]", comp).get(c) for c in self.COLUMNS} for comp in self.components]

    def caption(self) -> str:
        """The template and the deployment's status."""
        return f"deployment of {self.template_id}: {self.status.value}"


#: ``usecases.deployments()``: a :class:`budcore.results.Rows` of :class:`Deployment`, oldest first.
DeploymentList = Rows[Deployment]


def _template_for_deploy(template: Union[TemplateArg, UsecaseTemplate]) -> Union[str, dict[str, object]]:
    if isinstance(template, UsecaseTemplate):
        return dict(template.to_dict())
    if isinstance(template, Mapping):
        return dict(template)
    if isinstance(template, str):
        # A string is always an id: a service may pass one a tenant chose, and must never have
        # it read a file of the service's machine. A file is passed as a path object.
        return template
    from ._core import UsecaseRegistry as _Reg

    reg = _Reg(False)
    with open(os.fspath(template), encoding="utf-8") as f:
        return dict(reg.show(reg.add_template(f.read())))


def deploy(platform: Platform, template: Union[TemplateArg, UsecaseTemplate], parameters: Optional[Document] = None, *,
           tenant: Optional[IdLike] = None, **params: object) -> Deployment:
    """Deploys a template on a budcore.Platform: resolves it with the parameters (a mapping
    and/or keywords, keywords winning), stores the deployment record and runs the stack's
    pipeline. `template` is an id ("simple-rag-v1", "<id>@<version>": the tenant's catalog in
    the platform's store, else a shipped template; a str is always an id, never read as a
    file), a file as a path object (pathlib.Path), a template dict or a
    UsecaseTemplate (resolved against the shipped components). Raises ValidationError naming the parameter or component
    path (nothing is stored) and NotFoundError (field "template") for an unknown id."""
    merged = dict(parameters or {})
    merged.update(params)
    d = platform._h.deploy_usecase(*platform._who(tenant), _template_for_deploy(template), merged)
    return Deployment._from(cast(DeploymentRecord, d))


def deployment(platform: Platform, id: IdLike, *, tenant: Optional[IdLike] = None) -> Deployment:
    """A deployment with its jobs' statuses now (NotFoundError for another tenant's)."""
    return Deployment._from(cast(DeploymentRecord, platform._h.usecase_deployment(*platform._who(tenant), id, False)))


def deployments(platform: Platform, *, tenant: Optional[IdLike] = None) -> DeploymentList:
    """The tenant's deployments, oldest first."""
    records = cast("builtins.list[DeploymentRecord]", platform._h.usecase_deployments(*platform._who(tenant)))
    return Rows(Deployment._from(d) for d in records)


def teardown(platform: Platform, id: IdLike, *, tenant: Optional[IdLike] = None) -> Deployment:
    """Cancels the deployment's jobs, dependents first, then its pipeline run; the record ends
    "deleted". Tearing down a torn-down deployment returns it unchanged (not an error)."""
    return Deployment._from(cast(DeploymentRecord, platform._h.usecase_deployment(*platform._who(tenant), id, True)))
