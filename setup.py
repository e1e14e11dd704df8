"""The optional C kernels (`hawks_deap/evaluation/_native.c`); the rest is pyproject.toml.

Optional: where no C compiler is found, the build warns and the package installs without
them (its numpy path gives the same values). No floating-point contraction: a fused
multiply-add would change the bits of the squared distances the overlap decides on.
"""

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext


class BuildExt(build_ext):
    """Each compiler's flag against contraction (MSVC's default /fp:precise has none)."""

    def build_extensions(self) -> None:
        """Add ``-ffp-contract=off`` for gcc and clang, then build (failures only warn)."""
        if self.compiler.compiler_type != "msvc":
            for ext in self.extensions:
                ext.extra_compile_args = [*ext.extra_compile_args, "-ffp-contract=off"]
        super().build_extensions()


setup(
    ext_modules=[Extension("hawks_deap.evaluation._native",
                           ["hawks_deap/evaluation/_native.c"], optional=True)],
    cmdclass={"build_ext": BuildExt},
)
