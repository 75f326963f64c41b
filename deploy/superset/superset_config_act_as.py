# Lines to add to a Superset 6.1 site's superset_config.py so that ss-tools may act as
# its people (environments.toml: identity = "assertion"; docs/identity.md). Copy
# act_as_security.py next to superset_config.py first.
#
# The public key: `python main.py superset public-key > ss-tools-act-as.pem` on the
# ss-tools side (or point SS_TOOLS_ACT_AS_JWKS_URL at https://<ss-tools>/api/superset/jwks.json).
import os as _os
import sys as _sys

_sys.path.insert(0, _os.path.dirname(_os.path.abspath(__file__)))

from act_as_security import ActAsSecurityManager

CUSTOM_SECURITY_MANAGER = ActAsSecurityManager
with open(_os.path.join(_os.path.dirname(_os.path.abspath(__file__)), "ss-tools-act-as.pem")) as _f:
    SS_TOOLS_ACT_AS_PUBLIC_KEY = _f.read()
# SS_TOOLS_ACT_AS_JWKS_URL = "https://agent.example.com/api/superset/jwks.json"  # instead
SS_TOOLS_ACT_AS_ISSUER = "ss-tools"  # ss-tools' SS_TOOLS_SUPERSET_ASSERTION_ISSUER
# the environment's assertion_audience in environments.toml (default: its url)
SS_TOOLS_ACT_AS_AUDIENCE = "https://superset.example.com"
SS_TOOLS_ACT_AS_REFUSED_ROLES = ["Admin"]  # never act as these, whoever asks
SS_TOOLS_ACT_AS_MAX_TTL = 300  # seconds an assertion may live at most
# SS_TOOLS_ACT_AS_HEADER = "X-Act-As"  # ss-tools' SS_TOOLS_SUPERSET_ASSERTION_HEADER
