"""The API's bodies and answers, generated from its OpenAPI schema by
client/generate_types.py: do not edit by hand."""

# ruff: noqa: E501, UP040
from __future__ import annotations

from typing import Any, Literal, NotRequired, TypeAlias, TypedDict

ActionEnum: TypeAlias = "Literal['delete', 'archive']"


AlgorithmEnum: TypeAlias = "Literal['grpo', 'ppo', 'rejection', 'rloo', 'sft']"


ApiErrorCode: TypeAlias = "Literal['bad_request', 'parse_error', 'not_authenticated', 'authentication_failed', 'invalid_credentials', 'permission_denied', 'forbidden', 'not_found', 'gone', 'method_not_allowed', 'not_acceptable', 'unsupported_media_type', 'too_large', 'too_deep', 'throttled', 'unavailable', 'server_error', 'invalid', 'required', 'null', 'blank', 'empty', 'max_length', 'min_length', 'max_value', 'min_value', 'invalid_choice', 'not_a_list', 'not_a_dict', 'does_not_exist', 'incorrect_type', 'unique', 'null_characters_not_allowed', 'surrogate_characters_not_allowed', 'unknown_field', 'unknown_model', 'invalid_row', 'invalid_mapping', 'stale', 'finished', 'run_finished', 'paused', 'not_paused', 'decided', 'rejected', 'over_budget', 'quota_exceeded', 'promotion_refused', 'alias_refused', 'suite_in_use', 'archived', 'conflict', 'export_refused', 'outside_run', 'platform_run', 'upload_conflict']"


BlankEnum: TypeAlias = "Literal['']"


CanaryDecisionEnum: TypeAlias = "Literal['proceed', 'extend', 'rollback']"


CanaryFrameType: TypeAlias = "Literal['canary']"


CanaryModeEnum: TypeAlias = "Literal['shadow', 'split']"


CanaryStateEnum: TypeAlias = "Literal['running', 'awaiting_decision', 'paused', 'promoted', 'rolled_back', 'cancelled']"


CheckStatusEnum: TypeAlias = "Literal['pass', 'fail', 'pending']"


ClientMessageType: TypeAlias = "Literal['pause', 'resume', 'ping']"


ConversationMessageRoleEnum: TypeAlias = "Literal['system', 'user', 'assistant', 'tool']"


CurriculumInputRequest: TypeAlias = 'ExperimentCurriculumInputRequest | SavedCurriculumRequest'


DatasetEnum: TypeAlias = "Literal['gsm8k', 'humaneval']"


DecisionEnum: TypeAlias = "Literal['approve', 'request_changes']"


EndedByEnum: TypeAlias = "Literal['environment', 'max_turns', 'max_total_tokens', 'script']"


ErrorTypeEnum: TypeAlias = "Literal['none', 'format_error', 'parse_error', 'schema_error', 'runtime_error', 'wrong_answer', 'timeout', 'memory_limit', 'output_limit', 'forbidden', 'length_limit', 'judge_rejected', 'sandbox_error', 'verifier_error']"


EvaluationStateEnum: TypeAlias = "Literal['queued', 'running', 'succeeded', 'failed']"


ExampleProposalStatusEnum: TypeAlias = "Literal['proposed', 'accepted', 'rejected']"


ExtractEnum: TypeAlias = "Literal['code_block', 'final_answer', 'final_answer_or_last_line', 'final_answer_or_last_number', 'full_text', 'json_block', 'json_object', 'last_number', 'python_block', 'sql_block', 'sql_statement']"


FinishStatusEnum: TypeAlias = "Literal['failed', 'finished', 'killed']"


FormatEnum: TypeAlias = "Literal['jsonl', 'csv', 'parquet']"


ItemResultStatusEnum: TypeAlias = "Literal['accepted', 'refused']"


JobStateEnum: TypeAlias = "Literal['queued', 'running', 'succeeded', 'failed']"


JudgedAgainstEnum: TypeAlias = "Literal['pool', 'caller', 'ref_free']"


LabelEnum: TypeAlias = "Literal['good', 'bad']"


LiveEventType: TypeAlias = "Literal['canary.decided', 'canary.paused', 'canary.resumed', 'canary.started', 'checkpoint.promoted', 'checkpoint.upload_started', 'checkpoint.uploaded', 'curriculum.config_changed', 'curriculum.created', 'curriculum.deleted', 'deployment.changed', 'deployment.created', 'deployment.deleted', 'deployment.started', 'deployment.stopped', 'deployment.updated', 'evaluation.started', 'evaluation.updated', 'evaluation_suite.changed', 'evaluation_suite.created', 'evaluation_suite.deleted', 'evaluation_suite.updated', 'experiment.cloned', 'experiment.created', 'family.archived', 'family.created', 'family.deleted', 'family.restored', 'family.updated', 'health_settings.changed', 'member.added', 'member.removed', 'member.role_changed', 'model_alias.removed', 'model_alias.set', 'model_version.registered', 'pool.grading_started', 'pool.job_updated', 'pool.version_created', 'preflight.started', 'preflight.updated', 'registered_model.changed', 'registered_model.created', 'registered_model.deleted', 'registered_model.updated', 'report.commented', 'report.created', 'report.regression_overridden', 'report.submitted', 'report.updated', 'review_policy.changed', 'run.cancel_requested', 'run.changed', 'run.created_outside', 'run.curriculum_changed', 'run.finished_outside', 'run.launched', 'run.pause_requested', 'run.resumed', 'run.resumed_outside', 'run.signal_breached', 'team.created', 'token.created', 'token.revoked', 'verifier.created', 'verifier.deleted', 'verifier.example_added', 'verifier.example_deleted', 'verifier.example_proposed', 'verifier.proposal_accepted', 'verifier.proposal_rejected', 'verifier.version_created']"


ModeEnum: TypeAlias = "Literal['append', 'replace']"


NameEnum: TypeAlias = "Literal['reward_vs_heldout', 'length_blowup', 'kl_spike', 'entropy_collapse', 'curriculum_stuck', 'part_dominates', 'judge_flips']"


OutcomeEnum: TypeAlias = "Literal['collecting', 'successful', 'failed', 'inconclusive']"


PoolVersionSourceEnum: TypeAlias = "Literal['generator', 'upload', 'dataset', 'edit', 'grading']"


PromptFormatKindEnum: TypeAlias = "Literal['raw', 'chat']"


PromptModeEnum: TypeAlias = "Literal['template', 'as_is']"


RemovedRowKindEnum: TypeAlias = "Literal['exact', 'near']"


ReplicaRoleEnum: TypeAlias = "Literal['production', 'candidate']"


ReplicaStateEnum: TypeAlias = "Literal['starting', 'ready', 'stopping', 'stopped', 'failed']"


ReportStateEnum: TypeAlias = "Literal['draft', 'in_review', 'approved', 'changes_requested']"


RoleEnum: TypeAlias = "Literal['viewer', 'editor', 'admin']"


RunEventKindEnum: TypeAlias = "Literal['curriculum', 'pause', 'resume', 'budget', 'health', 'worker_lost', 'recovered']"


RunFrameType: TypeAlias = "Literal['history', 'points', 'run', 'events', 'paused']"


RunSourceEnum: TypeAlias = "Literal['platform', 'external']"


RunStateEnum: TypeAlias = "Literal['queued', 'running', 'paused', 'succeeded', 'failed', 'cancelled']"


ServedStatusEnum: TypeAlias = "Literal['ok', 'error', 'timeout']"


SeverityEnum: TypeAlias = "Literal['warning', 'info']"


SignalStateEnum: TypeAlias = "Literal['ok', 'warning', 'breached', 'unavailable']"


SocketFrameType: TypeAlias = "Literal['hello', 'pong', 'error', 'teams.changed']"


SplitEnum: TypeAlias = "Literal['train', 'held_out']"


StageEnum: TypeAlias = "Literal['syntax', 'semantic', 'boundary', 'constraint', 'judge']"


StrategyEnum: TypeAlias = "Literal['ddp', 'fsdp', 'deepspeed']"


TypeEnum: TypeAlias = "Literal['int', 'float', 'bool', 'str', 'float_pair']"


UploadStateEnum: TypeAlias = "Literal['open', 'complete']"


VerdictEnum: TypeAlias = "Literal['improved', 'unchanged', 'regressed']"


VerdictSourceSourceEnum: TypeAlias = "Literal['pool', 'reference_free']"


VerificationEnum: TypeAlias = "Literal['pending', 'none']"


WorkerStatusEnum: TypeAlias = "Literal['running', 'stopped', 'gone']"


class Algorithm(TypedDict):
    name: str
    summary: str
    fields: list[Hyperparameter]
    min_prompts: int | None


class Alias(TypedDict):
    alias: str
    version: int
    number: int
    updated_by: str
    updated_at: str


class AliasBodyRequest(TypedDict):
    """A field a form or multipart body leaves out is left out, as in a JSON body."""

    alias: str


class Analysis(TypedDict):
    outcome: NotRequired[OutcomeEnum]
    reason: NotRequired[str]
    checks: NotRequired[list[Check]]
    pass_rate: NotRequired[PassRate]
    sides: NotRequired[Sides]
    sources: NotRequired[list[VerdictSource]]
    needed: NotRequired[Needed]
    at: NotRequired[str]


class ApiError(TypedDict):
    field: str | None
    code: str
    message: str


class ApiErrors(TypedDict):
    errors: list[ApiError]


class AuditEvent(TypedDict):
    id: int
    actor: str
    action: str
    target_type: str
    target_id: str
    target_label: str
    target_path: str | None
    team: str
    created_at: str
    changes: Any


class AvailableModel(TypedDict):
    name: str
    path: str
    builtin: bool
    parameters: int | None
    ready: bool
    architecture: NotRequired[str | None]
    dtype: NotRequired[str | None]
    context_length: NotRequired[int | None]
    chat_template: NotRequired[bool | None]
    workers: list[str]


class AvailableModels(TypedDict):
    models: list[AvailableModel]
    workers: int
    detail: str


class Budget(TypedDict):
    """What one run may use; a run that crosses either limit pauses itself and says why."""

    max_worker_hours: float | None
    max_cost: float | None


class BudgetInputRequest(TypedDict):
    """What one run may use; a run that crosses either limit pauses itself and says why."""

    max_worker_hours: NotRequired[float | None]
    max_cost: NotRequired[float | None]


class BudgetSuccess(TypedDict):
    budget: int
    episodes: int
    success: float
    mean_turns: float


class CalibrateRequest(TypedDict):
    """A field a form or multipart body leaves out is left out, as in a JSON body."""

    layer: NotRequired[str]


class Calibration(TypedDict):
    """The model judge's best yes-threshold on the labelled examples and the rates there."""

    total: int
    good: int
    bad: int
    true_positives: int
    true_negatives: int
    false_positives: int
    false_negatives: int
    false_positive_rate: float | None
    false_negative_rate: float | None
    accuracy: float | None
    version: int
    examples: int
    layer: str
    threshold: float
    scores: list[JudgeScore]
    spec: VerifierSpec


class Canary(TypedDict):
    id: int
    deployment: str
    production: VersionLabel | None
    candidate: VersionLabel | None
    mode: CanaryModeEnum
    steps: Any
    step: int
    share: int
    state: CanaryStateEnum
    reason: str
    guardrails: Guardrails
    analysis: Analysis
    history: list[StepRecord]
    series: list[SeriesPoint]
    revision: int
    shadow_dropped: int
    replica: Replica | None
    created_by: str | None
    created_at: str
    finished_at: str | None


class CanaryDecisionRequest(TypedDict):
    """A field a form or multipart body leaves out is left out, as in a JSON body."""

    decision: CanaryDecisionEnum
    reason: NotRequired[str]


class CanaryStartRequest(TypedDict):
    """A field a form or multipart body leaves out is left out, as in a JSON body."""

    candidate: int
    mode: NotRequired[CanaryModeEnum]
    steps: NotRequired[Any]
    guardrails: NotRequired[Any]


class Change(TypedDict):
    path: str
    old: Any
    new: Any


class Changes(TypedDict):
    mode: ModeEnum
    previous: int
    added: int
    removed: int
    kept: int
    duplicates_dropped: int


class Chart(TypedDict):
    key: str
    title: str


class Check(TypedDict):
    name: str
    status: CheckStatusEnum
    value: float | None
    limit: float | None
    detail: str


class Checkpoint(TypedDict):
    id: int
    step: int
    name: str
    metrics: dict[str, float | None]
    size_bytes: int
    created_at: str
    promotion: Promotion | None
    adapter: bool


class ChunkResult(TypedDict):
    path: str
    received: int


class CloneRequest(TypedDict):
    """A field a form or multipart body leaves out is left out, as in a JSON body."""

    name: NotRequired[str]
    description: NotRequired[str]
    overrides: NotRequired[dict[str, Any]]


class Comment(TypedDict):
    id: int
    parent: int | None
    family: str
    chart: str
    author: str
    body: str
    created_at: str


class CommentCreateRequest(TypedDict):
    """A field a form or multipart body leaves out is left out, as in a JSON body."""

    body: str
    family: NotRequired[str]
    chart: NotRequired[str]
    parent: NotRequired[int | None]


class ComparedRun(TypedDict):
    id: int
    experiment: int | None
    experiment_name: str
    source: str
    number: int
    state: str
    step: int
    max_steps: int


class Comparison(TypedDict):
    runs: list[ComparedRun]
    metrics: list[MetricRow]
    config_differences: list[ConfigRow]


class ConfigRow(TypedDict):
    path: str
    values: list[Any]


class Consistency(TypedDict):
    agreement: float | None
    all_agree: float
    pass_hat_k: list[PassHatK]


class ConversationMessage(TypedDict):
    role: ConversationMessageRoleEnum
    content: str
    tool_calls: NotRequired[list[ToolCall]]
    tool_call_id: NotRequired[str]
    name: NotRequired[str]
    verdict: NotRequired[TurnVerdict]


class CountedSeries(TypedDict):
    step: list[int]
    value: list[float | None]
    wall_time: list[float]
    tokens: list[int | None]
    total: int
    downsampled: bool


class Curriculum(TypedDict):
    """A field a form or multipart body leaves out is left out, as in a JSON body."""

    id: int
    team: NotRequired[str]
    name: str
    slug: NotRequired[str]
    description: NotRequired[str]
    config: CurriculumConfig
    revision: int
    created_at: str
    updated_at: str


class CurriculumChangeRequest(TypedDict):
    """For the schema only: ``control.change_curriculum`` checks the change."""

    band: NotRequired[list[float]]
    families: NotRequired[dict[str, FamilyChangeRequest]]


class CurriculumConfig(TypedDict):
    """The families a curriculum mixes and the policy that moves their difficulty."""

    families: list[FamilyEntry]
    band: NotRequired[list[float]]
    floor: NotRequired[float]
    window: NotRequired[int]
    step: NotRequired[float]
    dynamic: NotRequired[bool]


class CurriculumConfigRequest(TypedDict):
    """The families a curriculum mixes and the policy that moves their difficulty."""

    families: list[FamilyEntryRequest]
    band: NotRequired[list[float]]
    floor: NotRequired[float]
    window: NotRequired[int]
    step: NotRequired[float]
    dynamic: NotRequired[bool]


class CurriculumRequest(TypedDict):
    """A field a form or multipart body leaves out is left out, as in a JSON body."""

    team: NotRequired[str]
    name: str
    slug: NotRequired[str]
    description: NotRequired[str]
    config: CurriculumConfigRequest


class DatasetRequest(TypedDict):
    """A field a form or multipart body leaves out is left out, as in a JSON body."""

    dataset: DatasetEnum
    note: NotRequired[str]


class DecisionRequest(TypedDict):
    """A field a form or multipart body leaves out is left out, as in a JSON body."""

    note: NotRequired[str]


class DedupReport(TypedDict):
    total: int
    kept: int
    exact_duplicates: int
    near_duplicates: int
    removed: list[RemovedRow]


class Deployment(TypedDict):
    id: int
    team: str
    name: str
    slug: str
    registered_model: int
    registered_model_name: str
    version: VersionLabel | None
    served_format: Any
    max_new_tokens: int
    temperature: float
    timeout_s: float
    max_queue: int
    max_batch: int
    stopped: bool
    status: str
    replicas: list[Replica]
    canary: Canary | None
    created_by: str | None
    created_at: str
    updated_at: str


class DeploymentWriteRequest(TypedDict):
    """A new deployment: what it serves and in which team, with the settings a patch may change."""

    name: str
    served_format: NotRequired[Any]
    max_new_tokens: NotRequired[int]
    temperature: NotRequired[float]
    timeout_s: NotRequired[float]
    max_queue: NotRequired[int]
    max_batch: NotRequired[int]
    team: NotRequired[str]
    slug: str
    registered_model: int


class Devices(TypedDict):
    cuda: NotRequired[int]
    names: NotRequired[list[str]]
    cpu: NotRequired[int]
    gpu_memory: NotRequired[list[int]]
    memory: NotRequired[int | None]


class Diff(TypedDict):
    experiment: int
    other: int
    changes: list[Change]


class DiffExample(TypedDict):
    content_hash: str
    prompt: str
    difficulty: int


class EditRequest(TypedDict):
    """A field a form or multipart body leaves out is left out, as in a JSON body."""

    base: int
    remove: list[str]
    note: NotRequired[str]


class EnvironmentKind(TypedDict):
    name: str
    label: str
    description: str
    family: str
    tools: list[Tool]
    default_limits: Limits


class Episode(TypedDict):
    environment: str
    messages: list[ConversationMessage]
    tools: list[Tool]
    turns: int
    turn_budget: int
    ended_by: EndedByEnum
    final_state: dict[str, Any]
    verdict: EpisodeVerdict
    seconds: float
    spec_hash: str


class EpisodeLimits(TypedDict):
    max_turns: int
    max_tokens_per_turn: int
    max_total_tokens: int


class EpisodeLimitsRequest(TypedDict):
    max_turns: int
    max_tokens_per_turn: int
    max_total_tokens: int


class EpisodePlaygroundRequest(TypedDict):
    """A field a form or multipart body leaves out is left out, as in a JSON body."""

    environment: str
    script: list[str]
    spec: NotRequired[VerifierSpec]
    verifier_version: NotRequired[int]
    expected: NotRequired[dict[str, Any]]
    prompt: NotRequired[str]
    task: NotRequired[int]
    context: NotRequired[dict[str, Any]]
    params: NotRequired[dict[str, Any]]


class EpisodeVerdict(TypedDict):
    """The verifier's verdict on the final state; timing and spec hash are the episode's."""

    passed: bool
    reward: float
    parts: dict[str, float]
    error_type: ErrorTypeEnum
    extracted: str | None
    layers: list[LayerVerdict]


class EvalConfig(TypedDict):
    every: int
    families: list[int]
    max_tasks: int
    suite: NotRequired[int]


class EvalConfigInputRequest(TypedDict):
    every: NotRequired[int]
    families: NotRequired[list[int]]
    max_tasks: NotRequired[int]
    suite: NotRequired[int | None]


class EvaluatedFamily(TypedDict):
    family: str
    pool_version: int
    version_number: int
    verifier_version: int
    threshold_pts: float


class Evaluation(TypedDict):
    """A verifier version's FP/FN rates on its labelled examples."""

    total: int
    good: int
    bad: int
    true_positives: int
    true_negatives: int
    false_positives: int
    false_negatives: int
    false_positive_rate: float | None
    false_negative_rate: float | None
    accuracy: float | None
    version: int
    examples: int
    error_types: dict[str, int]
    misjudged: list[Misjudged]
    spec_hash: str


class EvaluationCreateRequest(TypedDict):
    """A field a form or multipart body leaves out is left out, as in a JSON body."""

    k: NotRequired[int]
    temperature: NotRequired[float]
    max_new_tokens: NotRequired[int]
    max_tasks: NotRequired[int]
    seed: NotRequired[int]
    team: str
    checkpoint: NotRequired[int]
    model: NotRequired[str]
    families: NotRequired[list[FamilyChoiceRequest]]
    suite: NotRequired[int]
    prompt_format: NotRequired[PromptFormatInputRequest]
    format_of_checkpoint: NotRequired[int]


class EvaluationJob(TypedDict):
    id: int
    team: str
    checkpoint: int | None
    model: str
    subject: str
    suite: int | None
    families: list[EvaluatedFamily]
    k: int
    temperature: float
    max_new_tokens: int
    max_tasks: int
    seed: int
    prompt_format: PromptFormat
    state: EvaluationStateEnum
    progress: float
    message: str
    attempts: int
    tasks: int
    created_by: str
    created_at: str
    started_at: str | None
    finished_at: str | None


class EvaluationJobDetail(TypedDict):
    id: int
    team: str
    checkpoint: int | None
    model: str
    subject: str
    suite: int | None
    families: list[EvaluatedFamily]
    k: int
    temperature: float
    max_new_tokens: int
    max_tasks: int
    seed: int
    prompt_format: PromptFormat
    state: EvaluationStateEnum
    progress: float
    message: str
    attempts: int
    tasks: int
    created_by: str
    created_at: str
    started_at: str | None
    finished_at: str | None
    results: list[FamilyResult]


class EvaluationSuite(TypedDict):
    id: int
    team: str
    name: str
    description: str
    families: list[EvaluatedFamily]
    k: int
    temperature: float
    max_new_tokens: int
    max_tasks: int
    seed: int
    jobs: int
    experiments: int
    created_by: str
    created_at: str
    updated_at: str


class EvaluationSuiteWriteRequest(TypedDict):
    """A field a form or multipart body leaves out is left out, as in a JSON body."""

    k: NotRequired[int]
    temperature: NotRequired[float]
    max_new_tokens: NotRequired[int]
    max_tasks: NotRequired[int]
    seed: NotRequired[int]
    team: NotRequired[str]
    name: str
    description: NotRequired[str]
    families: list[FamilyChoiceRequest]


class Example(TypedDict):
    """A field a form or multipart body leaves out is left out, as in a JSON body."""

    id: int
    response: str
    expected: NotRequired[dict[str, Any]]
    label: LabelEnum
    note: NotRequired[str]
    messages: list[dict[str, Any]] | None
    turn: int | None
    created_at: str


class ExampleProposal(TypedDict):
    id: int
    verifier: int
    verifier_name: str
    version: int | None
    version_number: int | None
    response: str
    expected: dict[str, Any]
    label: LabelEnum
    judged_passed: bool
    judged_error_type: str
    judged_reward: float | None
    note: str
    messages: list[dict[str, Any]] | None
    turn: int | None
    source: str
    source_label: str
    source_path: str
    status: ExampleProposalStatusEnum
    created_by: str | None
    created_at: str
    decided_by: str | None
    decided_at: str | None
    decision_note: str
    example: int | None


class ExampleRequest(TypedDict):
    """A field a form or multipart body leaves out is left out, as in a JSON body."""

    response: str
    expected: NotRequired[dict[str, Any]]
    label: LabelEnum
    note: NotRequired[str]


class Experiment(TypedDict):
    id: int
    team: str
    name: str
    description: str
    config: ExperimentConfig
    config_hash: str
    parent: int | None
    created_by: str
    created_at: str
    run_count: int


class ExperimentConfig(TypedDict):
    curriculum: ExperimentCurriculum
    model: str
    algorithm: AlgorithmEnum
    hyperparameters: Hyperparameters
    eval: EvalConfig
    seed: int
    num_processes: int
    strategy: StrategyEnum
    rollout_groups: int
    budget: Budget
    prompt_format: NotRequired[PromptFormat]
    lora: NotRequired[LoraConfig]


class ExperimentConfigInputRequest(TypedDict):
    curriculum: CurriculumInputRequest
    model: str
    algorithm: NotRequired[AlgorithmEnum]
    hyperparameters: NotRequired[HyperparametersInputRequest]
    eval: NotRequired[EvalConfigInputRequest]
    seed: NotRequired[int]
    num_processes: NotRequired[int]
    strategy: NotRequired[StrategyEnum]
    rollout_groups: NotRequired[int]
    budget: NotRequired[BudgetInputRequest]
    prompt_format: NotRequired[PromptFormatInputRequest | None]
    lora: NotRequired[LoraConfigInputRequest | None]


class ExperimentCreateRequest(TypedDict):
    """A field a form or multipart body leaves out is left out, as in a JSON body."""

    team: str
    name: str
    description: NotRequired[str]
    config: ExperimentConfigInputRequest


class ExperimentCurriculum(TypedDict):
    families: list[FamilyConfig]
    band: list[float]
    floor: float
    window: int
    step: float
    dynamic: bool
    origin: Origin | None


class ExperimentCurriculumInputRequest(TypedDict):
    families: list[FamilyConfigInputRequest]
    band: NotRequired[list[float]]
    floor: NotRequired[float]
    window: NotRequired[int]
    step: NotRequired[float]
    dynamic: NotRequired[bool]
    origin: NotRequired[OriginInputRequest | None]


class Extractor(TypedDict):
    name: str
    description: str


class Family(TypedDict):
    """A field a form or multipart body leaves out is left out, as in a JSON body."""

    id: int
    team: NotRequired[str]
    name: str
    slug: NotRequired[str]
    kind: str
    description: NotRequired[str]
    params: NotRequired[dict[str, Any]]
    prompt_template: NotRequired[str]
    held_out_fraction: NotRequired[float]
    environment: NotRequired[FamilyEnvironment | None]
    latest_version: PoolVersion | None
    version_count: int
    version_defaults: VersionDefaults
    archived_at: str | None
    created_at: str
    updated_at: str


class FamilyChangeRequest(TypedDict):
    weight: NotRequired[float]
    distribution: NotRequired[list[float]]


class FamilyChoiceRequest(TypedDict):
    """A field a form or multipart body leaves out is left out, as in a JSON body."""

    pool_version: int
    verifier_version: int
    threshold_pts: NotRequired[float]


class FamilyConfig(TypedDict):
    pool_version: int
    verifier_version: int
    weight: float
    levels: list[int] | None
    initial: list[float] | None


class FamilyConfigInputRequest(TypedDict):
    pool_version: int
    verifier_version: int
    weight: NotRequired[float]
    levels: NotRequired[list[int] | None]
    initial: NotRequired[list[float] | None]


class FamilyEntry(TypedDict):
    """A family of a curriculum, named by the pool version it samples from."""

    version: int
    weight: NotRequired[float]
    levels: NotRequired[list[int] | None]
    initial: NotRequired[list[float] | None]


class FamilyEntryRequest(TypedDict):
    """A family of a curriculum, named by the pool version it samples from."""

    version: int
    weight: NotRequired[float]
    levels: NotRequired[list[int] | None]
    initial: NotRequired[list[float] | None]


class FamilyEnvironment(TypedDict):
    kind: str
    limits: EpisodeLimits


class FamilyEnvironmentRequest(TypedDict):
    kind: str
    limits: EpisodeLimitsRequest


class FamilyFormat(TypedDict):
    family: str
    prompt_template: str | None
    extract: str
    pool_version: int | None
    verifier_version: int | None


class FamilyKind(TypedDict):
    name: str
    label: str
    description: str
    difficulty_levels: list[int]
    prompt_template: str
    params_schema: dict[str, Any]
    procedural: bool
    importable: bool
    record_fields: list[str]
    required_fields: list[str]
    default_verifier: VerifierSpec


class FamilyRequest(TypedDict):
    """A field a form or multipart body leaves out is left out, as in a JSON body."""

    team: NotRequired[str]
    name: str
    slug: NotRequired[str]
    kind: str
    description: NotRequired[str]
    params: NotRequired[dict[str, Any]]
    prompt_template: NotRequired[str]
    held_out_fraction: NotRequired[float]
    environment: NotRequired[FamilyEnvironmentRequest | None]


class FamilyResult(TypedDict):
    family: str
    tasks: int
    k: int
    pass_at_1: float
    pass_at_k: float
    mean_turns: float | None
    agreement: float | None


class FamilyRow(TypedDict):
    family: str
    tasks: int
    candidate: float
    baseline: float
    difference: float
    low: float
    high: float
    threshold_pts: float
    verdict: VerdictEnum


class FileSummary(TypedDict):
    format: str
    columns: list[str]
    rows_read: int
    sample: list[dict[str, Any]]
    labels: dict[str, list[str]]
    fields: list[str]
    required_fields: list[str]
    suggested_mapping: dict[str, str]


class FinishRequest(TypedDict):
    """A field a form or multipart body leaves out is left out, as in a JSON body."""

    status: FinishStatusEnum
    reason: NotRequired[str]


class FlagRequest(TypedDict):
    """A field a form or multipart body leaves out is left out, as in a JSON body."""

    note: NotRequired[str]
    turn: NotRequired[int | None]


class FormatCheck(TypedDict):
    matches: bool
    differences: list[str]


class GenerateAnswer(TypedDict):
    id: str
    completion: str
    side: ReplicaRoleEnum
    version: VersionLabel
    output_tokens: int
    truncated: bool
    queue_ms: float
    generation_ms: float
    format_warnings: list[str]
    verification: VerificationEnum


class GenerateRequest(TypedDict):
    """A field a form or multipart body leaves out is left out, as in a JSON body."""

    counts: dict[str, int]
    seed: NotRequired[int]
    near_duplicates: NotRequired[bool]
    note: NotRequired[str]


class GradeRequest(TypedDict):
    """A field a form or multipart body leaves out is left out, as in a JSON body."""

    model_path: str
    k: NotRequired[int]
    temperature: NotRequired[float]
    max_new_tokens: NotRequired[int]
    levels: NotRequired[int]
    spec: NotRequired[VerifierSpec]


class Guardrails(TypedDict):
    min_samples: NotRequired[int]
    max_samples: NotRequired[int]
    max_pass_drop: NotRequired[float]
    max_error_rate: NotRequired[float]
    max_latency_p95_ratio: NotRequired[float]
    max_length_ratio: NotRequired[float]
    alpha: NotRequired[float]


class HealthSettings(TypedDict):
    window: int
    every: int
    heldout_min_rise: float
    kl_max: float
    curriculum_mass: float
    signals: dict[str, SignalSetting]


class Hyperparameter(TypedDict):
    path: str
    type: TypeEnum
    nullable: bool
    default: Any
    help: str
    choices: list[str] | None
    range: Range | None


class Hyperparameters(TypedDict):
    max_steps: NotRequired[int]
    prompts_per_step: NotRequired[int]
    learning_rate: NotRequired[float]
    weight_decay: NotRequired[float]
    adam_betas: NotRequired[list[float]]
    lr_schedule: NotRequired[str]
    warmup_steps: NotRequired[int]
    max_grad_norm: NotRequired[float | None]
    micro_batch_size: NotRequired[int | None]
    gradient_accumulation_steps: NotRequired[int]
    cpu_threads: NotRequired[int]
    mixed_precision: NotRequired[str]
    sampling: NotRequired[SamplingConfig]
    checkpoint_every: NotRequired[int]
    eval_temperature: NotRequired[float]
    group_size: NotRequired[int]
    num_epochs: NotRequired[int]
    clip_eps: NotRequired[float]
    clip_eps_high: NotRequired[float | None]
    kl_estimator: NotRequired[str]
    kl_coef: NotRequired[float]
    entropy_coef: NotRequired[float]
    reward_normalization: NotRequired[str]
    reward_clip: NotRequired[float | None]
    unscorable_reward: NotRequired[float]
    tis: NotRequired[str]
    tis_cap: NotRequired[float]
    verification_workers: NotRequired[int]
    advantage_estimator: NotRequired[str]
    scale_rewards: NotRequired[bool]
    loss_aggregation: NotRequired[str]
    drop_zero_std_groups: NotRequired[bool]
    skip_zero_advantage: NotRequired[bool]
    dynamic_sampling: NotRequired[bool]
    max_refill_rounds: NotRequired[int]
    async_verification: NotRequired[bool]
    gamma: NotRequired[float]
    lam: NotRequired[float]
    vf_coef: NotRequired[float]
    vf_clip: NotRequired[float]
    whiten_advantages: NotRequired[bool]
    max_kept_per_prompt: NotRequired[int]


class HyperparametersInputRequest(TypedDict):
    max_steps: NotRequired[int]
    prompts_per_step: NotRequired[int]
    learning_rate: NotRequired[float]
    weight_decay: NotRequired[float]
    adam_betas: NotRequired[list[float]]
    lr_schedule: NotRequired[str]
    warmup_steps: NotRequired[int]
    max_grad_norm: NotRequired[float | None]
    micro_batch_size: NotRequired[int | None]
    gradient_accumulation_steps: NotRequired[int]
    cpu_threads: NotRequired[int]
    mixed_precision: NotRequired[str]
    sampling: NotRequired[SamplingConfigInputRequest]
    checkpoint_every: NotRequired[int]
    eval_temperature: NotRequired[float]
    group_size: NotRequired[int]
    num_epochs: NotRequired[int]
    clip_eps: NotRequired[float]
    clip_eps_high: NotRequired[float | None]
    kl_estimator: NotRequired[str]
    kl_coef: NotRequired[float]
    entropy_coef: NotRequired[float]
    reward_normalization: NotRequired[str]
    reward_clip: NotRequired[float | None]
    unscorable_reward: NotRequired[float]
    tis: NotRequired[str]
    tis_cap: NotRequired[float]
    verification_workers: NotRequired[int]
    advantage_estimator: NotRequired[str]
    scale_rewards: NotRequired[bool]
    loss_aggregation: NotRequired[str]
    drop_zero_std_groups: NotRequired[bool]
    skip_zero_advantage: NotRequired[bool]
    dynamic_sampling: NotRequired[bool]
    max_refill_rounds: NotRequired[int]
    async_verification: NotRequired[bool]
    gamma: NotRequired[float]
    lam: NotRequired[float]
    vf_coef: NotRequired[float]
    vf_clip: NotRequired[float]
    whiten_advantages: NotRequired[bool]
    max_kept_per_prompt: NotRequired[int]


class IngestResult(TypedDict):
    accepted: int
    refused: int
    seq: int
    results: list[ItemResult]


class InspectRequest(TypedDict):
    """A field a form or multipart body leaves out is left out, as in a JSON body."""

    file: str
    format: NotRequired[FormatEnum]


class InspectedRollout(TypedDict):
    id: int
    step: int
    group: int
    sample: int
    family: str
    difficulty: int
    task_hash: str
    pool_version: int | None
    verifier_version: int | None
    prompt: str
    completion: str
    passed: bool
    reward: float | None
    parts: dict[str, float | None]
    advantage: float | None
    error_type: str
    layers: list[dict[str, Any]]
    messages: list[ConversationMessage] | None
    matches: bool
    flag: RolloutFlag | None
    turn_flags: list[RolloutFlag]


class IssuedToken(TypedDict):
    """A field a form or multipart body leaves out is left out, as in a JSON body."""

    id: int
    name: str
    prefix: str
    team: str | None
    created_at: str
    expires_at: str | None
    last_used_at: str | None
    revoked_at: str | None
    token: str


class ItemResult(TypedDict):
    index: int
    status: ItemResultStatusEnum
    errors: list[ApiError]


class JudgeScore(TypedDict):
    index: int
    label: LabelEnum
    p_yes: float


class KindUsageRow(TypedDict):
    worker_seconds: float
    generated_tokens: int
    judge_tokens: int
    cost: float
    key: str
    label: str


class Latency(TypedDict):
    p50: float | None
    p95: float | None
    max: float | None


class LayerKind(TypedDict):
    kind: str
    stage: StageEnum
    description: str
    biased: bool
    params_schema: dict[str, Any]


class LayerVerdict(TypedDict):
    name: str
    kind: str
    stage: StageEnum
    passed: bool
    score: float
    error_type: ErrorTypeEnum
    detail: str
    seconds: float
    skipped: bool
    biased: bool
    info: dict[str, Any]


class LearnerRequest(TypedDict):
    """A field a form or multipart body leaves out is left out, as in a JSON body."""

    ability: NotRequired[float]
    slope: NotRequired[float]
    learning_rate: NotRequired[float]


class LevelSuccess(TypedDict):
    difficulty: int
    success: float
    tasks: int


class Limits(TypedDict):
    max_turns: int
    max_tokens_per_turn: int
    max_total_tokens: int


class Lineage(TypedDict):
    checkpoint: NotRequired[int]
    step: NotRequired[int]
    run: NotRequired[VersionRef]
    experiment: NotRequired[NamedRef]
    config_hash: NotRequired[str]
    model: NotRequired[str]
    pool_versions: NotRequired[list[PoolVersionRef]]
    verifier_versions: NotRequired[list[VerifierVersionRef]]
    promotion: NotRequired[PromotionRef | None]
    base_model: NotRequired[str]


class LoadableModel(TypedDict):
    name: str
    path: str
    builtin: bool
    parameters: int | None
    ready: bool
    architecture: NotRequired[str | None]
    dtype: NotRequired[str | None]
    context_length: NotRequired[int | None]
    chat_template: NotRequired[bool | None]


class LoginRequest(TypedDict):
    """A field a form or multipart body leaves out is left out, as in a JSON body."""

    username: str
    password: str


class LoraConfig(TypedDict):
    """Train low-rank adapters on the frozen base model instead of every weight."""

    rank: int
    alpha: int
    dropout: float
    target_modules: list[str] | None


class LoraConfigInputRequest(TypedDict):
    """Train low-rank adapters on the frozen base model instead of every weight."""

    rank: NotRequired[int]
    alpha: NotRequired[int]
    dropout: NotRequired[float]
    target_modules: NotRequired[list[str] | None]


class Me(TypedDict):
    id: int
    username: str
    email: str
    is_staff: bool
    teams: list[TeamRef]


class Membership(TypedDict):
    """A field a form or multipart body leaves out is left out, as in a JSON body."""

    id: int
    username: str
    role: RoleEnum
    joined_at: str


class MembershipRequest(TypedDict):
    """A field a form or multipart body leaves out is left out, as in a JSON body."""

    username: str
    role: RoleEnum


class MetricRow(TypedDict):
    key: str
    values: list[float | None]


class MetricSpec(TypedDict):
    name: str
    unit: str
    description: str
    algorithms: list[str]
    placeholders: list[str]
    pattern: str


class Misjudged(TypedDict):
    index: int
    example_id: int
    label: LabelEnum
    passed: bool
    reward: float
    error_type: ErrorTypeEnum
    layer: str | None
    detail: str


class ModelFormat(TypedDict):
    chat_template: str | None
    add_special_tokens: bool
    families: list[FamilyFormat]


class ModelVersion(TypedDict):
    id: int
    team: str
    model: int
    model_name: str
    number: int
    checkpoint: int | None
    base_model: str
    lineage: Lineage
    format: ModelFormat
    aliases: list[str]
    promotion: PromotionRef | None
    production_refusal: str | None
    description: str
    created_by: str
    created_at: str


class NamedRef(TypedDict):
    id: int
    name: str


class Needed(TypedDict):
    answers: int
    requests: int
    outcome: str
    detail: str


class Origin(TypedDict):
    curriculum: int
    revision: int


class OriginInputRequest(TypedDict):
    curriculum: int
    revision: int


class OutsideRunRequest(TypedDict):
    """A field a form or multipart body leaves out is left out, as in a JSON body."""

    team: str
    resume: NotRequired[int]
    name: NotRequired[str]
    params: NotRequired[Any]
    tags: NotRequired[dict[str, str]]
    notes: NotRequired[str]
    base_model: NotRequired[str]
    experiment: NotRequired[int | None]
    max_steps: NotRequired[int]


class PaginatedAuditEventList(TypedDict):
    count: int
    next: NotRequired[str | None]
    previous: NotRequired[str | None]
    results: list[AuditEvent]


class PaginatedCanaryList(TypedDict):
    count: int
    next: NotRequired[str | None]
    previous: NotRequired[str | None]
    results: list[Canary]


class PaginatedCurriculumList(TypedDict):
    count: int
    next: NotRequired[str | None]
    previous: NotRequired[str | None]
    results: list[Curriculum]


class PaginatedDeploymentList(TypedDict):
    count: int
    next: NotRequired[str | None]
    previous: NotRequired[str | None]
    results: list[Deployment]


class PaginatedEvaluationJobList(TypedDict):
    count: int
    next: NotRequired[str | None]
    previous: NotRequired[str | None]
    results: list[EvaluationJob]


class PaginatedEvaluationSuiteList(TypedDict):
    count: int
    next: NotRequired[str | None]
    previous: NotRequired[str | None]
    results: list[EvaluationSuite]


class PaginatedExampleProposalList(TypedDict):
    count: int
    next: NotRequired[str | None]
    previous: NotRequired[str | None]
    results: list[ExampleProposal]


class PaginatedExperimentList(TypedDict):
    count: int
    next: NotRequired[str | None]
    previous: NotRequired[str | None]
    results: list[Experiment]


class PaginatedFamilyList(TypedDict):
    count: int
    next: NotRequired[str | None]
    previous: NotRequired[str | None]
    results: list[Family]


class PaginatedMembershipList(TypedDict):
    count: int
    next: NotRequired[str | None]
    previous: NotRequired[str | None]
    results: list[Membership]


class PaginatedModelVersionList(TypedDict):
    count: int
    next: NotRequired[str | None]
    previous: NotRequired[str | None]
    results: list[ModelVersion]


class PaginatedPoolTaskList(TypedDict):
    count: int
    next: NotRequired[str | None]
    previous: NotRequired[str | None]
    results: list[PoolTask]


class PaginatedPoolVersionList(TypedDict):
    count: int
    next: NotRequired[str | None]
    previous: NotRequired[str | None]
    results: list[PoolVersion]


class PaginatedPreflightList(TypedDict):
    count: int
    next: NotRequired[str | None]
    previous: NotRequired[str | None]
    results: list[Preflight]


class PaginatedPromotionList(TypedDict):
    count: int
    next: NotRequired[str | None]
    previous: NotRequired[str | None]
    results: list[Promotion]


class PaginatedRegisteredModelList(TypedDict):
    count: int
    next: NotRequired[str | None]
    previous: NotRequired[str | None]
    results: list[RegisteredModel]


class PaginatedReportListList(TypedDict):
    count: int
    next: NotRequired[str | None]
    previous: NotRequired[str | None]
    results: list[ReportList]


class PaginatedRolloutGroupList(TypedDict):
    count: int
    next: NotRequired[str | None]
    previous: NotRequired[str | None]
    results: list[RolloutGroup]


class PaginatedRolloutList(TypedDict):
    count: int
    next: NotRequired[str | None]
    previous: NotRequired[str | None]
    results: list[Rollout]


class PaginatedRunListList(TypedDict):
    count: int
    next: NotRequired[str | None]
    previous: NotRequired[str | None]
    results: list[RunList]


class PaginatedServedRequestList(TypedDict):
    count: int
    next: NotRequired[str | None]
    previous: NotRequired[str | None]
    results: list[ServedRequest]


class PaginatedTeamList(TypedDict):
    count: int
    next: NotRequired[str | None]
    previous: NotRequired[str | None]
    results: list[Team]


class PaginatedTokenList(TypedDict):
    count: int
    next: NotRequired[str | None]
    previous: NotRequired[str | None]
    results: list[Token]


class PaginatedVerifierList(TypedDict):
    count: int
    next: NotRequired[str | None]
    previous: NotRequired[str | None]
    results: list[Verifier]


class PassAtK(TypedDict):
    k: int
    pass_at_1: float
    pass_at_k: float


class PassHatK(TypedDict):
    k: int
    value: float


class PassRate(TypedDict):
    production: float | None
    candidate: float | None
    difference: float | None
    ci_low: float | None
    ci_high: float | None
    p_value: float | None


class PatchedCurriculumRequest(TypedDict):
    """A field a form or multipart body leaves out is left out, as in a JSON body."""

    team: NotRequired[str]
    name: NotRequired[str]
    slug: NotRequired[str]
    description: NotRequired[str]
    config: NotRequired[CurriculumConfigRequest]


class PatchedDeploymentPatchRequest(TypedDict):
    """What may change on a deployment: its name and how it generates."""

    name: NotRequired[str]
    served_format: NotRequired[Any]
    max_new_tokens: NotRequired[int]
    temperature: NotRequired[float]
    timeout_s: NotRequired[float]
    max_queue: NotRequired[int]
    max_batch: NotRequired[int]


class PatchedEvaluationSuiteWriteRequest(TypedDict):
    """A field a form or multipart body leaves out is left out, as in a JSON body."""

    k: NotRequired[int]
    temperature: NotRequired[float]
    max_new_tokens: NotRequired[int]
    max_tasks: NotRequired[int]
    seed: NotRequired[int]
    team: NotRequired[str]
    name: NotRequired[str]
    description: NotRequired[str]
    families: NotRequired[list[FamilyChoiceRequest]]


class PatchedFamilyRequest(TypedDict):
    """A field a form or multipart body leaves out is left out, as in a JSON body."""

    team: NotRequired[str]
    name: NotRequired[str]
    slug: NotRequired[str]
    kind: NotRequired[str]
    description: NotRequired[str]
    params: NotRequired[dict[str, Any]]
    prompt_template: NotRequired[str]
    held_out_fraction: NotRequired[float]
    environment: NotRequired[FamilyEnvironmentRequest | None]


class PatchedHealthSettingsRequest(TypedDict):
    window: NotRequired[int]
    every: NotRequired[int]
    heldout_min_rise: NotRequired[float]
    kl_max: NotRequired[float]
    curriculum_mass: NotRequired[float]
    signals: NotRequired[dict[str, SignalSettingRequest]]


class PatchedMembershipUpdateRequest(TypedDict):
    """A field a form or multipart body leaves out is left out, as in a JSON body."""

    role: NotRequired[RoleEnum]


class PatchedRegisteredModelWriteRequest(TypedDict):
    """A field a form or multipart body leaves out is left out, as in a JSON body."""

    team: NotRequired[str]
    name: NotRequired[str]
    description: NotRequired[str]


class PatchedVerifierRequest(TypedDict):
    """A field a form or multipart body leaves out is left out, as in a JSON body."""

    team: NotRequired[str]
    name: NotRequired[str]
    slug: NotRequired[str]
    description: NotRequired[str]
    family_kind: NotRequired[str]
    spec: NotRequired[VerifierSpec]


class PauseRequest(TypedDict):
    """A field a form or multipart body leaves out is left out, as in a JSON body."""

    reason: NotRequired[str]


class Pin(TypedDict):
    kind: str
    id: int
    name: str
    versions: list[int]
    reason: str


class PlannedVersion(TypedDict):
    content_hash: str
    task_count: int
    train_count: int
    held_out_count: int
    held_out_fraction: float
    difficulty_histogram: dict[str, int]


class PlaygroundRequest(TypedDict):
    """A field a form or multipart body leaves out is left out, as in a JSON body."""

    spec: NotRequired[VerifierSpec]
    verifier_version: NotRequired[int]
    response: str
    expected: NotRequired[dict[str, Any]]
    task: NotRequired[int]
    context: NotRequired[dict[str, Any]]


class PointInRequest(TypedDict):
    """One point to record (documentation of the body; items are checked one by one)."""

    key: str
    step: int
    value: float | None
    wall_time: NotRequired[float | None]
    tokens: NotRequired[int | None]


class PoolJob(TypedDict):
    id: int
    version: int
    kind: str
    params: dict[str, Any]
    status: JobStateEnum
    progress: float
    message: str
    result_version: int | None
    created_at: str
    finished_at: str | None


class PoolTask(TypedDict):
    id: int
    position: int
    content_hash: str
    prompt: str
    expected: dict[str, Any]
    difficulty: int
    split: SplitEnum
    source_id: str
    meta: dict[str, Any]


class PoolVersion(TypedDict):
    id: int
    family: int
    family_slug: str
    number: int
    content_hash: str
    source: PoolVersionSourceEnum
    source_detail: dict[str, Any]
    held_out_fraction: float
    environment: FamilyEnvironment | None
    task_count: int
    train_count: int
    held_out_count: int
    difficulty_histogram: SplitHistogram
    dedup: DedupReport
    diff: VersionDiff
    note: str
    created_by: str
    created_at: str


class PoolVersionRef(TypedDict):
    id: int
    family: str
    number: int


class Preflight(TypedDict):
    id: int
    team: str
    experiment: int | None
    config: ExperimentConfig
    config_hash: str
    tasks_per_level: int
    state: JobStateEnum
    progress: float
    message: str
    result: PreflightResult | None
    created_by: str | None
    created_at: str
    started_at: str | None
    finished_at: str | None


class PreflightCreateRequest(TypedDict):
    """A field a form or multipart body leaves out is left out, as in a JSON body."""

    team: NotRequired[str]
    config: NotRequired[ExperimentConfigInputRequest]
    experiment: NotRequired[int]
    tasks_per_level: NotRequired[int]


class PreflightFamily(TypedDict):
    tasks: int
    completions: int
    pass_rate: float | None
    mean_reward: float | None
    frac_reward_zero_std: float | None
    family: str
    levels: list[PreflightLevel]
    latency_ms: Latency
    error_types: dict[str, int]


class PreflightLevel(TypedDict):
    tasks: int
    completions: int
    pass_rate: float | None
    mean_reward: float | None
    frac_reward_zero_std: float | None
    level: int


class PreflightResult(TypedDict):
    families: list[PreflightFamily]
    warnings: list[PreflightWarning]
    pass_rate: float | None
    frac_reward_zero_std: float | None
    completions: int
    settings: PreflightSettings


class PreflightSettings(TypedDict):
    model: str
    group_size: int
    tasks_per_level: int
    temperature: float
    max_new_tokens: int


class PreflightWarning(TypedDict):
    family: str
    code: str
    severity: SeverityEnum
    levels: list[int]
    message: str


class Preset(TypedDict):
    name: str
    title: str
    algorithm: str
    summary: str
    source: str
    values: list[PresetValue]
    measured: str


class PresetValue(TypedDict):
    path: str
    value: Any
    help: str
    why: str


class PreviewRequest(TypedDict):
    """A field a form or multipart body leaves out is left out, as in a JSON body."""

    config: NotRequired[CurriculumConfigRequest]
    steps: NotRequired[int]
    batch: NotRequired[int]
    seed: NotRequired[int]
    learner: NotRequired[LearnerRequest]


class PreviewTrace(TypedDict):
    band: list[float]
    floor: float
    levels: dict[str, list[int]]
    steps: list[TraceStep]
    in_band: dict[str, float | None]


class Profile(TypedDict):
    by_difficulty: dict[str, list[LevelSuccess]]
    errors_by_layer: dict[str, dict[str, dict[str, int]]]
    worst_tasks: list[WorstTask]
    pass_at_k: dict[str, PassAtK]
    stability: NotRequired[dict[str, Stability]]


class Promotion(TypedDict):
    id: int
    team: str
    checkpoint: int
    run: int
    step: int
    subject: str
    report: int
    report_version: int
    note: str
    promoted_by: str
    created_at: str


class PromotionCreateRequest(TypedDict):
    """A field a form or multipart body leaves out is left out, as in a JSON body."""

    checkpoint: int
    report: int
    note: NotRequired[str]


class PromotionRef(TypedDict):
    id: int
    report: int
    report_version: int
    overrides: NotRequired[list[RegressionOverride]]


class PromptFormat(TypedDict):
    """How a task's prompt becomes model input, and where the answer starts in a completion."""

    kind: PromptFormatKindEnum
    system_prompt: str | None
    reasoning_tags: list[str]


class PromptFormatInputRequest(TypedDict):
    """How a task's prompt becomes model input, and where the answer starts in a completion."""

    kind: NotRequired[PromptFormatKindEnum]
    system_prompt: NotRequired[str | None]
    reasoning_tags: NotRequired[list[str]]


class Quota(TypedDict):
    max_concurrent_runs: int | None
    active_runs: int
    max_worker_hours_per_month: float | None
    used_worker_hours: float


class Range(TypedDict):
    low: float
    high: float
    low_open: bool
    high_open: bool
    text: str


class Rate(TypedDict):
    queue: str
    per_worker_hour: float
    per_million_generated_tokens: float
    per_million_judge_tokens: float
    currency: str


class RawPage(TypedDict):
    key: str
    points: Series
    next_after_step: int | None


class RegisterRequest(TypedDict):
    """A field a form or multipart body leaves out is left out, as in a JSON body."""

    model: int
    checkpoint: NotRequired[int | None]
    base_model: NotRequired[str | None]
    description: NotRequired[str]


class RegisteredModel(TypedDict):
    id: int
    team: str
    name: str
    description: str
    aliases: list[Alias]
    latest_version: int | None
    created_by: str
    created_at: str
    updated_at: str


class RegisteredModelDetail(TypedDict):
    id: int
    team: str
    name: str
    description: str
    aliases: list[Alias]
    latest_version: int | None
    created_by: str
    created_at: str
    updated_at: str
    versions: list[ModelVersion]


class RegisteredModelWriteRequest(TypedDict):
    """A field a form or multipart body leaves out is left out, as in a JSON body."""

    team: NotRequired[str]
    name: str
    description: NotRequired[str]


class RegressionOverride(TypedDict):
    reviewer: str
    reason: str
    families: list[str]


class Removal(TypedDict):
    action: ActionEnum
    message: str
    versions: int
    tasks: int
    pins: list[Pin]


class RemovedRow(TypedDict):
    row: int
    duplicate_of: int
    kind: RemovedRowKindEnum
    similarity: float


class Replica(TypedDict):
    id: int
    role: ReplicaRoleEnum
    state: ReplicaStateEnum
    version: VersionLabel | None
    worker: str
    message: str
    heartbeat_at: str | None
    started_at: str | None
    stopped_at: str | None
    stale: bool


class Report(TypedDict):
    id: int
    team: str
    candidate: int
    baseline: int
    candidate_subject: str
    baseline_subject: str
    lineage: str
    version: int
    headline: str
    state: ReportStateEnum
    created_by: str
    created_at: str
    submitted_at: str | None
    decided_at: str | None
    figures: ReportFigures
    comments: list[Comment]
    reviews: list[Review]
    required_approvals: int
    authors_may_approve: bool
    approver_roles: list[RoleEnum]
    regressed_families: list[str]
    candidate_checkpoint: int | None
    promotion: Promotion | None
    charts: list[Chart]
    canaries: list[ReportCanary]


class ReportCanary(TypedDict):
    id: int
    deployment: str
    state: str
    reason: str
    candidate: str
    created_at: str


class ReportCreateRequest(TypedDict):
    """A field a form or multipart body leaves out is left out, as in a JSON body."""

    candidate: int
    baseline: int


class ReportFigures(TypedDict):
    headline: str
    families: list[FamilyRow]
    candidate_profile: Profile
    baseline_profile: Profile
    settings: ReportSettings
    signals: NotRequired[TrainingSignals | None]


class ReportList(TypedDict):
    id: int
    team: str
    candidate: int
    baseline: int
    candidate_subject: str
    baseline_subject: str
    lineage: str
    version: int
    headline: str
    state: ReportStateEnum
    created_by: str
    created_at: str
    submitted_at: str | None
    decided_at: str | None


class ReportSettings(TypedDict):
    k: int
    temperature: float
    bootstrap_resamples: int
    confidence: float
    seed: int


class ResumeRunRequest(TypedDict):
    budget: NotRequired[BudgetInputRequest]


class Review(TypedDict):
    id: int
    reviewer: str
    decision: DecisionEnum
    note: str
    override_reason: str
    created_at: str


class ReviewCreateRequest(TypedDict):
    """A field a form or multipart body leaves out is left out, as in a JSON body."""

    decision: DecisionEnum
    note: NotRequired[str]
    override_reason: NotRequired[str]


class ReviewPolicy(TypedDict):
    """A field a form or multipart body leaves out is left out, as in a JSON body."""

    required_approvals: int
    authors_may_approve: bool
    approver_roles: list[RoleEnum]


class ReviewPolicyUpdateRequest(TypedDict):
    """What a PUT changes: the fields it names; those it leaves out keep their value."""

    required_approvals: NotRequired[int]
    authors_may_approve: NotRequired[bool]
    approver_roles: NotRequired[list[RoleEnum]]


class Rollout(TypedDict):
    id: int
    step: int
    group: int
    sample: int
    family: str
    difficulty: int
    task_hash: str
    pool_version: int | None
    verifier_version: int | None
    prompt: str
    completion: str
    passed: bool
    reward: float | None
    parts: dict[str, float | None]
    advantage: float | None
    error_type: str
    layers: list[dict[str, Any]]
    messages: list[ConversationMessage] | None


class RolloutFlag(TypedDict):
    id: int
    status: str
    label: str
    verifier: int
    created_by: str | None
    created_at: str
    turn: int | None


class RolloutGroup(TypedDict):
    step: int
    group: int
    rollouts: list[InspectedRollout]


class Run(TypedDict):
    id: int
    team: str
    experiment: int | None
    experiment_name: str | None
    title: str
    source: RunSourceEnum
    name: str
    params: dict[str, Any]
    tags: dict[str, str]
    notes: str
    base_model: str
    number: int
    state: RunStateEnum
    created_by: str
    created_at: str
    started_at: str | None
    finished_at: str | None
    worker: str
    heartbeat_at: str | None
    attempts: int
    cancel_requested: bool
    pause_requested: bool
    pause_reason: str
    budget: Budget
    worker_seconds: float
    generated_tokens: int
    judge_tokens: int
    cost: float
    step: int
    max_steps: int
    resumed_from_step: int | None
    failure_reason: str
    log_tail: str
    summary: dict[str, float | None]
    health: RunHealth
    heartbeat_stale_after_s: int


class RunBudget(TypedDict):
    max_worker_hours: float | None
    max_cost: float | None
    problem: str | None


class RunCurriculum(TypedDict):
    band: list[float]
    floor: float
    dynamic: bool
    families: list[RunFamily]


class RunEvent(TypedDict):
    id: int
    kind: RunEventKindEnum
    change: dict[str, Any]
    reason: str
    summary: str
    created_by: str | None
    created_at: str
    requested_at_step: int
    applied_at_step: int | None
    applied_at: str | None


class RunFamily(TypedDict):
    name: str
    levels: list[int]
    weight: float
    distribution: list[float | None]


class RunHealth(TypedDict):
    step: int | None
    signals: list[Signal]


class RunList(TypedDict):
    """A run without its log lines (GET the run for them)."""

    id: int
    team: str
    experiment: int | None
    experiment_name: str | None
    title: str
    source: RunSourceEnum
    name: str
    params: dict[str, Any]
    tags: dict[str, str]
    notes: str
    base_model: str
    number: int
    state: RunStateEnum
    created_by: str
    created_at: str
    started_at: str | None
    finished_at: str | None
    worker: str
    heartbeat_at: str | None
    attempts: int
    cancel_requested: bool
    pause_requested: bool
    pause_reason: str
    budget: Budget
    worker_seconds: float
    generated_tokens: int
    judge_tokens: int
    cost: float
    step: int
    max_steps: int
    resumed_from_step: int | None
    failure_reason: str
    summary: dict[str, float | None]
    health: RunHealth
    heartbeat_stale_after_s: int


class RunMetrics(TypedDict):
    run: int
    state: str
    seq: int
    keys: list[str]
    points: dict[str, CountedSeries]


class RunUsage(TypedDict):
    run: int
    currency: str
    totals: Totals
    by_family: list[UsageRow]
    by_queue: list[UsageRow]
    budget: RunBudget


class RunUsageRow(TypedDict):
    worker_seconds: float
    generated_tokens: int
    judge_tokens: int
    cost: float
    run: int
    experiment_name: str
    number: int
    state: str


class SamplingConfig(TypedDict):
    max_new_tokens: int
    temperature: float
    top_p: float
    top_k: int
    backend: str
    compile: bool


class SamplingConfigInputRequest(TypedDict):
    max_new_tokens: NotRequired[int]
    temperature: NotRequired[float]
    top_p: NotRequired[float]
    top_k: NotRequired[int]
    backend: NotRequired[str]
    compile: NotRequired[bool]


class SandboxStatus(TypedDict):
    namespaces: dict[str, bool]
    readonly_root: bool
    seccomp: bool
    cgroups: bool
    cgroup_controllers: list[str]
    uid: int | None
    rlimits: bool
    empty_env: bool
    prefork: bool
    warnings: list[str]


class SavedCurriculumRequest(TypedDict):
    saved: int
    verifiers: dict[str, int]


class Series(TypedDict):
    step: list[int]
    value: list[float | None]
    wall_time: list[float]
    tokens: list[int | None]


class SeriesPoint(TypedDict):
    t: str
    step: int
    share: int
    production_verified: int
    candidate_verified: int
    production: float | None
    candidate: float | None
    ci_low: float | None
    ci_high: float | None


class ServePromptRequest(TypedDict):
    """The body of a generate request (checked by ``services.serving.parse``)."""

    prompt: NotRequired[str]
    key: NotRequired[str]
    family: NotRequired[str]
    task: NotRequired[str]
    expected: NotRequired[Any]
    verifier_version: NotRequired[int]
    max_new_tokens: NotRequired[int]
    temperature: NotRequired[float]
    format: NotRequired[Any]


class ServedFormatRequest(TypedDict):
    """A field a form or multipart body leaves out is left out, as in a JSON body."""

    family: NotRequired[str]
    prompt_template: NotRequired[str | None]
    chat_template: NotRequired[str | None]
    add_special_tokens: NotRequired[bool]
    extract: NotRequired[str]


class ServedRequest(TypedDict):
    id: str
    canary: int | None
    step: int | None
    version: VersionLabel | None
    side: ReplicaRoleEnum
    shadow: bool
    key: str
    prompt: str
    completion: str
    status: ServedStatusEnum
    error: str
    latency_ms: float | None
    output_tokens: int | None
    family: str
    task: str
    passed: bool | None
    judged_against: JudgedAgainstEnum | BlankEnum
    reward: float | None
    verdict: Any
    format_warnings: Any
    created_at: str


class SideStats(TypedDict):
    requests: int
    errors: int
    verified: int
    passed: int
    pass_rate: float | None
    latency_p95_ms: float | None
    mean_output_tokens: float | None
    reference_free_judged: NotRequired[int]
    reference_free_passed: NotRequired[int]
    reference_free_pass_rate: NotRequired[float | None]


class Sides(TypedDict):
    production: SideStats
    candidate: SideStats


class Signal(TypedDict):
    name: NameEnum
    label: str
    state: SignalStateEnum
    sentence: str
    since_step: int | None
    value: float | None
    threshold: float | None
    pause_on_breach: bool


class SignalSetting(TypedDict):
    threshold: float
    pause_on_breach: bool
    enabled: bool


class SignalSettingRequest(TypedDict):
    threshold: float
    pause_on_breach: bool
    enabled: bool


class SourceSide(TypedDict):
    judged: int
    passed: int
    pass_rate: float | None


class SplitHistogram(TypedDict):
    train: dict[str, int]
    held_out: dict[str, int]


class Stability(TypedDict):
    tasks: int
    episodes: int
    k: int
    success: float
    mean_turns: float
    mean_budget: float
    tokens_per_episode: float
    turn_errors_per_episode: float
    tool_errors_per_episode: float
    by_turns_used: list[TurnsSuccess]
    by_budget: list[BudgetSuccess]
    within_turns: list[WithinTurns]
    consistency: Consistency


class StepRecord(TypedDict):
    step: int
    share: int
    outcome: str
    reason: str
    decided_by: str | None
    at: str
    started_at: str
    analysis: Analysis


class TaskSample(TypedDict):
    prompt: str
    expected: dict[str, Any]
    difficulty: int
    split: SplitEnum
    content_hash: str
    source_id: str


class TasksPreview(TypedDict):
    rows_read: int
    dedup: DedupReport
    version: PlannedVersion
    samples: list[TaskSample]


class Team(TypedDict):
    """A field a form or multipart body leaves out is left out, as in a JSON body."""

    id: int
    name: str
    slug: NotRequired[str]
    created_at: str
    role: str | None
    member_count: int


class TeamRef(TypedDict):
    id: int
    slug: str
    name: str
    role: str


class TeamRequest(TypedDict):
    """A field a form or multipart body leaves out is left out, as in a JSON body."""

    name: str
    slug: NotRequired[str]


class TeamSummary(TypedDict):
    team: str
    families: int
    pool_versions: int
    verifiers: int
    curricula: int


class TeamUsage(TypedDict):
    team: str
    month: str
    currency: str
    totals: Totals
    by_queue: list[UsageRow]
    by_kind: list[KindUsageRow]
    by_family: list[UsageRow]
    by_run: list[RunUsageRow]
    quota: Quota
    rates: list[Rate]


class Token(TypedDict):
    """A field a form or multipart body leaves out is left out, as in a JSON body."""

    id: int
    name: str
    prefix: str
    team: str | None
    created_at: str
    expires_at: str | None
    last_used_at: str | None
    revoked_at: str | None


class TokenCreateRequest(TypedDict):
    """A field a form or multipart body leaves out is left out, as in a JSON body."""

    name: str
    team: NotRequired[str | None]
    days: NotRequired[int]


class Tool(TypedDict):
    type: str
    function: ToolFunction


class ToolCall(TypedDict):
    id: str
    type: str
    function: ToolCallFunction


class ToolCallFunction(TypedDict):
    name: str
    arguments: str


class ToolFunction(TypedDict):
    name: str
    description: str
    parameters: dict[str, Any]


class Totals(TypedDict):
    worker_seconds: float
    generated_tokens: int
    judge_tokens: int
    cost: float


class TraceStep(TypedDict):
    step: int
    distribution: dict[str, list[float]]
    success_rate: dict[str, float | None]
    rolling_success: dict[str, float | None]
    ability: dict[str, float]


class TrainingSignals(TypedDict):
    run: int
    run_step: int
    step: int | None
    signals: list[Signal]


class TurnVerdict(TypedDict):
    error: str | None
    info: dict[str, Any]


class TurnsSuccess(TypedDict):
    turns: int
    episodes: int
    success: float


class Upload(TypedDict):
    id: int
    run: int
    step: int
    state: UploadStateEnum
    total_bytes: int
    files: list[UploadFile]
    checkpoint: int | None
    created_at: str


class UploadFile(TypedDict):
    path: str
    size: int
    sha256: str
    received: int


class UploadOptionsRequest(TypedDict):
    """A field a form or multipart body leaves out is left out, as in a JSON body."""

    file: str
    format: NotRequired[FormatEnum]
    mapping: NotRequired[Any]
    difficulty_labels: NotRequired[Any]
    prompt_mode: NotRequired[PromptModeEnum]
    mode: NotRequired[ModeEnum]
    near_duplicates: NotRequired[bool]
    base: NotRequired[int]


class UploadPreview(TypedDict):
    rows_read: int
    dedup: DedupReport
    version: PlannedVersion
    changes: Changes
    base: int
    samples: list[TaskSample]


class UploadRequest(TypedDict):
    """A field a form or multipart body leaves out is left out, as in a JSON body."""

    file: str
    format: NotRequired[FormatEnum]
    mapping: NotRequired[Any]
    difficulty_labels: NotRequired[Any]
    prompt_mode: NotRequired[PromptModeEnum]
    mode: NotRequired[ModeEnum]
    near_duplicates: NotRequired[bool]
    base: NotRequired[int]
    note: NotRequired[str]


class UploadStartRequest(TypedDict):
    """A field a form or multipart body leaves out is left out, as in a JSON body."""

    step: int
    files: list[Any]


class UsageRow(TypedDict):
    worker_seconds: float
    generated_tokens: int
    judge_tokens: int
    cost: float
    key: str


class Verdict(TypedDict):
    passed: bool
    reward: float
    parts: dict[str, float]
    error_type: ErrorTypeEnum
    extracted: str | None
    layers: list[LayerVerdict]
    seconds: float
    spec_hash: str


class VerdictSource(TypedDict):
    source: VerdictSourceSourceEnum
    label: str
    counted: bool
    why: str
    production: SourceSide
    candidate: SourceSide


class Verifier(TypedDict):
    """A field a form or multipart body leaves out is left out, as in a JSON body."""

    id: int
    team: NotRequired[str]
    name: str
    slug: NotRequired[str]
    description: NotRequired[str]
    family_kind: NotRequired[str]
    latest_version: VerifierVersion | None
    version_count: int
    example_count: int
    created_at: str
    updated_at: str


class VerifierCatalogue(TypedDict):
    layers: list[LayerKind]
    extractors: list[Extractor]


class VerifierRequest(TypedDict):
    """A field a form or multipart body leaves out is left out, as in a JSON body."""

    team: NotRequired[str]
    name: str
    slug: NotRequired[str]
    description: NotRequired[str]
    family_kind: NotRequired[str]
    spec: NotRequired[VerifierSpec]


class VerifierSpec(TypedDict):
    extract: ExtractEnum
    layers: list[dict[str, Any]]
    reward: NotRequired[dict[str, Any]]


class VerifierVersion(TypedDict):
    id: int
    verifier: int
    number: int
    spec: VerifierSpec
    spec_hash: str
    warnings: list[str]
    note: str
    created_by: str
    created_at: str


class VerifierVersionRef(TypedDict):
    id: int
    verifier: str
    number: int


class VersionCreateRequest(TypedDict):
    """A field a form or multipart body leaves out is left out, as in a JSON body."""

    spec: VerifierSpec
    note: NotRequired[str]


class VersionDefaults(TypedDict):
    near_duplicates: bool
    mode: ModeEnum
    prompt_mode: PromptModeEnum


class VersionDiff(TypedDict):
    against: NotRequired[int]
    added: NotRequired[int]
    removed: NotRequired[int]
    unchanged: NotRequired[int]
    added_examples: NotRequired[list[DiffExample]]
    removed_examples: NotRequired[list[DiffExample]]


class VersionLabel(TypedDict):
    id: int
    number: int
    label: str


class VersionRef(TypedDict):
    id: int
    number: int


class WithinTurns(TypedDict):
    turns: int
    success: float


class Worker(TypedDict):
    name: str
    queues: list[str]
    loadable: list[LoadableModel]
    devices: Devices
    started_at: str
    heartbeat_at: str
    stopped_at: str | None
    running: bool
    status: WorkerStatusEnum


class WorstTask(TypedDict):
    task_hash: str
    family: str
    difficulty: int
    passes: int
    k: int
    success: float
    errors: dict[str, int]
