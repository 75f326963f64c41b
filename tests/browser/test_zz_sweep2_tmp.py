from __future__ import annotations
import re
from pathlib import Path
import pytest
from tests.browser.conftest import PASSWORD, product
from tests.browser.test_conversation import ask, settled
from tests.chromium import chromium, sign_in
pytestmark = pytest.mark.browser
OUT = Path("/tmp/sweep2")
PROMPTS = [
    ("сделай резервную копию дашборда Sales Overview", True),
    ("покажи резервные копии", False),
    ("статус задач", False),
    ("включи режим обслуживания на dev на 30 минут: обновление", True),
    ("задеплой дашборд Sales Overview на prod", True),
    ("выключи режим обслуживания на dev", True),
    ("провалидируй дашборд Sales Overview", False),
    ("задокументируй дашборд Sales Overview", False),
    ("покажи таблицы в базе Sales", False),
    ("создай датасет из таблицы sales в базе Sales", True),
]
@pytest.fixture
def server(tmp_path, superset_sandbox):
    with product(tmp_path, superset_sandbox, SS_TOOLS_DANGEROUS_COUNTDOWN_S="1") as srv:
        yield srv
def test_sweep(server):
    with chromium(viewport={"width": 1280, "height": 1400}) as (context, expect):
        page = context.new_page()
        page.goto(server.url + "/agent?envId=dev&lang=ru")
        sign_in(page, "ops", PASSWORD)
        settled(page, expect)
        for i, (p, confirm) in enumerate(PROMPTS):
            page.get_by_role("button", name=re.compile("Новый диалог")).click()
            ask(page, p)
            if confirm:
                btn = page.get_by_role("button", name=re.compile("^Подтвердить"))
                try:
                    btn.last.wait_for(timeout=60_000)
                    page.screenshot(path=str(OUT / f"{i:02d}a.png"), full_page=True)
                    page.wait_for_timeout(1500)
                    btn.last.click()
                except Exception as exc:
                    (OUT / f"{i:02d}.err").write_text(repr(exc))
            try:
                settled(page, expect)
            except AssertionError:
                pass
            page.wait_for_timeout(800)
            page.screenshot(path=str(OUT / f"{i:02d}.png"), full_page=True)
            (OUT / f"{i:02d}.txt").write_text(page.locator("body").inner_text())
