from __future__ import annotations
import re
from pathlib import Path
import pytest
from tests.browser.conftest import PASSWORD, product
from tests.browser.test_conversation import ask, settled
from tests.chromium import chromium, sign_in
pytestmark = pytest.mark.browser
OUT = Path("/tmp/sweep")
PROMPTS = [
    "что ты умеешь?",
    "какие есть окружения?",
    "найди дашборды про продажи",
    "проверь здоровье дашборда Ops Broken Demo",
    "выполни select region, sum(amount) as total from sales group by region",
    "покажи базы данных",
    "отформатируй sql select a,b from t where x=1",
    "проверь права ролей",
    "покажи резервные копии",
    "статус задач",
    "сделай резервную копию дашборда Sales Overview",
    "кто я?",
    "выполни select * from nonexistent_table",
]
@pytest.fixture
def server(tmp_path, superset_sandbox):
    with product(tmp_path, superset_sandbox) as srv:
        yield srv
def test_sweep(server):
    with chromium(viewport={"width": 1280, "height": 1200}) as (context, expect):
        page = context.new_page()
        page.goto(server.url + "/agent?envId=dev&lang=ru")
        sign_in(page, "ops", PASSWORD)
        settled(page, expect)
        for i, p in enumerate(PROMPTS):
            page.get_by_role("button", name=re.compile("Новый диалог|New conversation")).click()
            ask(page, p)
            try:
                settled(page, expect)
            except AssertionError:
                pass
            page.wait_for_timeout(500)
            page.screenshot(path=str(OUT / f"{i:02d}.png"), full_page=True)
            (OUT / f"{i:02d}.txt").write_text(page.locator("body").inner_text())
