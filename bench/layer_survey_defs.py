"""The layers bench/run_layer_survey.py times: one torch.nn layer or functional call each, as
models outside torchvision use them (decoders, detectors, segmentation heads, audio and
sequence models), on an input large enough for the layer's kernel to dominate its run.
TorchScript needs the source of every forward, so they live in this file.

CASES maps a name to (module factory, input shape)."""
import torch
import torch.nn.functional as F
from torch import Tensor, nn

IMAGE = (1, 64, 112, 112)
ROWS = (64, 4096)


class Call(nn.Module):
    """A functional call on the input, named by the subclasses' forward."""


class Softmax1(Call):
    def forward(self, x: Tensor) -> Tensor:
        return torch.softmax(x, 1)


class LogSoftmax(Call):
    def forward(self, x: Tensor) -> Tensor:
        return F.log_softmax(x, -1)


class SumChannels(Call):
    def forward(self, x: Tensor) -> Tensor:
        return x.sum(1)


class GlobalAverage(Call):
    def forward(self, x: Tensor) -> Tensor:
        return x.mean((2, 3))


class ExpLog(Call):
    def forward(self, x: Tensor) -> Tensor:
        return torch.log(torch.exp(x) + 1.0)


class DivideScalar(Call):
    def forward(self, x: Tensor) -> Tensor:
        return x / 3.0


class ClampMin(Call):
    def forward(self, x: Tensor) -> Tensor:
        return x.clamp_min(0.1)


class Hardtanh(Call):
    def forward(self, x: Tensor) -> Tensor:
        return F.hardtanh(x, -2.0, 2.0)


class Rsqrt(Call):
    def forward(self, x: Tensor) -> Tensor:
        return torch.rsqrt(x.abs() + 1.0)


class MaxPool1d(Call):
    def forward(self, x: Tensor) -> Tensor:
        return F.max_pool1d(x, 4)


class Glu(Call):
    def forward(self, x: Tensor) -> Tensor:
        return F.glu(x, 1)


class UpsampleNearest(Call):
    def forward(self, x: Tensor) -> Tensor:
        return F.interpolate(x, scale_factor=2.0, mode="nearest")


class UpsampleBilinear(Call):
    def forward(self, x: Tensor) -> Tensor:
        return F.interpolate(x, scale_factor=2.0, mode="bilinear", align_corners=False)


class ConvRelu(nn.Module):
    """A user's conv block: F.relu after the convolution, as tutorials write it."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(64, 64, 3, padding=1)
        self.bn = nn.BatchNorm2d(64)

    def forward(self, x: Tensor) -> Tensor:
        return F.relu(self.bn(self.conv(x)))


class UNetUp(nn.Module):
    """A UNet decoder step: 2x2 stride-2 transposed convolution, cat with the skip, conv."""

    def __init__(self):
        super().__init__()
        self.up = nn.ConvTranspose2d(64, 32, 2, 2)
        self.conv = nn.Conv2d(64, 32, 3, padding=1)

    def forward(self, x: Tensor) -> Tensor:
        skip = F.interpolate(x[:, :32], scale_factor=2.0, mode="nearest")
        return F.relu(self.conv(torch.cat([self.up(x), skip], 1)))


class Threshold(Call):
    def forward(self, x: Tensor) -> Tensor:
        return F.threshold(x, 0.1, 0.0)


class Sign(Call):
    def forward(self, x: Tensor) -> Tensor:
        return torch.sign(x)


class Square(Call):
    def forward(self, x: Tensor) -> Tensor:
        return x.pow(2.0)


class Floor(Call):
    def forward(self, x: Tensor) -> Tensor:
        return torch.floor(x * 4.0)


class LogSigmoid(Call):
    def forward(self, x: Tensor) -> Tensor:
        return F.logsigmoid(x)


class Addcmul(Call):
    def forward(self, x: Tensor) -> Tensor:
        return torch.addcmul(x, x, x, value=0.5)


class MaskedFill(Call):
    def forward(self, x: Tensor) -> Tensor:
        return x.masked_fill(x > 0.0, 0.0)


class WhereZero(Call):
    def forward(self, x: Tensor) -> Tensor:
        return torch.where(x > 0.5, x, torch.zeros_like(x))


class Flip(Call):
    def forward(self, x: Tensor) -> Tensor:
        return x.flip(-1)


class PadConstant(Call):
    def forward(self, x: Tensor) -> Tensor:
        return F.pad(x, (1, 1, 1, 1))


class IndexSelect(Call):
    def forward(self, x: Tensor) -> Tensor:
        return x.index_select(1, torch.arange(0, 64, 2))


class Amax(Call):
    def forward(self, x: Tensor) -> Tensor:
        return x.amax(-1)


class Topk(Call):
    def forward(self, x: Tensor) -> Tensor:
        return torch.topk(x, 10, -1)[0]


class Norm(Call):
    def forward(self, x: Tensor) -> Tensor:
        return torch.norm(x, dim=-1)


class Std(Call):
    def forward(self, x: Tensor) -> Tensor:
        return x.std(-1)


class GridSample(Call):
    def forward(self, x: Tensor) -> Tensor:
        theta = torch.tensor([[[0.9, 0.1, 0.0], [-0.1, 0.9, 0.0]]])
        grid = F.affine_grid(theta, [1, 32, 128, 128], align_corners=False)
        return F.grid_sample(x, grid, align_corners=False)


class TransposeCopy(Call):
    def forward(self, x: Tensor) -> Tensor:
        return x.transpose(1, 2).contiguous()


class PermuteNhwc(Call):
    """NCHW to NHWC, as detection heads and ports of TensorFlow models write it."""

    def forward(self, x: Tensor) -> Tensor:
        return x.permute(0, 2, 3, 1).contiguous()


class ChannelShuffle(Call):
    """ShuffleNet's, as its authors' and many others' code writes it."""

    def forward(self, x: Tensor) -> Tensor:
        b, c, h, w = x.size()
        return x.view(b, 4, c // 4, h, w).transpose(1, 2).contiguous().view(b, c, h, w)


def _eval(module):
    return lambda: module().eval()


CASES = {
    "leaky_relu": (lambda: nn.LeakyReLU(0.1), IMAGE),
    "prelu": (lambda: nn.PReLU(64), IMAGE),
    "elu": (lambda: nn.ELU(), IMAGE),
    "softplus": (lambda: nn.Softplus(), IMAGE),
    "mish": (lambda: nn.Mish(), IMAGE),
    "group_norm": (lambda: nn.GroupNorm(8, 64), IMAGE),
    "instance_norm": (lambda: nn.InstanceNorm2d(64), IMAGE),
    "conv_transpose2d": (lambda: nn.ConvTranspose2d(64, 32, 2, 2), (1, 64, 64, 64)),
    "conv_transpose2d_k4s2": (lambda: nn.ConvTranspose2d(128, 64, 4, 2, 1), (1, 128, 32, 32)),
    "upsample_nearest": (UpsampleNearest, (1, 64, 64, 64)),
    "upsample_bilinear": (UpsampleBilinear, (1, 64, 64, 64)),
    "softmax_dim1": (Softmax1, IMAGE),
    "log_softmax": (LogSoftmax, (64, 1000)),
    "sum_channels": (SumChannels, IMAGE),
    "global_average": (GlobalAverage, IMAGE),
    "exp_log": (ExpLog, IMAGE),
    "divide_scalar": (DivideScalar, IMAGE),
    "clamp_min": (ClampMin, IMAGE),
    "hardtanh": (Hardtanh, IMAGE),
    "rsqrt": (Rsqrt, IMAGE),
    "max_pool1d": (MaxPool1d, (1, 64, 16000)),
    "glu": (Glu, IMAGE),
    "threshold": (Threshold, IMAGE),
    "sign": (Sign, IMAGE),
    "square": (Square, IMAGE),
    "floor": (Floor, IMAGE),
    "selu": (lambda: nn.SELU(), IMAGE),
    "logsigmoid": (LogSigmoid, IMAGE),
    "addcmul": (Addcmul, IMAGE),
    "masked_fill": (MaskedFill, IMAGE),
    "where_zero": (WhereZero, IMAGE),
    "flip": (Flip, IMAGE),
    "pad_constant": (PadConstant, IMAGE),
    "index_select": (IndexSelect, IMAGE),
    "adaptive_avg_7": (lambda: nn.AdaptiveAvgPool2d(7), (1, 256, 28, 28)),
    "amax": (Amax, ROWS),
    "topk": (Topk, ROWS),
    "norm": (Norm, ROWS),
    "std": (Std, ROWS),
    "grid_sample": (GridSample, (1, 32, 128, 128)),
    "transpose_copy": (TransposeCopy, IMAGE),
    "channel_shuffle": (ChannelShuffle, IMAGE),
    "permute_nhwc": (PermuteNhwc, IMAGE),
    "conv1d_depthwise": (lambda: nn.Conv1d(64, 64, 5, padding=2, groups=64), (1, 64, 16000)),
    "conv_bn_f_relu": (_eval(ConvRelu), (1, 64, 56, 56)),
    "unet_up": (_eval(UNetUp), (1, 64, 64, 64)),
}
