"""Eight float64 lanes as one numba value (an LLVM ``<8 x double>``), for kernels the loop vectoriser
will not vectorise on its own.

numba's auto-vectoriser handles a loop only when its trip count is large and its arrays cannot alias
(it gives up at the runtime alias checks of a kernel with many scratch arrays), so a loop over the 8
steps of a block stays scalar. These intrinsics emit target-independent LLVM vector instructions
(``fadd``/``fmul``/``fdiv`` on vectors, ``llvm.sqrt.v8f64``, ``fcmp`` + ``select``): one zmm
instruction on AVX-512, two ymm on AVX2, four xmm on SSE2, legalised by LLVM, with IEEE semantics per
lane (no fast-math, no contraction), so a lane computes exactly what the scalar expression would.

Masks are ``int64`` bit sets (bit ``j`` = lane ``j``), so they combine with ``&``/``|``/shifts.
``vload``/``vstore`` do no bounds checks: the caller guarantees ``off + 8 <= arr.size``.
:func:`vcompress` needs LLVM 19 or later (``llvm.experimental.vector.compress``; numba 0.62 ships
LLVM 20): one ``vcompresspd`` on AVX-512, a generic expansion elsewhere.
"""
from __future__ import annotations

from llvmlite import ir
from . import _jit  # noqa: F401  (numba configured first)
from numba import types
from numba.extending import intrinsic, models, register_model


class Vec8Type(types.Type):
    """numba type of an 8-lane float64 vector."""

    def __init__(self) -> None:
        super().__init__(name="Vec8")


V8 = Vec8Type()


@register_model(Vec8Type)
class _Vec8Model(models.PrimitiveModel):
    def __init__(self, dmm, fe_type):
        super().__init__(dmm, fe_type, ir.VectorType(ir.DoubleType(), 8))


_D = ir.DoubleType()
_VTY = ir.VectorType(_D, 8)
_M8 = ir.VectorType(ir.IntType(1), 8)
_I8 = ir.IntType(8)
_I32 = ir.IntType(32)
_I64 = ir.IntType(64)


def _decl(builder, name, ret, args):
    f = builder.module.globals.get(name)
    if f is None:
        f = ir.Function(builder.module, ir.FunctionType(ret, args), name)
    return f


def _mask(builder, bits):
    return builder.bitcast(builder.trunc(bits, _I8), _M8)


def _binop(name: str):
    @intrinsic
    def op(typingctx, a, b):
        if a != V8 or b != V8:
            return None

        def codegen(context, builder, sig, args):
            return getattr(builder, name)(args[0], args[1])
        return V8(V8, V8), codegen
    return op


vadd = _binop("fadd")
vsub = _binop("fsub")
vmul = _binop("fmul")
vdiv = _binop("fdiv")


@intrinsic
def vsqrt(typingctx, a):
    """Lane-wise square root (correctly rounded, as ``math.sqrt``)."""
    def codegen(context, builder, sig, args):
        return builder.call(_decl(builder, "llvm.sqrt.v8f64", _VTY, [_VTY]), [args[0]])
    return V8(V8), codegen


def _cmp(op: str):
    @intrinsic
    def c(typingctx, a, b):
        if a != V8 or b != V8:
            return None

        def codegen(context, builder, sig, args):
            m = builder.fcmp_ordered(op, args[0], args[1])
            return builder.zext(builder.bitcast(m, _I8), _I64)
        return types.int64(V8, V8), codegen
    return c


#: ``a < b`` lane-wise, as a bit set (False where either is NaN).
vlt = _cmp("<")
#: ``a <= b`` lane-wise, as a bit set (False where either is NaN).
vle = _cmp("<=")


@intrinsic
def vsel(typingctx, bits, a, b):
    """Lanes of ``a`` where the bit is set, else of ``b``."""
    def codegen(context, builder, sig, args):
        return builder.select(_mask(builder, args[0]), args[1], args[2])
    return V8(types.int64, V8, V8), codegen


def _pick(op: str):
    @intrinsic
    def pick(typingctx, a, b):
        def codegen(context, builder, sig, args):
            x, y = args
            return builder.select(builder.fcmp_ordered(op, x, y), x, y)
        return V8(V8, V8), codegen
    return pick


#: ``a if a < b else b`` lane-wise (Python's ``min(a, b)`` order for distinct values).
vmin = _pick("<")
#: ``a if a > b else b`` lane-wise.
vmax = _pick(">")


_V8I64 = ir.VectorType(_I64, 8)


@intrinsic
def vexponent(typingctx, a):
    """Each lane's biased binary exponent minus 1023, as a double: ``floor(log2(a))`` for a positive
    normal ``a`` (exact; the exponent field, not an int-to-double conversion, which AVX2 lacks).
    The sign bit must be clear; zeros, subnormals, inf and NaN give -1023 or 1024."""
    def codegen(context, builder, sig, args):
        bits = builder.lshr(builder.bitcast(args[0], _V8I64),
                            ir.Constant(_V8I64, [52] * 8))
        magic = builder.or_(bits, ir.Constant(_V8I64, [0x4330000000000000] * 8))
        return builder.fsub(builder.bitcast(magic, _VTY),
                            ir.Constant(_VTY, [4503599627371519.0] * 8))   # 2^52 + 1023
    return V8(V8), codegen


@intrinsic
def vmantissa(typingctx, a):
    """Each lane's significand as a double in ``[1, 2)`` (the fraction bits with exponent 0): ``a =
    vmantissa(a) * 2**vexponent(a)`` exactly for a positive normal ``a``."""
    def codegen(context, builder, sig, args):
        bits = builder.and_(builder.bitcast(args[0], _V8I64),
                            ir.Constant(_V8I64, [0x000FFFFFFFFFFFFF] * 8))
        return builder.bitcast(builder.or_(bits, ir.Constant(_V8I64, [0x3FF0000000000000] * 8)),
                               _VTY)
    return V8(V8), codegen


@intrinsic
def vbcast(typingctx, x):
    """The float ``x`` in every lane."""
    def codegen(context, builder, sig, args):
        v = builder.insert_element(ir.Constant(_VTY, ir.Undefined), args[0], ir.Constant(_I32, 0))
        return builder.shuffle_vector(v, v, ir.Constant(ir.VectorType(_I32, 8), [0] * 8))
    return V8(types.float64), codegen


@intrinsic
def vload(typingctx, arr, off):
    """``arr[off:off + 8]`` of a contiguous float64 array (unchecked)."""
    def codegen(context, builder, sig, args):
        ary = context.make_array(sig.args[0])(context, builder, args[0])
        ptr = builder.gep(ary.data, [args[1]])
        return builder.load(builder.bitcast(ptr, _VTY.as_pointer()), align=8)
    return V8(arr, off), codegen


@intrinsic
def vstore(typingctx, arr, off, v):
    """``arr[off:off + 8] = v`` for a contiguous float64 array (unchecked)."""
    def codegen(context, builder, sig, args):
        ary = context.make_array(sig.args[0])(context, builder, args[0])
        ptr = builder.gep(ary.data, [args[1]])
        builder.store(args[2], builder.bitcast(ptr, _VTY.as_pointer()), align=8)
        return context.get_dummy_value()
    return types.none(arr, off, V8), codegen


def _shuffle(idx, two: bool) -> object:
    order = ir.Constant(ir.VectorType(_I32, 8), [int(i) for i in idx])

    def codegen(context, builder, sig, args):
        return builder.shuffle_vector(args[0], args[-1], order)

    if two:
        @intrinsic
        def p2(typingctx, a, b):
            return V8(V8, V8), codegen
        return p2

    @intrinsic
    def p1(typingctx, a):
        return V8(V8), codegen
    return p1


def vperm(idx) -> object:
    """An intrinsic ``p(a)`` returning the lanes of ``a`` in the constant order ``idx`` (8 indices)."""
    return _shuffle(idx, False)


def vshuf2(idx) -> object:
    """An intrinsic ``p(a, b)`` returning the lanes of ``a`` (indices 0-7) and ``b`` (8-15) in the
    constant order ``idx``."""
    return _shuffle(idx, True)


@intrinsic
def vcompress(typingctx, a, bits):
    """The lanes of ``a`` whose bit is set, packed to the front in order; the others undefined."""
    def codegen(context, builder, sig, args):
        f = _decl(builder, "llvm.experimental.vector.compress.v8f64", _VTY, [_VTY, _M8, _VTY])
        return builder.call(f, [args[0], _mask(builder, args[1]), ir.Constant(_VTY, ir.Undefined)])
    return V8(V8, types.int64), codegen


@intrinsic
def popcount(typingctx, x):
    """The number of set bits of an ``int64``."""
    def codegen(context, builder, sig, args):
        return builder.call(_decl(builder, "llvm.ctpop.i64", _I64, [_I64]), [args[0]])
    return types.int64(types.int64), codegen
