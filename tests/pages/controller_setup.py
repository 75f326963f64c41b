"""An AgentPageController on a fake core and a real screen model (no UI), for the
controller's tests: ``setup()`` gives (core, model, controller, clock, sleeps)."""

from __future__ import annotations

from app.auth import Principal
from app.pages.agent_controller import AgentPageController
from app.screen.chat_model import AgentChatModel
from tests.ui import fakes

ANN = Principal(user_id="ann", role="admin")


class Sleeps:
    def __init__(self) -> None:
        self.delays: list[float] = []

    async def __call__(self, delay: float) -> None:
        self.delays.append(delay)


def setup(core: fakes.FakeCore | None = None, *, lang: str = "en", params=None, warnings=None):
    core = core or fakes.FakeCore(environments=fakes.ENVS)
    clock, sleeps = fakes.FakeClock(), Sleeps()
    model = AgentChatModel(role="admin", lang=lang, clock=clock)
    controller = AgentPageController(
        model,
        core.door(),
        principal=ANN,
        token="jwt-ann",
        reconnect_delays_s=(1.0, 2.0, 4.0),
        sleep=sleeps,
        on_warning=None if warnings is None else warnings.append,
    )
    controller.open(params or {})
    return core, model, controller, clock, sleeps
