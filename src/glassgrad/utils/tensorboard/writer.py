"""SummaryWriter: PyTorch's signatures over tensorboardX's writer; glassgrad tensors become NumPy arrays on the way."""

from __future__ import annotations

import itertools
import os
import time
from typing import Any

import tensorboardX
from tensorboardX import writer as _tbx_writer
from tensorboardX.proto.event_pb2 import Event, SessionLog

from .summary import histogram, hparams, image, make_np, scalar, tensor_proto

__all__ = ["FileWriter", "SummaryWriter"]


_files_opened = itertools.count()


class FileWriter(_tbx_writer.FileWriter):
    """Writes protobuf events and summaries into one event file in `log_dir`, named as PyTorch names it:
    events.out.tfevents.<time>.<host>.<pid>.<n><suffix>. tensorboardX's name stops at the host, so a second writer
    opened on the same folder within the same second would overwrite the first one's file."""

    def __init__(self, log_dir: str, max_queue: int = 10, flush_secs: int = 120, filename_suffix: str = "") -> None:
        unique = f".{os.getpid()}.{next(_files_opened)}{filename_suffix}"
        super().__init__(log_dir, max_queue=max_queue, flush_secs=flush_secs, filename_suffix=unique)


class SummaryWriter(tensorboardX.SummaryWriter):
    """Writes scalars, histograms, images, text, hyperparameters, embeddings, ... to an event file in `log_dir`
    (default runs/<Mon DD_HH-MM-SS>_<host><comment>) that TensorBoard reads; values may be glassgrad tensors,
    NumPy arrays or Python numbers."""

    def __init__(self, log_dir: str | None = None, comment: str = "", purge_step: int | None = None,
                 max_queue: int = 10, flush_secs: int = 120, filename_suffix: str = "") -> None:
        self.max_queue, self.flush_secs, self.filename_suffix = max_queue, flush_secs, filename_suffix
        super().__init__(logdir=log_dir, comment=comment, purge_step=purge_step, max_queue=max_queue,
                         flush_secs=flush_secs, filename_suffix=filename_suffix)
        self.log_dir = self.logdir

    def _get_file_writer(self) -> FileWriter:
        """The run's FileWriter, opened anew after close(); the purge events go into the first file only."""
        if self.all_writers is None or self.file_writer is None:
            self.file_writer = FileWriter(self.logdir, self.max_queue, self.flush_secs, self.filename_suffix)
            self.all_writers = {self.file_writer.get_logdir(): self.file_writer}
            if self.purge_step is not None:
                self.file_writer.add_event(Event(step=self.purge_step, file_version="brain.Event:2"))
                self.file_writer.add_event(Event(step=self.purge_step, session_log=SessionLog(status=SessionLog.START)))
                self.purge_step = None
        return self.file_writer

    def get_logdir(self) -> str:
        return self.log_dir

    def add_scalar(self, tag: str, scalar_value: Any, global_step: int | None = None, walltime: float | None = None,
                   new_style: bool = False, double_precision: bool = False) -> None:
        summary = scalar(tag, scalar_value, new_style=new_style, double_precision=double_precision)
        self._get_file_writer().add_summary(summary, global_step, walltime)

    def add_scalars(self, main_tag: str, tag_scalar_dict: dict[str, Any], global_step: int | None = None,
                    walltime: float | None = None) -> None:
        """Each scalar into its own run, <log_dir>/<main_tag>_<tag>, under the one tag `main_tag`, so that
        TensorBoard draws them in one chart."""
        walltime = time.time() if walltime is None else walltime
        log_dir = self._get_file_writer().get_logdir()
        for tag, value in tag_scalar_dict.items():
            run_dir = log_dir + "/" + main_tag.replace("/", "_") + "_" + tag
            if run_dir not in self.all_writers:
                self.all_writers[run_dir] = FileWriter(run_dir, self.max_queue, self.flush_secs, self.filename_suffix)
            self.all_writers[run_dir].add_summary(scalar(main_tag, value), global_step, walltime)

    def add_hparams(self, hparam_dict: dict[str, Any], metric_dict: dict[str, Any],
                    hparam_domain_discrete: dict[str, list[Any]] | None = None, run_name: str | None = None,
                    global_step: int | None = None) -> None:
        """One hparams session in the run <log_dir>/<run_name> (default: the time), its metrics logged as scalars."""
        if type(hparam_dict) is not dict or type(metric_dict) is not dict:
            raise TypeError("hparam_dict and metric_dict should be dictionary.")
        summaries = hparams(hparam_dict, metric_dict, hparam_domain_discrete)
        run_dir = os.path.join(self._get_file_writer().get_logdir(), run_name or str(time.time()))
        with SummaryWriter(log_dir=run_dir) as run:
            for summary in summaries:
                run.file_writer.add_summary(summary, global_step)
            for tag, value in metric_dict.items():
                run.add_scalar(tag, value, global_step)

    def add_tensor(self, tag: str, tensor: Any, global_step: int | None = None, walltime: float | None = None) -> None:
        self._get_file_writer().add_summary(tensor_proto(tag, tensor), global_step, walltime)

    def add_histogram(self, tag: str, values: Any, global_step: int | None = None, bins: Any = "tensorflow",
                      walltime: float | None = None, max_bins: int | None = None) -> None:
        bins = self.default_bins if isinstance(bins, str) and bins == "tensorflow" else bins
        self._get_file_writer().add_summary(histogram(tag, values, bins, max_bins), global_step, walltime)

    def add_image(self, tag: str, img_tensor: Any, global_step: int | None = None, walltime: float | None = None,
                  dataformats: str = "CHW") -> None:
        self._get_file_writer().add_summary(image(tag, img_tensor, dataformats=dataformats), global_step, walltime)

    def add_images(self, tag: str, img_tensor: Any, global_step: int | None = None, walltime: float | None = None,
                   dataformats: str = "NCHW") -> None:
        self.add_image(tag, img_tensor, global_step, walltime, dataformats)

    def add_image_with_boxes(self, tag: str, img_tensor: Any, box_tensor: Any, global_step: int | None = None,
                             walltime: float | None = None, rescale: float = 1, dataformats: str = "CHW",
                             labels: list[str] | None = None) -> None:
        super().add_image_with_boxes(tag, make_np(img_tensor), make_np(box_tensor), global_step, walltime,
                                     dataformats, labels, rescale=rescale)

    def add_video(self, tag: str, vid_tensor: Any, global_step: int | None = None, fps: float = 4,
                  walltime: float | None = None) -> None:
        super().add_video(tag, make_np(vid_tensor), global_step, fps, walltime)

    def add_audio(self, tag: str, snd_tensor: Any, global_step: int | None = None, sample_rate: int = 44100,
                  walltime: float | None = None) -> None:
        super().add_audio(tag, make_np(snd_tensor), global_step, sample_rate, walltime)

    def add_embedding(self, mat: Any, metadata: list[Any] | None = None, label_img: Any = None,
                      global_step: int | None = None, tag: str = "default", metadata_header: list[str] | None = None,
                      ) -> None:
        super().add_embedding(make_np(mat), metadata, make_np(label_img), global_step, tag, metadata_header)

    def add_pr_curve(self, tag: str, labels: Any, predictions: Any, global_step: int | None = None,
                     num_thresholds: int = 127, weights: Any = None, walltime: float | None = None) -> None:
        super().add_pr_curve(tag, make_np(labels), make_np(predictions), global_step, num_thresholds,
                             make_np(weights), walltime)

    def add_pr_curve_raw(self, tag: str, true_positive_counts: Any, false_positive_counts: Any,
                         true_negative_counts: Any, false_negative_counts: Any, precision: Any, recall: Any,
                         global_step: int | None = None, num_thresholds: int = 127, weights: Any = None,
                         walltime: float | None = None) -> None:
        counts = map(make_np, (true_positive_counts, false_positive_counts, true_negative_counts,
                               false_negative_counts, precision, recall))
        super().add_pr_curve_raw(tag, *counts, global_step, num_thresholds, make_np(weights), walltime)

    def add_mesh(self, tag: str, vertices: Any, colors: Any = None, faces: Any = None,
                 config_dict: dict[str, Any] | None = None, global_step: int | None = None,
                 walltime: float | None = None) -> None:
        super().add_mesh(tag, make_np(vertices), make_np(colors), make_np(faces), config_dict, global_step, walltime)

    def add_graph(self, model: Any, input_to_model: Any = None, verbose: bool = False,
                  use_strict_trace: bool = True) -> None:
        """The model's graph from one forward call on `input_to_model`: its autograd nodes by module, its parameters,
        inputs and outputs (glassgrad has no torch.jit tracer; `use_strict_trace` is accepted and unused)."""
        from ._graph import graph_def

        graph = graph_def(model, input_to_model)
        if verbose:
            print(graph)
        self._get_file_writer().add_event(Event(graph_def=graph.SerializeToString()))
