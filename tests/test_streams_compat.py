"""torch.Stream, torch.Event, torch.get_device_module and torch.cpu against PyTorch's CPU-only build.

Device-agnostic code makes streams and events for whatever device it runs on and asks
`torch.get_device_module(device)` for that device's functions; on the CPU each answers at once or
refuses, and every case here compares the value, or the exception type and first sentence, with PyTorch.
"""

from __future__ import annotations

import pytest

from .outcome import assert_same_outcome, expression, statements

pytestmark = pytest.mark.torch_oracle

STREAMS = [
    expression(source)
    for source in (
        "repr(m.Stream())", "repr(m.Stream(device='cpu'))", "repr(m.Stream('cpu:0'))", "repr(m.Stream(m.device('cpu')))",
        "repr(m.Stream(device=None))", "repr(m.Stream(device='meta'))", "repr(m.Stream(priority=1))",
        "m.Stream(device='cuda')", "m.Stream(device='mps')", "m.Stream(device='xpu')", "m.Stream(device=0)",
        "m.Stream(1.5)", "m.Stream(device=1.5)", "m.Stream('cpu', 0)", "m.Stream(priority='a')", "m.Stream(device='foo')",
        "m.Stream().device", "m.Stream().device_type", "m.Stream(device='meta').device_type", "m.Stream().device_index",
        "m.Stream().stream_id", "m.Stream().query()", "m.Stream().synchronize()", "m.Stream().is_capturing()",
        "m.Stream().native_handle", "m.Stream().wait_event(m.Event())", "m.Stream().wait_stream(m.Stream())",
        "m.Stream().record_event()", "m.Stream() == m.Stream()", "m.Stream() == m.Stream(device='meta')",
        "m.Stream() == 1", "hash(m.Stream()) == hash(m.Stream())",
        # events
        "repr(m.Event())", "repr(m.Event(enable_timing=True))", "repr(m.Event('cpu'))", "repr(m.Event(device='meta'))",
        "repr(m.Event(enable_timing=True, blocking=True, interprocess=True))", "m.Event(device='cuda')",
        "m.Event(device=0)", "m.Event(1.5)", "m.Event().device", "m.Event().event_id", "m.Event().query()",
        "m.Event().synchronize()", "m.Event().wait()", "m.Event().wait(m.Stream())", "m.Event().record()",
        "m.Event().record(m.Stream())", "m.Event().elapsed_time(m.Event())",
        "m.Event(enable_timing=True).elapsed_time(m.Event(enable_timing=True))", "m.Event().ipc_handle()",
        "m.Event.from_ipc_handle('cpu', b'')", "m.Event() == m.Event()",
        # a tensor and a stream
        "m.ones(1).record_stream(m.Stream())", "m.ones(1).record_stream(None)", "m.ones(1).record_stream(1)",
        # the module of a device
        "m.get_device_module().__name__.split('.')[-1]", "m.get_device_module('cpu').__name__.split('.')[-1]",
        "m.get_device_module('cuda') is m.cuda", "m.get_device_module(m.device('cuda:1')) is m.cuda",
        "m.get_device_module('foo')", "m.get_device_module('meta')", "m.get_device_module(1)",
        "m.get_device_module('cuda').is_available()",
    )
]

CPU_MODULE = [
    statements(source)
    for source in (
        "c = m.get_device_module()\nr = (c.is_available(), c.current_device(), c.device_count(), c.is_initialized())",
        "c = m.get_device_module()\nr = (c.synchronize(), c.synchronize('cpu'), c.set_device('cpu'))",
        "c = m.get_device_module()\ns = c.Stream()\nr = (s.wait_stream(s), s.record_event(), s.wait_event(None))",
        "c = m.get_device_module()\ne = c.Event()\nr = (e.query(), e.record(), e.synchronize(), e.wait())",
        "c = m.get_device_module()\nr = [c.current_stream() is c.current_stream('cpu')]\ns = c.Stream()\n"
        "with c.stream(s):\n    r.append(c.current_stream() is s)\nr.append(c.current_stream() is s)",
        "c = m.get_device_module()\nwith c.stream(None):\n    r = type(c.current_stream()).__name__",
    )
]


@pytest.mark.parametrize("snippet", STREAMS)
def test_streams_and_events_match_torch(snippet) -> None:
    assert_same_outcome(snippet)


@pytest.mark.parametrize("snippet", CPU_MODULE)
def test_the_cpu_device_module_matches_torch(snippet) -> None:
    assert_same_outcome(snippet)
