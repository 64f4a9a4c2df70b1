"""torch.hub and torch.utils.model_zoo against PyTorch: hubconf.py entrypoints from a directory, the cache directory's
rules, checkpoints from file URLs and from the cache, and the errors."""

from __future__ import annotations

import hashlib
import os
import textwrap

import pytest
import torch
import torch.hub
import torch.utils.model_zoo

import glassgrad
import glassgrad.hub
import glassgrad.utils.model_zoo

pytestmark = pytest.mark.torch_oracle

HUBCONF = '''
dependencies = ["numpy"]

def scaled(k, offset=0):
    """Multiplies by k, then adds offset."""
    return lambda x: x * k + offset

def _helper():
    return None

LIMIT = 3
'''


@pytest.fixture
def hub_dirs(tmp_path, monkeypatch):
    """A repository with a hubconf.py, and a fresh hub dir for both libraries."""
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "hubconf.py").write_text(textwrap.dedent(HUBCONF))
    hub = tmp_path / "hub"
    for module in (torch.hub, glassgrad.hub):
        monkeypatch.setattr(module, "_hub_dir", None)
        module.set_dir(str(hub))
    return repo, hub


def _both(call):
    """call(module) on torch.hub and glassgrad.hub: the result or the exception (type, message) of each."""
    outcomes = []
    for module in (torch.hub, glassgrad.hub):
        try:
            outcomes.append(call(module))
        except Exception as error:
            outcomes.append((type(error), str(error)))
    return outcomes


def test_load_local_calls_the_entrypoint(hub_dirs):
    repo, _ = hub_dirs
    ours, theirs = (m.load(str(repo), "scaled", 3, source="local", offset=1)(2) for m in (glassgrad.hub, torch.hub))
    assert ours == theirs == 7


@pytest.mark.parametrize(("model", "source"), [("missing", "local"), ("LIMIT", "local"), (5, "local"),
                                               ("scaled", "hdfs")])
def test_load_errors(hub_dirs, model, source):
    repo, _ = hub_dirs
    theirs, ours = _both(lambda m: m.load(str(repo), model, source=source))
    assert ours == theirs


def test_missing_dependencies(hub_dirs):
    repo, _ = hub_dirs
    (repo / "hubconf.py").write_text('dependencies = ["numpy", "no_such_package_xyz"]\ndef f():\n    return 1\n')
    theirs, ours = _both(lambda m: m.load(str(repo), "f", source="local"))
    assert ours == theirs == (RuntimeError, "Missing dependencies: no_such_package_xyz")


def test_github_repositories_come_from_the_cache(hub_dirs):
    repo, hub = hub_dirs
    cached = hub / "someone_models_main"
    cached.mkdir(parents=True)
    (cached / "hubconf.py").write_text(repo.joinpath("hubconf.py").read_text())
    theirs, ours = _both(lambda m: m.list("someone/models:main", trust_repo=True, skip_validation=True))
    assert ours == theirs == ["scaled"]
    theirs, ours = _both(lambda m: m.help("someone/models:main", "scaled", trust_repo=True, skip_validation=True))
    assert ours == theirs == "Multiplies by k, then adds offset."
    assert glassgrad.hub.load("someone/models", "scaled", 2)(5) == 10  # no ref: main or master, as offline PyTorch
    with pytest.raises(RuntimeError, match=r"does not download repositories.*someone_other_main"):
        glassgrad.hub.load("someone/other:main", "scaled", 2)


def test_get_dir_follows_torch_home(monkeypatch, tmp_path):
    for module in (torch.hub, glassgrad.hub):
        monkeypatch.setattr(module, "_hub_dir", None)
    monkeypatch.setenv("TORCH_HOME", str(tmp_path / "th"))
    assert glassgrad.hub.get_dir() == torch.hub.get_dir() == str(tmp_path / "th" / "hub")
    monkeypatch.delenv("TORCH_HOME")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert glassgrad.hub.get_dir() == torch.hub.get_dir() == str(tmp_path / "xdg" / "torch" / "hub")
    glassgrad.hub.set_dir("~/somewhere")
    assert glassgrad.hub.get_dir() == os.path.expanduser("~/somewhere")


@pytest.fixture
def checkpoint(tmp_path):
    """A state dict saved by PyTorch, named with its hash prefix, and its file URL."""
    source = tmp_path / "source"
    source.mkdir()
    path = source / "weights.pth"
    torch.save({"w": torch.arange(4.0), "b": torch.tensor(1.5)}, path)
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    named = path.rename(source / f"net-{digest[:8]}.pth")
    return named, named.as_uri()


def test_load_state_dict_from_url_downloads_then_uses_the_cache(hub_dirs, checkpoint, capsys):
    path, url = checkpoint
    state = glassgrad.hub.load_state_dict_from_url(url, check_hash=True, progress=False)
    assert isinstance(state["w"], glassgrad.Tensor)
    assert state["w"].tolist() == [0.0, 1.0, 2.0, 3.0] and state["b"].item() == 1.5
    cached = hub_dirs[1] / "checkpoints" / path.name
    assert cached.read_bytes() == path.read_bytes()
    assert f'Downloading: "{url}" to {cached}' in capsys.readouterr().out
    path.unlink()  # the cached copy is used from now on, never the URL
    again = glassgrad.utils.model_zoo.load_url(url, progress=False)
    assert again["w"].tolist() == [0.0, 1.0, 2.0, 3.0]
    assert torch.hub.load_state_dict_from_url(url, progress=False)["b"].item() == 1.5  # PyTorch finds it too


def test_a_wrong_hash_keeps_nothing(hub_dirs, checkpoint, tmp_path):
    _, url = checkpoint
    theirs, ours = _both(lambda m: m.download_url_to_file(url, str(tmp_path / f"{m.__name__}.pth"), "ffff", False))
    assert ours[0] is theirs[0] is RuntimeError
    assert ours[1].split("got")[0] == theirs[1].split("got")[0] == 'invalid hash value (expected "ffff", '
    assert sorted(p.name for p in tmp_path.iterdir()) == ["repo", "source"]


def test_a_download_offline_says_where_to_put_the_file(hub_dirs, tmp_path):
    url = "http://127.0.0.1:9/models/net.pth"  # the discard port: refused at once, without a network
    with pytest.raises(OSError, match=r"downloading http://127.0.0.1:9/models/net.pth failed .*put the file at "):
        glassgrad.hub.load_state_dict_from_url(url, progress=False)
    assert list((hub_dirs[1] / "checkpoints").iterdir()) == []


def test_model_zoo_is_the_hub_alias():
    assert glassgrad.utils.model_zoo.load_url is glassgrad.hub.load_state_dict_from_url
    assert glassgrad.utils.model_zoo.tqdm is glassgrad.hub.tqdm
