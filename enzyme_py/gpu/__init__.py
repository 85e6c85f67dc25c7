"""enzyme_py on a real NVIDIA GPU: load PTX, launch its kernels on NumPy arrays, time them.

    from enzyme_py.backend.ptx import emit_ptx
    from enzyme_py import gpu
    if gpu.available():
        saxpy = gpu.load(emit_ptx(nvptx_ir, sm=gpu.device_info().sm)).kernel("saxpy")
        saxpy(n, 2.5, x, y, grid=(n + 255) // 256, block=256)   # y is written back

Modules: `driver` (finding and wrapping the CUDA driver API, the errors), `buffers` (device
memory from and to NumPy), `launch` (modules, kernels, argument checking and packing, launch
dimensions, PTX entry signatures).

Invariant: importing this package never imports `cuda-bindings` (the optional extra:
`pip install 'enzyme_py[gpu]'`); without it, or without a driver or a device, `available()` is
False and every call that needs the device raises `GpuUnavailable` saying why. Signature
parsing, argument packing and dimension checks need no GPU. This package sits at the top layer:
it imports `backend` and `errors`, and nothing below imports it.
"""

from enzyme_py.gpu.buffers import DeviceBuffer
from enzyme_py.gpu.driver import (
    INSTALL,
    DeviceInfo,
    GpuError,
    GpuUnavailable,
    available,
    device_info,
    synchronize,
)
from enzyme_py.gpu.launch import (
    GpuModule,
    Kernel,
    check_arguments,
    infer_signature,
    kernel_names,
    launch_dims,
    load,
    normalize_dims,
    pack_arguments,
    parse_signature,
    signature_of,
)

__all__ = ["INSTALL", "DeviceBuffer", "DeviceInfo", "GpuError", "GpuModule", "GpuUnavailable",
           "Kernel", "available", "check_arguments", "device_info", "infer_signature",
           "kernel_names", "launch_dims", "load", "normalize_dims", "pack_arguments",
           "parse_signature", "signature_of", "synchronize"]
