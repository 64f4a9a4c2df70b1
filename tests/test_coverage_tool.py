"""tools/coverage.py: its exclusion list stays honest and its numbers add up."""

from __future__ import annotations

import fnmatch
import importlib.util
import re
import sys
from collections import Counter
from pathlib import Path
from types import ModuleType

import pytest

TOOLS = Path(__file__).resolve().parent.parent / "tools"


def _load_tool() -> ModuleType:
    # By path: tools/ is not a package, and a `tools` distribution installed elsewhere must not shadow it.
    spec = importlib.util.spec_from_file_location("glassgrad_coverage_tool", TOOLS / "coverage.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while the class is built
    spec.loader.exec_module(module)
    return module


cov = _load_tool()


@pytest.fixture(scope="module")
def report():
    # The table's own namespaces and those the exclusion list names: walking all of PyTorch's submodules takes
    # half a minute or more (`make coverage` does it, and exits 1 on the same problems these tests look for).
    exclusions = cov.load_exclusions()
    named = {entry.rpartition(".")[0] for group in exclusions.groups for entry in (*group.names, *group.patterns)}
    return cov.measure(measured=list(dict.fromkeys([*cov.NAMESPACES, *sorted(named)])))


def test_every_group_has_an_id_a_reason_and_names() -> None:
    exclusions = cov.load_exclusions()
    ids = [group.id for group in exclusions.groups]
    assert len(ids) == len(set(ids)), f"duplicate group ids: {[i for i, n in Counter(ids).items() if n > 1]}"
    for group in exclusions.groups:
        assert len(group.reason.split()) >= 8, f"group {group.id!r} needs a reason that explains itself"
        assert group.names or group.patterns or group.modules, f"group {group.id!r} excludes nothing"
        for entry in (*group.names, *group.patterns, *group.modules):
            assert entry.startswith("torch."), f"{group.id}: {entry} is not qualified with a namespace"


def test_every_exclusion_names_a_public_pytorch_name(report) -> None:
    assert not report.unknown_exclusions, (
        "entries of coverage_exclusions.toml that match no public name (a typo, or filtered by the rules): "
        f"{report.unknown_exclusions}"
    )


def test_no_name_is_claimed_by_two_groups(report) -> None:
    assert not report.ambiguous, f"each excluded name needs one reason; claimed twice: {report.ambiguous}"


def test_no_excluded_name_is_present(report) -> None:
    stale = [f"{n.qualified} (group {n.group})" for n in report.stale]
    assert not stale, f"glassgrad now has these excluded names; remove them from coverage_exclusions.toml: {stale}"


def test_each_public_name_is_counted_once_and_the_numbers_add_up(report) -> None:
    exclusions = cov.load_exclusions()
    for namespace in cov.NAMESPACES:
        public, filtered = cov.public_names(namespace, exclusions)
        assert not set(public) & set(filtered)
        names = report.in_namespace(namespace)
        assert {n.name for n in names} <= set(public), namespace  # less what a shallower namespace counts
        counts = report.counts(namespace)
        assert set(counts) <= {"present", "lacking", "excluded"}
        assert sum(counts.values()) == len(names)
        assert {n.tested for n in names if n.status == "present"} <= {"registry", "tests", "untested"}
        assert all(n.tested is None for n in names if n.status != "present")
        assert all(n.group is not None for n in names if n.status == "excluded")


def test_the_table_adds_up(report) -> None:
    rows = {}
    for line in cov.table(report).splitlines()[2:]:
        label, *cells = (cell.strip() for cell in line.strip("|").split("|"))
        rows[label] = cells
    columns = ("modules", "public", "excluded", "present", "lacking", "percent", "registry", "tests", "untested")
    numbers = {label: dict(zip(columns, cells, strict=True)) for label, cells in rows.items()}
    for label, row in numbers.items():
        public, excluded, present, lacking = (int(row[c]) for c in columns[1:5])
        assert public == excluded + present + lacking, label
        assert present == sum(int(row[c]) for c in ("registry", "tests", "untested")), label
        if present + lacking:
            assert row["percent"] == f"{100 * present / (present + lacking):.1f}%", label
    per_namespace = [row for label, row in numbers.items() if label.startswith("`")]
    assert len(per_namespace) == len({cov.row_of(module) for module in report.modules})
    total = next(row for label, row in numbers.items() if label == "**all**")
    for column in ("public", "excluded", "present", "lacking"):
        assert int(total[column]) == sum(int(row[column]) for row in per_namespace), column


def test_the_walk_finds_public_modules_without_importing_them_and_skips_excluded_ones() -> None:
    exclusions = cov.load_exclusions()
    before = set(sys.modules)
    modules, excluded = cov.public_modules(exclusions)
    assert not {m for m in set(sys.modules) - before if m.startswith("torch.ao")}
    assert {"torch.random", "torch.nn.utils.rnn", "torch.utils.data.sampler"} <= set(modules)
    assert not any(part.startswith("_") for m in modules for part in m.split("."))
    every_module = {m for group in exclusions.groups for m in group.modules}
    assert set(excluded) == every_module, "a whole-module exclusion that names no public module"
    assert not any(m.startswith("torch.ao.") for m in [*modules, *excluded])  # not walked into
    assert modules == sorted(modules, key=lambda m: (m.count("."), m))


def test_a_name_two_modules_share_counts_once_in_the_shallowest() -> None:
    exclusions = cov.load_exclusions()
    modules = ["torch.nn", "torch.nn.modules.linear", "torch.nn.utils", "torch.nn.utils.rnn", "torch.autograd", "torch.overrides"]
    counted = {ns: public for ns, (public, _) in cov._count_once({m: cov.public_names(m, exclusions) for m in modules}).items()}
    assert not counted["torch.nn.modules.linear"]  # all of it is torch.nn's
    assert "pad_sequence" in counted["torch.nn.utils.rnn"] and "Linear" in counted["torch.nn"]
    # at equal depth, where it is defined: torch.overrides, not torch.autograd, which imports it
    assert "is_tensor_like" in counted["torch.overrides"] and "is_tensor_like" not in counted["torch.autograd"]
    assert cov.row_of("torch.nn.utils.rnn") == "torch.nn" and cov.row_of("torch.random") == "torch.random"


def test_every_theme_glob_matches_a_public_name() -> None:
    exclusions = cov.load_exclusions()
    public = {ns: cov.public_names(ns, exclusions)[0] for ns in cov.NAMESPACES}
    for title, globs in cov.themes():
        for namespace, patterns in globs.items():
            assert namespace in cov.NAMESPACES, f"theme {title!r}: unknown namespace {namespace}"
            for pattern in patterns:
                assert any(re.fullmatch(fnmatch.translate(pattern), n) for n in public[namespace]), (
                    f"theme {title!r}: {namespace}.{pattern} matches no public name"
                )


def test_rules_drop_imports_and_undocumented_bindings_but_keep_documented_names() -> None:
    exclusions = cov.load_exclusions()
    public, filtered = cov.public_names("torch", exclusions)
    assert {"cudnn_convolution", "native_batch_norm", "Graph"} <= set(filtered)  # undocumented ATen entry points, TorchScript IR
    assert {"exp", "Size", "dtype"} <= set(public)  # documented, or named in [undocumented_public]
    public, filtered = cov.public_names("torch.optim.lr_scheduler", exclusions)
    assert {"Counter", "wraps", "EPOCH_DEPRECATION_WARNING"} <= set(filtered)  # imports and module constants


def _abstract(self):
    raise NotImplementedError


class _Stub:
    def __init__(self) -> None:
        """Documented, but only raises."""
        raise NotImplementedError("not yet")


class _AbstractForward:
    def __init__(self) -> None:
        self.ready = True

    forward = _abstract


def test_a_stub_is_not_present_but_an_abstract_method_is_not_a_stub() -> None:
    assert cov.is_stub(_abstract)
    assert cov.is_stub(_Stub)
    assert not cov.is_stub(_AbstractForward)
    assert not cov.is_stub(test_the_table_adds_up)
    assert not cov.has(ModuleType("holder"), "anything")
    holder = ModuleType("holder")
    holder.stub, holder.real = _Stub, _AbstractForward
    assert not cov.has(holder, "stub")
    assert cov.has(holder, "real")


def test_glassgrads_missing_name_error_counts_as_absent() -> None:
    import glassgrad

    assert not cov.has(glassgrad, "no_such_torch_name")
    assert not cov.has(cov.resolve("torch.Tensor", "glassgrad"), "no_such_tensor_method")


def test_main_prints_the_table_and_the_lacking_names_by_theme(capsys) -> None:
    assert cov.main(["--namespace", "torch.fft", "--list", "lacking", "--list", "excluded"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("glassgrad ") and "\n| namespace | modules | public |" in out
    assert "`torch.fft`" in out and "### lacking" in out and "### excluded" in out
