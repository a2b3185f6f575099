"""Small scripted test models, one per `torch.nn` module family variant or TorchScript builtin
group, for surveying what symbolite can run (tests/interop/survey_nn_families.py; by hand).

`CASES` is a list of `Case(name, build, inputs)`:
- `name`: "family/variant" (the family is the part before the slash),
- `build()`: returns the `nn.Module` to script, already in eval mode (call it after
  `torch.manual_seed(...)` for reproducible weights),
- `inputs()`: returns the example inputs as a tuple of tensors and plain values (int, float,
  str, None), in `forward`'s argument order.

Both are functions so that every case's weights and inputs come from the seed set just before
the call, whatever ran before. Weights that PyTorch initialises to constants (norm layers'
affine parameters and running statistics) are drawn at random so that a kernel ignoring them
shows up as a mismatch.

Needs PyTorch 1.13 (`/usr/bin/python3`). Random-by-design modules (FractionalMaxPool) are left
out; dropout-like modules and RReLU are in eval mode, where they are deterministic. Three cases
are kept although PyTorch 1.13 cannot script them (pool/AdaptiveAvgPool2d_None,
pool/MaxUnpool2d_module, attention/MHA_kdim_vdim; each says why), so that the survey shows it;
the MaxUnpool cases that run use the functional form instead.

`python3 nn_families.py` lists the cases.
"""

import math
from collections import namedtuple
from typing import Dict, Final, List, NamedTuple, Optional, Tuple, Union

import torch
import torch.nn.functional as F
from torch import Tensor, nn

Case = namedtuple("Case", "name build inputs")
CASES = []


def case(name, build, inputs):
    """Adds a case; `build` and `inputs` are called later, each after seeding."""
    CASES.append(Case(name, build, inputs))


def r(*shape, scale=1.0):
    return torch.randn(*shape) * scale


def randomize(module):
    """Draws every floating-point parameter and buffer at random (variances stay positive)."""
    with torch.no_grad():
        for name, t in list(module.named_parameters()) + list(module.named_buffers()):
            if not t.is_floating_point():
                continue
            if name.endswith("running_var"):
                t.copy_(torch.rand_like(t) + 0.5)
            else:
                t.copy_(torch.randn_like(t))
    return module


def ev(module):
    return module.eval()


# ---------------------------------------------------------------------------------------------
# Activations: every class of torch.nn.modules.activation (MultiheadAttention is with the
# transformers below).

ACTIVATIONS = [
    ("ELU", lambda: nn.ELU()),
    ("ELU_alpha", lambda: nn.ELU(alpha=0.5)),
    ("Hardshrink", lambda: nn.Hardshrink(0.7)),
    ("Hardsigmoid", lambda: nn.Hardsigmoid()),
    ("Hardtanh", lambda: nn.Hardtanh(-0.5, 0.75)),
    ("Hardswish", lambda: nn.Hardswish()),
    ("LeakyReLU", lambda: nn.LeakyReLU(0.1)),
    ("LogSigmoid", lambda: nn.LogSigmoid()),
    ("PReLU", lambda: nn.PReLU()),
    ("PReLU_channels", lambda: randomize(nn.PReLU(num_parameters=4))),
    ("ReLU", lambda: nn.ReLU()),
    ("ReLU6", lambda: nn.ReLU6()),
    ("RReLU", lambda: nn.RReLU(0.1, 0.3)),
    ("SELU", lambda: nn.SELU()),
    ("CELU", lambda: nn.CELU(alpha=0.7)),
    ("GELU", lambda: nn.GELU()),
    ("GELU_tanh", lambda: nn.GELU(approximate="tanh")),
    ("Sigmoid", lambda: nn.Sigmoid()),
    ("SiLU", lambda: nn.SiLU()),
    ("Mish", lambda: nn.Mish()),
    ("Softplus", lambda: nn.Softplus()),
    ("Softplus_beta", lambda: nn.Softplus(beta=2.0, threshold=3.0)),
    ("Softshrink", lambda: nn.Softshrink(0.3)),
    ("Softsign", lambda: nn.Softsign()),
    ("Tanh", lambda: nn.Tanh()),
    ("Tanhshrink", lambda: nn.Tanhshrink()),
    ("Threshold", lambda: nn.Threshold(0.1, 20.0)),
    ("GLU", lambda: nn.GLU(dim=1)),
    ("Softmin", lambda: nn.Softmin(dim=1)),
    ("Softmax", lambda: nn.Softmax(dim=-1)),
    ("Softmax2d", lambda: nn.Softmax2d()),
    ("LogSoftmax", lambda: nn.LogSoftmax(dim=1)),
]
for _name, _build in ACTIVATIONS:
    case(f"activation/{_name}", lambda b=_build: ev(b()), lambda: (r(2, 4, 3, 3, scale=3.0),))


# ---------------------------------------------------------------------------------------------
# Normalizations.

case("norm/BatchNorm1d_2d_input", lambda: ev(randomize(nn.BatchNorm1d(4))), lambda: (r(2, 4),))
case("norm/BatchNorm1d_3d_input", lambda: ev(randomize(nn.BatchNorm1d(4))), lambda: (r(2, 4, 5),))
case("norm/BatchNorm2d", lambda: ev(randomize(nn.BatchNorm2d(4))), lambda: (r(2, 4, 3, 5),))
case("norm/BatchNorm3d", lambda: ev(randomize(nn.BatchNorm3d(4))), lambda: (r(1, 4, 2, 3, 3),))
case("norm/BatchNorm2d_no_affine", lambda: ev(randomize(nn.BatchNorm2d(4, affine=False))),
     lambda: (r(2, 4, 3, 3),))
# Without running statistics, eval mode normalises with the batch's own statistics.
case("norm/BatchNorm2d_no_running_stats", lambda: ev(randomize(nn.BatchNorm2d(4, track_running_stats=False))),
     lambda: (r(2, 4, 3, 3),))
case("norm/LayerNorm_last", lambda: ev(randomize(nn.LayerNorm(5))), lambda: (r(2, 3, 5),))
case("norm/LayerNorm_last2", lambda: ev(randomize(nn.LayerNorm([3, 5]))), lambda: (r(2, 3, 5),))
case("norm/LayerNorm_no_affine", lambda: ev(nn.LayerNorm(5, elementwise_affine=False)), lambda: (r(2, 3, 5),))
case("norm/GroupNorm", lambda: ev(randomize(nn.GroupNorm(2, 4))), lambda: (r(2, 4, 3, 3),))
case("norm/GroupNorm_no_affine", lambda: ev(nn.GroupNorm(4, 8, affine=False)), lambda: (r(2, 8, 5),))
for _dim, _shape in ((1, (2, 4, 6)), (2, (2, 4, 3, 5)), (3, (1, 4, 2, 3, 4))):
    for _affine in (False, True):
        for _track in (False, True):
            _cls = getattr(nn, f"InstanceNorm{_dim}d")
            case(f"norm/InstanceNorm{_dim}d_affine{int(_affine)}_track{int(_track)}",
                 lambda c=_cls, a=_affine, t=_track: ev(randomize(c(4, affine=a, track_running_stats=t))),
                 lambda s=_shape: (r(*s),))
case("norm/LocalResponseNorm_4d", lambda: ev(nn.LocalResponseNorm(3)), lambda: (r(2, 5, 3, 3, scale=2.0),))
case("norm/LocalResponseNorm_3d", lambda: ev(nn.LocalResponseNorm(2, alpha=0.01, beta=0.5, k=2.0)),
     lambda: (r(2, 6, 4, scale=2.0),))


# ---------------------------------------------------------------------------------------------
# Convolutions and transposed convolutions.

case("conv/Conv1d", lambda: ev(nn.Conv1d(4, 6, 3)), lambda: (r(2, 4, 9),))
case("conv/Conv1d_groups_dilation_stride", lambda: ev(nn.Conv1d(4, 6, 3, stride=2, padding=1, dilation=2, groups=2)),
     lambda: (r(2, 4, 11),))
case("conv/Conv1d_same", lambda: ev(nn.Conv1d(4, 6, 4, padding="same", dilation=2)), lambda: (r(1, 4, 9),))
case("conv/Conv2d", lambda: ev(nn.Conv2d(3, 6, 3)), lambda: (r(2, 3, 7, 6),))
case("conv/Conv2d_no_bias", lambda: ev(nn.Conv2d(3, 6, (3, 2), bias=False)), lambda: (r(1, 3, 6, 6),))
case("conv/Conv2d_groups_dilation_stride",
     lambda: ev(nn.Conv2d(4, 6, 3, stride=(2, 1), padding=(1, 2), dilation=(1, 2), groups=2)),
     lambda: (r(2, 4, 9, 8),))
case("conv/Conv2d_depthwise", lambda: ev(nn.Conv2d(4, 8, 3, padding=1, groups=4)), lambda: (r(1, 4, 6, 6),))
case("conv/Conv2d_same", lambda: ev(nn.Conv2d(3, 4, (3, 4), padding="same")), lambda: (r(1, 3, 6, 7),))
case("conv/Conv3d", lambda: ev(nn.Conv3d(2, 4, 3)), lambda: (r(1, 2, 5, 5, 5),))
case("conv/Conv3d_groups_dilation_stride",
     lambda: ev(nn.Conv3d(4, 4, 2, stride=(1, 2, 1), padding=1, dilation=(2, 1, 1), groups=2)),
     lambda: (r(1, 4, 5, 6, 4),))
for _mode in ("reflect", "replicate", "circular"):
    case(f"conv/Conv1d_pad_{_mode}", lambda m=_mode: ev(nn.Conv1d(3, 4, 3, padding=2, padding_mode=m)),
         lambda: (r(2, 3, 7),))
    case(f"conv/Conv2d_pad_{_mode}", lambda m=_mode: ev(nn.Conv2d(3, 4, 3, padding=(1, 2), padding_mode=m)),
         lambda: (r(2, 3, 6, 5),))
    case(f"conv/Conv3d_pad_{_mode}", lambda m=_mode: ev(nn.Conv3d(2, 3, 3, padding=1, padding_mode=m)),
         lambda: (r(1, 2, 4, 5, 4),))
case("conv/ConvTranspose1d", lambda: ev(nn.ConvTranspose1d(4, 6, 3)), lambda: (r(2, 4, 5),))
case("conv/ConvTranspose1d_stride2_outpad_groups",
     lambda: ev(nn.ConvTranspose1d(4, 6, 3, stride=2, padding=1, output_padding=1, groups=2)),
     lambda: (r(2, 4, 5),))
case("conv/ConvTranspose2d", lambda: ev(nn.ConvTranspose2d(3, 4, 3)), lambda: (r(1, 3, 4, 5),))
case("conv/ConvTranspose2d_stride2_outpad_groups",
     lambda: ev(nn.ConvTranspose2d(4, 6, 3, stride=2, padding=1, output_padding=1, groups=2)),
     lambda: (r(2, 4, 4, 3),))
case("conv/ConvTranspose2d_dilation", lambda: ev(nn.ConvTranspose2d(2, 3, (3, 2), stride=(2, 3), dilation=(2, 1))),
     lambda: (r(1, 2, 3, 4),))
case("conv/ConvTranspose3d", lambda: ev(nn.ConvTranspose3d(2, 3, 2)), lambda: (r(1, 2, 3, 3, 2),))
case("conv/ConvTranspose3d_stride2_outpad_groups",
     lambda: ev(nn.ConvTranspose3d(4, 4, 3, stride=2, padding=1, output_padding=1, groups=2)),
     lambda: (r(1, 4, 2, 3, 2),))


class ConvTransposeOutputSize(nn.Module):
    """ConvTranspose2d given output_size (which picks the output padding)."""

    def __init__(self):
        super().__init__()
        self.conv = nn.ConvTranspose2d(3, 4, 3, stride=2, padding=1)

    def forward(self, x: Tensor) -> Tensor:
        return self.conv(x, output_size=[8, 9])


case("conv/ConvTranspose2d_output_size", lambda: ev(ConvTransposeOutputSize()), lambda: (r(1, 3, 4, 5),))


# ---------------------------------------------------------------------------------------------
# Pooling (FractionalMaxPool is random: left out).

case("pool/MaxPool1d", lambda: ev(nn.MaxPool1d(3, stride=2)), lambda: (r(2, 3, 10),))
case("pool/MaxPool1d_ceil_dilation_pad", lambda: ev(nn.MaxPool1d(3, stride=2, padding=1, dilation=2, ceil_mode=True)),
     lambda: (r(2, 3, 10),))
case("pool/MaxPool2d", lambda: ev(nn.MaxPool2d(2)), lambda: (r(2, 3, 6, 7),))
case("pool/MaxPool2d_ceil_dilation_pad",
     lambda: ev(nn.MaxPool2d(3, stride=2, padding=1, dilation=(2, 1), ceil_mode=True)),
     lambda: (r(2, 3, 9, 8),))
case("pool/MaxPool3d", lambda: ev(nn.MaxPool3d(2)), lambda: (r(1, 2, 4, 5, 4),))
case("pool/MaxPool3d_ceil_dilation_pad",
     lambda: ev(nn.MaxPool3d(2, stride=2, padding=1, dilation=(1, 2, 1), ceil_mode=True)),
     lambda: (r(1, 2, 5, 6, 5),))
case("pool/MaxPool1d_return_indices", lambda: ev(nn.MaxPool1d(2, return_indices=True)), lambda: (r(2, 3, 8),))
case("pool/MaxPool2d_return_indices", lambda: ev(nn.MaxPool2d(2, return_indices=True)), lambda: (r(2, 3, 6, 6),))
case("pool/MaxPool3d_return_indices", lambda: ev(nn.MaxPool3d(2, return_indices=True)), lambda: (r(1, 2, 4, 4, 4),))
case("pool/AvgPool1d", lambda: ev(nn.AvgPool1d(3)), lambda: (r(2, 3, 10),))
case("pool/AvgPool1d_pad_exclude_ceil",
     lambda: ev(nn.AvgPool1d(3, stride=2, padding=1, ceil_mode=True, count_include_pad=False)),
     lambda: (r(2, 3, 10),))
case("pool/AvgPool2d", lambda: ev(nn.AvgPool2d(2)), lambda: (r(2, 3, 6, 7),))
case("pool/AvgPool2d_pad_exclude", lambda: ev(nn.AvgPool2d(3, stride=2, padding=1, count_include_pad=False)),
     lambda: (r(2, 3, 7, 6),))
case("pool/AvgPool2d_divisor_override", lambda: ev(nn.AvgPool2d(3, stride=2, padding=1, divisor_override=4)),
     lambda: (r(2, 3, 7, 6),))
case("pool/AvgPool2d_ceil", lambda: ev(nn.AvgPool2d(2, stride=2, ceil_mode=True)), lambda: (r(1, 3, 5, 7),))
case("pool/AvgPool3d", lambda: ev(nn.AvgPool3d(2)), lambda: (r(1, 2, 4, 4, 6),))
case("pool/AvgPool3d_pad_exclude", lambda: ev(nn.AvgPool3d(3, stride=2, padding=1, count_include_pad=False)),
     lambda: (r(1, 2, 5, 4, 5),))
case("pool/AvgPool3d_divisor_override", lambda: ev(nn.AvgPool3d(2, divisor_override=3)), lambda: (r(1, 2, 4, 4, 4),))
case("pool/AdaptiveAvgPool1d", lambda: ev(nn.AdaptiveAvgPool1d(3)), lambda: (r(2, 3, 7),))
case("pool/AdaptiveAvgPool2d", lambda: ev(nn.AdaptiveAvgPool2d((2, 3))), lambda: (r(2, 3, 7, 8),))
case("pool/AdaptiveAvgPool2d_1", lambda: ev(nn.AdaptiveAvgPool2d(1)), lambda: (r(2, 3, 7, 8),))
# PyTorch 1.13 cannot script a None in AdaptiveAvgPool2d's output size; kept to show it.
case("pool/AdaptiveAvgPool2d_None", lambda: ev(nn.AdaptiveAvgPool2d((None, 3))), lambda: (r(1, 3, 5, 7),))
case("pool/AdaptiveAvgPool3d", lambda: ev(nn.AdaptiveAvgPool3d((2, 3, 2))), lambda: (r(1, 2, 5, 7, 3),))
case("pool/AdaptiveMaxPool1d", lambda: ev(nn.AdaptiveMaxPool1d(3)), lambda: (r(2, 3, 7),))
case("pool/AdaptiveMaxPool2d", lambda: ev(nn.AdaptiveMaxPool2d((2, 3))), lambda: (r(2, 3, 7, 8),))
case("pool/AdaptiveMaxPool3d", lambda: ev(nn.AdaptiveMaxPool3d((2, 3, 2))), lambda: (r(1, 2, 5, 7, 3),))
case("pool/AdaptiveMaxPool2d_return_indices", lambda: ev(nn.AdaptiveMaxPool2d(3, return_indices=True)),
     lambda: (r(1, 2, 7, 5),))
case("pool/LPPool1d", lambda: ev(nn.LPPool1d(2, 3, stride=2)), lambda: (r(2, 3, 9),))
case("pool/LPPool2d", lambda: ev(nn.LPPool2d(2, 2)), lambda: (r(2, 3, 6, 6),))
case("pool/LPPool2d_p1.5", lambda: ev(nn.LPPool2d(1.5, (2, 3), stride=(2, 1))), lambda: (r(1, 3, 6, 6).abs(),))


class MaxUnpool(nn.Module):
    """F.max_poolNd(return_indices=True) followed by F.max_unpoolNd, optionally to an output size.
    (The nn.MaxUnpoolNd modules themselves do not script in 1.13: see pool/MaxUnpool2d_module.)"""

    __constants__ = ["dim"]  # so that scripting keeps only the branch for this dimension

    def __init__(self, dim: int, output_size: Optional[List[int]] = None):
        super().__init__()
        self.dim = dim
        self.output_size = output_size

    def forward(self, x: Tensor) -> Tensor:
        if self.dim == 1:
            y, indices = F.max_pool1d(x, 2, 2, return_indices=True)
            return F.max_unpool1d(y, indices, [2], [2], [0], self.output_size)
        if self.dim == 2:
            y, indices = F.max_pool2d(x, 2, 2, return_indices=True)
            return F.max_unpool2d(y, indices, [2, 2], [2, 2], [0, 0], self.output_size)
        y, indices = F.max_pool3d(x, 2, 2, return_indices=True)
        return F.max_unpool3d(y, indices, [2, 2, 2], [2, 2, 2], [0, 0, 0], self.output_size)


class MaxUnpoolModule(nn.Module):
    """nn.MaxPool2d + nn.MaxUnpool2d: PyTorch 1.13 cannot script nn.MaxUnpoolNd (an internal
    assert on its int kernel size); kept to show it."""

    def __init__(self):
        super().__init__()
        self.pool = nn.MaxPool2d(2, return_indices=True)
        self.unpool = nn.MaxUnpool2d(2)

    def forward(self, x: Tensor) -> Tensor:
        y, indices = self.pool(x)
        return self.unpool(y, indices)


case("pool/MaxUnpool1d", lambda: ev(MaxUnpool(1)), lambda: (r(2, 3, 8),))
case("pool/MaxUnpool2d", lambda: ev(MaxUnpool(2)), lambda: (r(2, 3, 6, 4),))
case("pool/MaxUnpool2d_output_size", lambda: ev(MaxUnpool(2, [7, 5])), lambda: (r(2, 3, 7, 5),))
case("pool/MaxUnpool2d_module", lambda: ev(MaxUnpoolModule()), lambda: (r(2, 3, 6, 4),))
case("pool/MaxUnpool3d", lambda: ev(MaxUnpool(3)), lambda: (r(1, 2, 4, 4, 6),))


# ---------------------------------------------------------------------------------------------
# Padding layers (and F.pad modes that have no layer of their own).

case("pad/ReflectionPad1d", lambda: ev(nn.ReflectionPad1d((2, 1))), lambda: (r(2, 3, 5),))
case("pad/ReflectionPad2d", lambda: ev(nn.ReflectionPad2d((1, 2, 2, 0))), lambda: (r(2, 3, 4, 5),))
case("pad/ReflectionPad3d", lambda: ev(nn.ReflectionPad3d(1)), lambda: (r(1, 2, 3, 4, 3),))
case("pad/ReplicationPad1d", lambda: ev(nn.ReplicationPad1d((2, 3))), lambda: (r(2, 3, 5),))
case("pad/ReplicationPad2d", lambda: ev(nn.ReplicationPad2d((1, 2, 3, 0))), lambda: (r(2, 3, 4, 5),))
case("pad/ReplicationPad3d", lambda: ev(nn.ReplicationPad3d((1, 0, 2, 1, 0, 2))), lambda: (r(1, 2, 3, 4, 3),))
case("pad/ZeroPad2d", lambda: ev(nn.ZeroPad2d((1, 2, 0, 3))), lambda: (r(2, 3, 4, 5),))
case("pad/ZeroPad2d_negative", lambda: ev(nn.ZeroPad2d((-1, 2, 1, -2))), lambda: (r(2, 3, 4, 5),))
case("pad/ConstantPad1d", lambda: ev(nn.ConstantPad1d((2, 1), 3.5)), lambda: (r(2, 3, 5),))
case("pad/ConstantPad2d", lambda: ev(nn.ConstantPad2d(2, -1.0)), lambda: (r(2, 3, 4, 5),))
case("pad/ConstantPad3d", lambda: ev(nn.ConstantPad3d((1, 0, 0, 2, 1, 1), 0.25)), lambda: (r(1, 2, 3, 4, 3),))


class CircularPad(nn.Module):
    """F.pad(mode="circular"), which has no layer in 1.13."""

    def forward(self, x: Tensor) -> Tensor:
        return F.pad(x, [1, 2, 2, 1], mode="circular")


case("pad/F.pad_circular", lambda: ev(CircularPad()), lambda: (r(1, 2, 4, 5),))


# ---------------------------------------------------------------------------------------------
# Upsample / F.interpolate.

UPSAMPLES = [
    ("nearest_scale", dict(scale_factor=2, mode="nearest"), (1, 2, 3, 4)),
    ("nearest_size", dict(size=(5, 7), mode="nearest"), (1, 2, 3, 4)),
    ("nearest_1d", dict(scale_factor=3, mode="nearest"), (2, 2, 5)),
    ("nearest_3d", dict(scale_factor=(1, 2, 2), mode="nearest"), (1, 2, 2, 3, 3)),
    ("nearest_fractional_scale", dict(scale_factor=1.5, mode="nearest"), (1, 2, 4, 5)),
    ("nearest-exact_scale", dict(scale_factor=1.5, mode="nearest-exact"), (1, 2, 4, 5)),
    ("nearest-exact_size", dict(size=(7, 3), mode="nearest-exact"), (1, 2, 4, 5)),
    ("nearest-exact_1d", dict(size=7, mode="nearest-exact"), (1, 2, 5)),
    ("nearest-exact_3d", dict(size=(3, 5, 4), mode="nearest-exact"), (1, 1, 2, 3, 3)),
]
for _ac in (False, True):
    UPSAMPLES += [
        (f"linear_scale_ac{int(_ac)}", dict(scale_factor=2, mode="linear", align_corners=_ac), (2, 3, 5)),
        (f"linear_size_ac{int(_ac)}", dict(size=8, mode="linear", align_corners=_ac), (2, 3, 5)),
        (f"bilinear_scale_ac{int(_ac)}", dict(scale_factor=2, mode="bilinear", align_corners=_ac), (1, 2, 3, 4)),
        (f"bilinear_size_ac{int(_ac)}", dict(size=(5, 9), mode="bilinear", align_corners=_ac), (1, 2, 3, 4)),
        (f"bilinear_fractional_ac{int(_ac)}", dict(scale_factor=1.7, mode="bilinear", align_corners=_ac),
         (1, 2, 4, 5)),
        (f"bicubic_scale_ac{int(_ac)}", dict(scale_factor=2, mode="bicubic", align_corners=_ac), (1, 2, 4, 4)),
        (f"bicubic_size_ac{int(_ac)}", dict(size=(6, 7), mode="bicubic", align_corners=_ac), (1, 2, 4, 5)),
        (f"trilinear_scale_ac{int(_ac)}", dict(scale_factor=2, mode="trilinear", align_corners=_ac), (1, 2, 2, 3, 2)),
        (f"trilinear_size_ac{int(_ac)}", dict(size=(3, 4, 5), mode="trilinear", align_corners=_ac),
         (1, 2, 2, 3, 2)),
    ]
UPSAMPLES.append(("bilinear_recompute_scale", dict(scale_factor=1.7, mode="bilinear",
                                                   recompute_scale_factor=True), (1, 2, 4, 5)))
UPSAMPLES.append(("bilinear_downsample", dict(size=(2, 3), mode="bilinear"), (1, 2, 7, 8)))
for _name, _kwargs, _shape in UPSAMPLES:
    case(f"upsample/Upsample_{_name}", lambda k=_kwargs: ev(nn.Upsample(**k)), lambda s=_shape: (r(*s),))
case("upsample/UpsamplingNearest2d", lambda: ev(nn.UpsamplingNearest2d(scale_factor=2)), lambda: (r(1, 2, 3, 3),))
case("upsample/UpsamplingBilinear2d", lambda: ev(nn.UpsamplingBilinear2d(size=(5, 6))), lambda: (r(1, 2, 3, 3),))


class InterpolateAntialias(nn.Module):
    """F.interpolate downsampling with antialias=True (bilinear or bicubic)."""

    def __init__(self, mode: str):
        super().__init__()
        self.mode = mode

    def forward(self, x: Tensor) -> Tensor:
        return F.interpolate(x, size=[3, 4], mode=self.mode, align_corners=False, antialias=True)


class InterpolateArea(nn.Module):
    """F.interpolate(mode="area"): adaptive average pooling."""

    def forward(self, x: Tensor) -> Tensor:
        return F.interpolate(x, size=[3, 4], mode="area")


class InterpolateScaleList(nn.Module):
    """F.interpolate with a per-dimension scale-factor list."""

    def forward(self, x: Tensor) -> Tensor:
        return F.interpolate(x, scale_factor=[1.5, 2.5], mode="bilinear", align_corners=False)


case("upsample/interpolate_bilinear_antialias", lambda: ev(InterpolateAntialias("bilinear")),
     lambda: (r(1, 2, 9, 11),))
case("upsample/interpolate_bicubic_antialias", lambda: ev(InterpolateAntialias("bicubic")),
     lambda: (r(1, 2, 9, 11),))
case("upsample/interpolate_area", lambda: ev(InterpolateArea()), lambda: (r(1, 2, 7, 9),))
case("upsample/interpolate_scale_list", lambda: ev(InterpolateScaleList()), lambda: (r(1, 2, 3, 4),))


# ---------------------------------------------------------------------------------------------
# Shape shuffling, dropout in eval, Identity.

case("shape/PixelShuffle", lambda: ev(nn.PixelShuffle(2)), lambda: (r(2, 8, 3, 2),))
case("shape/PixelUnshuffle", lambda: ev(nn.PixelUnshuffle(2)), lambda: (r(2, 2, 4, 6),))
case("shape/ChannelShuffle", lambda: ev(nn.ChannelShuffle(3)), lambda: (r(2, 6, 2, 2),))
case("shape/Flatten", lambda: ev(nn.Flatten()), lambda: (r(2, 3, 4, 5),))
case("shape/Flatten_all", lambda: ev(nn.Flatten(0, -1)), lambda: (r(2, 3, 4),))
case("shape/Unflatten", lambda: ev(nn.Unflatten(1, (2, 3))), lambda: (r(2, 6, 4),))
case("shape/Identity", lambda: ev(nn.Identity()), lambda: (r(2, 3),))
for _name in ("Dropout", "Dropout1d", "Dropout2d", "Dropout3d", "AlphaDropout", "FeatureAlphaDropout"):
    _shape = {"Dropout1d": (2, 3, 4), "Dropout3d": (1, 2, 2, 3, 3)}.get(_name, (2, 3, 4, 4))
    case(f"shape/{_name}_eval", lambda n=_name: ev(getattr(nn, n)(0.5)), lambda s=_shape: (r(*s),))


# ---------------------------------------------------------------------------------------------
# Embeddings.

def indices(*shape, high=10):
    return torch.randint(0, high, shape)


case("embedding/Embedding", lambda: ev(nn.Embedding(10, 4)), lambda: (indices(2, 5),))
case("embedding/Embedding_padding_idx", lambda: ev(nn.Embedding(10, 4, padding_idx=0)),
     lambda: (torch.tensor([[0, 2, 0, 9], [1, 0, 5, 5]]),))
# max_norm renormalises the looked-up rows of the weight in place.
case("embedding/Embedding_max_norm", lambda: ev(nn.Embedding(10, 4, max_norm=1.0)), lambda: (indices(2, 5),))


class EmbeddingBagOffsets(nn.Module):
    """EmbeddingBag over a flat index list with offsets (and optionally per-sample weights)."""

    def __init__(self, mode: str, **kwargs):
        super().__init__()
        self.bag = nn.EmbeddingBag(10, 4, mode=mode, **kwargs)

    def forward(self, x: Tensor, offsets: Tensor) -> Tensor:
        return self.bag(x, offsets)


class EmbeddingBagWeighted(nn.Module):
    def __init__(self):
        super().__init__()
        self.bag = nn.EmbeddingBag(10, 4, mode="sum")

    def forward(self, x: Tensor, offsets: Tensor, weights: Tensor) -> Tensor:
        return self.bag(x, offsets, weights)


_BAG_INPUTS = lambda: (torch.tensor([1, 2, 4, 5, 4, 3, 2, 9]), torch.tensor([0, 3, 3, 5]))  # noqa: E731 (an empty bag)
for _mode in ("sum", "mean", "max"):
    case(f"embedding/EmbeddingBag_{_mode}_offsets", lambda m=_mode: ev(EmbeddingBagOffsets(m)), _BAG_INPUTS)
    case(f"embedding/EmbeddingBag_{_mode}_2d", lambda m=_mode: ev(nn.EmbeddingBag(10, 4, mode=m)),
         lambda: (indices(3, 4),))
case("embedding/EmbeddingBag_padding_idx", lambda: ev(EmbeddingBagOffsets("mean", padding_idx=2)), _BAG_INPUTS)
case("embedding/EmbeddingBag_include_last_offset",
     lambda: ev(EmbeddingBagOffsets("sum", include_last_offset=True)),
     lambda: (torch.tensor([1, 2, 4, 5, 4, 3, 2, 9]), torch.tensor([0, 3, 5, 8])))
case("embedding/EmbeddingBag_per_sample_weights", lambda: ev(EmbeddingBagWeighted()),
     lambda: _BAG_INPUTS() + (torch.rand(8),))


# ---------------------------------------------------------------------------------------------
# Recurrent layers and cells.

class Seq(nn.Module):
    """A recurrent layer called on x alone (nn.RNN/GRU/LSTM scripted at the top have no
    `forward`: it is overloaded, so they are wrapped)."""

    def __init__(self, rnn: nn.Module):
        super().__init__()
        self.rnn = rnn

    def forward(self, x: Tensor):
        return self.rnn(x)


class WithState(nn.Module):
    """A recurrent layer or cell called with an initial state tensor."""

    def __init__(self, rnn: nn.Module):
        super().__init__()
        self.rnn = rnn

    def forward(self, x: Tensor, h: Tensor):
        return self.rnn(x, h)


class LSTMWithState(nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(4, 6, num_layers=2)

    def forward(self, x: Tensor, h: Tensor, c: Tensor) -> Tuple[Tensor, Tuple[Tensor, Tensor]]:
        return self.lstm(x, (h, c))


case("rnn/RNN_tanh", lambda: ev(Seq(nn.RNN(4, 6))), lambda: (r(5, 2, 4),))
case("rnn/RNN_relu_2layers", lambda: ev(Seq(nn.RNN(4, 6, num_layers=2, nonlinearity="relu"))), lambda: (r(5, 2, 4),))
case("rnn/RNN_bidir_batch_first", lambda: ev(Seq(nn.RNN(4, 6, batch_first=True, bidirectional=True))),
     lambda: (r(2, 5, 4),))
case("rnn/RNN_initial_state", lambda: ev(WithState(nn.RNN(4, 6, num_layers=2))), lambda: (r(5, 2, 4), r(2, 2, 6)))
case("rnn/GRU", lambda: ev(Seq(nn.GRU(4, 6))), lambda: (r(5, 2, 4),))
case("rnn/GRU_2layers_bidir_batch_first",
     lambda: ev(Seq(nn.GRU(4, 6, num_layers=2, bidirectional=True, batch_first=True))), lambda: (r(2, 5, 4),))
case("rnn/GRU_initial_state", lambda: ev(WithState(nn.GRU(4, 6))), lambda: (r(5, 2, 4), r(1, 2, 6)))
case("rnn/LSTM", lambda: ev(Seq(nn.LSTM(4, 6))), lambda: (r(5, 2, 4),))
case("rnn/LSTM_2layers_bidir_batch_first",
     lambda: ev(Seq(nn.LSTM(4, 6, num_layers=2, bidirectional=True, batch_first=True))), lambda: (r(2, 5, 4),))
case("rnn/LSTM_proj_size", lambda: ev(Seq(nn.LSTM(4, 6, proj_size=3))), lambda: (r(5, 2, 4),))
case("rnn/LSTM_initial_state", lambda: ev(LSTMWithState()), lambda: (r(5, 2, 4), r(2, 2, 6), r(2, 2, 6)))
case("rnn/LSTM_unbatched", lambda: ev(Seq(nn.LSTM(4, 6))), lambda: (r(5, 4),))
case("rnn/RNNCell_tanh", lambda: ev(nn.RNNCell(4, 6)), lambda: (r(2, 4),))
case("rnn/RNNCell_relu_state", lambda: ev(WithState(nn.RNNCell(4, 6, nonlinearity="relu"))), lambda: (r(2, 4), r(2, 6)))
case("rnn/GRUCell", lambda: ev(nn.GRUCell(4, 6)), lambda: (r(2, 4),))
case("rnn/GRUCell_state", lambda: ev(WithState(nn.GRUCell(4, 6))), lambda: (r(2, 4), r(2, 6)))
case("rnn/LSTMCell", lambda: ev(nn.LSTMCell(4, 6)), lambda: (r(2, 4),))


class LSTMCellWithState(nn.Module):
    def __init__(self):
        super().__init__()
        self.cell = nn.LSTMCell(4, 6)

    def forward(self, x: Tensor, h: Tensor, c: Tensor) -> Tuple[Tensor, Tensor]:
        return self.cell(x, (h, c))


case("rnn/LSTMCell_state", lambda: ev(LSTMCellWithState()), lambda: (r(2, 4), r(2, 6), r(2, 6)))
# 37 units: whole vectors and a partial one of the float gates' SLEEF sigmoid and tanh
# (symbolite/ops/cpu/recurrent_gates.h), at 16 lanes and at 8.
case("rnn/LSTM_37_units", lambda: ev(Seq(nn.LSTM(24, 37, num_layers=2))), lambda: (r(9, 2, 24, scale=3.0),))
case("rnn/GRU_37_units", lambda: ev(Seq(nn.GRU(24, 37, bidirectional=True))), lambda: (r(9, 2, 24, scale=3.0),))
case("rnn/RNN_tanh_37_units", lambda: ev(Seq(nn.RNN(24, 37))), lambda: (r(9, 2, 24, scale=3.0),))
case("rnn/LSTMCell_37_units", lambda: ev(nn.LSTMCell(24, 37)), lambda: (r(3, 24, scale=3.0),))


# ---------------------------------------------------------------------------------------------
# Transformers and attention (d_model 8, 2 heads).

def encoder_layer(**kwargs):
    return nn.TransformerEncoderLayer(d_model=8, nhead=2, dim_feedforward=16, **kwargs)


def decoder_layer(**kwargs):
    return nn.TransformerDecoderLayer(d_model=8, nhead=2, dim_feedforward=16, **kwargs)


class EncoderWithPaddingMask(nn.Module):
    """A TransformerEncoder (2 layers) given src_key_padding_mask."""

    def __init__(self):
        super().__init__()
        self.encoder = nn.TransformerEncoder(encoder_layer(batch_first=True), 2)

    def forward(self, x: Tensor, padding: Tensor) -> Tensor:
        return self.encoder(x, src_key_padding_mask=padding)


class DecoderCausal(nn.Module):
    """A TransformerDecoderLayer with a causal tgt_mask."""

    def __init__(self):
        super().__init__()
        self.decoder = decoder_layer()

    def forward(self, tgt: Tensor, memory: Tensor) -> Tensor:
        mask = torch.triu(torch.full((tgt.size(0), tgt.size(0)), float("-inf")), diagonal=1)
        return self.decoder(tgt, memory, tgt_mask=mask)


case("transformer/TransformerEncoderLayer", lambda: ev(encoder_layer()), lambda: (r(5, 2, 8),))
case("transformer/TransformerEncoderLayer_batch_first", lambda: ev(encoder_layer(batch_first=True)),
     lambda: (r(2, 5, 8),))
case("transformer/TransformerEncoderLayer_norm_first_gelu",
     lambda: ev(encoder_layer(norm_first=True, activation="gelu")), lambda: (r(5, 2, 8),))
case("transformer/TransformerEncoder_padding_mask", lambda: ev(EncoderWithPaddingMask()),
     lambda: (r(2, 5, 8), torch.tensor([[False] * 5, [False, False, False, True, True]])))
case("transformer/TransformerDecoderLayer", lambda: ev(decoder_layer()), lambda: (r(4, 2, 8), r(5, 2, 8)))
case("transformer/TransformerDecoderLayer_batch_first_norm_first",
     lambda: ev(decoder_layer(batch_first=True, norm_first=True)), lambda: (r(2, 4, 8), r(2, 5, 8)))
case("transformer/TransformerDecoderLayer_causal", lambda: ev(DecoderCausal()), lambda: (r(4, 2, 8), r(5, 2, 8)))
case("transformer/Transformer",
     lambda: ev(nn.Transformer(d_model=8, nhead=2, num_encoder_layers=1, num_decoder_layers=1, dim_feedforward=16)),
     lambda: (r(5, 2, 8), r(4, 2, 8)))


class Attention(nn.Module):
    """MultiheadAttention(q, k, v) with the options given; returns (output, weights or None)."""

    def __init__(self, need_weights: bool, average: bool = True, **kwargs):
        super().__init__()
        self.mha = nn.MultiheadAttention(8, 2, **kwargs)
        self.need_weights = need_weights
        self.average = average

    def forward(self, q: Tensor, k: Tensor, v: Tensor) -> Tuple[Tensor, Optional[Tensor]]:
        return self.mha(q, k, v, need_weights=self.need_weights, average_attn_weights=self.average)


class AttentionMasks(nn.Module):
    """MultiheadAttention self-attention with a float attn_mask and a bool key_padding_mask."""

    def __init__(self):
        super().__init__()
        self.mha = nn.MultiheadAttention(8, 2)

    def forward(self, x: Tensor, attn_mask: Tensor, padding: Tensor) -> Tuple[Tensor, Optional[Tensor]]:
        return self.mha(x, x, x, key_padding_mask=padding, attn_mask=attn_mask)


case("attention/MHA_need_weights", lambda: ev(Attention(True)), lambda: (r(4, 2, 8), r(5, 2, 8), r(5, 2, 8)))
case("attention/MHA_no_weights", lambda: ev(Attention(False)), lambda: (r(4, 2, 8), r(5, 2, 8), r(5, 2, 8)))
case("attention/MHA_per_head_weights", lambda: ev(Attention(True, average=False)),
     lambda: (r(4, 2, 8), r(5, 2, 8), r(5, 2, 8)))
case("attention/MHA_batch_first", lambda: ev(Attention(True, batch_first=True)),
     lambda: (r(2, 4, 8), r(2, 5, 8), r(2, 5, 8)))
# PyTorch 1.13 cannot script MultiheadAttention with kdim/vdim (its fast-path check reads
# in_proj_weight, which is None then); kept to show it.
case("attention/MHA_kdim_vdim", lambda: ev(Attention(True, kdim=5, vdim=3)),
     lambda: (r(4, 2, 8), r(5, 2, 5), r(5, 2, 3)))
case("attention/MHA_bias_kv_zero_attn", lambda: ev(Attention(True, add_bias_kv=True, add_zero_attn=True)),
     lambda: (r(4, 2, 8), r(5, 2, 8), r(5, 2, 8)))
case("attention/MHA_masks", lambda: ev(AttentionMasks()),
     lambda: (r(4, 2, 8), r(4, 4), torch.tensor([[False, False, False, True], [False] * 4])))


# ---------------------------------------------------------------------------------------------
# Linear layers and distances.

case("linear/Linear", lambda: ev(nn.Linear(4, 3)), lambda: (r(2, 4),))
case("linear/Linear_no_bias_3d", lambda: ev(nn.Linear(4, 3, bias=False)), lambda: (r(2, 5, 4),))
case("linear/Linear_1d_input", lambda: ev(nn.Linear(4, 3)), lambda: (r(4),))
case("linear/Bilinear", lambda: ev(nn.Bilinear(4, 5, 3)), lambda: (r(2, 4), r(2, 5)))
case("distance/CosineSimilarity", lambda: ev(nn.CosineSimilarity(dim=1)), lambda: (r(2, 5, 3), r(2, 5, 3)))
case("distance/CosineSimilarity_broadcast", lambda: ev(nn.CosineSimilarity(dim=-1, eps=1e-6)),
     lambda: (r(2, 3, 4), r(1, 4)))
case("distance/PairwiseDistance", lambda: ev(nn.PairwiseDistance()), lambda: (r(3, 5), r(3, 5)))
case("distance/PairwiseDistance_p1_keepdim", lambda: ev(nn.PairwiseDistance(p=1.0, keepdim=True)),
     lambda: (r(3, 5), r(3, 5)))


# ---------------------------------------------------------------------------------------------
# Losses (forward(input, target)). The common ones first, then the other losses that
# script in 1.13.

def probs(*shape):
    return torch.rand(*shape) * 0.98 + 0.01


LOSSES = [
    ("MSELoss", lambda: nn.MSELoss(), lambda: (r(3, 4), r(3, 4))),
    ("MSELoss_sum", lambda: nn.MSELoss(reduction="sum"), lambda: (r(3, 4), r(3, 4))),
    ("MSELoss_none", lambda: nn.MSELoss(reduction="none"), lambda: (r(3, 4), r(3, 4))),
    ("L1Loss", lambda: nn.L1Loss(), lambda: (r(3, 4), r(3, 4))),
    ("CrossEntropyLoss", lambda: nn.CrossEntropyLoss(), lambda: (r(3, 5), torch.tensor([1, 0, 4]))),
    ("CrossEntropyLoss_weight_ignore",
     lambda: nn.CrossEntropyLoss(weight=torch.rand(5), ignore_index=2), lambda: (r(4, 5), torch.tensor([1, 2, 4, 0]))),
    ("CrossEntropyLoss_label_smoothing", lambda: nn.CrossEntropyLoss(label_smoothing=0.1),
     lambda: (r(3, 5), torch.tensor([1, 0, 4]))),
    ("CrossEntropyLoss_probabilities", lambda: nn.CrossEntropyLoss(), lambda: (r(3, 5), r(3, 5).softmax(1))),
    ("CrossEntropyLoss_spatial_none", lambda: nn.CrossEntropyLoss(reduction="none"),
     lambda: (r(2, 4, 3, 3), torch.randint(0, 4, (2, 3, 3)))),
    ("NLLLoss", lambda: nn.NLLLoss(), lambda: (r(3, 5).log_softmax(1), torch.tensor([1, 0, 4]))),
    ("NLLLoss_weight_sum", lambda: nn.NLLLoss(weight=torch.rand(5), reduction="sum"),
     lambda: (r(3, 5).log_softmax(1), torch.tensor([1, 0, 4]))),
    ("NLLLoss_spatial", lambda: nn.NLLLoss(), lambda: (r(2, 4, 3, 3).log_softmax(1), torch.randint(0, 4, (2, 3, 3)))),
    ("BCELoss", lambda: nn.BCELoss(), lambda: (probs(3, 4), torch.randint(0, 2, (3, 4)).float())),
    ("BCELoss_weight", lambda: nn.BCELoss(weight=torch.rand(4)), lambda: (probs(3, 4), probs(3, 4))),
    ("BCEWithLogitsLoss", lambda: nn.BCEWithLogitsLoss(), lambda: (r(3, 4), torch.randint(0, 2, (3, 4)).float())),
    ("BCEWithLogitsLoss_pos_weight", lambda: nn.BCEWithLogitsLoss(pos_weight=torch.rand(4) + 0.5),
     lambda: (r(3, 4), probs(3, 4))),
    ("SmoothL1Loss", lambda: nn.SmoothL1Loss(beta=0.5), lambda: (r(3, 4), r(3, 4))),
    ("HuberLoss", lambda: nn.HuberLoss(delta=0.5), lambda: (r(3, 4), r(3, 4))),
    ("KLDivLoss_batchmean", lambda: nn.KLDivLoss(reduction="batchmean"),
     lambda: (r(3, 4).log_softmax(1), r(3, 4).softmax(1))),
    ("KLDivLoss_log_target", lambda: nn.KLDivLoss(reduction="sum", log_target=True),
     lambda: (r(3, 4).log_softmax(1), r(3, 4).log_softmax(1))),
    # Other losses.
    ("PoissonNLLLoss", lambda: nn.PoissonNLLLoss(), lambda: (r(3, 4), torch.rand(3, 4) * 3)),
    ("PoissonNLLLoss_full", lambda: nn.PoissonNLLLoss(log_input=False, full=True),
     lambda: (torch.rand(3, 4) + 0.1, torch.rand(3, 4) * 3)),
    ("SoftMarginLoss", lambda: nn.SoftMarginLoss(), lambda: (r(3, 4), torch.randint(0, 2, (3, 4)).float() * 2 - 1)),
    ("MultiLabelSoftMarginLoss", lambda: nn.MultiLabelSoftMarginLoss(),
     lambda: (r(3, 4), torch.randint(0, 2, (3, 4)).float())),
    ("HingeEmbeddingLoss", lambda: nn.HingeEmbeddingLoss(), lambda: (r(3, 4), torch.randint(0, 2, (3, 4)).float() * 2 - 1)),
    ("MultiMarginLoss", lambda: nn.MultiMarginLoss(), lambda: (r(3, 5), torch.tensor([1, 0, 4]))),
    ("MultiLabelMarginLoss", lambda: nn.MultiLabelMarginLoss(), lambda: (r(2, 4), torch.tensor([[3, 0, -1, 1], [1, 2, 3, -1]]))),
]
for _name, _build, _inputs in LOSSES:
    case(f"loss/{_name}", lambda b=_build: ev(b()), _inputs)


class GaussianNLL(nn.Module):
    def __init__(self):
        super().__init__()
        self.loss = nn.GaussianNLLLoss()

    def forward(self, x: Tensor, target: Tensor, var: Tensor) -> Tensor:
        return self.loss(x, target, var)


class ThreeInputLoss(nn.Module):
    """Losses taking three tensors: CosineEmbedding, MarginRanking, TripletMargin."""

    def __init__(self, loss: nn.Module):
        super().__init__()
        self.loss = loss

    def forward(self, a: Tensor, b: Tensor, c: Tensor) -> Tensor:
        return self.loss(a, b, c)


class CTC(nn.Module):
    def __init__(self):
        super().__init__()
        self.loss = nn.CTCLoss()

    def forward(self, log_probs: Tensor, targets: Tensor, input_lengths: Tensor, target_lengths: Tensor) -> Tensor:
        return self.loss(log_probs, targets, input_lengths, target_lengths)


case("loss/GaussianNLLLoss", lambda: ev(GaussianNLL()), lambda: (r(3, 4), r(3, 4), torch.rand(3, 4) + 0.1))
case("loss/CosineEmbeddingLoss", lambda: ev(ThreeInputLoss(nn.CosineEmbeddingLoss(margin=0.1))),
     lambda: (r(3, 5), r(3, 5), torch.tensor([1.0, -1.0, -1.0])))
case("loss/MarginRankingLoss", lambda: ev(ThreeInputLoss(nn.MarginRankingLoss(margin=0.2))),
     lambda: (r(4), r(4), torch.tensor([1.0, -1.0, 1.0, -1.0])))
case("loss/TripletMarginLoss", lambda: ev(ThreeInputLoss(nn.TripletMarginLoss())), lambda: (r(3, 5), r(3, 5), r(3, 5)))
case("loss/CTCLoss", lambda: ev(CTC()),
     lambda: (r(6, 2, 5).log_softmax(2), torch.tensor([[1, 2, 2], [3, 1, 0]]), torch.tensor([6, 5]),
              torch.tensor([3, 2])))


# ---------------------------------------------------------------------------------------------
# TorchScript builtins. Each module takes its values as inputs (so nothing is folded away at
# script time) and returns everything it computed. The groups are small so that one missing
# operator hides little: a case runs only when symbolite has all of its operators.

# Conversions.

class StrOf(nn.Module):
    """str() of int, float (PyTorch prints 17 significant digits: 0.10000000000000001), bool,
    list and tuple."""

    def forward(self, n: int, f: float, g: float) -> List[str]:
        return [str(n), str(f), str(g), str(n < 0), str([n, 2]), str((n, f)), str([f])]


class IntOf(nn.Module):
    """int() of float (truncation), str and bool."""

    def forward(self, n: int, f: float) -> List[int]:
        return [int(f), int(-f), int(-2.5), int("42"), int(True), int(n * 1.9)]


class FloatOf(nn.Module):
    """float() of int, str and bool."""

    def forward(self, n: int, s: str) -> List[float]:
        return [float(n), float(s), float("-1e-3"), float(True)]


class BoolOf(nn.Module):
    """bool() of int, float and str."""

    def forward(self, n: int, f: float, s: str) -> List[bool]:
        return [bool(n), bool(0), bool(f), bool(0.0), bool(""), bool(s)]


class TensorToScalar(nn.Module):
    """int()/float()/bool() of a tensor, .item(), numel, dim."""

    def forward(self, x: Tensor) -> Tuple[int, float, float, bool, int, int]:
        return int(x.sum() * 10), float(x.max()), float(x.sum().item()), bool(x.sum() > 0), x.numel(), x.dim()


class TensorToList(nn.Module):
    """Tensor.tolist() with annotated types (the TO_LIST instruction)."""

    def forward(self, x: Tensor, idx: Tensor) -> Tuple[List[List[float]], List[int]]:
        values: List[List[float]] = x.tolist()
        ids: List[int] = idx.tolist()
        return values, ids


class TensorSizes(nn.Module):
    """x.size(), x.shape[i], len(x) as ints and lists."""

    def forward(self, x: Tensor) -> Tuple[List[int], int, int, int]:
        return x.size(), x.shape[-1], x.size(0), len(x)


# Strings.

class StrConcat(nn.Module):
    """String + and ==/!=/< comparisons."""

    def forward(self, s: str, t: str) -> Tuple[str, List[bool]]:
        return s + "-" + t, [s == t, s != t, s < t, s >= "Hello"]


class StrFString(nn.Module):
    """f-strings with ints, floats and strings."""

    def forward(self, s: str, n: int, f: float) -> List[str]:
        return [f"{s}:{n}", f"{n * 2}{s}", f"{f}"]


class StrFormat(nn.Module):
    """str.format with strings, ints, floats, lists."""

    def forward(self, s: str, n: int, f: float) -> List[str]:
        return ["{} and {}".format(s, n), "{}|{}".format(f, [n, n + 1])]


class StrPercent(nn.Module):
    """%-formatting."""

    def forward(self, s: str, n: int) -> str:
        return "n=%d s=%s" % (n, s)


class StrSplit(nn.Module):
    """str.split with a separator, on whitespace, with maxsplit."""

    def forward(self, s: str, sep: str) -> Tuple[List[str], List[str], List[str]]:
        return s.split(sep), s.split(), s.split(sep, 1)


class StrJoin(nn.Module):
    """str.join."""

    def forward(self, a: str, b: str) -> Tuple[str, str]:
        return "+".join([a, b, a]), "".join([b])


class StrStrip(nn.Module):
    """strip, lstrip, rstrip (with characters)."""

    def forward(self, s: str) -> List[str]:
        return [s.strip(), s.lstrip(), s.rstrip(), s.rstrip(" d"), s.strip(" a")]


class StrQuery(nn.Module):
    """startswith, endswith, `in`, len."""

    def forward(self, s: str, t: str) -> Tuple[List[bool], int]:
        return [s.startswith("He"), s.endswith(t), t in s, "zz" in s], len(s)


class StrSlice(nn.Module):
    """String indexing and slicing (with steps)."""

    def forward(self, s: str) -> List[str]:
        return [s[0], s[-1], s[1:4], s[-3:], s[:2], s[::2], s[::-1]]


class StrFind(nn.Module):
    """find, rfind, count, replace."""

    def forward(self, s: str) -> Tuple[List[int], str]:
        return [s.find("o"), s.find("zz"), s.rfind("o"), s.count("l")], s.replace("l", "L")


class StrCase(nn.Module):
    """upper, lower, title, capitalize, swapcase."""

    def forward(self, s: str) -> List[str]:
        return [s.upper(), s.lower(), s.title(), s.capitalize(), s.swapcase()]


class StrPredicates(nn.Module):
    """isdigit, isupper, islower, isalpha, isspace, isalnum."""

    def forward(self, s: str, t: str) -> List[bool]:
        return [s.isdigit(), t.isdigit(), s.isupper(), s.islower(), s.isalpha(), t.isspace(), t.isalnum()]


class StrPad(nn.Module):
    """zfill, center, ljust, rjust."""

    def forward(self, s: str) -> List[str]:
        return [s.zfill(8), s.center(9, "*"), s.ljust(7, "."), s.rjust(7)]


class StrOrdChr(nn.Module):
    """ord and chr."""

    def forward(self, s: str, n: int) -> Tuple[int, str]:
        return ord(s[0]), chr(65 + n)


# Lists.

class ListAppend(nn.Module):
    """List literal, append, len, indexing, assignment."""

    def forward(self, n: int, m: int) -> Tuple[List[int], int, int]:
        a: List[int] = [3, n]
        a.append(m)
        a[0] = a[-1] * 2
        return a, len(a), a[1]


class ListExtendInsert(nn.Module):
    """extend and insert (at a negative index too)."""

    def forward(self, n: int, m: int) -> List[int]:
        a: List[int] = [3, n]
        a.extend([7, m])
        a.insert(1, 9)
        a.insert(-1, 8)
        return a


class ListPopRemove(nn.Module):
    """pop (last and at an index), remove, del, clear."""

    def forward(self, n: int, m: int) -> Tuple[List[int], int, int, List[int]]:
        a: List[int] = [3, n, 1, -2, m, 7]
        last = a.pop()
        first = a.pop(0)
        a.remove(1)
        del a[0]
        b = [n, m]
        b.clear()
        return a, last, first, b


class ListCopyReverseConcat(nn.Module):
    """copy, reverse, + and * of lists."""

    def forward(self, n: int, m: int) -> Tuple[List[int], List[int], List[int], List[int]]:
        a: List[int] = [3, n, m]
        b = a.copy()
        b.reverse()
        return a, b, a + b, [0, m] * 3


class ListIndexCount(nn.Module):
    """index, count, `in`, == and != of lists."""

    def forward(self, n: int, m: int) -> Tuple[List[int], List[bool]]:
        a: List[int] = [5, n, -3, m, n]
        return [a.index(-3), a.index(n), a.count(n)], [n in a, 99 in a, a == [5, n, -3, m, n], a != [1]]


class ListSort(nn.Module):
    """list.sort (also reverse=True), sorted, on ints, floats and strings."""

    def forward(self, n: int, m: int) -> Tuple[List[int], List[int], List[int], List[float], List[str]]:
        a: List[int] = [5, n, -3, m, 0]
        b = a.copy()
        b.sort()
        c = a.copy()
        c.sort(reverse=True)
        fl: List[float] = [2.5, -1.0, float(n)]
        fl.sort()
        return b, c, sorted(a), fl, sorted(["b", "a", str(n)])


class ListSlice(nn.Module):
    """List slicing: bounds, negative bounds, steps, past the end."""

    def forward(self, n: int, m: int) -> List[List[int]]:
        a: List[int] = [5, n, -3, m, n, 0, 12]
        return [a[1:4], a[::2], a[-2:], a[::-1], a[5:100], a[:n]]


class ListSumMinMax(nn.Module):
    """sum, min, max of int and float lists, and min/max of two values."""

    def forward(self, n: int, m: int) -> Tuple[List[int], List[float]]:
        a: List[int] = [5, n, -3, m]
        fl: List[float] = [2.5, -1.0, float(n)]
        return [sum(a), min(a), max(a), min(n, m), max(n, m)], [sum(fl), min(fl), max(fl), max(2.5, float(m))]


class ListComprehension(nn.Module):
    """List comprehension over range, enumerate and zip."""

    def forward(self, n: int) -> Tuple[List[int], List[int], List[int]]:
        a = [i * 2 for i in range(n)]
        b = [i * v for i, v in enumerate(a)]
        return a, b, [x - y for x, y in zip(a, b)]


class ListOfTensors(nn.Module):
    """Lists of tensors: append, indexing, len, slicing, torch.stack/cat."""

    def forward(self, x: Tensor, n: int) -> Tuple[Tensor, Tensor, List[Tensor], int]:
        ts: List[Tensor] = []
        for i in range(n):
            ts.append(x * i)
        total = torch.zeros_like(x)
        for t in ts[1:]:
            total = total + t
        return torch.stack(ts), torch.cat(ts[::2], dim=0), [ts[-1], total], len(ts)


# Dicts.

class DictKeysValuesItems(nn.Module):
    """Dict literal, keys, values, items (in insertion order), len, indexing."""

    def forward(self, n: int, s: str) -> Tuple[List[str], List[int], List[Tuple[str, int]], int, int]:
        d: Dict[str, int] = {"b": 2, "a": n, s: 3}
        d["z"] = 0
        return list(d.keys()), list(d.values()), list(d.items()), len(d), d["a"]


class DictGetSetdefaultPop(nn.Module):
    """get (with and without default), setdefault, pop (with and without default)."""

    def forward(self, n: int, s: str) -> Tuple[List[int], Dict[str, int]]:
        d: Dict[str, int] = {"b": 2, "a": n, s: 3}
        got = [d.get("zz", -1), d.get("a", 0), d.setdefault("c", 7), d.setdefault("a", 100), d.pop("b"),
               d.pop("nope", -5)]
        maybe = d.get("zz")
        got.append(-9 if maybe is None else maybe)
        return got, d


class DictContains(nn.Module):
    """`in` on dicts."""

    def forward(self, n: int, s: str) -> List[bool]:
        d: Dict[str, int] = {"b": 2, "a": n, s: 3}
        return ["a" in d, "zz" in d, s in d]


class DictSortedKeys(nn.Module):
    """sorted(d.keys()) and sorted(d) of string-keyed and int-keyed dicts."""

    def forward(self, n: int, s: str) -> Tuple[List[str], List[int]]:
        d: Dict[str, int] = {"b": 2, "a": n, s: 3}
        e: Dict[int, str] = {n: "x", -1: "y", 10: s}
        return sorted(d.keys()), sorted(e.keys())


class DictUpdateDel(nn.Module):
    """update, del, copy, clear, dict comprehension, iteration; a Dict[int, str] result."""

    def forward(self, n: int, s: str) -> Tuple[Dict[str, int], Dict[int, str], List[int], Dict[str, int]]:
        d: Dict[str, int] = {"b": 2, "a": n, s: 3}
        d.update({"e": 5, "a": -1})
        del d["b"]
        inverse: Dict[int, str] = {v: k for k, v in d.items()}
        doubled: List[int] = []
        for k in d:
            doubled.append(d[k] * 2)
        e = d.copy()
        e.clear()
        return d, inverse, doubled, e


class DictOfTensors(nn.Module):
    """Dict[str, Tensor] built, read and returned; Dict[int, Tensor] with int keys."""

    def forward(self, x: Tensor, n: int) -> Tuple[Dict[str, Tensor], Dict[int, Tensor], Tensor]:
        d: Dict[str, Tensor] = {"x": x, "double": x * 2}
        d["neg"] = -x
        by_int: Dict[int, Tensor] = {}
        for i in range(n):
            by_int[i * 10] = x + i
        total = torch.zeros_like(x)
        for k, v in d.items():
            if k != "x":
                total = total + v
        return d, by_int, total


# The math module.

class MathExpLog(nn.Module):
    """math.sqrt, exp, log (both forms), log10, log1p, expm1."""

    def forward(self, f: float, g: float) -> List[float]:
        return [math.sqrt(f), math.exp(g), math.log(f), math.log(f, 3.0), math.log10(f), math.log1p(f), math.expm1(g)]


class MathPowAbs(nn.Module):
    """math.pow, float **, fabs, copysign, fmod."""

    def forward(self, f: float, g: float) -> List[float]:
        return [math.pow(f, g), f ** g, math.fabs(g), math.copysign(f, g), math.fmod(g, f)]


class MathRounding(nn.Module):
    """math.floor, ceil (ints), round (float, halves to even), modf, frexp, ldexp."""

    def forward(self, f: float, g: float) -> Tuple[List[int], List[float]]:
        return ([math.floor(g), math.ceil(g), math.floor(f), math.ceil(f), math.frexp(f)[1]],
                [round(g), round(2.5), round(-0.5), math.modf(g)[0], math.modf(g)[1], math.frexp(f)[0],
                 math.ldexp(f, 3)])


class MathTrig(nn.Module):
    """math.sin, cos, tan, asin, acos, atan, atan2, degrees, radians."""

    def forward(self, f: float, g: float) -> List[float]:
        return [math.sin(g), math.cos(g), math.tan(g), math.asin(g / 4), math.acos(g / 4), math.atan(g),
                math.atan2(g, f), math.degrees(g), math.radians(f)]


class MathHyperbolic(nn.Module):
    """math.sinh, cosh, tanh, asinh, acosh, atanh."""

    def forward(self, f: float, g: float) -> List[float]:
        return [math.sinh(g), math.cosh(g), math.tanh(g), math.asinh(g), math.acosh(f + 1), math.atanh(g / 4)]


class MathSpecial(nn.Module):
    """math.erf, erfc, gamma, lgamma."""

    def forward(self, f: float, g: float) -> List[float]:
        return [math.erf(g), math.erfc(g), math.gamma(f), math.lgamma(f), math.lgamma(g)]


class MathPredicates(nn.Module):
    """math.isnan, isinf, isfinite; math.pi, e, inf, nan."""

    def forward(self, f: float) -> Tuple[List[bool], List[float]]:
        return ([math.isnan(f), math.isnan(math.nan), math.isinf(math.inf), math.isinf(f), math.isfinite(f)],
                [math.pi, math.e, -math.inf])


class MathIntFunctions(nn.Module):
    """math.gcd, factorial; abs of ints."""

    def forward(self, a: int, b: int) -> List[int]:
        return [math.gcd(a, b), math.gcd(-a, 0), math.factorial(b), abs(-a)]


class IntBitOps(nn.Module):
    """&, |, ^, <<, >> on ints (negative too)."""

    def forward(self, a: int, b: int) -> List[int]:
        return [a & b, a | b, a ^ b, a << 3, -a >> 1, a >> b]


class IntPowMinMax(nn.Module):
    """int ** int (a float in TorchScript), min/max of ints, unary minus."""

    def forward(self, a: int, b: int) -> Tuple[List[float], List[int]]:
        return [a ** 2, b ** -1, (-a) ** 3], [max(a, b), min(a, -b), -a]


# Division and modulo with negatives.

class IntFloorDiv(nn.Module):
    """int // with all sign combinations (Python floors)."""

    def forward(self, a: int, b: int) -> List[int]:
        return [a // b, -a // b, a // -b, -a // -b]


class IntMod(nn.Module):
    """int % with all sign combinations (the result has the divisor's sign)."""

    def forward(self, a: int, b: int) -> List[int]:
        return [a % b, -a % b, a % -b, -a % -b]


class IntDivmod(nn.Module):
    """divmod of ints."""

    def forward(self, a: int, b: int) -> List[int]:
        return [divmod(a, b)[0], divmod(a, b)[1], divmod(-a, b)[0], divmod(-a, b)[1]]


class IntTrueDiv(nn.Module):
    """int / int (a float)."""

    def forward(self, a: int, b: int) -> List[float]:
        return [a / b, -a / b, a / -b]


class FloatFloorDivMod(nn.Module):
    """float // and % (float with int and float with float), negatives."""

    def forward(self, a: int, b: int) -> List[float]:
        fa, fb = float(a), float(b)
        return [fa // b, fa % b, -fa // b, -fa % b, fa % -b, fa // -fb, -fa % fb, fa % -fb]


class FloatDivmodFmod(nn.Module):
    """divmod of floats, math.fmod with negatives."""

    def forward(self, a: int, b: int) -> List[float]:
        fa, fb = float(a), float(b)
        return [divmod(-fa, fb)[0], divmod(-fa, fb)[1], math.fmod(-fa, fb), math.fmod(fa, -fb)]


class TensorFloorDiv(nn.Module):
    """Tensor // (floor_divide) on float and int tensors, and with an int."""

    def forward(self, x: Tensor, y: Tensor, xi: Tensor, yi: Tensor, n: int) -> List[Tensor]:
        return [x // y, xi // yi, xi // n]


class TensorRemainder(nn.Module):
    """Tensor % and torch.remainder (the divisor's sign), on float and int tensors."""

    def forward(self, x: Tensor, y: Tensor, xi: Tensor, yi: Tensor, n: int) -> List[Tensor]:
        return [x % y, torch.remainder(x, y), xi % yi, xi % n, torch.remainder(xi, -n)]


class TensorFmod(nn.Module):
    """torch.fmod (the dividend's sign), on float and int tensors."""

    def forward(self, x: Tensor, y: Tensor, xi: Tensor, yi: Tensor, n: int) -> List[Tensor]:
        return [torch.fmod(x, y), torch.fmod(xi, yi), torch.fmod(x, 2.5)]


class TensorDivModes(nn.Module):
    """torch.div with rounding_mode floor and trunc, and true division of int tensors."""

    def forward(self, x: Tensor, y: Tensor, xi: Tensor, yi: Tensor, n: int) -> List[Tensor]:
        return [torch.div(x, y, rounding_mode="floor"), torch.div(x, y, rounding_mode="trunc"),
                torch.div(xi, yi, rounding_mode="trunc"), torch.div(xi, yi, rounding_mode="floor"), xi / yi]


class TensorScalarModes(nn.Module):
    """A number % a tensor (remainder.Scalar_Tensor), torch.div by a number with each rounding
    mode (div.Scalar_mode), and a tensor // a tensor of another dtype."""

    def forward(self, x: Tensor, y: Tensor, xi: Tensor, yi: Tensor, n: int) -> List[Tensor]:
        return [n % yi, 2.5 % y, torch.div(x, 2, rounding_mode="floor"),
                torch.div(xi, n, rounding_mode="trunc"), torch.div(xi, -2.5, rounding_mode=None),
                torch.div(x, yi, rounding_mode="floor"), xi // y]


class EinsumDiagonals(nn.Module):
    """einsum with a label repeated in one operand: diagonal, trace, diagonal then sum."""

    def forward(self, a: Tensor, b: Tensor) -> List[Tensor]:
        return [torch.einsum("ii->i", a), torch.einsum("ii", a), torch.einsum("iij->j", b),
                torch.einsum("ii,ij->ij", a, b[0])]


class InPlaceShapes(nn.Module):
    """unsqueeze_/squeeze_ change the tensor every name for it holds."""

    def forward(self, x: Tensor) -> Tuple[List[int], List[int], Tensor]:
        y = x
        x.unsqueeze_(0)
        first = y.size()
        y.squeeze_()
        y.unsqueeze_(-1).squeeze_(1)
        return first, x.size(), x * 2


class TransposedUnderscoreConvolution(nn.Module):
    """torch._convolution with transposed=True, 1-d and 2-d (groups, output_padding,
    dilation)."""

    def __init__(self):
        super().__init__()
        self.w1 = nn.Parameter(torch.randn(4, 3, 3))
        self.w2 = nn.Parameter(torch.randn(4, 2, 3, 2))
        self.b2 = nn.Parameter(torch.randn(4))

    def forward(self, x1: Tensor, x2: Tensor) -> List[Tensor]:
        y1 = torch._convolution(x1, self.w1, None, [2], [1], [1], True, [1], 1, False, False, True, True)
        y2 = torch._convolution(x2, self.w2, self.b2, [2, 3], [1, 0], [2, 1], True, [1, 2], 2,
                                False, False, True, True)
        return [y1, y2]


# Control flow.

class RangeLoop(nn.Module):
    """for over range with a negative step, continue and break."""

    def forward(self, n: int) -> List[int]:
        out: List[int] = []
        for i in range(n, -n, -3):
            if i == 0:
                continue
            if i < -4:
                break
            out.append(i)
        return out


class WhileLoop(nn.Module):
    """while with a condition, conditional expressions, +=."""

    def forward(self, n: int) -> Tuple[int, int, str]:
        k = 0
        total = 0
        while k * k < n * 10:
            total += k if k % 2 == 0 else -k
            k += 1
        return k, total, "big" if n > 3 else "small"


class OptionalArg(nn.Module):
    """An Optional[int] argument, refined with `is not None`."""

    def forward(self, n: int, maybe: Optional[int]) -> Tuple[int, Optional[int]]:
        m = maybe if maybe is not None else -1
        return n + m, maybe


_FLOAT_PAIR = lambda: (2.5, -1.25)  # noqa: E731
_DIV_TENSORS = lambda: (  # noqa: E731 (x, y float; xi, yi int; n)
    torch.tensor([7.0, -7.0, 7.5, -7.5, 0.0, 3.0]), torch.tensor([2.0, 2.0, -2.0, -2.0, 3.0, -1.5]),
    torch.tensor([7, -7, 7, -7, 0, 9]), torch.tensor([2, 2, -2, -2, 3, -4]), 3)
BUILTINS = [
    ("str_of", StrOf, lambda: (-7, 0.1, 1e20)),
    ("int_of", IntOf, lambda: (-7, -2.75)),
    ("float_of", FloatOf, lambda: (-7, "2.5")),
    ("bool_of", BoolOf, lambda: (-7, -2.75, "a")),
    ("tensor_to_scalar", TensorToScalar, lambda: (r(2, 3),)),
    ("tensor_tolist", TensorToList, lambda: (r(2, 3), torch.tensor([3, -1, 4]))),
    ("tensor_sizes", TensorSizes, lambda: (r(2, 3, 4),)),
    ("str_concat_compare", StrConcat, lambda: ("Hello", "World")),
    ("str_fstring", StrFString, lambda: ("ab", -3, 0.1)),
    ("str_format", StrFormat, lambda: ("ab", -3, 0.1)),
    ("str_percent", StrPercent, lambda: ("ab", -3)),
    ("str_split", StrSplit, lambda: ("  a,b,,c d  ", ",")),
    ("str_join", StrJoin, lambda: ("ab", "c")),
    ("str_strip", StrStrip, lambda: ("  a,b c d  ",)),
    ("str_startswith_in_len", StrQuery, lambda: ("Hello, World", "ld")),
    ("str_slice", StrSlice, lambda: ("Hello, World",)),
    ("str_find_count_replace", StrFind, lambda: ("Hello, World",)),
    ("str_case", StrCase, lambda: ("hello wORLD",)),
    ("str_predicates", StrPredicates, lambda: ("Hello", "123")),
    ("str_pad", StrPad, lambda: ("-42",)),
    ("str_ord_chr", StrOrdChr, lambda: ("Hello", 3)),
    ("list_append", ListAppend, lambda: (4, -6)),
    ("list_extend_insert", ListExtendInsert, lambda: (4, -6)),
    ("list_pop_remove_del_clear", ListPopRemove, lambda: (4, -6)),
    ("list_copy_reverse_concat", ListCopyReverseConcat, lambda: (4, -6)),
    ("list_index_count_in", ListIndexCount, lambda: (4, -6)),
    ("list_sort", ListSort, lambda: (4, -6)),
    ("list_slice", ListSlice, lambda: (4, -6)),
    ("list_sum_min_max", ListSumMinMax, lambda: (4, -6)),
    ("list_comprehension", ListComprehension, lambda: (4,)),
    ("list_of_tensors", ListOfTensors, lambda: (r(2, 3), 3)),
    ("dict_keys_values_items", DictKeysValuesItems, lambda: (4, "key")),
    ("dict_get_setdefault_pop", DictGetSetdefaultPop, lambda: (4, "key")),
    ("dict_contains", DictContains, lambda: (4, "key")),
    ("dict_sorted_keys", DictSortedKeys, lambda: (4, "key")),
    ("dict_update_del_iter", DictUpdateDel, lambda: (4, "key")),
    ("dict_of_tensors", DictOfTensors, lambda: (r(2, 2), 3)),
    ("math_exp_log", MathExpLog, _FLOAT_PAIR),
    ("math_pow_abs", MathPowAbs, _FLOAT_PAIR),
    ("math_rounding", MathRounding, _FLOAT_PAIR),
    ("math_trig", MathTrig, _FLOAT_PAIR),
    ("math_hyperbolic", MathHyperbolic, _FLOAT_PAIR),
    ("math_special", MathSpecial, _FLOAT_PAIR),
    ("math_predicates_constants", MathPredicates, lambda: (2.5,)),
    ("math_gcd_factorial_abs", MathIntFunctions, lambda: (12, 5)),
    ("int_bitops", IntBitOps, lambda: (12, 5)),
    ("int_pow_min_max", IntPowMinMax, lambda: (12, 5)),
    ("int_floordiv", IntFloorDiv, lambda: (7, 2)),
    ("int_mod", IntMod, lambda: (7, 2)),
    ("int_divmod", IntDivmod, lambda: (9, 4)),
    ("int_truediv", IntTrueDiv, lambda: (7, 2)),
    ("float_floordiv_mod", FloatFloorDivMod, lambda: (7, 2)),
    ("float_divmod_fmod", FloatDivmodFmod, lambda: (9, 4)),
    ("tensor_floordiv", TensorFloorDiv, _DIV_TENSORS),
    ("tensor_remainder", TensorRemainder, _DIV_TENSORS),
    ("tensor_fmod", TensorFmod, _DIV_TENSORS),
    ("tensor_div_rounding_modes", TensorDivModes, _DIV_TENSORS),
    ("tensor_scalar_rounding_modes", TensorScalarModes, _DIV_TENSORS),
    ("einsum_diagonals", EinsumDiagonals, lambda: (r(3, 3), r(3, 3, 4))),
    ("in_place_shapes", InPlaceShapes, lambda: (r(2, 1, 3),)),
    ("transposed_underscore_convolution", TransposedUnderscoreConvolution,
     lambda: (r(2, 4, 5), r(1, 4, 4, 5))),
    ("range_negative_step", RangeLoop, lambda: (8,)),
    ("while_loop", WhileLoop, lambda: (8,)),
    ("optional_none", OptionalArg, lambda: (8, None)),
    ("optional_some", OptionalArg, lambda: (2, 5)),
]
for _name, _cls, _inputs in BUILTINS:
    case(f"builtins/{_name}", lambda c=_cls: ev(c()), _inputs)


# Tensor operators as users' own models call them (sorting, gathering, scans, statistics,
# writes through an index, torch.tensor of literals, bitwise masks): each model mixes several,
# as real code does.

class SortTopk(nn.Module):
    def forward(self, x: Tensor) -> Tuple[Tensor, Tensor, Tensor, Tensor]:
        v, i = torch.topk(x, 3, dim=-1)
        s, j = torch.sort(x, dim=1, descending=True)
        return v + s[:, :3], i + j[:, :3], torch.argsort(x, dim=-1), torch.sort(x, dim=0, stable=True)[1]


class GatherScatter(nn.Module):
    def forward(self, x: Tensor, idx: Tensor) -> Tuple[Tensor, Tensor, Tensor, Tensor]:
        y = torch.gather(x, 1, idx)
        z = torch.zeros_like(x).scatter_(1, idx, 1.0)
        w = torch.zeros(4, 10).scatter_add(1, idx, x[:, :3])
        return y, z, w, torch.take_along_dim(x, idx, 1)


class ScansAndFlips(nn.Module):
    def forward(self, x: Tensor) -> Tuple[Tensor, Tensor, Tensor, Tensor, Tensor]:
        return (torch.cumsum(x, 0), torch.cumprod(x, 1), x.flip(0), torch.cummax(x, 1)[0],
                x.cumsum(-1, dtype=torch.float64))


class Statistics(nn.Module):
    def forward(self, x: Tensor) -> Tuple[Tensor, Tensor, Tensor, Tensor, Tensor, Tensor, Tensor]:
        var, mean = torch.var_mean(x, 1)
        return (var, mean, torch.std(x, 0, unbiased=False), x.logsumexp(1), x.amin((0, 1)),
                x.argmin(1), x.prod(1))


class MasksAndWhere(nn.Module):
    def forward(self, x: Tensor) -> Tuple[Tensor, Tensor, Tensor, Tensor]:
        keep = (x > 0) | (x < -1.0)
        odd = (x > 0.5) ^ keep
        return (torch.where(keep, x, x * 0.1), torch.nan_to_num(torch.log(x)), x.masked_select(odd),
                torch.count_nonzero(keep, dim=1))


class WritesThroughIndex(nn.Module):
    def forward(self, x: Tensor) -> Tuple[Tensor, Tensor]:
        y = x.clone()
        y[0, 1:3] = 5.0
        y[:, -1] += 1
        y[y > 1] = 0
        idx = torch.tensor([0, 2])
        y.index_put_((idx,), torch.ones(2, 4), accumulate=True)
        return y, x[[0, 2]]


class LiteralsAndFactories(nn.Module):
    def forward(self, x: Tensor) -> Tuple[Tensor, Tensor, Tensor, Tensor, Tensor, Tensor]:
        table = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
        labels = torch.tensor([1, 0, 3])
        onehot = F.one_hot(labels, 4)
        return (table @ x[:2, :2], onehot, torch.eye(3, 4), torch.ones_like(x), x.new_full((2,), 7.0),
                x.diagonal().sum() + torch.trace(x))


class ShapesAndSplits(nn.Module):
    def forward(self, x: Tensor) -> Tuple[Tensor, Tensor, Tensor, Tensor, Tensor, Tensor]:
        parts = torch.split(x, [2, 3, 1], dim=1)
        return (torch.stack([p.sum(1) for p in parts], 0), x.narrow(1, 1, 3),
                x.repeat_interleave(2, dim=0), x.T.contiguous(), torch.movedim(x.unsqueeze(0), 0, 2),
                x.tile((2,)))


class Arithmetic(nn.Module):
    def forward(self, x: Tensor, y: Tensor) -> Tuple[Tensor, Tensor, Tensor, Tensor, Tensor]:
        return (torch.addcmul(x, x, y, value=0.5), torch.addcdiv(x, x, y.abs() + 1), x.square(),
                torch.outer(x[0], y[0]), torch.dot(x[0], y[0]) + torch.mv(x, y[0]).sum())


class GeometryAndChecks(nn.Module):
    def forward(self, x: Tensor, y: Tensor) -> Tuple[Tensor, Tensor, Tensor, Tensor, Tensor, bool]:
        angle = torch.atan2(y, x)
        radius = torch.hypot(x, y)
        bad = torch.isnan(torch.log(x)) | ~torch.isfinite(1.0 / y)
        return angle, radius, bad, torch.cdist(x, y), torch.linalg.cross(x[:, :3], y[:, :3]), bool(
            torch.allclose(x, x + 1e-9))


class StacksAndSplits(nn.Module):
    def forward(self, x: Tensor) -> Tuple[Tensor, Tensor, List[Tensor], Tensor, Tensor]:
        parts = x.split(2, dim=1)
        return (torch.hstack([parts[0], parts[-1]]), torch.vstack([x, x]), list(torch.tensor_split(x, 3)),
                torch.rot90(x, 1, [0, 1]), torch.diff(x, dim=1))


class WeightNormConv(nn.Module):
    def __init__(self):
        super().__init__()
        self.v = nn.Parameter(torch.randn(4, 3, 3))
        self.g = nn.Parameter(torch.rand(4, 1, 1) + 0.5)

    def forward(self, x: Tensor) -> Tuple[Tensor, Tensor]:
        w = torch._weight_norm(self.v, self.g, 0)
        return F.conv1d(x, w, padding=1), torch.linalg.vector_norm(w, 2.0, [1, 2])


class SpatialTransformer(nn.Module):
    def __init__(self):
        super().__init__()
        self.loc = nn.Linear(3 * 8 * 8, 6)

    def forward(self, x: Tensor) -> Tuple[Tensor, Tensor]:
        theta = self.loc(x.flatten(1)).view(-1, 2, 3) * 0.1 + torch.tensor([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]])
        grid = F.affine_grid(theta, [x.size(0), 3, 6, 6], align_corners=False)
        return (F.grid_sample(x, grid, mode="bilinear", padding_mode="border", align_corners=False),
                F.grid_sample(x, grid, mode="nearest", padding_mode="zeros", align_corners=True))


class DistinctValues(nn.Module):
    def forward(self, labels: Tensor, x: Tensor) -> Tuple[Tensor, Tensor, Tensor, Tensor, Tensor]:
        values, inverse, counts = torch.unique(labels, return_inverse=True, return_counts=True)
        return values, inverse, counts, torch.bincount(labels.flatten()), torch.histc(x, bins=5)


class PatchesFoldUnfold(nn.Module):
    def forward(self, x: Tensor) -> Tuple[Tensor, Tensor, Tensor]:
        patches = F.unfold(x, kernel_size=3, padding=1, stride=2)
        back = F.fold(patches, output_size=(7, 7), kernel_size=3, padding=1, stride=2)
        return patches, back, x.unfold(3, 2, 2)


USER_OPS = [
    ("patches_fold_unfold", PatchesFoldUnfold, lambda: (r(2, 3, 7, 7),)),
    ("spatial_transformer", SpatialTransformer, lambda: (r(2, 3, 8, 8),)),
    ("distinct_values", DistinctValues, lambda: (torch.randint(0, 6, (3, 5)), r(40))),
    ("geometry_checks", GeometryAndChecks, lambda: (r(3, 4), r(3, 4))),
    ("stacks_splits", StacksAndSplits, lambda: (r(6, 7),)),
    ("weight_norm_conv", WeightNormConv, lambda: (r(2, 3, 10),)),
    ("sort_topk", SortTopk, lambda: (r(4, 10),)),
    ("gather_scatter", GatherScatter, lambda: (r(4, 10), torch.randint(0, 10, (4, 3)))),
    ("scans_flips", ScansAndFlips, lambda: (r(5, 6),)),
    ("statistics", Statistics, lambda: (r(4, 9),)),
    ("masks_where", MasksAndWhere, lambda: (r(3, 7),)),
    ("writes_through_index", WritesThroughIndex, lambda: (r(3, 4),)),
    ("literals_factories", LiteralsAndFactories, lambda: (r(4, 4),)),
    ("shapes_splits", ShapesAndSplits, lambda: (r(3, 6),)),
    ("arithmetic", Arithmetic, lambda: (r(3, 4), r(3, 4))),
]
for _name, _cls, _inputs in USER_OPS:
    case(f"user_ops/{_name}", lambda c=_cls: ev(c()), _inputs)

# A second batch of users' own forwards (the nineteenth session's probe): attention and
# positional encodings by hand, box arithmetic, padding and resampling modes, small linear
# algebra, losses by hand, sequence packing, special functions.

class PositionalEncoding(nn.Module):
    def __init__(self, d: int = 16, n: int = 32):
        super().__init__()
        pe = torch.zeros(n, d)
        pos = torch.arange(0, n, dtype=torch.float).unsqueeze(1)
        div = torch.exp(torch.arange(0, d, 2).float() * (-math.log(10000.0) / d))
        pe[:, 0::2] = torch.sin(pos * div)
        pe[:, 1::2] = torch.cos(pos * div)
        self.register_buffer("pe", pe.unsqueeze(0))

    def forward(self, x: Tensor) -> Tuple[Tensor, Tensor]:
        n = x.size(1)
        pe = torch.zeros(n, x.size(2))
        pos = torch.arange(0, n, dtype=torch.float).unsqueeze(1)
        div = torch.exp(torch.arange(0, x.size(2), 2).float() * (-math.log(10000.0) / x.size(2)))
        pe[:, 0::2] = torch.sin(pos * div)
        pe[:, 1::2] = torch.cos(pos * div)
        return x + self.pe[:, :n], x + pe


class HandAttention(nn.Module):
    def __init__(self):
        super().__init__()
        self.qkv = nn.Linear(16, 48)
        self.out = nn.Linear(16, 16)

    def forward(self, x: Tensor, lengths: Tensor) -> Tuple[Tensor, Tensor]:
        b, n, c = x.shape
        q, k, v = self.qkv(x).reshape(b, n, 3, 4, c // 4).permute(2, 0, 3, 1, 4).unbind(0)
        att = (q @ k.transpose(-2, -1)) / math.sqrt(q.size(-1))
        causal = torch.triu(torch.ones(n, n, dtype=torch.bool), diagonal=1)
        att = att.masked_fill(causal, float("-inf"))
        pad = torch.arange(n)[None, :] >= lengths[:, None]
        att = att.masked_fill(pad[:, None, None, :], -1e9)
        w = att.softmax(dim=-1)
        y = torch.einsum("bhqk,bhkd->bhqd", w, v).transpose(1, 2).reshape(b, n, c)
        return self.out(y), w


class BoxOps(nn.Module):
    def forward(self, a: Tensor, b: Tensor) -> Tuple[Tensor, Tensor, Tensor, Tensor]:
        area_a = (a[:, 2] - a[:, 0]) * (a[:, 3] - a[:, 1])
        area_b = (b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1])
        lt = torch.max(a[:, None, :2], b[:, :2])
        rb = torch.min(a[:, None, 2:], b[:, 2:])
        wh = (rb - lt).clamp(min=0)
        inter = wh[:, :, 0] * wh[:, :, 1]
        iou = inter / (area_a[:, None] + area_b - inter)
        best, idx = iou.max(dim=1)
        keep = torch.nonzero(best > 0.1).squeeze(1)
        cxcy = (a[:, :2] + a[:, 2:]) / 2
        return iou, idx, keep, torch.cat([cxcy, a[:, 2:] - a[:, :2]], dim=-1)


class PaddingModes(nn.Module):
    def forward(self, x: Tensor) -> Tuple[Tensor, Tensor, Tensor, Tensor, Tensor]:
        return (F.pad(x, (1, 2, 2, 1), mode="reflect"), F.pad(x, (1, 1, 1, 1), mode="replicate"),
                F.pad(x, (2, 2, 1, 1), mode="circular"), F.pad(x, (1, 0, 0, 1), value=-1.0),
                F.pad(x[0], (1, 2), mode="reflect"))


class Resampling(nn.Module):
    def forward(self, x: Tensor) -> Tuple[Tensor, Tensor, Tensor, Tensor, Tensor]:
        return (F.interpolate(x, scale_factor=2.0, mode="bilinear", align_corners=False),
                F.interpolate(x, size=(7, 5), mode="bicubic", align_corners=True),
                F.interpolate(x, size=(3, 3), mode="area"),
                F.interpolate(x, scale_factor=1.5, mode="nearest"),
                F.interpolate(x[:, :, 0], scale_factor=2.0, mode="linear", align_corners=False))


class Normalizations(nn.Module):
    def forward(self, x: Tensor, y: Tensor) -> Tuple[Tensor, Tensor, Tensor, Tensor, Tensor]:
        mu = x.mean(-1, keepdim=True)
        sd = x.std(-1, keepdim=True)
        return ((x - mu) / (sd + 1e-5), F.normalize(x, dim=1), F.cosine_similarity(x, y, dim=1),
                F.pairwise_distance(x, y), x.norm(2, -1, keepdim=True))


class SmallLinearAlgebra(nn.Module):
    def forward(self, a: Tensor, b: Tensor) -> Tuple[Tensor, Tensor, Tensor, Tensor]:
        m = a @ a.transpose(-1, -2) + torch.eye(3)
        return torch.linalg.inv(m), torch.linalg.det(m), torch.linalg.solve(m, b), torch.inverse(m)


class Decompositions(nn.Module):
    def forward(self, a: Tensor) -> Tuple[Tensor, Tensor, Tensor, Tensor]:
        m = a @ a.transpose(-1, -2) + torch.eye(3)
        l = torch.linalg.cholesky(m)
        e = torch.linalg.eigvalsh(m)
        q, r = torch.linalg.qr(a)
        return l, e, q.abs(), r.abs()


class LossesByHand(nn.Module):
    def forward(self, logits: Tensor, target: Tensor, p: Tensor) -> Tuple[Tensor, Tensor, Tensor, Tensor]:
        ce = F.cross_entropy(logits, target, label_smoothing=0.1)
        nll = F.nll_loss(F.log_softmax(logits, dim=1), target, reduction="none")
        bce = F.binary_cross_entropy_with_logits(logits, p, pos_weight=torch.ones(logits.size(1)) * 2)
        focal = -((1 - p) ** 2 * torch.log(torch.sigmoid(logits).clamp(1e-6, 1.0))).mean()
        return ce, nll, bce, focal


class PackedLSTM(nn.Module):
    def __init__(self):
        super().__init__()
        self.rnn = nn.LSTM(4, 6, batch_first=True)

    def forward(self, x: Tensor, lengths: Tensor) -> Tuple[Tensor, Tensor]:
        packed = nn.utils.rnn.pack_padded_sequence(x, lengths, batch_first=True, enforce_sorted=False)
        out, (h, c) = self.rnn(packed)
        padded, lens = nn.utils.rnn.pad_packed_sequence(out, batch_first=True)
        return padded, h


class SpecialFunctions(nn.Module):
    def forward(self, x: Tensor) -> Tuple[Tensor, Tensor, Tensor, Tensor, Tensor, Tensor]:
        u = torch.sigmoid(x) * 1.8 - 0.9
        return (torch.erfinv(u), torch.lgamma(x.abs() + 0.5), torch.digamma(x.abs() + 0.5),
                torch.special.expit(x), torch.special.i0(x), torch.special.entr(x.abs()))


class QuantilesAndModes(nn.Module):
    def forward(self, x: Tensor, labels: Tensor) -> Tuple[Tensor, Tensor, Tensor, Tensor]:
        q = torch.quantile(x, 0.25, dim=1)
        m = torch.nanquantile(x, torch.tensor([0.1, 0.9]), dim=0)
        vals, idx = torch.mode(labels, dim=1)
        return q, m, vals, idx


class GridsAndCombos(nn.Module):
    def forward(self, x: Tensor) -> Tuple[Tensor, Tensor, Tensor, Tensor, Tensor]:
        ys, xs = torch.meshgrid(torch.arange(3), torch.arange(4), indexing="ij")
        grid = torch.stack([xs, ys], dim=-1).float()
        return (grid, torch.roll(x, shifts=1, dims=0), torch.roll(x, (1, -2), (0, 1)),
                torch.cartesian_prod(torch.arange(2), torch.arange(3)), torch.combinations(torch.arange(4), 2))


class StructuredProducts(nn.Module):
    def forward(self, a: Tensor, b: Tensor) -> Tuple[Tensor, Tensor, Tensor, Tensor, Tensor, Tensor]:
        return (torch.kron(a, b), torch.block_diag(a, b), torch.diag_embed(a), torch.tensordot(a, b, dims=([1], [0])),
                torch.addmv(a[0], a, b[0]), torch.addr(a, a[0], b[0]))


class BatchedProducts(nn.Module):
    def forward(self, a: Tensor, b: Tensor) -> Tuple[Tensor, Tensor, Tensor]:
        return (torch.baddbmm(a @ b, a, b, beta=0.5, alpha=2.0), torch.addbmm(a[0] @ b[0], a, b),
                torch.chain_matmul(a[0], b[0], a[0]) if False else torch.linalg.multi_dot([a[0], b[0], a[0]]))


class ReduceScatters(nn.Module):
    def forward(self, x: Tensor, idx: Tensor) -> Tuple[Tensor, Tensor, Tensor]:
        out = torch.zeros(3, 4).scatter_reduce(0, idx, x, reduce="amax", include_self=False)
        mean = torch.zeros(3, 4).scatter_reduce(0, idx, x, reduce="mean")
        mask = x > 0
        return out, mean, torch.zeros(5, 4).masked_scatter(torch.ones(5, 4, dtype=torch.bool), x)


class PixelOps(nn.Module):
    def forward(self, x: Tensor) -> Tuple[Tensor, Tensor, Tensor, Tensor]:
        up = F.pixel_shuffle(x, 2)
        return up, F.pixel_unshuffle(up, 2), torch.channel_shuffle(x, 2), x.flatten(2).unflatten(2, (4, 4))


class PoolWithIndices(nn.Module):
    def forward(self, x: Tensor) -> Tuple[Tensor, Tensor, Tensor, Tensor]:
        y, i = F.max_pool2d(x, 2, return_indices=True)
        back = F.max_unpool2d(y, i, 2, output_size=x.shape[-2:])
        return back, F.adaptive_max_pool2d(x, (3, 3)), F.lp_pool2d(x, 2.0, 2), F.avg_pool2d(x, 3, 1, 1, count_include_pad=False)


class DtypeCasts(nn.Module):
    def forward(self, x: Tensor, i: Tensor) -> Tuple[Tensor, Tensor, Tensor, Tensor, Tensor]:
        h = x.half()
        return (h.float() + 1, x.type_as(i), (x > 0).long().cumsum(0), i.double() / 3, x.to(torch.bfloat16).float())


class CtcGreedy(nn.Module):
    def forward(self, logits: Tensor) -> Tuple[Tensor, List[int]]:
        best = logits.argmax(-1)
        collapsed = torch.unique_consecutive(best)
        out: List[int] = []
        for t in collapsed.tolist():
            if t != 0:
                out.append(t)
        return collapsed, out


class Activations2(nn.Module):
    def forward(self, x: Tensor) -> Tuple[Tensor, Tensor, Tensor, Tensor, Tensor, Tensor]:
        return (F.softplus(x, beta=2.0, threshold=5.0), F.glu(x, dim=-1), F.mish(x), F.hardtanh(x, -0.5, 0.5),
                torch.heaviside(x, torch.tensor(0.5)), F.gumbel_softmax(x, tau=1.0, hard=True).sum(-1))


class Signals(nn.Module):
    def forward(self, x: Tensor) -> Tuple[Tensor, Tensor, Tensor]:
        spec = torch.fft.rfft(x, dim=-1)
        win = torch.hann_window(8)
        return spec.abs(), torch.fft.irfft(spec, n=x.size(-1), dim=-1), win


class EmbeddingsAndBags(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(10, 4, padding_idx=0)

    def forward(self, ids: Tensor) -> Tuple[Tensor, Tensor, Tensor]:
        e = self.emb(ids)
        mask = (ids != 0).unsqueeze(-1).float()
        pooled = (e * mask).sum(1) / mask.sum(1).clamp(min=1.0)
        return pooled, F.embedding(ids, self.emb.weight, max_norm=None), F.embedding_bag(ids, self.emb.weight, mode="max")


class WhereAndNonzero(nn.Module):
    def forward(self, x: Tensor) -> Tuple[List[Tensor], Tensor, Tensor, Tensor, Tensor]:
        rows = torch.where(x > 0)
        return (list(rows), torch.nonzero(x > 0.5), x.index_select(1, torch.tensor([2, 0])),
                torch.where(x > 0, 1.0, 0.0), torch.clamp(x, min=torch.zeros_like(x), max=torch.ones_like(x)))


class MixedIndexing(nn.Module):
    def forward(self, x: Tensor, idx: Tensor) -> Tuple[Tensor, Tensor, Tensor, Tensor, Tensor]:
        y = x.clone()
        y[idx, 1] = -1.0
        y[..., 0] = y[..., 0] * 2
        z = x[None, :, None, 1:3]
        return y, z, x[idx][:, idx], x[x[:, 0] > 0], x[:, [True, False, True, False]]


USER_OPS_2 = [
    ("positional_encoding", PositionalEncoding, lambda: (r(2, 10, 16),)),
    ("hand_attention", HandAttention, lambda: (r(2, 5, 16), torch.tensor([5, 3]))),
    ("box_ops", BoxOps, lambda: (torch.tensor([[0., 0, 2, 2], [1, 1, 3, 4], [5, 5, 6, 6]]),
                                 torch.tensor([[1., 1, 2, 3], [0, 0, 1, 1]]))),
    ("padding_modes", PaddingModes, lambda: (r(2, 3, 4, 5),)),
    ("resampling", Resampling, lambda: (r(1, 2, 4, 6),)),
    ("normalizations", Normalizations, lambda: (r(4, 6), r(4, 6))),
    ("small_linear_algebra", SmallLinearAlgebra, lambda: (r(2, 3, 3), r(2, 3, 2))),
    ("decompositions", Decompositions, lambda: (r(3, 3),)),
    ("losses_by_hand", LossesByHand, lambda: (r(4, 5), torch.tensor([1, 0, 4, 2]), torch.rand(4, 5))),
    ("packed_lstm", PackedLSTM, lambda: (r(3, 5, 4), torch.tensor([5, 2, 3]))),
    ("special_functions", SpecialFunctions, lambda: (r(3, 5),)),
    ("quantiles_modes", QuantilesAndModes, lambda: (r(4, 7), torch.randint(0, 3, (4, 9)))),
    ("grids_combos", GridsAndCombos, lambda: (r(3, 4),)),
    ("structured_products", StructuredProducts, lambda: (r(3, 3), r(3, 3))),
    ("batched_products", BatchedProducts, lambda: (r(2, 3, 3), r(2, 3, 3))),
    ("reduce_scatters", ReduceScatters, lambda: (r(5, 4), torch.randint(0, 3, (5, 4)))),
    ("pixel_ops", PixelOps, lambda: (r(1, 8, 4, 4),)),
    ("pool_with_indices", PoolWithIndices, lambda: (r(1, 2, 6, 6),)),
    ("dtype_casts", DtypeCasts, lambda: (r(3, 4), torch.randint(0, 9, (3, 4)))),
    ("ctc_greedy", CtcGreedy, lambda: (r(12, 5),)),
    ("activations_more", Activations2, lambda: (r(3, 6),)),
    ("signals", Signals, lambda: (r(2, 16),)),
    ("embeddings_bags", EmbeddingsAndBags, lambda: (torch.tensor([[1, 2, 0, 0], [3, 0, 0, 0], [4, 5, 6, 7]]),)),
    ("where_nonzero", WhereAndNonzero, lambda: (r(3, 4),)),
    ("mixed_indexing", MixedIndexing, lambda: (r(4, 4), torch.tensor([2, 0]))),
]
for _name, _cls, _inputs in USER_OPS_2:
    case(f"user_ops2/{_name}", lambda c=_cls: ev(c()), _inputs)

# A third batch (nineteenth session): the language around the tensors — NamedTuple and dict
# outputs, ModuleList / ModuleDict loops, exported methods, interfaces, Optional tensors,
# asserts and raises, enumerate / zip, Final constants — and detection-, NLP- and
# segmentation-style post-processing.

class Detection(NamedTuple):
    boxes: Tensor
    scores: Tensor
    labels: Tensor


class NamedTupleOut(nn.Module):
    def forward(self, logits: Tensor, boxes: Tensor) -> Detection:
        scores, labels = logits.softmax(-1).max(-1)
        keep = scores > 0.3
        return Detection(boxes[keep], scores[keep], labels[keep])


class DictOut(nn.Module):
    def __init__(self):
        super().__init__()
        self.heads = nn.ModuleDict({"cls": nn.Linear(8, 3), "reg": nn.Linear(8, 4)})

    def forward(self, x: Tensor) -> Dict[str, Tensor]:
        out: Dict[str, Tensor] = {}
        for name, head in self.heads.items():
            out[name] = head(x)
        out["sum"] = out["cls"].sum(-1) + out["reg"].sum(-1)
        return out


class ModuleListLoop(nn.Module):
    def __init__(self):
        super().__init__()
        self.blocks = nn.ModuleList([nn.Sequential(nn.Linear(6, 6), nn.GELU()) for _ in range(3)])
        self.norms = nn.ModuleList([nn.LayerNorm(6) for _ in range(3)])

    def forward(self, x: Tensor) -> List[Tensor]:
        outs: List[Tensor] = []
        for i, (block, norm) in enumerate(zip(self.blocks, self.norms)):
            x = norm(x + block(x)) * (i + 1)
            outs.append(x)
        return outs


class ExportedMethods(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(4, 2)
        self.scale: Final[float] = 0.5

    @torch.jit.export
    def embed(self, x: Tensor) -> Tensor:
        return self.proj(x) * self.scale

    def forward(self, x: Tensor) -> Tuple[Tensor, Tensor]:
        e = self.embed(x)
        return e, self.helper(e)

    def helper(self, e: Tensor) -> Tensor:
        return e.relu().sum(0)


class OptionalTensor(nn.Module):
    def forward(self, x: Tensor, mask: Optional[Tensor] = None, bias: Optional[Tensor] = None) -> Tensor:
        if mask is not None:
            x = x.masked_fill(~mask, 0.0)
        if bias is None:
            return x * 2
        return x + bias


class AssertsAndRaises(nn.Module):
    def forward(self, x: Tensor, k: int) -> Tensor:
        assert x.dim() == 2, f"expected a matrix, got {x.dim()} dims"
        if k < 0:
            raise ValueError(f"k must be non-negative, got {k}")
        if k > x.size(1):
            raise RuntimeError("k larger than the row")
        return x.topk(k, dim=1).values


class Tokenizer(nn.Module):
    def __init__(self):
        super().__init__()
        self.vocab: Dict[str, int] = {"<unk>": 0, "hello": 1, "world": 2, "the": 3, "cat": 4}

    def forward(self, text: str) -> Tuple[Tensor, List[str]]:
        words = text.lower().strip().split()
        ids: List[int] = []
        for w in words:
            ids.append(self.vocab.get(w, 0))
        return torch.tensor(ids, dtype=torch.long), words


class BeamStep(nn.Module):
    def forward(self, log_probs: Tensor, beam_scores: Tensor, k: int) -> Tuple[Tensor, Tensor, Tensor]:
        vocab = log_probs.size(-1)
        total = (beam_scores.unsqueeze(-1) + log_probs).view(-1)
        scores, flat = total.topk(k)
        beams = torch.div(flat, vocab, rounding_mode="floor")
        tokens = flat % vocab
        return scores, beams, tokens


class SegmentationPost(nn.Module):
    def forward(self, logits: Tensor, size: List[int]) -> Tuple[Tensor, Tensor, Tensor]:
        up = F.interpolate(logits, size=size, mode="bilinear", align_corners=False)
        probs = up.softmax(1)
        conf, cls = probs.max(1)
        counts = torch.stack([(cls == c).sum() for c in range(logits.size(1))])
        return cls.to(torch.uint8), conf, counts


class AnchorGrid(nn.Module):
    def forward(self, feat: Tensor, stride: int) -> Tensor:
        h, w = feat.shape[-2:]
        ys = (torch.arange(h, dtype=torch.float32) + 0.5) * stride
        xs = (torch.arange(w, dtype=torch.float32) + 0.5) * stride
        yy, xx = torch.meshgrid(ys, xs, indexing="ij")
        centers = torch.stack((xx.reshape(-1), yy.reshape(-1)), dim=1)
        sizes = torch.tensor([[16.0, 16.0], [32.0, 16.0]])
        return torch.cat([centers[:, None, :] - sizes / 2, centers[:, None, :] + sizes / 2], dim=-1).reshape(-1, 4)


class ScriptedNms(nn.Module):
    def forward(self, boxes: Tensor, scores: Tensor, thresh: float) -> Tensor:
        order: List[int] = scores.argsort(descending=True).tolist()
        keep: List[int] = []
        suppressed = torch.zeros(boxes.size(0), dtype=torch.bool)
        for i in order:
            if bool(suppressed[i]):
                continue
            keep.append(i)
            lt = torch.max(boxes[i, :2], boxes[:, :2])
            rb = torch.min(boxes[i, 2:], boxes[:, 2:])
            wh = (rb - lt).clamp(min=0)
            inter = wh[:, 0] * wh[:, 1]
            area = (boxes[:, 2] - boxes[:, 0]) * (boxes[:, 3] - boxes[:, 1])
            iou = inter / (area[i] + area - inter)
            suppressed = suppressed | (iou > thresh)
        return torch.tensor(keep, dtype=torch.long)


class RecurrentLoop(nn.Module):
    def __init__(self):
        super().__init__()
        self.cell = nn.GRUCell(3, 5)
        self.out = nn.Linear(5, 3)

    def forward(self, x: Tensor, steps: int) -> Tensor:
        h = torch.zeros(x.size(0), 5)
        inp = x
        outs: List[Tensor] = []
        for _ in range(steps):
            h = self.cell(inp, h)
            inp = torch.tanh(self.out(h))
            outs.append(inp)
        return torch.stack(outs, 1)


class WhileConverge(nn.Module):
    def forward(self, a: Tensor, b: Tensor) -> Tuple[Tensor, int]:
        x = torch.zeros_like(b)
        it = 0
        while it < 100:
            new = (b - (a @ x - a.diagonal() * x)) / a.diagonal()
            if bool((new - x).abs().max() < 1e-6):
                x = new
                break
            x = new
            it += 1
        return x, it


class ListOfTuples(nn.Module):
    def forward(self, x: Tensor) -> List[Tuple[int, float]]:
        out: List[Tuple[int, float]] = []
        vals, idx = x.sort(descending=True)
        for i in range(min(3, x.numel())):
            out.append((int(idx[i]), float(vals[i])))
        out.reverse()
        return out


class TensorMethodsMix(nn.Module):
    def forward(self, x: Tensor) -> Tuple[Tensor, Tensor, Tensor, Tensor, Tensor, Tensor]:
        return (x.clamp_(-1, 1).clone(), x.new_zeros(2, 2), x.expand(2, -1, -1).contiguous(), x.t().flatten(),
                x.std(0, keepdim=True), x.masked_fill(x < 0, float("nan")).nanmean(0) if False else x.abs().log1p())


class InterpolateModes(nn.Module):
    def forward(self, x: Tensor, x1: Tensor, x3: Tensor) -> Tuple[Tensor, Tensor, Tensor, Tensor]:
        return (F.interpolate(x, scale_factor=(0.5, 0.75), mode="bilinear", align_corners=False, recompute_scale_factor=True),
                F.interpolate(x1, size=7, mode="nearest"), F.interpolate(x3, scale_factor=2.0, mode="trilinear"),
                F.interpolate(x, size=(5, 9), mode="nearest-exact"))


class Normalizers(nn.Module):
    def __init__(self):
        super().__init__()
        self.gn = nn.GroupNorm(2, 4)
        self.inorm = nn.InstanceNorm2d(4, affine=True, track_running_stats=False)
        self.ln = nn.LayerNorm([4, 3, 3])
        self.lrn = nn.LocalResponseNorm(3)

    def forward(self, x: Tensor) -> Tuple[Tensor, Tensor, Tensor, Tensor, Tensor]:
        return self.gn(x), self.inorm(x), self.ln(x), self.lrn(x), F.normalize(x, p=1.0, dim=1)


class NormsOfTensors(nn.Module):
    def forward(self, x: Tensor) -> Tuple[Tensor, Tensor, Tensor, Tensor, Tensor]:
        return (torch.norm(x, dim=1), torch.norm(x), torch.norm(x, p=1, dim=0), x.norm(p=float("inf"), dim=-1),
                torch.linalg.norm(x, dim=1))


class StringsAndFormat(nn.Module):
    def forward(self, x: Tensor, name: str) -> str:
        parts: List[str] = []
        values: List[float] = x.tolist()
        for i, v in enumerate(values):
            parts.append("{}[{}]={}".format(name, i, v))
        return ", ".join(parts) + " | " + "{}:{}".format(name.upper(), len(parts))


class IntListMath(nn.Module):
    def forward(self, x: Tensor) -> Tuple[List[int], int, Tensor]:
        shape = list(x.shape)
        shape.reverse()
        numel = 1
        for s in shape:
            numel *= s
        pads = [p // 2 for p in shape]
        return shape, numel, F.pad(x, pads[:2])


USER_OPS_3 = [
    ("namedtuple_out", NamedTupleOut, lambda: (r(5, 4), r(5, 4))),
    ("dict_out", DictOut, lambda: (r(2, 8),)),
    ("module_list_loop", ModuleListLoop, lambda: (r(3, 6),)),
    ("exported_methods", ExportedMethods, lambda: (r(3, 4),)),
    ("optional_tensor_none", OptionalTensor, lambda: (r(2, 3), None, None)),
    ("optional_tensor_some", OptionalTensor, lambda: (r(2, 3), torch.rand(2, 3) > 0.5, r(3))),
    ("asserts_raises", AssertsAndRaises, lambda: (r(3, 5), 2)),
    ("asserts_raises_fail", AssertsAndRaises, lambda: (r(3, 5), -1)),
    ("tokenizer", Tokenizer, lambda: ("  Hello the CAT sat ",)),
    ("beam_step", BeamStep, lambda: (torch.log_softmax(r(3, 7), -1), r(3), 4)),
    ("segmentation_post", SegmentationPost, lambda: (r(1, 3, 4, 5), [8, 10])),
    ("anchor_grid", AnchorGrid, lambda: (r(1, 2, 3, 4), 8)),
    ("scripted_nms", ScriptedNms, lambda: (torch.tensor([[0., 0, 2, 2], [0.1, 0, 2, 2], [3, 3, 4, 4], [0, 0, 1, 1]]),
                                           torch.tensor([0.9, 0.8, 0.7, 0.6]), 0.5)),
    ("recurrent_loop", RecurrentLoop, lambda: (r(2, 3), 4)),
    ("while_converge", WhileConverge, lambda: (torch.eye(3) * 4 + torch.rand(3, 3) * 0.5, r(3))),
    ("list_of_tuples", ListOfTuples, lambda: (r(6),)),
    ("tensor_methods_mix", TensorMethodsMix, lambda: (r(3, 4) * 2,)),
    ("interpolate_modes", InterpolateModes, lambda: (r(1, 2, 6, 8), r(1, 2, 5), r(1, 1, 2, 3, 2))),
    ("normalizers", Normalizers, lambda: (r(2, 4, 3, 3),)),
    ("norms_of_tensors", NormsOfTensors, lambda: (r(3, 4),)),
    ("strings_format", StringsAndFormat, lambda: (r(3), "w")),
    ("int_list_math", IntListMath, lambda: (r(2, 3, 4),)),
]
for _name, _cls, _inputs in USER_OPS_3:
    case(f"user_ops3/{_name}", lambda c=_cls: ev(c()), _inputs)

# A fourth batch (nineteenth session): TorchScript classes, Union and Any, comprehensions,
# slicing writes on lists, getattr / hasattr, ModuleList indexing, is_scripting, inf constants.

@torch.jit.script
class RunningStats:
    def __init__(self, n: int):
        self.count = 0
        self.total = torch.zeros(n)

    def push(self, x: Tensor) -> None:
        self.count += 1
        self.total = self.total + x

    def mean(self) -> Tensor:
        return self.total / max(self.count, 1)


class ScriptClassUser(nn.Module):
    def forward(self, xs: List[Tensor]) -> Tuple[Tensor, int]:
        stats = RunningStats(xs[0].numel())
        for x in xs:
            stats.push(x.flatten())
        return stats.mean(), stats.count


class UnionArgs(nn.Module):
    def forward(self, x: Tensor, scale: Union[int, float, Tensor]) -> Tensor:
        if isinstance(scale, Tensor):
            return x * scale
        elif isinstance(scale, int):
            return x * float(scale) + 1
        else:
            return x * scale - 1


class Comprehensions(nn.Module):
    def forward(self, x: Tensor) -> Tuple[Dict[str, int], List[int], List[Tensor]]:
        names = ["a", "bb", "ccc"]
        lengths = {n: len(n) for n in names}
        evens = [i * i for i in range(0, 10, 2)]
        rows = [x[i] * i for i in range(x.size(0))]
        return lengths, evens, rows


class ListSlicing(nn.Module):
    def forward(self, n: int) -> Tuple[List[int], List[int], List[int]]:
        a = list(range(n))
        b = a[1:-1]
        c = a[::2]
        b.extend(c[:2])
        return a[-3:], b, c[::-1]


class GetattrHasattr(nn.Module):
    def __init__(self):
        super().__init__()
        self.blocks = nn.ModuleList([nn.Linear(3, 3), nn.ReLU(), nn.Linear(3, 2)])
        self.use_bias: bool = True

    def forward(self, x: Tensor) -> Tensor:
        y = self.blocks[0](x)
        y = self.blocks[1](y)
        if torch.jit.is_scripting():
            y = y + 1
        if hasattr(self, "use_bias") and self.use_bias:
            y = y - 0.5
        return self.blocks[2](y)


class InfAndLimits(nn.Module):
    def forward(self, x: Tensor) -> Tuple[Tensor, float, Tensor]:
        best = -math.inf
        values: List[float] = x.tolist()
        for v in values:
            best = max(best, v)
        clipped = x.clamp(-math.inf, 0.5)
        return clipped, best, x.masked_fill(x > 0.5, math.inf).min()


class ChunkedLoop(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Conv1d(4, 8, 3, padding=1)

    def forward(self, x: Tensor) -> Tensor:
        outs: List[Tensor] = []
        for chunk in x.chunk(3, dim=-1):
            outs.append(F.gelu(self.proj(chunk), approximate="tanh"))
        return torch.cat(outs, -1)


USER_OPS_4 = [
    ("script_class", ScriptClassUser, lambda: ([r(2, 3), r(2, 3), r(2, 3)],)),
    ("union_tensor", UnionArgs, lambda: (r(3), r(3))),
    ("union_int", UnionArgs, lambda: (r(3), 2)),
    ("union_float", UnionArgs, lambda: (r(3), 0.5)),
    ("comprehensions", Comprehensions, lambda: (r(3, 2),)),
    ("list_slicing", ListSlicing, lambda: (9,)),
    ("getattr_hasattr", GetattrHasattr, lambda: (r(2, 3),)),
    ("inf_and_limits", InfAndLimits, lambda: (r(5),)),
    ("chunked_loop", ChunkedLoop, lambda: (r(2, 4, 9),)),
]
for _name, _cls, _inputs in USER_OPS_4:
    case(f"user_ops4/{_name}", lambda c=_cls: ev(c()), _inputs)

# Cases PyTorch 1.13's lite interpreter crashes on (a segmentation fault would end the survey
# with it): the survey compares symbolite with TorchScript's full interpreter instead.
LITE_CRASHES = {
    "user_ops4/union_int": "segfaults on a Union[int, float, Tensor] argument",
    "user_ops4/union_float": "segfaults on a Union[int, float, Tensor] argument",
}

# Cases symbolite is known not to run yet, with the reason; the survey reports them as
# "known-gap" (and `--strict` lets them pass) until they run and match.
KNOWN_GAPS = {
    "user_ops2/signals": "torch.fft returns complex tensors, a dtype symbolite does not have",
}


def families():
    """The family names, in order of first appearance."""
    seen = []
    for c in CASES:
        family = c.name.split("/")[0]
        if family not in seen:
            seen.append(family)
    return seen


if __name__ == "__main__":
    for c in CASES:
        print(c.name)
    print(f"{len(CASES)} cases in {len(families())} families")
