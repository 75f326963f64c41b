"""One settings object for the whole product (prefix ``SS_TOOLS_``).

Nothing else in the project reads ``os.environ``. Every knob has a default that
works offline. The composition root reads them once (``Settings()`` in ``main.py`` /
``app.web.create_app``) and hands them to the parts (``app.parts.build_parts``); tests
build their own ``Settings(...)``.

A knob's description is the docstring under it (pydantic reads them as the fields'
descriptions: ``use_attribute_docstrings``); its bounds are its ``Field``'s.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field, SecretStr, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from app.caps import MODEL_INPUT_MAX_CHARS, BundleCaps, ResultCaps
from app.errors import ConfigError

DEFAULT_JWT_SECRET = "ss-tools-dev-secret-change-me-0123456789abcdef"


class Settings(BaseSettings):
    model_config = SettingsConfigDict(
        env_prefix="SS_TOOLS_", extra="ignore", use_attribute_docstrings=True
    )

    # --- server -----------------------------------------------------------------
    host: str = "127.0.0.1"
    port: int = 8080
    data_dir: Path = Path("./data")
    database_url: str | None = None
    """SQLAlchemy URL; default sqlite:///<data_dir>/ss_tools.db.
    postgresql+psycopg://user:pw@host:port/db moves all state to PostgreSQL."""
    dev: bool = False
    """Development mode: allows the default secrets."""
    storage_secret: SecretStr | None = None
    public_base_url: str | None = None
    """Where people open the product (e.g. https://agent.example.com); links handed out by the
    MCP door use it. Default: the base URL the request came in on."""
    max_body_bytes: int = 1024 * 1024
    """Request bodies larger than this are refused with 413 before parsing"""
    frame_ancestors: str = "'self'"
    """CSP frame-ancestors: who may embed the pages, e.g. "'self' https://superset.example.com"
    to embed /agent in Superset"""
    log_level: Literal["critical", "error", "warning", "info", "debug"] = "warning"
    """The server's log level (uvicorn's); info adds its access log, a line per request. Every
    log line shows control characters escaped (app.logtext)."""

    # --- auth -------------------------------------------------------------------
    jwt_secret: SecretStr = SecretStr(DEFAULT_JWT_SECRET)
    jwt_secret_file: Path | None = None
    """File holding the JWT secret; used when SS_TOOLS_JWT_SECRET is unset (python main.py
    start in dev mode generates <data_dir>/.jwt_secret)."""
    jwt_issuer: str = "ss-tools"
    jwt_audience: str = "ss-tools-agent"
    jwt_ttl_s: int = 8 * 3600
    revocation_cache_s: float = 5.0
    """How long a user's enabled/role check is cached; disabling, deleting or re-roling a user
    ends their tokens and page sessions within this many seconds."""
    scrypt_n: int = Field(default=2**14, ge=2, le=2**20)
    """scrypt cost (N, a power of two) of the password hashes this app writes; the test suite
    lowers it, production keeps the default"""
    login_max_failures_per_user: int = 5
    """Failed sign-ins of one username before it is blocked"""
    login_max_failures_per_client: int = 20
    """Failed sign-ins from one client address before it is blocked"""
    login_window_s: float = 900.0
    """Failures are forgotten after this long without one"""
    login_backoff_s: float = 30.0
    """First block; doubles with each further failure"""
    login_backoff_max_s: float = 900.0
    jwks_url: str | None = None
    jwks_file: Path | None = None
    jwt_role_claim: str = "role"
    external_issuer: str | None = None
    external_audience: str | None = None
    external_user_map: dict[str, str] = Field(default_factory=dict)
    """Optional: an IdP identity (its namespaced id, '<issuer>#<subject>') -> the ss-tools user
    name it acts as, e.g. '{"https://idp.example/realms/ops#ada": "ada"}'. Unmapped identities
    act as their namespaced id; an IdP subject never matches a local account by its bare name."""

    # --- per-user limits (every door; held in the database, so across replicas) -------
    user_turns_per_minute: int = Field(default=20, ge=0)
    """Turns (messages to the agent) one user may start per minute, as a bucket of this many
    that refills evenly over the minute; 0: no limit"""
    user_calls_per_minute: int = Field(default=60, ge=0)
    """Direct tool calls (MCP tools/call, /api/agent/call, a page's way on) one user may start
    per minute, the same way; 0: no limit"""
    user_max_running: int = Field(default=3, ge=0)
    """Turns, direct calls and confirmed answers of one user running at once, on all replicas
    together; 0: no limit"""
    run_slot_ttl_s: float = Field(default=60.0, ge=3.0)
    """A running turn's hold on one of its user's slots lasts this long and is renewed every
    third of it; a replica that dies frees its slots within this time"""

    # --- acting in Superset as the person (docs/identity.md) ---------------------------
    secret_key: SecretStr | None = None
    """Keys that encrypt linked Superset accounts at rest: one, or several separated by commas,
    newest first (rotate by putting a new key in front; links sealed with an older key stay
    readable while it is listed). Never in the database."""
    secret_key_file: Path | None = None
    """File holding those keys, one a line, newest first; used when SS_TOOLS_SECRET_KEY is
    unset (dev mode generates <data_dir>/.secret_key)."""
    superset_assertion_key_file: Path | None = None
    """RSA private key (PEM) that signs the assertions of identity = 'assertion' environments
    (dev mode generates <data_dir>/.assertion_key.pem)."""
    superset_assertion_issuer: str = Field(default="ss-tools", min_length=1)
    superset_assertion_ttl_s: int = Field(default=120, ge=10, le=300)
    """An assertion's lifetime (at most 5 min)"""
    superset_assertion_header: str = Field(default="X-Act-As", pattern=r"^[A-Za-z0-9-]{1,64}$")
    superset_clients_max: int = Field(default=256, ge=1)
    """Superset sessions kept per process (one per person and environment, least recently used
    dropped first)"""

    # --- policy and environments ---------------------------------------------------
    policy_file: Path | None = None
    """policy.toml overriding roles, timeouts, confirm rules"""
    environments_file: Path = Path("./environments.toml")

    # --- agent ------------------------------------------------------------------
    llm_provider: Literal["offline", "openai"] = "offline"
    llm_base_url: str | None = None
    llm_model: str = "gpt-4o-mini"
    llm_api_key: SecretStr | None = None
    llm_timeout_s: float = 60.0
    # an answer is one or two sentences; a small model left alone may write pages
    llm_max_tokens: int = Field(default=512, ge=16, le=32768)
    llm_tools_top_k: int = Field(default=4, ge=0, le=64)
    """A model call is offered the tools the request most likely needs: at most this many,
    plus the tool that says what the agent can do (the other allowed tools are named, and
    offered again when the model asks for one); 0 offers every allowed tool"""
    llm_parallel_tool_calls: bool = False
    """The model handles several calls in one reply: the server is not asked for one call at
    a time, and every call of a reply runs (each through the guard). Off: OpenAI-compatible
    servers are sent parallel_tool_calls=false, and of a reply with several calls only the
    first the guard passes runs"""
    planner_budget_s: float = Field(default=5.0, gt=0)
    """The offline planner's time for one reply, in a child process; past it the child is
    killed and the turn ends (a 20,000-character message takes ~0.2 s)"""
    planner_workers: int = Field(default=2, ge=1)
    """Child processes that plan the offline planner's replies"""

    tool_timeout_s: float = 30.0
    retry_delay_s: float = 1.0
    confirmation_ttl_s: int = 600
    dangerous_countdown_s: int = 10
    countdown_tick_s: float = 1.0
    undo_retention_days: int = Field(default=7, ge=1, le=365)
    """How long an undoable change keeps its undo offer (docs/undo.md)"""
    # --- a second person's approval (four-eyes; policy.toml's [approval] turns it on) ---
    approval_ttl_s: int = Field(default=24 * 3600, gt=0)
    """How long a call waits for a second person's approval before it expires"""
    approval_webhook_url: str | None = None
    """Optional: each new approval request is posted here as JSON ({"text": ..., "approval":
    {...}}: a Slack or Teams incoming webhook takes it)"""
    approval_webhook_timeout_s: float = Field(default=5.0, gt=0, le=60)
    approval_poll_s: float = Field(default=2.0, gt=0)
    """How often an open /agent page whose call waits for an approver checks it (the result
    lands on the page, whichever replica ran it)"""
    summarise_limit: int = 4000
    # A turn's input (checked once, by prepare_turn). History beyond these caps is cut to
    # its newest items; a longer message is refused (422).
    message_max_chars: int = Field(default=20_000, ge=1)
    history_max_items: int = Field(default=50, ge=0)
    history_max_bytes: int = Field(default=64 * 1024, ge=0)

    # --- size caps (app/caps.py gives the reasons for the defaults) ---------------------
    model_input_max_chars: int = Field(default=MODEL_INPUT_MAX_CHARS, ge=2000)
    """Characters one model call sends at most (system text, tools, conversation); older turns'
    tool results are shortened, then old turns dropped"""
    result_max_rows: int = Field(default=ResultCaps.max_rows, ge=1)
    """Rows a tool result's view keeps"""
    result_max_cell_chars: int = Field(default=ResultCaps.max_cell_chars, ge=16)
    """Characters a value in a result keeps"""
    result_max_bytes: int = Field(default=ResultCaps.max_bytes, ge=4096)
    """Bytes of JSON a tool result's view, its data and its checkpoint keep"""
    bundle_max_bytes: int = Field(default=BundleCaps.max_bytes, ge=1024)
    """Bytes an export zip may unpack to"""
    bundle_max_ratio: int = Field(default=BundleCaps.max_ratio, ge=2)
    """How many times its packed size an export zip may unpack to (above 1 MiB)"""
    bundle_max_files: int = Field(default=BundleCaps.max_members, ge=1)
    """Files one export zip may hold"""

    # --- replicas (several processes on one PostgreSQL) ---------------------------------
    task_sweep_s: float = Field(default=30.0, gt=0)
    """With PostgreSQL: how often each replica marks the tasks of a replica that stopped
    answering (no heartbeat for task_stale_s) interrupted"""
    task_heartbeat_s: float = Field(default=15.0, gt=0)
    """How often a running long task's row is touched"""
    task_stale_s: float = Field(default=60.0, gt=0)
    """With PostgreSQL: a task whose row was not touched for this long belongs to a replica
    that stopped answering (at least twice task_heartbeat_s)"""

    # --- superset sandbox ------------------------------------------------------------
    sandbox: bool = True
    sandbox_dir: Path = Path.home() / ".cache" / "ss-tools" / "superset-6.1.0"

    @field_validator("database_url", "approval_webhook_url")
    @classmethod
    def _blank_is_none(cls, v: str | None) -> str | None:
        return v or None

    @field_validator("scrypt_n")
    @classmethod
    def _power_of_two(cls, v: int) -> int:
        if v & (v - 1):
            raise ValueError(f"scrypt_n {v}: not a power of two")
        return v

    @model_validator(mode="after")
    def _task_beats(self) -> Settings:
        if self.task_stale_s < 2 * self.task_heartbeat_s:
            raise ValueError("task_stale_s must be at least twice task_heartbeat_s")
        return self

    @model_validator(mode="after")
    def _secret_from_file(self) -> Settings:
        if self.jwt_secret_file is not None and self.uses_default_secret:
            try:
                secret = self.jwt_secret_file.read_text(encoding="utf-8").strip()
            except OSError as exc:
                raise ValueError(f"jwt_secret_file {self.jwt_secret_file}: {exc.strerror}") from exc
            if len(secret) < 32:
                raise ValueError(f"jwt_secret_file {self.jwt_secret_file}: under 32 characters")
            self.jwt_secret = SecretStr(secret)
        return self

    @property
    def db_url(self) -> str:
        if self.database_url:
            return self.database_url
        return f"sqlite:///{(self.data_dir / 'ss_tools.db').resolve()}"

    @property
    def is_postgres(self) -> bool:
        return self.db_url.startswith("postgresql")

    @property
    def checkpoint_path(self) -> Path:
        return (self.data_dir / "checkpoints.db").resolve()

    def result_caps(self) -> ResultCaps:
        return ResultCaps(self.result_max_rows, self.result_max_cell_chars, self.result_max_bytes)

    def bundle_caps(self) -> BundleCaps:
        return BundleCaps(self.bundle_max_bytes, self.bundle_max_ratio, self.bundle_max_files)

    @property
    def uses_default_secret(self) -> bool:
        return self.jwt_secret.get_secret_value() == DEFAULT_JWT_SECRET

    def check_secrets(self) -> None:
        """Refuse the placeholder JWT secret outside dev mode."""
        if self.uses_default_secret and not self.dev:
            raise ConfigError(
                "SS_TOOLS_JWT_SECRET is the built-in placeholder; set a real secret "
                "(32+ random characters) or SS_TOOLS_DEV=1 for local development"
            )

    def nicegui_storage_secret(self) -> str:
        if self.storage_secret is not None:
            return self.storage_secret.get_secret_value()
        return "storage:" + self.jwt_secret.get_secret_value()
