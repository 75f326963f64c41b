"""Export bundles: reading, stable YAML for git, and remapping onto a target environment."""

from __future__ import annotations

import io
import zipfile

import pytest
import yaml

from app.superset.bundle import (
    BundleError,
    git_files,
    read_bundle,
    stale_paths,
    write_bundle,
)
from app.superset.remap import TargetInventory, diff_against, remap_bundle
from tests.tools.export_zip import (
    CHART_UUID,
    DASHBOARD_UUID,
    DATASET_UUID,
    DB_UUID,
    export_docs,
    make_export_zip,
)

TARGET_DB = "11111111-2222-4333-8444-555555555555"


def test_read_bundle_strips_the_top_folder_and_parses_every_yaml():
    bundle = read_bundle(make_export_zip())
    assert bundle.root == "dashboard_export_20261130T040000"
    assert set(bundle.files) == set(export_docs())
    summary = bundle.summary()
    assert summary["dashboards"][0]["slug"] == "sales-overview"
    assert summary["databases"][0] == {
        "name": "examples",
        "uuid": DB_UUID,
        "path": "databases/examples.yaml",
    }


def _zip(entries: dict[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for name, data in entries.items():
            zf.writestr(name, data)
    return buf.getvalue()


@pytest.mark.parametrize(
    ("data", "fragment"),
    [
        # an HTML error page saved as if it were a zip
        (b"<html>500</html>", "not a zip"),
        # two top folders: not one export
        (_zip({"a/metadata.yaml": b"x: 1", "b/charts/c.yaml": b"x: 1"}), "one top folder"),
        # a bundle without metadata.yaml cannot be imported
        (_zip({"e/charts/c.yaml": b"uuid: x"}), "no metadata.yaml"),
        # broken YAML names the file
        (_zip({"e/metadata.yaml": b"a: [1", "e/charts/c.yaml": b"x: 1"}), "metadata.yaml"),
    ],
)
def test_read_bundle_refuses_what_is_not_an_export(data, fragment):
    with pytest.raises(BundleError, match=fragment):
        read_bundle(data)


def test_write_bundle_round_trips_and_is_byte_stable():
    bundle = read_bundle(make_export_zip())
    packed = write_bundle(bundle)
    again = read_bundle(packed)
    assert again.files == bundle.files and again.root == bundle.root
    assert write_bundle(again) == packed


def test_git_files_are_identical_for_two_exports_differing_only_in_timestamp_and_key_order():
    first = git_files(read_bundle(make_export_zip()), "dev")
    docs = export_docs(timestamp="2027-01-01T00:00:00")
    reordered = {rel: dict(reversed(list(doc.items()))) for rel, doc in reversed(docs.items())}
    second = git_files(read_bundle(make_export_zip(reordered)), "dev")
    assert first == second
    assert list(first) == sorted(first)
    assert "timestamp" not in first["dev/metadata.yaml"]
    chart = first["dev/charts/Revenue_7.yaml"]
    top_keys = [line.split(":")[0] for line in chart.splitlines() if not line.startswith(" ")]
    assert top_keys == sorted(top_keys)


def test_stale_paths_finds_the_old_file_of_a_renamed_object():
    new = git_files(read_bundle(make_export_zip()), "dev")
    existing = {
        "dev/charts/Old_Name_7.yaml": yaml.safe_dump({"uuid": CHART_UUID}),
        "dev/charts/Other_9.yaml": yaml.safe_dump({"uuid": "another"}),
        "dev/charts/Revenue_7.yaml": new["dev/charts/Revenue_7.yaml"],
        "dev/charts/broken.yaml": "a: [1",
    }
    assert stale_paths(existing, new) == ["dev/charts/Old_Name_7.yaml"]


def _target(**kw) -> TargetInventory:
    return TargetInventory(**kw)


def test_remap_points_datasets_and_database_at_the_same_named_target_database():
    bundle = read_bundle(make_export_zip())
    target = _target(databases=[{"database_name": "examples", "uuid": TARGET_DB, "id": 1}])
    remap = remap_bundle(bundle, target)
    assert remap.problems == []
    assert remap.databases == [
        {"source_name": "examples", "target_name": "examples", "action": "map"}
    ]
    out = remap.bundle
    assert out.files["databases/examples.yaml"]["uuid"] == TARGET_DB
    assert out.files["datasets/examples/sales_3.yaml"]["database_uuid"] == TARGET_DB
    # the input bundle is untouched
    assert bundle.files["databases/examples.yaml"]["uuid"] == DB_UUID


def test_remap_follows_an_explicit_mapping_and_renames_the_database():
    bundle = read_bundle(make_export_zip())
    target = _target(databases=[{"database_name": "warehouse", "uuid": TARGET_DB}])
    remap = remap_bundle(bundle, target, {"examples": "warehouse"}, require_database_match=True)
    assert remap.problems == []
    db = remap.bundle.files["databases/examples.yaml"]
    assert (db["database_name"], db["uuid"]) == ("warehouse", TARGET_DB)


@pytest.mark.parametrize(
    ("target_dbs", "mapping", "require", "problem"),
    [
        # no same-named database and matches are required (migration): refused up front
        ([{"database_name": "other", "uuid": TARGET_DB}], {}, True, "no match on the target"),
        # the mapping names a database the target does not have
        ([{"database_name": "other", "uuid": TARGET_DB}], {"examples": "nope"}, False, "'nope'"),
        # no match but not required (single deploy): the import creates it, no problem
        ([], {}, False, None),
    ],
)
def test_remap_reports_database_mapping_problems(target_dbs, mapping, require, problem):
    remap = remap_bundle(
        read_bundle(make_export_zip()),
        _target(databases=target_dbs),
        mapping,
        require_database_match=require,
    )
    if problem is None:
        assert remap.problems == []
        assert remap.databases[0]["action"] == "create"
    else:
        assert len(remap.problems) == 1 and problem in remap.problems[0]


def test_remap_adopts_the_targets_uuids_for_the_same_table_and_the_same_slug():
    target_ds, target_dash = "22222222-0000-4000-8000-000000000000", "33333333-0000-4000-8000-0000"
    target = _target(
        databases=[{"database_name": "examples", "uuid": TARGET_DB}],
        datasets=[
            {"table_name": "sales", "schema": "main", "uuid": target_ds, "database_uuid": TARGET_DB}
        ],
        dashboards=[{"slug": "sales-overview", "uuid": target_dash, "id": 4}],
    )
    remap = remap_bundle(read_bundle(make_export_zip()), target)
    files = remap.bundle.files
    assert files["datasets/examples/sales_3.yaml"]["uuid"] == target_ds
    assert files["charts/Revenue_7.yaml"]["dataset_uuid"] == target_ds
    dash = files["dashboards/Sales_Overview_1.yaml"]
    assert dash["uuid"] == target_dash
    assert (
        dash["metadata"]["native_filter_configuration"][0]["targets"][0]["datasetUuid"] == target_ds
    )
    assert remap.uuid_map == {
        DB_UUID: TARGET_DB,
        DATASET_UUID: target_ds,
        DASHBOARD_UUID: target_dash,
    }


def test_diff_against_marks_what_the_target_has_as_overwrite_and_the_rest_as_create():
    bundle = read_bundle(make_export_zip())
    target = _target(
        databases=[{"database_name": "examples", "uuid": DB_UUID}],
        charts=[{"slice_name": "Revenue", "uuid": CHART_UUID}],
    )
    diff = diff_against(bundle, target)
    assert [r["action"] for r in diff["databases"]] == ["overwrite"]
    assert [r["action"] for r in diff["charts"]] == ["overwrite"]
    assert [r["action"] for r in diff["datasets"]] == ["create"]
    assert diff["dashboards"] == [
        {
            "name": "Sales Overview",
            "uuid": DASHBOARD_UUID,
            "action": "create",
            "slug": "sales-overview",
        }
    ]
