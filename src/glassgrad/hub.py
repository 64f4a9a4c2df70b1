"""torch.hub: models from a directory with a hubconf.py, checkpoints from a URL, the same cache directory as PyTorch.

A repository given as `owner/name[:ref]` (source="github") is read from the hub cache, where PyTorch keeps the
repositories it downloaded (`<hub_dir>/<owner>_<name>_<ref>`); glassgrad does not download repositories and says so.
Checkpoints are fetched with urllib (http, https, file URLs); one already in `<hub_dir>/checkpoints` is loaded without
touching the network, and a failed download raises an error that names the file to put there instead.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import re
import shutil
import sys
import uuid
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import ModuleType
from typing import Any
from urllib.error import URLError
from urllib.parse import urlparse
from urllib.request import Request, urlopen

try:
    from tqdm import tqdm
except ImportError:  # PyTorch makes do without tqdm too: a progress bar that shows nothing

    class tqdm:  # type: ignore[no-redef]
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            pass

        def update(self, n: int) -> None:
            pass

        def __enter__(self) -> tqdm:
            return self

        def __exit__(self, *exc: object) -> None:
            pass


__all__ = ["download_url_to_file", "get_dir", "help", "list", "load", "load_state_dict_from_url", "set_dir"]

HASH_REGEX = re.compile(r"-([a-f0-9]*)\.")  # resnet18-5c106cde.pth: the digits are the sha256's prefix
MODULE_HUBCONF = "hubconf.py"
_READ_CHUNK = 128 * 1024
_hub_dir: str | None = None


def get_dir() -> str:
    """The hub cache: set_dir's directory, else $TORCH_HOME/hub, $TORCH_HOME defaulting to $XDG_CACHE_HOME/torch
    (~/.cache/torch): the directory PyTorch uses, so checkpoints it downloaded are found here."""
    if os.getenv("TORCH_HUB"):
        warnings.warn("TORCH_HUB is deprecated, please use env TORCH_HOME instead", stacklevel=2)
    if _hub_dir is not None:
        return _hub_dir
    cache = os.getenv("XDG_CACHE_HOME", "~/.cache")
    return os.path.join(os.path.expanduser(os.getenv("TORCH_HOME", os.path.join(cache, "torch"))), "hub")


def set_dir(d: str | os.PathLike[str]) -> None:
    global _hub_dir
    _hub_dir = os.path.expanduser(d)


def _cached_repo(github: str, force_reload: bool) -> str:
    """The directory of a GitHub repository PyTorch's hub downloaded earlier."""
    repo, _, ref = github.partition(":")
    owner, name = repo.split("/")
    refs = [ref] if ref else ["main", "master"]  # PyTorch's guess at the default branch, offline
    for candidate in refs:
        repo_dir = os.path.join(get_dir(), "_".join([owner, name, candidate.replace("/", "_")]))
        if os.path.isdir(repo_dir) and not force_reload:
            return repo_dir
    raise RuntimeError(
        f"glassgrad's torch.hub does not download repositories, and {github} is not in the hub cache ({get_dir()}): "
        f"clone it into {os.path.join(get_dir(), '_'.join([owner, name, refs[0]]))}, or load a local clone with "
        "source='local'"
    )


@contextmanager
def _hubconf(repo_dir: str) -> Iterator[ModuleType]:
    """The repository's hubconf.py as a module, with the repository importable while it is used."""
    sys.path.insert(0, repo_dir)
    try:
        spec = importlib.util.spec_from_file_location(MODULE_HUBCONF, os.path.join(repo_dir, MODULE_HUBCONF))
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        yield module
    finally:
        sys.path.remove(repo_dir)


def _entry(hubconf: ModuleType, model: str) -> Callable[..., Any]:
    if not isinstance(model, str):
        raise ValueError("Invalid input: model should be a string of function name")
    missing = [dep for dep in getattr(hubconf, "dependencies", None) or () if importlib.util.find_spec(dep) is None]
    if missing:
        raise RuntimeError(f"Missing dependencies: {', '.join(missing)}")
    func = getattr(hubconf, model, None)
    if func is None or not callable(func):
        raise RuntimeError(f"Cannot find callable {model} in hubconf")
    return func


def list(
    github: str, force_reload: bool = False, skip_validation: bool = False, trust_repo: Any = "check",
    verbose: bool = True,
) -> list[str]:
    """The entrypoints of a cached GitHub repository's hubconf.py: its public callables."""
    with _hubconf(_cached_repo(github, force_reload)) as hubconf:
        return [name for name in dir(hubconf) if callable(getattr(hubconf, name)) and not name.startswith("_")]


def help(
    github: str, model: str, force_reload: bool = False, skip_validation: bool = False, trust_repo: Any = "check"
) -> str | None:
    """The docstring of one entrypoint of a cached GitHub repository."""
    with _hubconf(_cached_repo(github, force_reload)) as hubconf:
        return _entry(hubconf, model).__doc__


def load(
    repo_or_dir: str, model: str, *args: Any, source: str = "github", trust_repo: Any = "check",
    force_reload: bool = False, verbose: bool = True, skip_validation: bool = False, **kwargs: Any,
) -> Any:
    """Call entrypoint `model` of a hubconf.py: in the directory `repo_or_dir` (source="local") or in a GitHub
    repository already in the hub cache."""
    source = source.lower()
    if source not in ("github", "local"):
        raise ValueError(f'Unknown source: "{source}". Allowed values: "github" | "local".')
    repo_dir = _cached_repo(repo_or_dir, force_reload) if source == "github" else repo_or_dir
    with _hubconf(repo_dir) as hubconf:
        return _entry(hubconf, model)(*args, **kwargs)


def download_url_to_file(url: str, dst: str, hash_prefix: str | None = None, progress: bool = True) -> None:
    """Download `url` to `dst` through a temporary file, so that a broken download never replaces a good file."""
    dst = os.path.expanduser(dst)
    partial = f"{dst}.{uuid.uuid4().hex}.partial"
    sha256 = hashlib.sha256()
    try:
        with urlopen(Request(url, headers={"User-Agent": "torch.hub"})) as response, open(partial, "wb") as out:
            size = response.info().get("Content-Length")
            with tqdm(total=int(size) if size else None, disable=not progress, unit="B", unit_scale=True) as bar:
                while chunk := response.read(_READ_CHUNK):
                    out.write(chunk)
                    sha256.update(chunk)
                    bar.update(len(chunk))
        digest = sha256.hexdigest()
        if hash_prefix is not None and digest[: len(hash_prefix)] != hash_prefix:
            raise RuntimeError(f'invalid hash value (expected "{hash_prefix}", got "{digest}")')
        shutil.move(partial, dst)
    except URLError as error:
        raise URLError(
            f"{error.reason}: downloading {url} failed (no network?); put the file at {dst} and it is used from there"
        ) from error
    finally:
        if os.path.exists(partial):
            os.remove(partial)


def load_state_dict_from_url(
    url: str, model_dir: str | None = None, map_location: Any = None, progress: bool = True, check_hash: bool = False,
    file_name: str | None = None, weights_only: bool = False,
) -> dict[str, Any]:
    """torch.load of the checkpoint at `url`, downloaded into `model_dir` (default <hub_dir>/checkpoints) unless a
    file of that name is already there."""
    from .serialization import load as torch_load  # glassgrad's torch.load; kept out of `import glassgrad.hub`

    if model_dir is None:
        model_dir = os.path.join(get_dir(), "checkpoints")
    os.makedirs(model_dir, exist_ok=True)
    filename = file_name if file_name is not None else os.path.basename(urlparse(url).path)
    cached_file = os.path.join(model_dir, filename)
    if not os.path.exists(cached_file):
        sys.stdout.write(f'Downloading: "{url}" to {cached_file}\n')
        match = HASH_REGEX.search(filename) if check_hash else None
        download_url_to_file(url, cached_file, match.group(1) if match else None, progress=progress)
    return torch_load(cached_file, map_location=map_location, weights_only=weights_only)
