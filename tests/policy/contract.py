"""The contract's tables as the policy tests state them, apart from the code under test."""

from __future__ import annotations

# the contract's seven admin-only tools (docs/contract.md, TOOL_PERMISSIONS)
CONTRACT_ADMIN_ONLY = frozenset(
    {
        "deploy_dashboard",
        "commit_changes",
        "create_branch",
        "run_backup",
        "execute_migration",
        "start_maintenance",
        "end_maintenance",
    }
)
# … plus docs/contract.md's two, and the undo (docs/undo.md): what an analyst may never run
ADMIN_ONLY = CONTRACT_ADMIN_ONLY | {"delete_dashboard", "restore_backup", "undo_change"}
