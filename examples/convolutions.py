"""JAX's "Generalized convolutions" notebook, cell by cell, in typedax: 1-d
smoothing with ``typedax.numpy.convolve``, N-d denoising with
``typedax.scipy.signal.convolve``, then ``lax.conv``,
``lax.conv_with_general_padding`` and ``lax.conv_general_dilated`` with
dimension numbers, padding, strides, dilations, a transposed convolution,
and 1-d and 3-d layouts. It prints what the notebook prints and saves the
figures it draws as PNG files (when matplotlib is installed: ``pip install
-e '.[demo]'``). Where the notebook loads SciPy's raccoon face, this uses a
synthetic image.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

import typedax.numpy as tnp
import typedax.random as random
import typedax.scipy.signal as tsig
from typedax import Array, lax
from typedax.scipy.stats import norm

OUT_DIR = Path("demo-output") / "convolutions"


class Figures:
    """Saves each figure a cell draws as ``<directory>/<name>.png``; does
    nothing when ``directory`` is None or matplotlib is missing."""

    def __init__(self, directory: Path | None) -> None:
        self.directory = directory
        self.plt: Any = None
        self.saved: list[Path] = []
        if directory is None:
            return
        try:
            import matplotlib

            matplotlib.use("Agg")  # files only, no window
            import matplotlib.pyplot as plt
        except ImportError:
            print("(matplotlib is not installed: no figures; `pip install -e '.[demo]'` adds it)")
            return
        directory.mkdir(parents=True, exist_ok=True)
        self.plt = plt

    def draw(self, name: str, cell: Callable[[Any], None], figsize: tuple[float, float] = (6, 4)) -> None:
        """Run ``cell(plt)`` on a fresh figure, then save and close it."""
        if self.plt is None or self.directory is None:
            return
        fig = self.plt.figure(figsize=figsize)
        cell(self.plt)
        path = self.directory / f"{name}.png"
        fig.savefig(path, dpi=72)
        self.plt.close(fig)
        self.saved.append(path)


def synthetic_image(height: int = 192, width: int = 256) -> Array:
    """A grayscale test picture (0..255): a gradient sky, a disc, a bar and
    stripes -- edges and flat areas for the denoiser to keep and smooth."""
    yy, xx = np.mgrid[0:height, 0:width].astype(np.float64)
    img = 60.0 + 100.0 * yy / height
    img = np.where((yy - 70) ** 2 + (xx - 80) ** 2 < 40**2, 230.0, img)
    img = np.where((np.abs(xx - 190) < 25) & (yy > 40) & (yy < 170), 20.0, img)
    img = np.where((yy > 140) & (xx < 130) & ((xx // 8) % 2 == 0), 200.0, img)
    return tnp.asarray(img)


def smoothing_1d(fig: Figures) -> None:
    print("== basic 1-d convolution: smoothing with tnp.convolve(mode='same')")
    key = random.key(1701)
    x = tnp.linspace(0, 10, 500)
    y = tnp.sin(x) + 0.2 * random.normal(key, shape=(500,))
    window = tnp.ones(10) / 10
    y_smooth = tnp.convolve(y, window, mode="same")
    noise = float(tnp.sqrt(tnp.mean((y - tnp.sin(x)) ** 2)))
    left = float(tnp.sqrt(tnp.mean((y_smooth - tnp.sin(x))[10:-10] ** 2)))
    print(f"y_smooth.shape = {y_smooth.shape}; rms distance to sin(x): {noise:.3f} noisy, {left:.3f} smoothed")

    def cell(plt: Any) -> None:
        plt.plot(np.asarray(x), np.asarray(y), "lightgray")
        plt.plot(np.asarray(x), np.asarray(y_smooth), "black")

    fig.draw("01_smoothing_1d", cell)


def denoise_nd(fig: Figures) -> None:
    print("\n== basic N-d convolution: Gaussian denoising with typedax.scipy.signal.convolve")
    image = synthetic_image()
    key = random.key(1701)
    noisy_image = image + 50 * random.normal(key, image.shape)
    x = tnp.linspace(-3, 3, 7)
    window = norm.pdf(x) * norm.pdf(x[:, None])
    smooth_image = tsig.convolve(noisy_image, window, mode="same")
    err = [float(tnp.mean(tnp.abs(v - image))) for v in (noisy_image, smooth_image / float(tnp.sum(window)))]
    print(f"image {image.shape}, window {window.shape} -> smoothed {smooth_image.shape}; "
          f"mean |error|: {err[0]:.1f} noisy, {err[1]:.1f} smoothed")

    def cell(plt: Any) -> None:
        for i, (im, title) in enumerate(((image, "original"), (noisy_image, "noisy"), (smooth_image, "smoothed"))):
            ax = plt.subplot(1, 3, i + 1)
            ax.imshow(np.asarray(im), cmap="binary_r")
            ax.set_title(title)

    fig.draw("02_denoise_nd", cell, figsize=(12, 5))


def general_convolutions(fig: Figures) -> None:
    print("\n== general convolutions: lax.conv_general_dilated")
    # 2D kernel - HWIO layout
    kernel = tnp.zeros((3, 3, 3, 3), dtype=tnp.float32)
    kernel += tnp.array([[1, 1, 0],
                         [1, 0, -1],
                         [0, -1, -1]])[:, :, tnp.newaxis, tnp.newaxis]
    print("Edge Conv kernel:")
    fig.draw("03_edge_kernel", lambda plt: plt.imshow(np.asarray(kernel[:, :, 0, 0])))

    # NHWC layout
    img = tnp.zeros((1, 200, 198, 3), dtype=tnp.float32)
    for k in range(3):
        x = 30 + 60 * k
        y = 20 + 60 * k
        img = img.at[0, x:x + 10, y:y + 10, k].set(1.0)
    print("Original Image:")
    fig.draw("04_original_image", lambda plt: plt.imshow(np.asarray(img[0])))

    def first_channel(name: str, out: Array, nchw: bool = False) -> None:
        print("First output channel:")
        plane = np.asarray(out)[0, 0, :, :] if nchw else np.asarray(out)[0, :, :, 0]
        fig.draw(name, lambda plt: plt.imshow(plane), figsize=(10, 10))

    print("-- lax.conv and lax.conv_with_general_padding (NCHW image, OIHW kernel)")
    out = lax.conv(tnp.transpose(img, [0, 3, 1, 2]),     # lhs = NCHW image tensor
                   tnp.transpose(kernel, [3, 2, 0, 1]),  # rhs = OIHW conv kernel tensor
                   (1, 1),  # window strides
                   "SAME")  # padding mode
    print("out shape: ", out.shape)
    first_channel("05_lax_conv", out, nchw=True)

    out = lax.conv_with_general_padding(
        tnp.transpose(img, [0, 3, 1, 2]),     # lhs = NCHW image tensor
        tnp.transpose(kernel, [2, 3, 0, 1]),  # rhs = IOHW conv kernel tensor
        (1, 1),            # window strides
        ((2, 2), (2, 2)),  # general padding 2x2
        (1, 1),            # lhs/image dilation
        (1, 1))            # rhs/kernel dilation
    print("out shape: ", out.shape)
    first_channel("06_conv_with_general_padding", out, nchw=True)

    print("-- dimension numbers: NHWC image, HWIO kernel")
    dn = lax.conv_dimension_numbers(img.shape,     # only ndim matters, not shape
                                    kernel.shape,  # only ndim matters, not shape
                                    ("NHWC", "HWIO", "NHWC"))  # the important bit
    print(dn)

    print("-- SAME padding, no stride, no dilation")
    out = lax.conv_general_dilated(img,     # lhs = image tensor
                                   kernel,  # rhs = conv kernel tensor
                                   (1, 1),  # window strides
                                   "SAME",  # padding mode
                                   (1, 1),  # lhs/image dilation
                                   (1, 1),  # rhs/kernel dilation
                                   dn)      # dimension_numbers = lhs, rhs, out dimension permutation
    print("out shape: ", out.shape)
    first_channel("07_same", out)

    print("-- VALID padding, no stride, no dilation")
    out = lax.conv_general_dilated(img, kernel, (1, 1), "VALID", (1, 1), (1, 1), dn)
    print("out shape: ", out.shape, "DIFFERENT from above!")
    first_channel("08_valid", out)

    print("-- SAME padding, 2,2 stride, no dilation")
    out = lax.conv_general_dilated(img, kernel, (2, 2), "SAME", (1, 1), (1, 1), dn)
    print("out shape: ", out.shape, " <-- half the size of above")
    first_channel("09_same_strided", out)

    print("-- VALID padding, no stride, rhs kernel dilation ~ Atrous convolution")
    out = lax.conv_general_dilated(img, kernel, (1, 1), "VALID", (1, 1), (12, 12), dn)
    print("out shape: ", out.shape)
    first_channel("10_rhs_dilated", out)

    print("-- VALID padding, no stride, lhs=input dilation ~ transposed convolution")
    out = lax.conv_general_dilated(img,               # lhs = image tensor
                                   kernel,            # rhs = conv kernel tensor
                                   (1, 1),            # window strides
                                   ((0, 0), (0, 0)),  # padding mode
                                   (2, 2),            # lhs/image dilation
                                   (1, 1),            # rhs/kernel dilation
                                   dn)                # dimension_numbers
    print("out shape: ", out.shape, "<-- larger than original!")
    first_channel("11_lhs_dilated", out)

    # The following is equivalent to tensorflow:
    # N,H,W,C = img.shape
    # out = tf.nn.conv2d_transpose(img, kernel, (N,2*H,2*W,C), (1,2,2,1))
    # transposed conv = 180deg kernel rotation plus LHS dilation
    # rotate kernel 180deg:
    kernel_rot = tnp.rot90(tnp.rot90(kernel, axes=(0, 1)), axes=(0, 1))
    # need a custom output padding:
    padding = ((2, 1), (2, 1))
    out = lax.conv_general_dilated(img, kernel_rot, (1, 1), padding, (2, 2), (1, 1), dn)
    print("out shape: ", out.shape, "<-- transposed_conv")
    first_channel("12_transposed_conv", out)
    # the same as lax.conv_transpose with the kernel flipped for us
    same = lax.conv_transpose(img, kernel, (2, 2), padding, dimension_numbers=("NHWC", "HWIO", "NHWC"),
                              transpose_kernel=True)
    assert np.allclose(np.asarray(same), np.asarray(out)), "conv_transpose disagrees with the recipe"


def conv_1d(fig: Figures) -> None:
    print("\n== 1-d convolution: NWC data, WIO kernel")
    # 1D kernel - WIO layout
    kernel = tnp.array([[[1, 0, -1], [-1, 0, 1]],
                        [[1, 1, 1], [-1, -1, -1]]],
                       dtype=tnp.float32).transpose([2, 1, 0])
    # 1D data - NWC layout
    data = np.zeros((1, 200, 2), dtype=np.float32)
    for i in range(2):
        for k in range(2):
            x = 35 * i + 30 + 60 * k
            data[0, x:x + 30, k] = 1.0
    print("in shapes:", data.shape, kernel.shape)
    fig.draw("13_data_1d", lambda plt: plt.plot(data[0]), figsize=(10, 5))
    dn = lax.conv_dimension_numbers(data.shape, kernel.shape, ("NWC", "WIO", "NWC"))
    print(dn)
    out = lax.conv_general_dilated(data,    # lhs = image tensor
                                   kernel,  # rhs = conv kernel tensor
                                   (1,),    # window strides
                                   "SAME",  # padding mode
                                   (1,),    # lhs/image dilation
                                   (1,),    # rhs/kernel dilation
                                   dn)      # dimension_numbers
    print("out shape: ", out.shape)
    fig.draw("14_conv_1d", lambda plt: plt.plot(np.asarray(out)[0]), figsize=(10, 5))


def conv_3d(fig: Figures) -> None:
    print("\n== 3-d convolution: NHWDC data, HWDIO kernel")
    # Random 3D kernel - HWDIO layout
    kernel = tnp.array([
        [[0, 0, 0], [0, 1, 0], [0, 0, 0]],
        [[0, -1, 0], [-1, 0, -1], [0, -1, 0]],
        [[0, 0, 0], [0, 1, 0], [0, 0, 0]]],
        dtype=tnp.float32)[:, :, :, tnp.newaxis, tnp.newaxis]
    # 3D data - NHWDC layout
    data = tnp.zeros((1, 30, 30, 30, 1), dtype=tnp.float32)
    x, y, z = np.mgrid[0:1:30j, 0:1:30j, 0:1:30j].astype(np.float32)  # float32: typedax computes with x64 on
    data += (tnp.sin(2 * x * tnp.pi) * tnp.cos(2 * y * tnp.pi) * tnp.cos(2 * z * tnp.pi))[None, :, :, :, None]
    print("in shapes:", data.shape, kernel.shape)
    dn = lax.conv_dimension_numbers(data.shape, kernel.shape, ("NHWDC", "HWDIO", "NHWDC"))
    print(dn)
    out = lax.conv_general_dilated(data,       # lhs = image tensor
                                   kernel,     # rhs = conv kernel tensor
                                   (1, 1, 1),  # window strides
                                   "SAME",     # padding mode
                                   (1, 1, 1),  # lhs/image dilation
                                   (1, 1, 1),  # rhs/kernel dilation
                                   dn)         # dimension_numbers
    print("out shape: ", out.shape)

    def density(values: Array, title: str) -> Callable[[Any], None]:
        def cell(plt: Any) -> None:
            import matplotlib as mpl

            cmap = plt.cm.viridis
            colours = cmap(np.arange(cmap.N))
            colours[:, -1] = np.linspace(0, 1, cmap.N) ** 3  # transparent where low
            ax = plt.gcf().add_subplot(projection="3d")
            ax.scatter(x.ravel(), y.ravel(), z.ravel(), c=np.asarray(values).ravel(),
                       cmap=mpl.colors.ListedColormap(colours))
            ax.axis("off")
            ax.set_title(title)

        return cell

    fig.draw("15_input_3d", density(data, "input"))
    fig.draw("16_conv_3d", density(out, "3D conv output"))


def main(figures: bool = True, out_dir: Path = OUT_DIR) -> None:
    fig = Figures(out_dir if figures else None)
    smoothing_1d(fig)
    denoise_nd(fig)
    general_convolutions(fig)
    conv_1d(fig)
    conv_3d(fig)
    if fig.saved:
        print(f"\nsaved {len(fig.saved)} figures to {out_dir.resolve()}/")


if __name__ == "__main__":
    main(figures="--no-figures" not in sys.argv[1:])
