"""The FFI handler without XLA: call frames built with ctypes (an independent description of
the C ABI of `c_api.h`) against handlers compiled by the backend."""

from __future__ import annotations

import ctypes
from ctypes import POINTER, c_char_p, c_int, c_int64, c_size_t, c_uint32, c_void_p

import numpy as np
import pytest

from enzyme_py import backend
from enzyme_py.jax import ffi_handler as H
from enzyme_py.jax.ffi_handler import BufferSpec, HandlerSpec, Message, Param, Scratch, Store


class Buffer(ctypes.Structure):
    _fields_ = [("struct_size", c_size_t), ("extension_start", c_void_p), ("dtype", c_int),
                ("data", c_void_p), ("rank", c_int64), ("dims", POINTER(c_int64))]


class Args(ctypes.Structure):
    _fields_ = [("struct_size", c_size_t), ("extension_start", c_void_p), ("size", c_int64),
                ("types", c_void_p), ("args", POINTER(c_void_p))]


class Attrs(ctypes.Structure):
    _fields_ = [("struct_size", c_size_t), ("extension_start", c_void_p), ("size", c_int64),
                ("types", c_void_p), ("names", c_void_p), ("attrs", c_void_p)]


class CallFrame(ctypes.Structure):
    _fields_ = [("struct_size", c_size_t), ("extension_start", c_void_p), ("api", c_void_p),
                ("ctx", c_void_p), ("stage", c_int), ("args", Args), ("rets", Args),
                ("attrs", Attrs), ("future", c_void_p)]


class Version(ctypes.Structure):
    _fields_ = [("struct_size", c_size_t), ("extension_start", c_void_p),
                ("major_version", c_int), ("minor_version", c_int)]


class ErrorCreateArgs(ctypes.Structure):
    _fields_ = [("struct_size", c_size_t), ("extension_start", c_void_p),
                ("message", c_char_p), ("errc", c_int)]


ERROR_CREATE = ctypes.CFUNCTYPE(c_void_p, POINTER(ErrorCreateArgs))


class Api(ctypes.Structure):
    _fields_ = [("struct_size", c_size_t), ("extension_start", c_void_p),
                ("api_version", Version), ("internal_api", c_void_p),
                ("error_create", ERROR_CREATE)]


class ExtensionBase(ctypes.Structure):
    _fields_ = [("struct_size", c_size_t), ("type", c_int), ("next", c_void_p)]


class Metadata(ctypes.Structure):
    _fields_ = [("struct_size", c_size_t), ("api_version", Version), ("traits", c_uint32),
                ("state_type_id", c_int64)]


class MetadataExtension(ctypes.Structure):
    _fields_ = [("extension_base", ExtensionBase), ("metadata", POINTER(Metadata))]


def test_offsets_match_an_independent_layout():
    assert CallFrame.api.offset == H._FRAME_API
    assert CallFrame.stage.offset == H._FRAME_STAGE
    assert CallFrame.args.offset + Args.size.offset == H._ARGS_SIZE
    assert CallFrame.args.offset + Args.args.offset == H._ARGS_ARGS
    assert CallFrame.rets.offset + Args.size.offset == H._RETS_SIZE
    assert CallFrame.rets.offset + Args.args.offset == H._RETS_RETS
    assert (Buffer.dtype.offset, Buffer.data.offset, Buffer.rank.offset,
            Buffer.dims.offset) == (H._BUFFER_DTYPE, H._BUFFER_DATA, H._BUFFER_RANK,
                                    H._BUFFER_DIMS)
    assert Api.error_create.offset == H._API_ERROR_CREATE
    assert MetadataExtension.metadata.offset == H._EXTENSION_METADATA
    assert Metadata.api_version.offset + Version.major_version.offset == H._META_MAJOR
    assert Metadata.traits.offset == H._META_TRAITS
    assert ErrorCreateArgs.errc.offset + 4 == H._ERROR_ARGS_SIZE


def test_version_is_read_from_the_installed_header(tmp_path):
    major, minor = H.ffi_version()
    assert major == H.KNOWN_MAJOR and minor >= 0
    (tmp_path / "xla" / "ffi" / "api").mkdir(parents=True)
    header = tmp_path / "xla" / "ffi" / "api" / "c_api.h"
    header.write_text("#define XLA_FFI_API_MAJOR 0\n#define XLA_FFI_API_MINOR 7\n")
    assert H.ffi_version(str(tmp_path)) == (0, 7)
    header.write_text("#define XLA_FFI_API_MAJOR 1\n#define XLA_FFI_API_MINOR 0\n")
    with pytest.raises(RuntimeError, match="API version 0.x"):
        H.ffi_version(str(tmp_path))


# y[i] = a * x[i] (+ record a failure when a < 0), returns sum(y)
CALLEE = """
@err = global [3 x i64] zeroinitializer, align 8

define double @scale(ptr %x, i64 %n, double %a, ptr %y) {
entry:
  %neg = fcmp olt double %a, 0.0
  br i1 %neg, label %bad, label %loop
bad:
  store i64 1, ptr @err
  store i64 %n, ptr getelementptr inbounds ([3 x i64], ptr @err, i64 0, i64 1)
  store i64 7, ptr getelementptr inbounds ([3 x i64], ptr @err, i64 0, i64 2)
  ret double 0.0
loop:
  %i = phi i64 [ 0, %entry ], [ %i1, %body ]
  %s = phi double [ 0.0, %entry ], [ %s1, %body ]
  %c = icmp slt i64 %i, %n
  br i1 %c, label %body, label %done
body:
  %px = getelementptr double, ptr %x, i64 %i
  %v = load double, ptr %px
  %w = fmul double %v, %a
  %py = getelementptr double, ptr %y, i64 %i
  store double %w, ptr %py
  %s1 = fadd double %s, %w
  %i1 = add i64 %i, 1
  br label %loop
done:
  ret double %s
}
"""


def _spec(batch: tuple[bool, ...] = ()) -> HandlerSpec:
    k = len(batch)
    return HandlerSpec(
        name="test_handler", label="scale", callee="scale", callee_return="double",
        args=(BufferSpec("float64", 1, batch), BufferSpec("float64", 0)),
        rets=(BufferSpec("float64", 1, (True,) * k), BufferSpec("float64", 0, (True,) * k)),
        params=(Param("data", 0), Param("dim", 0), Param("value", 1), Param("data", 0, "ret")),
        param_types=("ptr", "i64", "double", "ptr"), stores=(Store(1),), error_global="err",
        messages=(Message("ValueError: bad scale for %lld elements (%lld)\n  at here:1"),))


_KEEP: list = []


def _compile(spec: HandlerSpec):
    jm = backend.compile_ir(H.link(CALLEE, spec, H.ffi_version()), opt_level=2)
    _KEEP.append(jm)
    return ctypes.CFUNCTYPE(c_void_p, POINTER(CallFrame))(jm.address(spec.name))


class Frame:
    """A call frame over numpy arrays, with a fake API recording created errors."""

    def __init__(self, args, rets, dtypes=None):
        self.errors: list[tuple[str, int]] = []

        def create(p):
            self.errors.append((p.contents.message.decode(), p.contents.errc))
            return 0xE0

        self._create = ERROR_CREATE(create)
        self.api = Api(ctypes.sizeof(Api), None, Version(24, None, 0, 3), None, self._create)
        self._arrays = list(args) + list(rets)
        self._dims = [(c_int64 * max(a.ndim, 1))(*a.shape) for a in self._arrays]
        codes = {np.dtype("float64"): 12, np.dtype("float32"): 11, np.dtype("int64"): 5}
        self._bufs = [Buffer(ctypes.sizeof(Buffer), None,
                             (dtypes or {}).get(k, codes[a.dtype]), a.ctypes.data, a.ndim,
                             ctypes.cast(d, POINTER(c_int64)))
                      for k, (a, d) in enumerate(zip(self._arrays, self._dims, strict=True))]
        n = len(args)
        self._argv = (c_void_p * max(n, 1))(*[ctypes.addressof(b) for b in self._bufs[:n]])
        self._retv = (c_void_p * max(len(rets), 1))(
            *[ctypes.addressof(b) for b in self._bufs[n:]])
        self.frame = CallFrame()
        self.frame.struct_size = ctypes.sizeof(CallFrame)
        self.frame.api = ctypes.addressof(self.api)
        self.frame.stage = 3
        self.frame.args.size = n
        self.frame.args.args = ctypes.cast(self._argv, POINTER(c_void_p))
        self.frame.rets.size = len(rets)
        self.frame.rets.args = ctypes.cast(self._retv, POINTER(c_void_p))


@pytest.fixture(scope="module")
def handler():
    return _compile(_spec())


def test_metadata_query_writes_the_header_version_and_nothing_else(handler):
    meta = Metadata(ctypes.sizeof(Metadata), Version(0, None, -1, -1), 99, 0)
    ext = MetadataExtension(ExtensionBase(ctypes.sizeof(MetadataExtension), 1, None),
                            ctypes.pointer(meta))
    frame = CallFrame()
    frame.extension_start = ctypes.addressof(ext)  # api stays NULL, as at registration
    assert handler(ctypes.byref(frame)) is None
    major, minor = H.ffi_version()
    assert (meta.api_version.struct_size, meta.api_version.major_version,
            meta.api_version.minor_version, meta.traits) == (24, major, minor, 0)


def test_execute_calls_the_function_with_buffers(handler):
    x, a = np.array([1.0, 2.0, 3.0]), np.array(2.0)
    y, s = np.zeros(3), np.zeros(())
    f = Frame([x, a], [y, s])
    assert handler(ctypes.byref(f.frame)) is None
    np.testing.assert_array_equal(y, [2.0, 4.0, 6.0])
    assert s == 12.0 and not f.errors


def test_other_stages_do_nothing(handler):
    y = np.zeros(3)
    f = Frame([np.ones(3), np.array(2.0)], [y, np.zeros(())])
    f.frame.stage = 1
    assert handler(ctypes.byref(f.frame)) is None
    assert not y.any()


@pytest.mark.parametrize("case, text", [
    ("count", "takes 2 operands; got 1"),
    ("dtype", "operand 0 has XLA dtype 11; expected float64 (12)"),
    ("rank", "operand 0 has rank 2; expected 1"),
])
def test_wrong_operands_are_ffi_errors(handler, case, text):
    x = np.ones((2, 3)) if case == "rank" else np.ones(3)
    args = [x] if case == "count" else [x, np.array(2.0)]
    f = Frame(args, [np.zeros(3), np.zeros(())], {0: 11} if case == "dtype" else None)
    assert handler(ctypes.byref(f.frame)) == 0xE0
    (message, code), = f.errors
    assert text in message and code == H.ERR_INVALID_ARGUMENT


def test_a_failed_check_is_formatted_and_the_record_cleared(handler):
    f = Frame([np.ones(4), np.array(-1.0)], [np.zeros(4), np.zeros(())])
    assert handler(ctypes.byref(f.frame)) == 0xE0
    assert f.errors == [("ValueError: bad scale for 4 elements (7)\n  at here:1",
                         H.ERR_INVALID_ARGUMENT)]
    g = Frame([np.ones(4), np.array(1.0)], [np.zeros(4), np.zeros(())])
    assert handler(ctypes.byref(g.frame)) is None and not g.errors


def test_batch_loop_reads_an_unbatched_operand_with_stride_zero():
    h = _compile(HandlerSpec(**{**_spec((True,)).__dict__, "name": "test_batched"}))
    x = np.arange(6.0).reshape(2, 3)
    y, s = np.zeros((2, 3)), np.zeros(2)
    f = Frame([x, np.array(3.0)], [y, s])
    assert h(ctypes.byref(f.frame)) is None
    np.testing.assert_array_equal(y, 3.0 * x)
    np.testing.assert_array_equal(s, 3.0 * x.sum(axis=1))
    bad = Frame([np.ones((3, 3)), np.array(3.0)], [np.zeros((2, 3)), np.zeros(2)])
    assert h(ctypes.byref(bad.frame)) == 0xE0
    assert "operand 0 has 3 elements on batch axis 0; the results 2" in bad.errors[0][0]


def test_scratch_is_zeroed_or_copied_and_freed():
    text = """
define void @twice(ptr %src, ptr %tmp, ptr %out) {
  %v = load double, ptr %src
  %t = load double, ptr %tmp
  %w = fadd double %v, %t
  store double %w, ptr %tmp
  %u = fadd double %w, %w
  store double %u, ptr %out
  ret void
}
"""
    spec = HandlerSpec("test_scratch", "twice", "twice", "void",
                       (BufferSpec("float64", 0, (True,)),), (BufferSpec("float64", 0, (True,)),),
                       (Param("scratch", 0), Param("scratch", 1), Param("data", 0, "ret")),
                       ("ptr", "ptr", "ptr"),
                       (Scratch("float64", ("arg", 0), copy=True), Scratch("float64", None, 1)))
    jm = backend.compile_ir(H.link(text, spec, H.ffi_version()), opt_level=2)
    _KEEP.append(jm)
    h = ctypes.CFUNCTYPE(c_void_p, POINTER(CallFrame))(jm.address("test_scratch"))
    out = np.zeros(3)
    f = Frame([np.array([1.0, 2.0, 3.0])], [out])
    assert h(ctypes.byref(f.frame)) is None
    np.testing.assert_array_equal(out, [2.0, 4.0, 6.0])  # the zeroed block held no residue


def test_link_declares_only_what_the_module_lacks():
    text = H.link("declare ptr @malloc(i64)\n" + CALLEE, _spec(), (0, 3))
    assert text.count("@malloc(i64)") == 1
    assert "declare i32 @snprintf(ptr, i64, ptr, ...)" in text
    assert H.link(CALLEE, _spec(), (0, 3)) == H.link(CALLEE, _spec(), (0, 3))


def test_a_per_call_record_is_the_callees_last_parameter():
    from enzyme_py.frontend.record_parameter import record_as_parameter

    text = record_as_parameter(CALLEE, "err")
    assert text is not None and "@err" not in text
    assert "define double @scale(ptr %x, i64 %n, double %a, ptr %y, ptr noalias %error.record)" \
        in text
    base = _spec()
    spec = HandlerSpec(**{**base.__dict__, "name": "test_per_call", "error_global": None,
                          "error_param": True, "params": (*base.params, Param("record")),
                          "param_types": (*base.param_types, "ptr")})
    jm = backend.compile_ir(H.link(text, spec, H.ffi_version()), opt_level=2)
    _KEEP.append(jm)
    h = ctypes.CFUNCTYPE(c_void_p, POINTER(CallFrame))(jm.address(spec.name))
    f = Frame([np.ones(4), np.array(-1.0)], [np.zeros(4), np.zeros(())])
    assert h(ctypes.byref(f.frame)) == 0xE0
    assert f.errors == [("ValueError: bad scale for 4 elements (7)\n  at here:1",
                         H.ERR_INVALID_ARGUMENT)]
    g = Frame([np.ones(4), np.array(1.0)], [np.zeros(4), np.zeros(())])
    assert h(ctypes.byref(g.frame)) is None and not g.errors  # a fresh record per call


def test_the_record_is_passed_on_through_calls_and_left_alone_when_it_cannot_be():
    from enzyme_py.frontend.record_parameter import record_as_parameter

    caller = CALLEE + """
define double @outer(ptr %x, i64 %n, double %a, ptr %y) {
  %r = call double @scale(ptr %x, i64 %n, double %a, ptr %y)
  ret double %r
}
"""
    text = record_as_parameter(caller, "err")
    assert text is not None
    assert "call double @scale(ptr %x, i64 %n, double %a, ptr %y, ptr %error.record)" in text
    assert "define double @outer(ptr %x, i64 %n, double %a, ptr %y, ptr noalias %error.record)" \
        in text
    taken = caller + "@table = global ptr @scale\n"
    assert record_as_parameter(taken, "err") is None  # an address taken: unchanged
    assert record_as_parameter(caller, "missing") is None


def test_the_in_place_rewrite_is_all_or_nothing():
    """`pass_record` on a parsed module: the same text as `record_as_parameter`; where one
    use cannot be followed (a `ptrtoint` of the record in a second function), the module
    is left exactly as it was, the first function included."""
    from enzyme_py.frontend.record_parameter import pass_record, record_as_parameter
    from enzyme_py.ir import parse

    module = parse(CALLEE)
    assert pass_record(module, "err", "scale")
    assert str(module) == record_as_parameter(CALLEE, "err", "scale")
    odd = CALLEE + """
define i64 @where() {
  ret i64 ptrtoint (ptr getelementptr inbounds ([3 x i64], ptr @err, i64 0, i64 1) to i64)
}
"""
    module = parse(odd)
    before = str(module)
    assert not pass_record(module, "err", "scale")
    assert str(module) == before and "@err" in before
    assert record_as_parameter(odd, "err", "scale") is None
    assert not pass_record(parse(CALLEE), "err", "missing_entry")


def test_operands_can_be_read_from_other_frame_positions():
    base = _spec()
    h = _compile(HandlerSpec(**{**base.__dict__, "name": "test_slots", "arg_slots": (1, 0)}))
    x, a = np.array([1.0, 2.0, 3.0]), np.array(2.0)
    y, s = np.zeros(3), np.zeros(())
    f = Frame([a, x], [y, s], {0: 12, 1: 12})  # the frame lists the scalar first
    assert h(ctypes.byref(f.frame)) is None, f.errors
    np.testing.assert_array_equal(y, [2.0, 4.0, 6.0])
