"""torch.utils.tensorboard against PyTorch: the same calls on glassgrad's SummaryWriter and on PyTorch's write the
same events (runs, tags, steps, values, histogram buckets, images, text, hparams), read back with TensorBoard's own
event file loader."""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch
import torch.utils.tensorboard
from PIL import Image
from tensorboard.backend.event_processing.event_file_loader import EventFileLoader, LegacyEventFileLoader
from tensorboard.util import tensor_util

import glassgrad
import glassgrad.utils.tensorboard

pytestmark = pytest.mark.torch_oracle

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def read_events(log_dir: Path, loader=LegacyEventFileLoader) -> dict[str, list]:
    """Every event under `log_dir` but the file header, by run (the event file's folder relative to log_dir): as
    written, or as TensorBoard migrates them on reading (loader=EventFileLoader)."""
    runs: dict[str, list] = {}
    for path in sorted(log_dir.rglob("*tfevents*")):
        events = [e for e in loader(str(path)).Load() if not e.HasField("file_version")]
        runs.setdefault(str(path.parent.relative_to(log_dir)), []).extend(events)
    return runs


def summaries(log_dir: Path) -> dict[str, list[tuple]]:
    """(step, tag, the value's fields but images, images decoded) per run, wall times left out."""
    found: dict[str, list[tuple]] = {}
    for run, events in read_events(log_dir).items():
        for event in events:
            for value in event.summary.value:
                pixels = None
                if value.HasField("image"):  # PNG bytes may differ with equal pixels: compare the pixels
                    pixels = np.asarray(Image.open(io.BytesIO(value.image.encoded_image_string))).tolist()
                    value.image.ClearField("encoded_image_string")
                found.setdefault(run, []).append((event.step, value.tag, value.SerializeToString(), pixels))
    return found


def write_both(tmp_path: Path, calls) -> tuple[dict, dict]:
    """calls(writer, lib) once with PyTorch's writer (torch tensors) and once with glassgrad's (glassgrad tensors)."""
    out = []
    for lib, writer_module in ((torch, torch.utils.tensorboard), (glassgrad, glassgrad.utils.tensorboard)):
        log_dir = tmp_path / lib.__name__
        with writer_module.SummaryWriter(str(log_dir)) as writer:
            calls(writer, lib)
        out.append(summaries(log_dir))
    return out[0], out[1]


def test_scalars(tmp_path):
    def calls(writer, lib):
        w = lib.tensor([2.0], requires_grad=True)
        for step in range(3):
            writer.add_scalar("Loss/train", (w * step).sum(), step)  # a tensor that requires grad, as in a loop
            writer.add_scalar("y = 2x", 2 * step, global_step=step)  # a tag PyTorch keeps as it is
        writer.add_scalar("np", np.float32(0.25), 7, walltime=1.0)
        writer.add_scalar("new", lib.tensor(1.5), 8, new_style=True)
        writer.add_scalar("new64", 1 / 3, 9, new_style=True, double_precision=True)
        writer.add_scalars("loss", {"train": 1.0, "val": lib.tensor(2.0)}, 4)
        writer.add_scalars("a/b", {"c": 3}, 5)

    theirs, ours = write_both(tmp_path, calls)
    assert ours == theirs
    assert set(ours) == {".", "loss_train", "loss_val", "a_b_c"}


def test_tensors(tmp_path):
    values = np.array([[0.5, -1.25, 3.0], [2.0, 0.0, 7.5]])

    def calls(writer, lib):
        for step, dtype in enumerate(("float32", "float64", "float16", "int64", "int32", "bool", "complex64")):
            writer.add_tensor(f"t/{dtype}", lib.tensor(values.astype(dtype)), step)

    theirs, ours = write_both(tmp_path, calls)
    assert ours == theirs


def test_uint8_tensors_read_back(tmp_path):
    # PyTorch puts uint8 values in uint32_val, where TensorBoard's reader finds none; glassgrad uses int_val
    with glassgrad.utils.tensorboard.SummaryWriter(str(tmp_path)) as writer:
        writer.add_tensor("u", glassgrad.tensor([1, 2, 250], dtype=glassgrad.uint8))
    (value,) = [v for e in read_events(tmp_path)["."] for v in e.summary.value]
    assert tensor_util.make_ndarray(value.tensor).tolist() == [1, 2, 250]


def test_scalar_rejects_what_is_not_one_number(tmp_path):
    with glassgrad.utils.tensorboard.SummaryWriter(str(tmp_path)) as writer, \
            pytest.raises(AssertionError, match="Tensor should contain one element"):
        writer.add_scalar("x", glassgrad.ones(3))


@pytest.mark.parametrize("bins", ["tensorflow", "auto", 10])
@pytest.mark.parametrize("max_bins", [None, 4])
def test_histograms(tmp_path, bins, max_bins):
    data = np.random.default_rng(0).normal(size=(50, 3)).astype(np.float32)

    def calls(writer, lib):
        writer.add_histogram("weights", lib.tensor(data), 1, bins=bins, max_bins=max_bins)
        writer.add_histogram("shifted", data + 5, 2, bins=bins, max_bins=max_bins)

    theirs, ours = write_both(tmp_path, calls)
    assert ours == theirs


def test_images(tmp_path):
    rng = np.random.default_rng(1)
    chw = rng.uniform(-0.2, 1.2, size=(3, 6, 5)).astype(np.float32)  # out of [0, 1]: PyTorch clips
    hwc = rng.integers(0, 256, size=(4, 7, 3), dtype=np.uint8)
    batch = rng.uniform(size=(5, 1, 4, 4)).astype(np.float32)

    def calls(writer, lib):
        writer.add_image("chw", lib.tensor(chw), 0)
        writer.add_image("hwc uint8", hwc, 1, dataformats="HWC")
        writer.add_image("gray", batch[0, 0], 2, dataformats="HW")
        writer.add_images("batch", lib.tensor(batch), 3)

    theirs, ours = write_both(tmp_path, calls)
    assert ours == theirs
    shapes = {tag: np.asarray(pixels).shape for _, tag, _, pixels in ours["."]}
    assert shapes == {"chw": (6, 5, 3), "hwc uint8": (4, 7, 3), "gray": (4, 4, 3), "batch": (4, 20, 3)}  # a grid of 5 in a row


def test_text_and_hparams(tmp_path):
    def calls(writer, lib):
        writer.add_text("notes", "**bold** and a table", 3)
        writer.add_hparams({"lr": 0.1, "opt": "sgd", "bn": True, "layers": 3, "none": None}, {"hparam/acc": 0.9},
                           hparam_domain_discrete={"opt": ["sgd", "adam"], "layers": [2, 3]}, run_name="trial",
                           global_step=2)

    theirs, ours = write_both(tmp_path, calls)
    assert ours == theirs
    assert [tag for _, tag, _, _ in ours["trial"]] == ["_hparams_/experiment", "_hparams_/session_start_info",
                                                       "_hparams_/session_end_info", "hparam/acc"]


def test_hparams_needs_dictionaries(tmp_path):
    with glassgrad.utils.tensorboard.SummaryWriter(str(tmp_path)) as writer, \
            pytest.raises(TypeError, match=r"hparam_dict and metric_dict should be dictionary\."):
        writer.add_hparams([("lr", 0.1)], {})


def test_default_log_dir_purge_step_and_reopening(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    writer = glassgrad.utils.tensorboard.SummaryWriter(comment="_lr0.1", purge_step=5)
    run = Path(writer.get_logdir())
    assert run.parent == Path("runs") and run.name.endswith("_lr0.1")
    assert writer.log_dir == writer.get_logdir()
    writer.close()
    writer.add_scalar("after close", 1.0, 6)  # a closed writer opens a new event file, as PyTorch's does
    writer.close()
    assert len(list((tmp_path / run).glob("events.out.tfevents.*"))) == 2  # the first file is kept
    events = read_events(tmp_path / run)["."]
    assert [(e.step, e.session_log.status) for e in events if e.HasField("session_log")] == [(5, 1)]  # START, once
    assert events[-1].summary.value[0].tag == "after close"


def test_add_graph_draws_the_autograd_graph_by_module(tmp_path):
    class Net(glassgrad.nn.Module):
        def __init__(self):
            super().__init__()
            self.body = glassgrad.nn.Sequential(glassgrad.nn.Linear(3, 4), glassgrad.nn.ReLU())
            self.head = glassgrad.nn.Linear(4, 2)

        def forward(self, x):
            return self.head(self.body(x) * 2)

    with glassgrad.utils.tensorboard.SummaryWriter(str(tmp_path)) as writer:
        writer.add_graph(Net(), glassgrad.ones(5, 3))
    (event,) = [e for e in read_events(tmp_path)["."] if e.graph_def]
    from tensorboard.compat.proto.graph_pb2 import GraphDef

    graph = GraphDef.FromString(event.graph_def)
    nodes = {node.name: node for node in graph.node}
    assert {"input/x", "output/output.1", "Net/Sequential[body]/Linear[0]/weight",
            "Net/Sequential[body]/Linear[0]/bias", "Net/Linear[head]/weight", "Net/Linear[head]/bias"} <= set(nodes)
    ops = {name.rsplit("_", 1)[0] for name, node in nodes.items() if node.op.endswith("Backward0")}
    assert ops == {"Net/Sequential[body]/Linear[0]/AddmmBackward0", "Net/Sequential[body]/ReLU[1]/ReluBackward0",
                   "Net/MulBackward0", "Net/Linear[head]/AddmmBackward0", "Net/Linear[head]/TBackward0",
                   "Net/Sequential[body]/Linear[0]/TBackward0"}
    for node in graph.node:  # every edge leads to a node of the graph
        assert set(node.input) <= set(nodes)
    assert [d.size for d in nodes["output/output.1"].attr["_output_shapes"].list.shape[0].dim] == [5, 2]
    (first,) = [n for name, n in nodes.items() if name.startswith("Net/Sequential[body]/Linear[0]/AddmmBackward0")]
    assert "input/x" in first.input  # the input feeds the first layer


def test_embedding_files_match(tmp_path):
    mat = np.random.default_rng(2).normal(size=(6, 4)).astype(np.float32)

    def calls(writer, lib):
        writer.add_embedding(lib.tensor(mat), metadata=list("abcdef"), global_step=1, tag="emb")

    write_both(tmp_path, calls)
    for name in ("00001/emb/tensors.tsv", "00001/emb/metadata.tsv"):
        assert (tmp_path / "glassgrad" / name).read_text() == (tmp_path / "torch" / name).read_text(), name
    config = [sorted(line.strip() for line in (tmp_path / lib / "projector_config.pbtxt").read_text().splitlines())
              for lib in ("glassgrad", "torch")]  # the same fields; tensorboardX indents differently
    assert config[0] == config[1]


def test_without_tensorboardx_the_import_fails_naming_it(monkeypatch):
    for name in [n for n in sys.modules if n.startswith("glassgrad.utils.tensorboard")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "tensorboardX", None)
    with pytest.raises(ModuleNotFoundError, match=r"^No module named 'tensorboardX': glassgrad's") as raised:
        import glassgrad.utils.tensorboard  # noqa: F401
    assert raised.value.name == "tensorboardX"


def test_the_tensorboard_recipe_runs_unchanged(tmp_path):
    done = subprocess.run([sys.executable, "-m", "glassgrad.cli", "run", str(EXAMPLES / "tensorboard_regression.py")],
                          capture_output=True, text=True, timeout=300, check=False, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    (run,) = (tmp_path / "runs").iterdir()
    found = summaries(run)
    train = [step for step, tag, _, _ in found["."] if tag == "Loss/train"]
    assert train == list(range(20))
    assert {tag for _, tag, _, _ in found["."]} == {"Loss/train", "weight"}
    assert [len(found[f"loss_{kind}"]) for kind in ("training", "validation")] == [20, 20]
    assert [tag for _, tag, _, _ in found["hparams"]][-1] == "hparam/final_loss"
    events = read_events(run, loader=EventFileLoader)["."]  # as TensorBoard reads them
    losses = [tensor_util.make_ndarray(v.tensor) for e in events for v in e.summary.value if v.tag == "Loss/train"]
    assert len(losses) == 20 and losses[-1] < losses[0] / 10


def test_import_glassgrad_stays_light():
    done = subprocess.run([sys.executable, "-c", "import sys, glassgrad; print(sorted(m for m in sys.modules if "
                           "m.startswith(('tensorboardX', 'glassgrad.hub', 'glassgrad.utils.benchmark', 'google'))))"],
                          capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"
