# mypy: disable-error-code="untyped-decorator,no-untyped-def"
"""The Triton interpreter (triton 3.9.0, TRITON_INTERPRET=1) miscomputes bfloat16 arithmetic
(issue 35): why the Triton kernels' bfloat16 rows are not run on CPU.

    TRITON_INTERPRET=1 python tools/engine-repro/triton_interpreter_bf16.py

A three-line kernel storing a·b for a = [1.5, -2, 0.25, 3], b = [2, 0.5, 4, -1] (all exact in
bfloat16; a·b = [3, -1, 1, -3], exact too) stores the right products in float32 and wrong
ones in bfloat16 (observed here: [0, 0, 2, -3.7e19]). Liger's rope kernel loads q, cos and
sin in bfloat16 and multiplies them in that dtype, so under the interpreter it returns inf/nan:
the interpreter's fault, not the kernel's (the float32 rows of the same kernel are exact).
"""

import torch
import triton
import triton.language as tl


@triton.jit
def mul(a_ptr, b_ptr, o_ptr, N: tl.constexpr):
    i = tl.arange(0, N)
    a = tl.load(a_ptr + i)
    b = tl.load(b_ptr + i)
    tl.store(o_ptr + i, a * b)


@triton.jit
def mul_masked(a_ptr, b_ptr, o_ptr, N: tl.constexpr, M: tl.constexpr):
    i = tl.arange(0, N)
    a = tl.load(a_ptr + i, mask=i < M, other=0)
    b = tl.load(b_ptr + i, mask=i < M, other=0).to(a.dtype)
    tl.store(o_ptr + i, a * b, mask=i < M)


for dt in (torch.float32, torch.bfloat16):
    a = torch.tensor([1.5, -2.0, 0.25, 3.0], dtype=dt)
    b = torch.tensor([2.0, 0.5, 4.0, -1.0], dtype=dt)
    o = torch.empty_like(a)
    mul[(1,)](a, b, o, N=4)
    print(dt, "plain", o.tolist(), (a * b).tolist())
    o = torch.zeros_like(a)
    mul_masked[(1,)](a, b, o, N=4, M=3)
    print(dt, "masked", o.tolist())
